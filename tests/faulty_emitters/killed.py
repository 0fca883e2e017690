"""Writes system/init, then kills itself with the signal named in argv[2] (KILL or SEGV)."""

import os
import resource
import signal
import sys
import time

from _common import golden_lines, say, write

resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a SIGSEGV must not leave a core file behind
write(golden_lines()[0])
name = sys.argv[2] if len(sys.argv) > 2 else "KILL"
say(f"about to die by SIG{name}")
os.kill(os.getpid(), getattr(signal, f"SIG{name}"))
time.sleep(10)  # not reached
