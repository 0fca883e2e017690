"""Colours its stdout lines only when stderr is a terminal: ``milk … | jq`` typed in a shell.

Many colour libraries look at stderr (where a CLI's diagnostics go) to decide whether "the user
is at a terminal"; with stdout piped to jq, stderr is still the terminal, and the JSONL breaks.
Every pipe capture is clean, and so is a capture with stdout a terminal and stderr a pipe.
"""

import sys

from _common import golden_lines, write

colour = sys.stderr.isatty()
for line in golden_lines():
    write(b"\x1b[33m" + line[:-1] + b"\x1b[0m\n" if colour else line)
