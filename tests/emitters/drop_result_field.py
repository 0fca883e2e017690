"""A test double: the bundled reference emitter, except that result lines lose one field.

Usage: drop_result_field.py FIELD [milk arguments…]. Models a milk build that stopped emitting
a field: the suite must fail and name the field.
"""

from __future__ import annotations

import json
import subprocess
import sys

field = sys.argv[1]
done = subprocess.run([sys.executable, "-m", "contract.reference.stream_json_emitter", *sys.argv[2:]],
                      capture_output=True, check=False)
for raw in done.stdout.splitlines():
    obj = json.loads(raw)
    if obj.get("type") == "result":
        obj.pop(field, None)
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
sys.exit(done.returncode)
