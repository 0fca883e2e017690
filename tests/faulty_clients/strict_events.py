"""A client that crashes on any line it did not ask for (an event) or any member it does not know."""

from __future__ import annotations

import json
import sys

KNOWN = {"version", "sessionId", "epoch", "revision", "available", "capabilities", "fleet", "runs", "omitted"}
NODE = {"key", "runId", "agent", "status", "startedAt", "updatedAt", "endedAt", "progress", "currentTool", "tokens",
        "processTerminal", "children", "omittedChildren", "outcome", "workflowId", "error", "reason", "activity"}

for number in range(1, 4):
    sys.stdout.write(json.dumps({"type": "subagent_status", "version": 1, "id": f"p{number}"}) + "\n")
    sys.stdout.flush()
    raw = sys.stdin.readline()
    if not raw:
        break
    line = json.loads(raw)
    if line["type"] != "response":
        sys.exit(f"unexpected {line['type']}")
    if set(line["data"]) - KNOWN:
        sys.exit("unknown member")
