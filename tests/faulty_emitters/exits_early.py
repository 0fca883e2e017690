"""Writes two lines of a run, then exits with status 3 before its result line."""

import sys

from _common import golden_lines, say, write

write(*golden_lines()[:2])
say("giving up before the result, exit 3")
sys.exit(3)
