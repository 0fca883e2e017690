"""Sits silent for argv[2] seconds before its first line, then writes a golden line by line (flushed,
30 ms apart, so nothing else about its timing is odd): run.first-line under a smaller threshold."""

import sys
import time

from _common import golden_lines, say, write

say(f"silent for {sys.argv[2]}s before the first line")
time.sleep(float(sys.argv[2]))
for line in golden_lines("max_turns"):
    write(line)
    time.sleep(0.03)
