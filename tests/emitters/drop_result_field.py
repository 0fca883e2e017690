"""A test double: the bundled reference emitter, except that result lines lose one field.

Usage: drop_result_field.py FIELD [milk arguments…]. Models a milk build that stopped emitting
a field: the suite must fail and name the field.
"""

from __future__ import annotations

import io
import json
import sys

from contract.reference import stream_json_emitter as reference


def _reference(argv: list[str]) -> tuple[bytes, int]:
    """The reference emitter's output and exit status, run in this process (one start-up, not two)."""
    captured = io.BytesIO()
    real, sys.stdout = sys.stdout, io.TextIOWrapper(captured, encoding="utf-8")
    try:
        status = reference.main(argv)
        sys.stdout.flush()
        return captured.getvalue(), status
    finally:
        sys.stdout = real


field = sys.argv[1]
output, status = _reference(sys.argv[2:])
for raw in output.splitlines():
    obj = json.loads(raw)
    if obj.get("type") == "result":
        obj.pop(field, None)
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
sys.exit(status)
