"""The line reader: bytes in (file, stdin, a pipe, an iterable of chunks), records out.

It splits on LF only (``str.splitlines`` would also split on U+2028 and friends inside JSON
strings), reads with ``readline(limit)`` so a single huge line never holds more than the limit
in memory, and reports every ``line.*`` rule through the collector. Each record carries the
1-based line number, the raw bytes and the parsed object (None when the line is unusable), so
the cross-line rules can still count a broken line as a line.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from contract.jsonline import parse
from contract.report import Collector

DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024

Source = bytes | bytearray | memoryview | BinaryIO | Iterable[bytes]


@dataclass(slots=True)
class Record:
    """One line: its 1-based number, its bytes, and its object (None when it did not parse)."""

    line: int
    raw: bytes
    obj: dict[str, Any] | None
    valid: bool = False  # set by the checker: the object passed the wire's schema


def as_stream(source: Source) -> BinaryIO:
    """Any accepted input as a readable binary stream (no copy of a file's contents)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return io.BytesIO(bytes(source))
    if hasattr(source, "readline"):
        return source  # type: ignore[return-value]
    return io.BufferedReader(_ChunkStream(iter(source)))  # type: ignore[arg-type]


class _ChunkStream(io.RawIOBase):
    """An iterable of byte chunks (for example lines with their LF) as a raw stream."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._pending:
            try:
                self._pending = bytes(next(self._chunks))
            except StopIteration:
                return 0
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size


def read_records(
    source: Source,
    out: Collector,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
) -> Iterator[Record]:
    """Yield one record per non-blank line, reporting framing faults as it goes."""
    stream = as_stream(source)
    readline = stream.readline
    emit = out.emit
    limit = max_line_bytes + 1  # room for the LF
    number = 0
    while True:
        raw = readline(limit)
        if not raw:
            break
        number += 1
        if raw[-1] != 0x0A:  # 0x0A is LF: either the last line lacks it, or the line is too long
            if len(raw) == limit:
                skipped = _skip_line(readline, limit)
                emit("line.limit", number, None,
                     f"expected a line of at most {max_line_bytes} bytes, found {len(raw) + skipped}",
                     "raise --max-line-bytes if such lines are legitimate")
                yield Record(number, b"", None)
                continue
            emit("line.newline", number, None,
                 "expected the stream to end with LF, found a last line without one "
                 "(a stream cut mid-line?)")
            body = raw
        else:
            body = raw[:-1]
        if body[-1:] == b"\r":
            emit("line.newline", number, None, "expected a line ending in LF alone, found CR LF",
                 "write \\n, not \\r\\n")
            body = body[:-1]
        if b"\r" in body:
            at = body.index(b"\r")
            emit("line.newline", number, None,
                 f"expected LF as the only line terminator, found a bare CR at byte {at}")
        value, faults = parse(body)
        for fault in faults:
            emit(fault.rule, number, fault.pointer, fault.message, fault.hint)
        if value is None:
            if faults and faults[0].rule == "line.blank":
                continue
            yield Record(number, raw, None)
            continue
        if type(value) is not dict:
            emit("line.object", number, "",
                 f"expected a JSON object, found {_kind(value)}")
            yield Record(number, raw, None)
            continue
        if b"\\u001" in body and (b"\\u001b" in body or b"\\u001B" in body):
            _decoded_escapes(value, number, out)
        yield Record(number, raw, value)


def _skip_line(readline: Any, limit: int) -> int:
    """Discard the rest of an over-long line, in bounded pieces; return how much was skipped."""
    skipped = 0
    while True:
        piece = readline(limit)
        skipped += len(piece)
        if not piece or piece[-1] == 0x0A:
            return skipped


# Fields the stream-json schema describes as free-form payloads: what a tool printed may hold
# terminal colour, and the contract confines such detail to these places.
FREE_FORM = frozenset(
    {"_meta", "extension", "task", "tool_use_result", "input", "content", "output_tokens_per_second",
     "total_cost_usd"}
)


def _decoded_escapes(value: dict[str, Any], number: int, out: Collector) -> None:
    from contract.jsonline import escape

    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, str):
            if "\x1b" in node:
                out.emit("line.ansi", number, where,
                         "expected no ANSI escapes in text, found ESC (\\u001b) in a decoded string",
                         "ANSI colour is only tolerated inside free-form payloads (_meta, extension, "
                         "tool input/result)")
        elif isinstance(node, dict):
            for key, child in node.items():
                # message.content is a list of blocks; a tool_result block's content is payload
                if key in FREE_FORM and not (key == "content" and "role" in node):
                    continue
                stack.append((f"{where}/{escape(key)}", child))
        elif isinstance(node, list):
            stack.extend((f"{where}/{i}", child) for i, child in enumerate(node))


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__
