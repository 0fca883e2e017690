"""A test double: the bundled reference emitter, except that result lines carry one more optional field.

Usage: add_result_field.py [milk arguments…]. Models a milk build that started emitting
``total_cost_usd`` (optional on result lines): re-recording must change exactly those lines.
"""

from __future__ import annotations

import json
import subprocess
import sys

done = subprocess.run([sys.executable, "-m", "contract.reference.stream_json_emitter", *sys.argv[1:]],
                      capture_output=True, check=False)
for raw in done.stdout.splitlines():
    obj = json.loads(raw)
    if obj.get("type") == "result":
        obj["total_cost_usd"] = 0.0123
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
sys.stdout.flush()
sys.exit(done.returncode)
