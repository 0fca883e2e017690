"""A consumer that reads its input to the end and then never exits (consumer.hang)."""

from __future__ import annotations

import sys
import time

sys.stdin.buffer.read()
time.sleep(3600)
