"""Reads stdin with a fixed 64 KiB buffer and parses each read's lines on their own: no reassembly.

The bug of oven-sh/bun#21516 in a few lines: a line split across two reads (longer than the buffer,
or arriving in pieces) is two fragments, and parsing the first one fails. It reads the goldens,
written line by line, well; ``feed --transport`` finds it out.
"""

from __future__ import annotations

import json
import os

while chunk := os.read(0, 65536):
    for line in chunk.split(b"\n"):
        if line.strip():
            json.loads(line)
print("read")  # a consumer that says nothing is consumer.silent
