"""Writes system/init, then hangs forever without writing its result (and a child hangs too)."""

import time

from _common import golden_lines, say, sleeping_child, write

write(golden_lines()[0])
sleeping_child()
say("wrote init, now hanging")
time.sleep(300)
