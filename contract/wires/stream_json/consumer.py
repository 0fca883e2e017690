"""A reference stream-json consumer: reads a run from stdin, prints what the result line says.

Run as ``python -m contract.reference.stream_json_consumer``. It is what the seed asks of a consumer
("open-set enums everywhere … consumers must ignore values they don't recognize"), in a few lines
an SDK author can port: every line is parsed on its own; a line type, subtype, block type or delta
type it does not know is skipped, and so is any member it does not read; it reads the result line's
``is_error`` (the boolean contract, whatever the subtype) and ``result`` text. At the end of its
input it prints one JSON line, ``{"is_error": …, "result": …, "text": …}`` (``text``: the
assistant text blocks joined), and exits 0; ``milk-contract feed`` judges it with
``--expect-json`` (docs/consumers.md). A stream with no result line (a truncated run) is reported
as ``"is_error": null`` and exit status 3: the run's outcome is unknown, which is not a success.

Only the standard library: the point is the reading, not a dependency.
"""

from __future__ import annotations

import json
import sys
from typing import Any

NO_RESULT = 3  # exit status for a run that never said how it ended


def read(lines: Any) -> dict[str, Any]:
    """What a run says: the result's is_error and text, and the assistant's text blocks."""
    seen: dict[str, Any] = {"is_error": None, "result": None, "text": ""}
    parts: list[str] = []
    for raw in lines:
        try:
            line = json.loads(raw)
        except ValueError:
            continue  # not this consumer's business to judge framing: milk-contract check does that
        if not isinstance(line, dict):
            continue
        kind = line.get("type")
        if kind == "assistant":
            message = line.get("message")
            content = message.get("content") if isinstance(message, dict) else None
            for block in content if isinstance(content, list) else ():
                if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                    parts.append(block["text"])
        elif kind == "result":
            # is_error is the contract; the subtype is an open set and may be one we do not know
            is_error = line.get("is_error")
            seen["is_error"] = is_error if isinstance(is_error, bool) else None
            result = line.get("result")
            seen["result"] = result if isinstance(result, str) else None
        # any other type (known or not) is ignored: "consumers must ignore values they don't recognize"
    seen["text"] = "\n".join(parts)
    return seen


def main() -> int:
    seen = read(sys.stdin.buffer)
    sys.stdout.write(json.dumps(seen, ensure_ascii=False) + "\n")
    return 0 if seen["is_error"] is not None else NO_RESULT


if __name__ == "__main__":
    sys.exit(main())
