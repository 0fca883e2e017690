"""A plain Python emitter: ``print`` each line of a golden with a pause between, flushed or not.

argv[2] is the mode:

* ``plain``: print without flush (on a pipe, Python's stdout is block-buffered, so every line
  waits in the buffer until the exit: run.buffered);
* ``flush``: ``print(..., flush=True)``, each line goes out as it is printed (the conformant twin);
* ``busy``: as ``plain``, but CPU-busy for the pause instead of asleep (run.buffered: the lines are
  held back the same, though the emitter never sleeps);
* ``init``: the init line flushed, then the rest as ``plain`` (one flush after the handshake
  only, a common bug: run.buffered);
* ``late``: silent (asleep) for the pause, then every line at once, each flushed as it is
  written (made late, not held back: not run.buffered).

argv[3] the pause in seconds (default 0.2); argv[4] the golden (default max_turns, 7 lines).
Run these with PYTHONUNBUFFERED unset: it would make every mode flush.
"""

import sys
import time

from _common import golden_lines, say

mode = sys.argv[2]
pause = float(sys.argv[3]) if len(sys.argv) > 3 else 0.2
lines = golden_lines(sys.argv[4] if len(sys.argv) > 4 else "max_turns")
say(f"printing {len(lines)} lines {pause:g}s apart ({mode})")
if mode == "late":
    time.sleep(pause)
for index, line in enumerate(lines):
    if index and mode != "late":
        if mode == "busy":
            end = time.monotonic() + pause
            while time.monotonic() < end:
                pass
        else:
            time.sleep(pause)
    print(line.decode().rstrip("\n"), flush=mode in ("flush", "late") or (mode == "init" and not index))
