"""Colours its stdout lines only when stdin is a terminal ("interactive"), whatever stdout is.

An emitter that asks "is a user typing here?" (stdin a terminal) to decide on colour breaks
``milk … | jq`` typed in a shell, where stdin is the terminal and stdout the pipe. It never
reads stdin. Every capture with stdin /dev/null or a pipe is clean.
"""

import sys

from _common import golden_lines, write

colour = sys.stdin.isatty()
for line in golden_lines():
    write(b"\x1b[36m" + line[:-1] + b"\x1b[0m\n" if colour else line)
