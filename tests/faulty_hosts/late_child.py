"""Answers everything and exits 0, leaving a child that 50 ms later writes a line that is not
JSON (argv[1] ``line``) or closes stdout writing nothing (``close``), then exits."""

import os
import sys
import time

from _reference import main

what = sys.argv.pop(1)
status = main()
sys.stdout.flush()
if os.fork() == 0:
    time.sleep(0.05)
    if what == "line":
        os.write(1, b"written by a child after the host exited\n")
    os._exit(0)
sys.exit(status)
