"""Drops the second command of a single read: pipelined commands lose one answer."""

import sys

from _reads import serve_reads
from _reference import Host, Line


def on_batch(host: Host, batch: list[Line]) -> None:
    for index, command in enumerate(batch):
        if index != 1:
            host.on_command(command)


sys.exit(serve_reads(on_batch))
