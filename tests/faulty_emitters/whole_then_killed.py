"""Writes the whole hello run (init to result, conformant), then kills itself with SIGKILL."""

import os
import signal
import time

from _common import golden_lines, say, write

write(*golden_lines())
say("wrote a whole run; about to die by SIGKILL")
os.kill(os.getpid(), signal.SIGKILL)
time.sleep(10)  # not reached
