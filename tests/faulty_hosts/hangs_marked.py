"""Leaves a setsid grandchild (MARKER in its argv), answers everything, then hangs past end of input."""

import os
import sys
import time

from _reference import main

MARKER = sys.argv[1]
child = os.fork()
if child == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(120)", MARKER])
    os._exit(0)
os.waitpid(child, 0)
sys.argv[1:] = []
main()
time.sleep(120)
