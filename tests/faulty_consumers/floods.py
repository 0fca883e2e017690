"""A consumer that prints 2 MiB before its report (consumer.output: past the capture bound)."""

from __future__ import annotations

import sys

sys.stdin.buffer.read()
sys.stdout.write("x" * (2 * 1024 * 1024) + "\n")
