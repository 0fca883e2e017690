"""A consumer that exits 1 unless its stdin is a terminal, then reads it to the end (the --pty mode)."""

from __future__ import annotations

import sys

if not sys.stdin.isatty():
    sys.exit("stdin is not a terminal")
lines = sys.stdin.buffer.read().count(b"\n")
sys.stdout.write(f"{lines}\n")
