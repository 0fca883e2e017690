"""Treats each read() as whole lines: a command split across writes is lost.

A naive host loop, ``for line in os.read(0, 65536).splitlines(): handle(line)``: a read that ends
mid-line hands on a line's start, the next read its end, neither of them JSON; both are skipped
and the command is never answered. Commands written whole, one or several per write, are all
answered in order, so any client that writes whole lines in one write sees nothing wrong.
"""

import os
import sys

from _reference import Host, parse_command, script_from

server = Host(script_from(None), sys.stdout.buffer)
try:
    while chunk := os.read(0, 65536):
        for raw in chunk.split(b"\n"):
            if raw.strip() and (command := parse_command(raw + b"\n")) is not None:
                server.on_command(command)
except BrokenPipeError:  # the client went away
    pass
