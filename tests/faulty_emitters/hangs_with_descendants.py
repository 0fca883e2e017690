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

from _common import golden_lines, say, setsid_grandchild, sleeping_child, write

if sys.argv[3:4] == ["colour-only"] and not os.environ.get("FORCE_COLOR"):
    write(*golden_lines())
    sys.exit(0)
if sys.argv[3:4] != ["quiet"]:
    lines = golden_lines()
    write(lines[0], lines[1], lines[1])
sleeping_child()
setsid_grandchild(sys.argv[2])
say("hanging with a child and a setsid grandchild")
time.sleep(300)
