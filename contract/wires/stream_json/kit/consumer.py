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

**The reference reading.** ``reading`` is the wire's one documented reading of a stream (the
stream-json descriptor's ``Wire.reading`` names it; docs/consumers.md, "The reading protocol"):
what a correct consumer makes of any stream, the expected view ``milk-contract feed`` judges a
consumer's reading against. Lines of the seed's five types are events, of another type ignored, and
so is every line after the first result (the run ended there). Messages are the completed assistant
lines' text and thinking blocks, an actor's (``parent_tool_use_id``'s) lines of one ``message.id``
in a row joined as one message's frames (``oneOf[2]``: "completed assistant message blocks"; the
``stream_event`` deltas before them are "partial deltas", previews of those blocks, which
``sj.delta-reassembly`` holds equal to them, so the completed block is the text, never the deltas
added to it); tool calls are the tool_use blocks with the first tool_result naming each; the ending
is the first result line's ``is_error``, ``subtype``, ``result`` and ``usage`` as written (the
usage is the run's, cumulative: never summed). With ``MILK_CONTRACT_READING`` set this consumer
writes that reading there (the protocol, its schema ``schemas/reading.schema.json``).

Only the standard library: the point is the reading, not a dependency.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from typing import Any

NO_RESULT = 3  # exit status for a run that never said how it ended
READING_VARIABLE = "MILK_CONTRACT_READING"  # the reading protocol's side channel: a file path
# What the seed says is_error is for each known result subtype ("true when the run failed
# (execution error, max turns, interruption)"; "a refusal … reports is_error false"). Unknown
# subtypes are not here: is_error, "the boolean contract", says how they ended.
KNOWN_SUBTYPES = {"success": False, "refused": False, "error_during_execution": True, "error_max_turns": True,
                  "interrupted": True}
# The seed's line types ("type": "line discriminator ... (open set: ignore unknown values)"): a line
# of one is an event of the protocol, read even when the view takes nothing from it; another is ignored.
KNOWN_TYPES = frozenset({"system", "stream_event", "assistant", "user", "result"})


def _blocks(line: dict[str, Any]) -> list[Any]:
    message = line.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def reading(lines: Iterable[bytes | str]) -> dict[str, Any]:
    """The reference reading of a stream: ``{"lines": [...], "view": {...}, "whole": bool}``.

    ``lines``: one entry per input line (``{"line": N, "did": "event" | "ignored" | "error"}``);
    ``view``: the assembled view of the protocol (messages, tool_calls, ending); ``whole``: the
    stream is a whole run (every line a JSON object, one result line, the last, its known subtype
    agreeing with is_error). The ending's ``failed`` is null when the run is not whole.
    """
    entries: list[dict[str, Any]] = []
    messages: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    by_id: dict[str, dict[str, Any]] = {}
    ending: dict[str, Any] | None = None
    whole = True
    results = 0
    number = 0
    current: dict[Any, dict[str, Any]] = {}  # each actor's (parent_tool_use_id's) message with an id, its last
    for number, raw in enumerate(lines, 1):
        try:
            line = json.loads(raw)
        except ValueError:
            line = None  # a banner or a line cut short: skipped, but the run is then not known whole
        if not isinstance(line, dict):
            whole = False
            entries.append({"line": number, "did": "error"})
            continue
        kind = line.get("type")
        if results:  # the result was not the last line: the run ended at it, this line is not the run's
            whole = False
            results += kind == "result"
            entries.append({"line": number, "did": "ignored"})
            continue
        entries.append({"line": number, "did": "event" if kind in KNOWN_TYPES else "ignored"})
        if kind in ("assistant", "user"):
            blocks = _content(line, kind, calls, by_id)
            if kind == "assistant":
                _frame(line, blocks, messages, current)
        elif kind == "result":
            results += 1
            ending, agrees = _ending(line)
            whole = whole and agrees
        # any other type (known or not) is ignored: "consumers must ignore values they don't recognize"
    if results != 1:
        whole = False
    if ending is not None and not whole:
        ending["failed"] = None
    return {"lines": entries, "view": {"messages": messages, "tool_calls": calls, "ending": ending},
            "whole": whole and number > 0}


def _frame(line: dict[str, Any], blocks: list[dict[str, Any]], messages: list[dict[str, Any]],
           current: dict[Any, dict[str, Any]]) -> None:
    """An assistant line: a new message, or a frame of its actor's message (the same message.id),
    whose blocks it adds to that message's, in order."""
    message = line.get("message")
    ref = message.get("id") if isinstance(message, dict) else None
    ref = ref if isinstance(ref, str) else None
    parent = line.get("parent_tool_use_id")
    actor = parent if parent is None or isinstance(parent, str) else json.dumps(parent, sort_keys=True)
    last = current.get(actor)
    if ref is not None and last is not None and last["id"] == ref:
        last["blocks"].extend(blocks)
        return
    entry = {"id": ref, "blocks": blocks}
    messages.append(entry)
    current[actor] = entry


def _content(line: dict[str, Any], kind: str, calls: list[dict[str, Any]],
             by_id: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """An assistant or user line's text and thinking blocks (assistant only); its tool_use blocks
    added to ``calls``, its tool_result blocks given to the calls they name (the first one each)."""
    blocks: list[dict[str, Any]] = []
    for block in _blocks(line):
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype in ("text", "thinking") and kind == "assistant" and isinstance(block.get(btype), str):
            blocks.append({"type": btype, "text": block[btype]})
        elif btype == "tool_use":
            ref = block.get("id")
            call = {"id": ref if isinstance(ref, str) else None,
                    "name": block.get("name") if isinstance(block.get("name"), str) else None,
                    "input": block.get("input"), "result": None, "is_error": None}
            calls.append(call)
            if isinstance(ref, str):
                by_id.setdefault(ref, call)
        elif btype == "tool_result":
            ref = block.get("tool_use_id")
            named = by_id.pop(ref, None) if isinstance(ref, str) else None
            if named is not None:  # the first result naming a call is its result
                named["result"] = block.get("content")
                error = block.get("is_error")
                named["is_error"] = error if isinstance(error, bool) else None
    return blocks


def _ending(line: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """A result line's ending, and whether its known subtype agrees with its is_error."""
    # is_error is the contract; the subtype is an open set and may be one we do not know
    is_error = line.get("is_error")
    subtype = line.get("subtype")
    said = KNOWN_SUBTYPES.get(subtype) if isinstance(subtype, str) else None
    agrees = said is None or not isinstance(is_error, bool) or said is is_error
    usage = line.get("usage")
    result = line.get("result")
    return {"failed": is_error if isinstance(is_error, bool) else None,
            "subtype": subtype if isinstance(subtype, str) else None,
            "result": result if isinstance(result, str) else None,
            "usage": usage if isinstance(usage, dict) else None}, agrees


def read(lines: Iterable[bytes | str]) -> dict[str, Any]:
    """What a run says: the result's is_error and text, and the assistant's text blocks (from its reading)."""
    return report(reading(lines))


def report(found: dict[str, Any]) -> dict[str, Any]:
    """The stdout report of a reading: ``{"is_error", "result", "text"}``."""
    ending = found["view"]["ending"] or {"failed": None, "result": None}
    text = [block["text"] for message in found["view"]["messages"] for block in message["blocks"]
            if block["type"] == "text"]
    return {"is_error": ending["failed"], "result": ending["result"], "text": "\n".join(text)}


def write_reading(found: dict[str, Any], path: str) -> None:
    """The reading protocol: one line per input line, then the view (docs/consumers.md)."""
    with open(path, "w", encoding="utf-8") as out:
        for entry in found["lines"]:
            out.write(json.dumps(entry) + "\n")
        out.write(json.dumps({"view": found["view"]}, ensure_ascii=False) + "\n")


def main() -> int:
    found = reading(sys.stdin.buffer)
    path = os.environ.get(READING_VARIABLE)
    if path:
        write_reading(found, path)
    seen = report(found)
    sys.stdout.write(json.dumps(seen, ensure_ascii=False) + "\n")
    return 0 if seen["is_error"] is not None else NO_RESULT


if __name__ == "__main__":
    sys.exit(main())
