"""Writes a repeated line (an sj.seq-contiguous finding) and no result, then leaves a grandchild that calls
setsid (out of our process group) and keeps stdout open; its pid goes into the file argv[2].

argv[3] is ``exit`` (the emitter exits 0 at once) or ``hang`` (it sleeps too).
"""

import os
import sys
import time

from _common import MARKER, golden_lines, say, write

lines = golden_lines()
write(lines[0], lines[1], lines[1])  # seq repeats on line 3
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
for _ in range(400):  # until the grandchild is surely running (bounded: 20 s)
    if os.path.exists(sys.argv[2]):
        break
    time.sleep(0.05)
say("left a setsid grandchild holding stdout")
if sys.argv[3] == "hang":
    time.sleep(300)
