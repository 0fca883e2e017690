"""A test double: the bundled reference emitter, except that result lines carry one more optional field.

Usage: add_result_field.py [milk arguments…]. Models a milk build that started emitting
``total_cost_usd`` (optional on result lines): re-recording must change exactly those lines.
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


output, status = _reference(sys.argv[1:])
for raw in output.splitlines():
    obj = json.loads(raw)
    if obj.get("type") == "result":
        obj["total_cost_usd"] = 0.0123
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
sys.stdout.flush()
sys.exit(status)
