"""A test double: the bundled reference emitter, except that result lines carry one more optional field.

Usage: add_result_field.py [milk arguments…]. Models a milk build that started emitting
``total_cost_usd`` (optional on result lines): re-recording must change exactly those lines.
"""

from __future__ import annotations

import json
import sys

from _in_process import reference_output

output, status = reference_output(sys.argv[1:])
for raw in output.splitlines():
    obj = json.loads(raw)
    if obj.get("type") == "result":
        obj["total_cost_usd"] = 0.0123
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
sys.stdout.flush()
sys.exit(status)
