"""A plain Python emitter: ``print`` each line of a golden with a pause between, flushed or not.

argv[2] is ``plain`` (print without flush: on a pipe, Python's stdout is block-buffered, so every
line waits in the buffer until the exit: run.buffered) or ``flush`` (``print(..., flush=True)``:
each line goes out as it is printed, the conformant twin); argv[3] the pause in seconds (default
0.2); argv[4] the golden (default max_turns, 7 lines).
"""

import sys
import time

from _common import golden_lines, say

mode = sys.argv[2]
pause = float(sys.argv[3]) if len(sys.argv) > 3 else 0.2
lines = golden_lines(sys.argv[4] if len(sys.argv) > 4 else "max_turns")
say(f"printing {len(lines)} lines {pause:g}s apart ({mode})")
for index, line in enumerate(lines):
    if index:
        time.sleep(pause)
    print(line.decode().rstrip("\n"), flush=mode == "flush")
