"""A consumer that reports the result's text as the first content block of the last assistant line.

The mistake behind "an unknown block breaks my text": it reads ``content[0]["text"]`` and so
reports the wrong text (or none) when a producer puts a block it does not know first.
"""

from __future__ import annotations

import json
import sys

text = None
for raw in sys.stdin.buffer:
    line = json.loads(raw)
    if line.get("type") == "assistant":
        text = line["message"]["content"][0].get("text")
sys.stdout.write(json.dumps({"text": text}) + "\n")
