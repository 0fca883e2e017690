"""Colours its lines only when stdout is a terminal: every pipe capture is clean."""

import sys

from _common import golden_lines, write

colour = sys.stdout.isatty()
for line in golden_lines():
    write(b"\x1b[32m" + line[:-1] + b"\x1b[0m\n" if colour else line)
