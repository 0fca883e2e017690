"""Writes system/init, stalls argv[2] seconds with no result written, then the rest of a golden
(flushed, 30 ms apart): run.stall under a smaller --max-gap."""

import sys
import time

from _common import golden_lines, say, write

lines = golden_lines("max_turns")
write(lines[0])
say(f"stalling {sys.argv[2]}s after init")
time.sleep(float(sys.argv[2]))
for line in lines[1:]:
    write(line)
    time.sleep(0.03)
