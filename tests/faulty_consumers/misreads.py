"""A stream-json consumer that speaks the reading protocol and exits 0, wrong in one way (its argument).

Each fault is a misreading users met in this wire family (issue 49's scenarios); the consumer
reads the stream as a streaming UI does, its deltas into per-block buffers and the completed
assistant lines after them, and writes its reading to ``$MILK_CONTRACT_READING``. With no fault
(``none``) it is correct. ``milk-contract feed`` names each fault through the reading rules:

- ``duplicate``: a block's text is its deltas and then the completed block added to them
  (text duplicated when one message arrives as several frames; sesori-ai#1045): consumer.text-duplicated;
- ``overwrite``: one buffer for all the blocks of a message, so the thinking is overwritten by
  the next block (mobius-os#671): consumer.text-lost;
- ``empty``: the aggregated text of a streamed block is read from its deltas under a wrong key,
  so it is empty although its deltas streamed (openai/codex#10141): consumer.text-lost;
- ``usage``: the result's cumulative usage added to the per-model usage again
  (fullsend-ai/fullsend#6924): consumer.usage-summed;
- ``subtype``: a run read as failed only when its subtype starts with ``error``, trusting the
  subtype and not is_error (anthropics/claude-code#94741): consumer.ending-misread;
- ``interrupt``: a result with no ``result`` text (an interrupt) read as the last assistant text
  (anthropics/claude-code#94741): consumer.ending-misread;
- ``silent``: no reading; on a line type it does not know it falls through and prints nothing
  afterwards, though it reads on to the end (nkzw-tech/codiff#114): consumer.silent.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

KNOWN = {"system", "stream_event", "assistant", "user", "result"}


def main(fault: str) -> int:
    messages: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    entries: list[dict[str, Any]] = []
    ending: dict[str, Any] | None = None
    deltas: dict[int, str] = {}  # the current message's streamed text, by block index
    streamed = False
    fell_through = False
    last_text: str | None = None
    for number, raw in enumerate(sys.stdin.buffer, 1):
        line = json.loads(raw)
        kind = line.get("type")
        if kind not in KNOWN:
            fell_through = True
        entries.append({"line": number, "did": "event" if kind in KNOWN else "ignored"})
        if kind == "stream_event":
            event = line.get("event") or {}
            delta = event.get("delta") or {}
            key = "text" if fault == "empty" else delta.get("type")  # the fault: the wrong key
            piece = {"text_delta": delta.get("text"), "thinking_delta": delta.get("thinking")}.get(str(key), "")
            if event.get("type") == "content_block_delta":
                streamed = True
                deltas[event.get("index", 0)] = deltas.get(event.get("index", 0), "") + (piece or "")
        elif kind in ("assistant", "user"):
            message = line.get("message") or {}
            blocks: list[dict[str, Any]] = []
            shared = ""
            for index, block in enumerate(message.get("content") or []):
                btype = block.get("type")
                if btype in ("text", "thinking") and kind == "assistant":
                    text = block.get(btype, "")
                    if fault == "duplicate" and index in deltas:
                        text = deltas[index] + text  # the fault: the deltas and the completed block both kept
                    elif fault == "empty" and streamed:
                        text = deltas.get(index, "")  # the fault: the aggregate is the (empty) buffer
                    if btype == "text":
                        last_text = block.get("text")
                    shared = text
                    blocks.append({"type": btype, "text": text})
                elif btype == "tool_use":
                    calls.append({"id": block.get("id"), "name": block.get("name"), "input": block.get("input"),
                                  "result": None, "is_error": None})
                elif btype == "tool_result":
                    for call in calls:
                        if call["id"] == block.get("tool_use_id") and call["result"] is None:
                            call["result"] = block.get("content")
                            call["is_error"] = block.get("is_error")
                            break
            if fault == "overwrite":
                blocks = [{"type": b["type"], "text": shared} for b in blocks]  # the fault: one buffer
            if kind == "assistant":
                messages.append({"id": message.get("id"), "blocks": blocks})
                deltas, streamed = {}, False
        elif kind == "result":
            usage = line.get("usage")
            if fault == "usage" and isinstance(usage, dict):
                usage = dict(usage)
                for per_model in (line.get("model_usage") or {}).values():  # the fault: counted again
                    for name, count in per_model.items():
                        usage[name] = usage.get(name, 0) + count
            failed = line.get("is_error")
            if fault == "subtype":
                failed = str(line.get("subtype")).startswith("error")  # the fault: the subtype trusted
            result = line.get("result")
            if fault == "interrupt" and result is None:
                result = last_text  # the fault: no result text read as the last assistant text
            ending = {"failed": failed, "subtype": line.get("subtype"), "result": result, "usage": usage}
    if fault == "silent":
        if not fell_through:
            sys.stdout.write(json.dumps({"is_error": (ending or {}).get("failed")}) + "\n")
        return 0
    path = os.environ.get("MILK_CONTRACT_READING")
    if path:
        with open(path, "w", encoding="utf-8") as out:
            for entry in entries:
                out.write(json.dumps(entry) + "\n")
            out.write(json.dumps({"view": {"messages": messages, "tool_calls": calls, "ending": ending}}) + "\n")
    sys.stdout.write(json.dumps({"is_error": (ending or {}).get("failed")}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "none"))
