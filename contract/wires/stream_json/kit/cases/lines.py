"""The small conformant stream every stream-json case is made from, and the edits that break it.

``base()`` is five lines (system/init, a tool call, its result, the answer, result/success); each
case is that stream with one edit (``edit(setf(...))``, ``insert``, ``numbered``, ``stamps``...), so a
reviewer sees exactly what the near miss and the firing stream differ in. ``OK`` is its text.
"""

from __future__ import annotations

import json
from typing import Any

SJ = "stream-json"

S = "sess_01HZX3"


def line(seq: int, kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "session_id": S, "seq": seq, "ts": f"2026-03-01T10:00:{seq:02d}Z", **fields}


def usage(i: int, o: int) -> dict[str, int]:
    return {"input_tokens": i, "output_tokens": o, "cache_read": 0, "cache_creation": 0}


def base() -> list[dict[str, Any]]:
    return [
        line(
            0,
            "system",
            subtype="init",
            agent={"name": "milk", "provider": "anthropic", "model": "m-1"},
            capabilities=["stream_v1", "partial_messages_v1", "tasks_v1"],
            cwd="/work",
            tools=["Read"],
        ),
        line(
            1,
            "assistant",
            agent="primary",
            message={
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "tu_1", "name": "Read", "input": {"path": "a.txt"}}],
            },
        ),
        line(
            2,
            "user",
            agent="primary",
            message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "hello"}]},
        ),
        line(
            3,
            "assistant",
            agent="primary",
            message={"role": "assistant", "content": [{"type": "text", "text": "The file says hello."}]},
        ),
        line(
            4,
            "result",
            subtype="success",
            is_error=False,
            result="The file says hello.",
            num_turns=1,
            duration_ms=1200,
            usage=usage(10, 5),
            model_usage={"m-1": usage(10, 5)},
        ),
    ]


def edit(fn: Any) -> list[dict[str, Any]]:
    lines = base()
    fn(lines)
    return lines


def renumber(lines: list[dict[str, Any]]) -> None:
    for i, obj in enumerate(lines):
        obj["seq"] = i
        obj["ts"] = f"2026-03-01T10:00:{i:02d}Z"


def insert(at: int, obj: dict[str, Any]) -> Any:
    def fn(lines: list[dict[str, Any]]) -> None:
        lines.insert(at, obj)
        renumber(lines)

    return fn


def setf(index: int, pointer: str, value: Any) -> Any:
    def fn(lines: list[dict[str, Any]]) -> None:
        node: Any = lines[index]
        parts = pointer.strip("/").split("/")
        for part in parts[:-1]:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if value is DELETE:
            del node[parts[-1]]
        elif isinstance(node, list):
            node[int(parts[-1])] = value
        else:
            node[parts[-1]] = value

    return fn


DELETE = object()


def seqs(text: str, *written: str) -> str:
    """The base stream's text with seq 0, 1, 2, ... written as given (7.0, 5e0: numeric forms)."""
    for number, form in enumerate(written):
        text = text.replace(f'"seq":{number},', f'"seq":{form},', 1)
    return text


def numbered(*values: int) -> Any:
    """Set the seq of each line of the base stream, in order."""

    def fn(lines: list[dict[str, Any]]) -> None:
        for obj, value in zip(lines, values, strict=True):
            obj["seq"] = value

    return fn


def stamps(*values: str) -> Any:
    """Set the ts of the last len(values) lines of the base stream."""

    def fn(lines: list[dict[str, Any]]) -> None:
        for obj, value in zip(lines[-len(values):], values, strict=True):
            obj["ts"] = value

    return fn


def _nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


NESTED_900 = _nested(900)


def raw(lines: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(o, separators=(",", ":"), ensure_ascii=False) + "\n" for o in lines)


def last_line(text: str, change: Any) -> str:
    """``text`` (whole lines) with its last line changed by ``change``."""
    lines = text.splitlines()
    return "\n".join([*lines[:-1], change(lines[-1])]) + "\n"


def tool_args(fragments: list[str], final_input: Any) -> list[dict[str, Any]]:
    lines = base()
    deltas = [
        line(0, "stream_event", event={"type": "tool_args_delta", "tool_use_id": "tu_1", "partial_json": f})
        for f in fragments
    ]
    lines[1:1] = deltas
    lines[1 + len(deltas)]["message"]["content"][0]["input"] = final_input
    renumber(lines)
    return lines


def delta(ref: str, fragment: str) -> dict[str, Any]:
    return line(0, "stream_event", event={"type": "tool_args_delta", "tool_use_id": ref, "partial_json": fragment})


def dangling(fragments: list[str], *, result: dict[str, Any] | None = None, ended: bool = True) -> list[dict[str, Any]]:
    """The base stream with fragments for tu_9 (which no tool_use completes) before the result.

    ``result``: fields to set on the result line; ``ended=False`` drops the result (a truncated run).
    """
    lines = base()
    lines[-1:-1] = [delta("tu_9", f) for f in fragments]
    if result is not None:
        lines[-1].update(result)
    if not ended:
        lines.pop()
    renumber(lines)
    return lines


def after_tool_use(before: list[str], after: list[str]) -> list[dict[str, Any]]:
    """tu_1's fragments: ``before`` its tool_use (input {"path": "a.txt"}), ``after`` it."""
    lines = tool_args(before, {"path": "a.txt"}) if before else base()
    at = next(i for i, o in enumerate(lines) if o["type"] == "assistant") + 1
    lines[at:at] = [delta("tu_1", f) for f in after]
    renumber(lines)
    return lines


def minimal() -> list[dict[str, Any]]:
    """init and result only: no assistant or user line, no tool_use, no model_usage."""
    init, result = base()[0], base()[4]
    del result["model_usage"]
    result["seq"], result["ts"] = 1, "2026-03-01T10:00:01Z"
    return [init, result]


def without(name: str, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for obj in lines:
        obj.pop(name, None)
    return lines


OK = raw(base())  # the base stream's text
FIRST, REST = OK.split("\n", 1)  # its first line, and the lines after it
DEEP = "[" * 1100 + "]" * 1100  # an array nested past the reader's depth limit
