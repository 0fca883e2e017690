"""Reads line by line and stops, exit 0, at the first line type it does not know: it reads the
goldens to their end, and leaves a future variant's rest unread (consumer.early-exit)."""

import json
import sys

KNOWN = {"system", "assistant", "user", "stream_event", "result"}
for raw in sys.stdin:
    if json.loads(raw).get("type") not in KNOWN:
        sys.exit(0)
print("read")  # a consumer that says nothing is consumer.silent
