"""One SDK at two versions, as anthropics/claude-agent-sdk-python#599 told it: ``0.1`` raises on a line type
it does not know (a new line kind crashed it), ``0.2`` skips it. Usage: ``versioned_sdk.py VERSION``.

Each reads every line of the run on stdin, then prints the result's ``is_error`` and ``result``."""

from __future__ import annotations

import json
import sys

KNOWN = {"system", "stream_event", "assistant", "user", "result"}


def main() -> int:
    version = sys.argv[1] if len(sys.argv) > 1 else "0.2"
    result: dict[str, object] = {}
    for raw in sys.stdin:
        line = json.loads(raw)
        kind = line.get("type")
        if kind not in KNOWN:
            if version.startswith("0.1"):
                raise ValueError(f"Unknown message type: {kind}")
            continue
        if kind == "result":
            result = line
    print(json.dumps({"is_error": result.get("is_error"), "result": result.get("result")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
