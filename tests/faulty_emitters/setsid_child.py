"""Writes a repeated line (an sj.seq-contiguous finding) and no result, then leaves a grandchild that calls
setsid (out of our process group) and keeps stdout open; its pid goes into the file argv[2].

argv[3] is ``exit`` (the emitter exits 0 at once) or ``hang`` (it sleeps too).
"""

import sys
import time

from _common import golden_lines, say, setsid_grandchild, write

lines = golden_lines()
write(lines[0], lines[1], lines[1])  # seq repeats on line 3
setsid_grandchild(sys.argv[2], wait=True)  # until it is surely running
say("left a setsid grandchild holding stdout")
if sys.argv[3] == "hang":
    time.sleep(300)
