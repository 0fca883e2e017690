"""Writes three lines (seq repeats on line 3: an sj.seq finding), starts a child that sleeps (in its
process group) and a grandchild that calls setsid (out of it), then hangs; nothing writes a result.

For the real-signal tests: the pid of the setsid grandchild goes into the file argv[2] once both
descendants run, so a test knows when to send its signal and can read the run's token from the
grandchild's environment. With argv[3] ``quiet`` nothing is written on stdout (a subagent host
that never answers, for ``fuzz``). With argv[3] ``colour-only`` it hangs only when FORCE_COLOR is
set (a provoked environment) and otherwise writes the whole hello run and exits 0.
"""

import os
import sys
import time

from _common import MARKER, golden_lines, say, sleeping_child, write

if sys.argv[3:4] == ["colour-only"] and not os.environ.get("FORCE_COLOR"):
    write(*golden_lines())
    sys.exit(0)
if sys.argv[3:4] != ["quiet"]:
    lines = golden_lines()
    write(lines[0], lines[1], lines[1])
sleeping_child()
child = os.fork()
if child == 0:
    os.setsid()
    if os.fork() == 0:
        with open(sys.argv[2] + ".tmp", "w") as pidfile:
            pidfile.write(str(os.getpid()))
        os.rename(sys.argv[2] + ".tmp", sys.argv[2])
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(120)", MARKER])
    os._exit(0)  # the grandchild is orphaned at once
os.waitpid(child, 0)
say("hanging with a child and a setsid grandchild")
time.sleep(300)
