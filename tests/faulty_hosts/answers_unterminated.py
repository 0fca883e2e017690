"""Answers the first command with a response that never ends (no LF), then hangs: it never answered.

The bytes reach the driver only when the host is killed at the deadline; they are not a line,
so no response came (it was worded "found it 19.99 s after", as if late: issue 51).
"""

import json
import sys
import time

command = json.loads(sys.stdin.buffer.readline())
sys.stdout.write(json.dumps({"type": "response", "command": "subagent_status", "id": command.get("id"),
                             "success": True}))
sys.stdout.flush()
time.sleep(120)
