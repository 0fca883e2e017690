"""Answers everything, then ignores end of input and hangs, with a child process of its own.

It writes the child's pid on stderr (``child <pid>``) so a test can check that the driver
killed the whole process group, not only the host.
"""

import subprocess
import sys
import time

from _reference import main

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
sys.stderr.write(f"child {child.pid}\n")
sys.stderr.flush()
main()
time.sleep(120)
