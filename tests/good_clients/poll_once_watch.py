"""A client that polls once, then watches: it reads what the host sends until the host ends, exit 0."""

import json
import sys

sys.stdout.write(json.dumps({"type": "subagent_status", "version": 1, "id": "watch"}) + "\n")
sys.stdout.flush()
seen = sum(1 for _ in sys.stdin)  # responses and events alike, until the host's output ends
sys.stderr.write(f"poll_once_watch: {seen} lines, the host ended\n")
