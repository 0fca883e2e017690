"""Answers the commands of a single read last first: a pipelined burst is answered out of order."""

import sys

from _reads import serve_reads
from _reference import Host, Line


def on_batch(host: Host, batch: list[Line]) -> None:
    for command in reversed(batch):
        host.on_command(command)


sys.exit(serve_reads(on_batch))
