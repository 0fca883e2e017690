"""A whole conformant run, then closes stdout and keeps running (never exits by itself)."""

import os
import sys
import time

from _common import golden_lines, say, write

write(*golden_lines())
sys.stdout.flush()
os.close(1)
say("closed stdout, still running")
time.sleep(300)
