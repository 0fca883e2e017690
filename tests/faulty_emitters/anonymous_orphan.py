"""Writes the whole hello run, then leaves a grandchild that calls setsid (out of our group and
session), clears its environment (so it carries no run token) and lets go of stdout and stderr;
its pid goes into the file argv[2]. The emitter then exits 0: the run as such is conformant.
"""

import os
import sys
import time

from _common import MARKER, golden_lines, say, write

write(*golden_lines())
child = os.fork()
if child == 0:
    os.setsid()
    if os.fork() == 0:
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        with open(sys.argv[2] + ".tmp", "w") as pidfile:
            pidfile.write(str(os.getpid()))
        os.rename(sys.argv[2] + ".tmp", sys.argv[2])
        os.execve(sys.executable, [sys.executable, "-c", "import time; time.sleep(120)", MARKER], {})
    os._exit(0)  # the grandchild is orphaned at once
os.waitpid(child, 0)
for _ in range(400):  # until the grandchild is surely running (bounded: 20 s)
    if os.path.exists(sys.argv[2]):
        break
    time.sleep(0.05)
time.sleep(0.1)  # past its exec
say("left a setsid grandchild with no environment")
