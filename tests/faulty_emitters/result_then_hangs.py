"""Writes a whole conformant run, result line included and flushed, then never exits (stdout still
open): run.exit-after-result, killed at the exit grace (milk's public issue: the result written and
the process never ending)."""

import time

from _common import golden_lines, say, write

write(*golden_lines())
say("wrote the result, now never exiting")
time.sleep(300)
