"""Writes the whole hello run, then leaves a grandchild that calls setsid (out of our group and
session), clears its environment (so it carries no run token) and lets go of stdout and stderr;
its pid goes into the file argv[2]. The emitter then exits 0: the run as such is conformant.
"""

import sys
import time

from _common import golden_lines, say, setsid_grandchild, write

write(*golden_lines())
setsid_grandchild(sys.argv[2], clear_env=True, let_go=True, wait=True)
time.sleep(0.1)  # past its exec
say("left a setsid grandchild with no environment")
