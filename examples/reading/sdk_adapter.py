"""Adapter example: a third-party SDK's parsed run, reported through milk-contract's reading protocol.

An SDK parses milk's stream-json into its own message objects; to let ``milk-contract feed`` judge
what the SDK understood (not only whether it survived), hand those objects to ``ReadingWriter``,
which writes the reading to ``$MILK_CONTRACT_READING`` (docs/consumers.md, "The reading protocol").
The adapter is the only new code: the SDK parses as it always does.

The "SDK" here is a stand-in with the shapes of claude-agent-sdk-python's types (``AssistantMessage``
with text, thinking and tool-use blocks, ``UserMessage`` with tool results, ``ResultMessage``) so that
the example runs with the standard library alone; with the real SDK, ``parse`` is its own parser.

    milk-contract feed -- python examples/reading/sdk_adapter.py
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any


# -- the SDK (a stand-in: replace with the SDK's own types and parser) ------------------------
@dataclass
class Block:
    type: str
    text: str | None = None
    id: str | None = None
    name: str | None = None
    input: Any = None
    content: Any = None
    is_error: bool | None = None
    tool_use_id: str | None = None


@dataclass
class AssistantMessage:
    id: str | None
    content: list[Block] = field(default_factory=list)


@dataclass
class UserMessage:
    content: list[Block] = field(default_factory=list)


@dataclass
class ResultMessage:
    subtype: str | None
    is_error: bool | None
    result: str | None
    usage: dict[str, Any] | None


def parse(lines: Iterable[bytes]) -> Iterator[tuple[int, object | None]]:
    """The SDK's parser: (line number, its message, or None for a line it skips)."""
    for number, raw in enumerate(lines, 1):
        line = json.loads(raw)
        kind = line.get("type")
        if kind in ("assistant", "user"):
            blocks = []
            for b in line["message"].get("content", []):
                text = b.get("text") if b.get("type") == "text" else b.get("thinking")
                blocks.append(Block(b.get("type"), text, b.get("id"), b.get("name"), b.get("input"), b.get("content"),
                                    b.get("is_error"), b.get("tool_use_id")))
            message: object = (AssistantMessage(line["message"].get("id"), blocks) if kind == "assistant"
                               else UserMessage(blocks))
            yield number, message
        elif kind == "result":
            yield number, ResultMessage(line.get("subtype"), line.get("is_error"), line.get("result"),
                                        line.get("usage"))
        else:
            yield number, None  # a line type the SDK does not read (or does not know): skipped


# -- the adapter: the SDK's objects as a reading ------------------------------------------------
class ReadingWriter:
    """Collects what the SDK made of a run and writes it as the reading protocol's JSON Lines."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self.messages: list[dict[str, Any]] = []
        self.calls: list[dict[str, Any]] = []
        self.waiting: dict[str, dict[str, Any]] = {}  # calls by id, until their first tool_result
        self.ending: dict[str, Any] | None = None

    def take(self, number: int, message: object | None) -> None:
        self.entries.append({"line": number, "did": "ignored" if message is None else "event"})
        if isinstance(message, AssistantMessage):
            blocks = [{"type": b.type, "text": b.text or ""} for b in message.content if b.type in ("text", "thinking")]
            self.messages.append({"id": message.id, "blocks": blocks})
            for b in message.content:
                if b.type == "tool_use":
                    call = {"id": b.id, "name": b.name, "input": b.input, "result": None, "is_error": None}
                    self.calls.append(call)
                    self.waiting.setdefault(b.id or "", call)
        elif isinstance(message, UserMessage):
            for b in message.content:
                call = self.waiting.pop(b.tool_use_id or "", None) if b.type == "tool_result" else None
                if call is not None:
                    call["result"] = b.content
                    call["is_error"] = b.is_error if isinstance(b.is_error, bool) else None
        elif isinstance(message, ResultMessage):
            self.ending = {"failed": message.is_error, "subtype": message.subtype, "result": message.result,
                           "usage": message.usage}

    def write(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as out:
            for entry in self.entries:
                out.write(json.dumps(entry) + "\n")
            view = {"messages": self.messages, "tool_calls": self.calls, "ending": self.ending}
            out.write(json.dumps({"view": view}) + "\n")


def main() -> int:
    writer = ReadingWriter()
    for number, message in parse(sys.stdin.buffer):
        writer.take(number, message)
    path = os.environ.get("MILK_CONTRACT_READING")
    if path:
        writer.write(path)
    print(json.dumps({"is_error": (writer.ending or {}).get("failed")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
