"""A test double: the bundled reference emitter, except that result lines lose one field.

Usage: drop_result_field.py FIELD [milk arguments…]. Models a milk build that stopped emitting
a field: the suite must fail and name the field.
"""

from __future__ import annotations

import json
import sys

from _in_process import reference_output

field = sys.argv[1]
output, status = reference_output(sys.argv[2:])
for raw in output.splitlines():
    obj = json.loads(raw)
    if obj.get("type") == "result":
        obj.pop(field, None)
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
sys.exit(status)
