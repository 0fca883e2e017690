"""A test double: the bundled reference emitter, except that result lines carry one field renamed.

Usage: rename_result_field.py OLD NEW [milk arguments…]. Models a milk build that follows an ADR
renaming a result member: re-recorded after the ADR's accepted break, the change is accepted.
"""

from __future__ import annotations

import json
import sys

from _in_process import reference_output

old, new = sys.argv[1], sys.argv[2]
output, status = reference_output(sys.argv[3:])
for raw in output.splitlines():
    obj = json.loads(raw)
    if obj.get("type") == "result" and old in obj:
        obj = {(new if key == old else key): value for key, value in obj.items()}
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
sys.exit(status)
