"""Colours its lines only when FORCE_COLOR is set (as many CI systems set it), terminal or not."""

import os

from _common import golden_lines, write

colour = os.environ.get("FORCE_COLOR", "") not in ("", "0")
for line in golden_lines():
    write(b"\x1b[1m" + line[:-1] + b"\x1b[0m\n" if colour else line)
