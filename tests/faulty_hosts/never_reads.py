"""Never reads its stdin and never exits by itself: commands pile up unread in the pipe."""

import sys
import time

sys.stderr.write("faulty-host never_reads: not reading stdin\n")
sys.stderr.flush()
time.sleep(300)
