"""Serving a host read by read (``os.read``), for faults that depend on how commands arrive.

The reference host iterates stdin line by line, so it cannot tell which commands came in one
read. These faulty hosts need to: they see each read's complete lines as one batch, and a
line split across reads is kept until its end arrives.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from _reference import Host, Line, parse_command, script_from


def serve_reads(on_batch: Callable[[Host, list[Line]], None], host: type[Host] = Host) -> int:
    """Run ``host`` on stdin, handing each read's complete commands to ``on_batch`` together."""
    server = host(script_from(None), sys.stdout.buffer)
    pending = b""
    try:
        while chunk := os.read(0, 65536):
            pending += chunk
            *whole, pending = pending.split(b"\n")
            batch = [c for raw in whole if (c := parse_command(raw + b"\n")) is not None]
            if batch:
                on_batch(server, batch)
    except BrokenPipeError:  # the client went away
        return 0
    return 0
