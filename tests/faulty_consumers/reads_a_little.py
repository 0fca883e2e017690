"""Reads at most 100 bytes of the stream (part of its first line), then exits 0: the rest is left unread.

The case of ``consumer.early-exit``: its exit status 0 says nothing of how it reads the lines it
never read (a consumer that stops early, at the init say, and calls that success). One
``os.read``, not a buffered readline, so how much it takes does not depend on how many lines
have arrived when it starts.
"""

from __future__ import annotations

import os
import sys

os.read(0, 100)
sys.stderr.write("faulty-consumer reads_a_little: 100 bytes read, done\n")
