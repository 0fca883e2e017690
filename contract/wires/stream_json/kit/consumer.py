"""A reference stream-json consumer: reads a run from stdin, prints what the result line says.

Run as ``python -m contract.reference.stream_json_consumer``. It is what the seed asks of a consumer
("open-set enums everywhere … consumers must ignore values they don't recognize"), in a few lines
an SDK author can port: every line is parsed on its own; a line type, subtype, block type or delta
type it does not know is skipped, and so is any member it does not read; it reads the result line's
``is_error`` (the boolean contract, whatever the subtype) and ``result`` text. At the end of its
input it prints one JSON line, ``{"is_error": …, "result": …, "text": …}`` (``text``: the
assistant text blocks joined), and exits 0; ``milk-contract feed`` judges it with
``--expect-json`` (docs/consumers.md). A stream that is not a whole run is reported as
``"is_error": null`` and exit status 3: the run's outcome is unknown, which is not a success
(``feed --broken``, consumer.dishonest). That is a stream with no result line (a truncated run),
a line after the result (it was not the last), a line that is not a JSON object (a banner, a
line cut short), or a result whose known subtype contradicts its is_error (``success`` with
``true``, ``error_during_execution`` with ``false``); an unknown subtype is the open set, and
is_error is then believed.

Only the standard library: the point is the reading, not a dependency.
"""

from __future__ import annotations

import json
import sys
from typing import Any

NO_RESULT = 3  # exit status for a run that never said how it ended
# What the seed says is_error is for each known result subtype ("true when the run failed
# (execution error, max turns, interruption)"; "a refusal … reports is_error false"). Unknown
# subtypes are not here: is_error, "the boolean contract", says how they ended.
KNOWN_SUBTYPES = {"success": False, "refused": False, "error_during_execution": True, "error_max_turns": True,
                  "interrupted": True}


def read(lines: Any) -> dict[str, Any]:
    """What a run says: the result's is_error and text, and the assistant's text blocks."""
    seen: dict[str, Any] = {"is_error": None, "result": None, "text": ""}
    parts: list[str] = []
    whole = True  # every line a JSON object, nothing after the result: else the ending is not known
    ended = False
    for raw in lines:
        try:
            line = json.loads(raw)
        except ValueError:
            line = None  # a banner or a line cut short: skipped, but the run is then not known whole
        if not isinstance(line, dict):
            whole = False
            continue
        if ended:
            whole = False  # the result was not the last line
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
            subtype = line.get("subtype")
            said = KNOWN_SUBTYPES.get(subtype) if isinstance(subtype, str) else None
            if said is not None and seen["is_error"] is not None and said is not seen["is_error"]:
                whole = False  # a known subtype and is_error disagree: which one is wrong is not known
            ended = True
        # any other type (known or not) is ignored: "consumers must ignore values they don't recognize"
    seen["text"] = "\n".join(parts)
    if not whole:
        seen["is_error"] = None
    return seen


def main() -> int:
    seen = read(sys.stdin.buffer)
    sys.stdout.write(json.dumps(seen, ensure_ascii=False) + "\n")
    return 0 if seen["is_error"] is not None else NO_RESULT


if __name__ == "__main__":
    sys.exit(main())
