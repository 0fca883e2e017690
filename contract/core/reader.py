"""The line reader: bytes in (file, stdin, a pipe, an iterable of chunks), records out.

It splits on LF only (``str.splitlines`` would also split on U+2028 and friends inside JSON
strings), reads with ``readline(limit)`` so a single huge line never holds more than the limit
in memory, and reports every ``line.*`` rule through the collector. Each record carries the
1-based line number, the raw bytes and the parsed object (None when the line is unusable), so
the cross-line rules can still count a broken line as a line.
"""

from __future__ import annotations

import io
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, BinaryIO, NamedTuple, Protocol, cast

from contract.core import jsonline
from contract.core.jsonline import Fault, parse
from contract.core.jsonvalue import escape, kind, same_value
from contract.core.sink import Sink

DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024
# The catalog rules the reader emits: its own framing checks and every parse fault.
RULES = jsonline.RULES | {"line.newline", "line.object", "line.ansi", "line.c1", "line.limit"}

# The members of an opaque object line that the rules about a line's place read (``Record.head``).
HEAD_MEMBERS = ("type", "subtype")


class Lines(Protocol):
    """A source read by lines alone, ``readline(limit)``: the live harness's bounded pipe is one."""

    def readline(self, size: int = -1, /) -> bytes: ...


Source = bytes | bytearray | memoryview | BinaryIO | Lines | Iterable[bytes]


@dataclass(slots=True)
class Record:
    """One line: its 1-based number, its bytes, and its object (None when it did not parse)."""

    line: int
    raw: bytes
    obj: dict[str, Any] | None
    valid: bool = False  # set by the checker: the object passed the wire's schema
    # A line that is a JSON object made opaque by a policy fault (a repeated member name): its
    # "type" and "subtype" as every reading agrees (``jsonline.top_members``), for the rules about
    # a line's place in the run; None for every other line.
    head: dict[str, Any] | None = None
    # A line with a member name repeated with different values: its first-wins reading (``obj``
    # is the last-wins one), which the schema step judges too; None for every other line.
    other: dict[str, Any] | None = None
    # An opaque object line the schema still judges (``_readings``): each (how it was read, the
    # value); empty for every other line.
    readings: tuple[tuple[str, dict[str, Any]], ...] = ()


def as_stream(source: Source) -> BinaryIO:
    """Any accepted input as a readable binary stream (no copy of a file's contents)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return io.BytesIO(bytes(source))
    if hasattr(source, "readline"):
        return cast(BinaryIO, source)
    return io.BufferedReader(_ChunkStream(iter(source)))


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
    out: Sink,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    parse_line: Parser | None = None,
    escapes: bool = True,
    ansi: bool = True,
) -> Iterator[Record]:
    """Yield one record per non-blank line, reporting framing faults as it goes.

    A line is judged only when the previous record has been consumed, so a consumer that
    reports as it goes (the checker) reports line by line, whatever the block size.
    ``parse_line(body, number)`` replaces the strict parse; it must return the same value.
    ``escapes`` False skips the decoded-ESC check (for a reader whose ``line.*`` findings are
    reported elsewhere).
    ``ansi`` says whether ``line.ansi`` applies: the wire's ``Wire.ansi`` (True, judging, when not
    given: fail closed). Under ``--wire auto`` the reader judges it and its findings are held until
    the wire is decided, then kept as that wire says (``contract.checking.deciding.Deciding``).
    """
    stream = as_stream(source)
    pieces = blocks(stream, max_line_bytes) if hasattr(stream, "read1") else _single_lines(stream, max_line_bytes)
    number = 0
    for block in pieces:
        yield from frame(block, number, out, max_line_bytes, parse_line, escapes, ansi)
        number += len(block.bodies) or 1


# Bytes read at a time from a file or a buffer. Lines are split from each block by C code
# (``bytes.split``), and the block-wide searches for CR and for an escaped ESC spare the
# per-line ones: both are rare, so most blocks skip those checks for all their lines.
# The first SMALL_BLOCKS blocks are BLOCK_BYTES: the first block is judged line by line by design
# (a fault there names its line), so a small file keeps most of its lines on the block path; the
# rest are LARGE_BLOCK_BYTES, which halves what every block pays once (its proof's set-up, the
# schema's call, the facts' fold) on a long capture: 5 to 15 % of the check's CPU in process
# (BENCHMARKS.md, issue 34's fourth round), for about one MiB more peak memory. Both processes of a
# two-process check read the same span, so they cut it into the same blocks.
BLOCK_BYTES = 32 * 1024
LARGE_BLOCK_BYTES = 128 * 1024
SMALL_BLOCKS = 8

Parser = Callable[[bytes, int], tuple[Any, tuple[Fault, ...]]]


class Block(NamedTuple):
    """One block's complete lines (without their LF) and what the block may hold."""

    bodies: list[bytes]
    unterminated: bool  # the last body ended the stream without an LF
    may_cr: bool
    may_esc: bool
    overlong: int = 0  # when set, the block is one line too long to hold: its length in bytes
    # "e+": a float orjson would write back as "1.5e+300" may be integral without being the number
    # written (contract.core.jsonline), so such a block takes the exact parse, never a C-level shortcut
    may_exp: bool = False


def frame(block: Block, number: int, out: Sink, max_line_bytes: int,
          parse_line: Parser | None, escapes: bool = True, ansi: bool = True) -> Iterator[Record]:
    """Judge the framing of one block's lines and parse them, one record at a time."""
    emit = out.emit
    if block.overlong:
        _too_long(number + 1, block.overlong, max_line_bytes, out)
        yield Record(number + 1, b"", None)
        return
    last = len(block.bodies) - 1
    for index, raw in enumerate(block.bodies):
        number += 1
        if len(raw) > max_line_bytes:
            _too_long(number, len(raw) + (index < last or not block.unterminated), max_line_bytes, out)
            yield Record(number, b"", None)
            continue
        if index == last and block.unterminated:
            emit("line.newline", number, None,
                 "expected the stream to end with LF, found a last line without one "
                 "(a stream cut mid-line?)")
        body = raw
        if block.may_cr and b"\r" in body:
            if body[-1:] == b"\r":
                emit("line.newline", number, None, "expected a line ending in LF alone, found CR LF",
                     "write \\n, not \\r\\n")
                body = body[:-1]
            if b"\r" in body:
                at = body.index(b"\r")
                emit("line.newline", number, None,
                     f"expected LF as the only line terminator, found a bare CR at byte {at}")
        value, faults = parse(body) if parse_line is None else parse_line(body, number)
        for fault in faults:
            if ansi or fault.rule not in jsonline.ANSI_RULES:
                emit(fault.rule, number, fault.pointer, fault.message, fault.hint)
        if value is None:
            if faults and faults[0].rule == "line.blank":
                continue
            if not faults and body.strip(b" \t") == b"null":  # JSON null: parsed, so no fault yet
                emit("line.object", number, "", "expected a JSON object, found null")
            yield Record(number, raw, None)
            continue
        if type(value) is not dict:
            emit("line.object", number, "",
                 f"expected a JSON object, found {kind(value)}")
            yield Record(number, raw, None)
            continue
        other = None
        if faults:
            opaque, other = _repeated(body, value, faults)
            if opaque is not None:
                yield Record(number, raw, None, head=opaque, readings=_readings(body, value, faults))
                continue
        if (block.may_esc and escapes and ansi
                and ((b"\\u001" in body and (b"\\u001b" in body or b"\\u001B" in body)) or may_c1(body))):
            _decoded_escapes(value, number, out)
        yield Record(number, raw, value, other=other)


def _repeated(body: bytes, value: dict[str, Any],
              faults: tuple[Fault, ...]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """Of an object line with a parse fault: its head when it is opaque (else None), and its
    first-wins reading where that differs from ``value``, the last-wins one (else None).

    A lone surrogate (which the checker cannot carry as Unicode text), or a type or subtype
    repeated with two values: the line is opaque, judged by no schema or content rule. It still
    takes its place in the run (a record without an object), and it is still an object: its type,
    where every reading agrees, says what place it takes. A repeated member name elsewhere: the
    line is judged like any other, by its last-wins reading (Python's json, orjson, JavaScript's
    JSON.parse), and the schema judges its first-wins reading too where the two differ, so that a
    policy finding (line.duplicate-key) never hides what either reading breaks (fail closed: under
    --basis written a schema break beside a repeated name was conformant).
    """
    head = jsonline.top_members(body, HEAD_MEMBERS)
    if any(f.rule != "line.duplicate-key" for f in faults) or jsonline.AMBIGUOUS in head.values():
        return head, None
    first = jsonline.first_wins(body)
    return None, None if same_value(first, value) else first


LAST = "in the reading that keeps a repeated member's last value"
FIRST = "in the reading that keeps a repeated member's first value"
REPLACED = "with each lone surrogate read as U+FFFD"
_LONE = re.compile("[\ud800-\udfff]")  # in decoded text a pair is one code point: any left is lone


def _readings(body: bytes, value: dict[str, Any],
              faults: tuple[Fault, ...]) -> tuple[tuple[str, dict[str, Any]], ...]:
    """What the schema judges of an opaque object line: every reading of it (fail closed).

    Its machines cannot place it (a type read two ways, a text the checker does not carry), but
    whatever reading a consumer makes of it is a JSON object the schema can judge, so a break in
    any of them is found under every ``--basis`` (an independent reading of RFC 8259 from the seeds
    found a type repeated with two values hiding a schema break under ``--basis written``). Both
    readings of repeated names, and a lone surrogate read as U+FFFD (the replacement a decoder
    writes: one code point for one, so lengths and every pattern the seeds use judge alike).
    """
    if any(f.rule not in ("line.duplicate-key", "line.surrogate") for f in faults):
        return ()  # nothing else leaves an object to judge
    found: list[tuple[str, dict[str, Any]]] = []
    repeated = any(f.rule == "line.duplicate-key" for f in faults)
    for how, reading in ((LAST, value), (FIRST, jsonline.first_wins(body))) if repeated else (("", value),):
        if any(f.rule == "line.surrogate" for f in faults):
            reading, how = _replaced(reading), f"{how}, {REPLACED}" if how else REPLACED
        if type(reading) is dict and all(not same_value(reading, other) for _, other in found):
            found.append((how, reading))
    return tuple(found)


def _replaced(value: Any) -> Any:
    """``value`` with each lone surrogate in its texts (member names too) read as U+FFFD: a copy,
    walked without recursion (a line may nest as deep as the parser reads)."""
    root: list[Any] = [value]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    while stack:
        holder, key = stack.pop()
        item = holder[key]
        if type(item) is str:
            holder[key] = _LONE.sub("\ufffd", item)
        elif type(item) is dict:
            holder[key] = copied = {_LONE.sub("\ufffd", k): v for k, v in item.items()}
            stack.extend((copied, k) for k in copied)
        elif type(item) is list:
            holder[key] = copied_list = list(item)
            stack.extend((copied_list, i) for i in range(len(copied_list)))
    return root[0]


def _too_long(number: int, found: int, max_line_bytes: int, out: Sink) -> None:
    out.emit("line.limit", number, None,
             f"expected a line of at most {max_line_bytes} bytes, found {found}",
             "raise --max-line-bytes if such lines are legitimate")


class Piece:
    """A block of whole lines not yet split (``blocks``' ``lazy``): ``block()`` is the very
    ``Block`` the eager split gives, built on demand; its line count and length are cheap."""

    __slots__ = ("_data", "_head", "_made")

    def __init__(self, head: bytes | None, data: bytes) -> None:
        self._head = head  # a line begun in an earlier read, completed at the start of data
        self._data = data  # the read after that line, up to and including its last LF, and beyond
        self._made: Block | None = None

    def block(self) -> Block:
        if self._made is None:
            data, head = self._data, self._head
            bodies = data.split(b"\n")
            bodies.pop()  # what follows the last LF: the next block's
            may_cr, may_esc = b"\r" in data, may_escape(data)
            if head is not None:
                bodies.insert(0, head)
                may_cr, may_esc = may_cr or b"\r" in head, may_esc or may_escape(head)
            may_exp = may_exponent(data) or (head is not None and may_exponent(head))
            self._made = Block(bodies, False, may_cr, may_esc, 0, may_exp)
        return self._made

    def size(self) -> tuple[int, int]:
        """The block's line count and the length of its lines (LFs not counted)."""
        data, head = self._data, self._head
        lines = data.count(b"\n")
        length = data.rfind(b"\n") + 1 - lines
        if head is not None:
            lines, length = lines + 1, length + len(head)
        return lines, length


def size(block: Block) -> tuple[int, int]:
    """``Piece.size`` of a block already split."""
    return len(block.bodies), sum(map(len, block.bodies))


def blocks(stream: Any, max_line_bytes: int, lazy: Callable[[int], bool] | None = None) -> Iterator[Any]:
    """Split a buffered stream into blocks of whole lines, in bounded memory.

    Public with ``frame`` (which judges and parses one block): the two-process checker frames
    the same blocks itself.

    A line longer than ``max_line_bytes`` is counted, not kept: once the unfinished line
    passes the limit its bytes are skipped up to the next LF.

    ``lazy(index)``: whether the block of that index (0, 1, ... in the order given) comes as a
    ``Piece``, unsplit, instead of a ``Block`` (the two-process checker's, for the blocks the
    other process proves). Each index is the same block either way.
    """
    for index, block in enumerate(_pieces(stream, max_line_bytes)):
        if type(block) is Piece and (lazy is None or not lazy(index)):
            yield block.block()
        else:
            yield block


def _pieces(stream: Any, max_line_bytes: int) -> Iterator[Block | Piece]:
    read = stream.read1
    pending: list[bytes] = []  # the start of a line that continues in the next block
    pending_bytes = 0
    skipped = -1  # >= 0 while skipping an over-long line: its bytes so far
    reads = 0
    while True:
        data = read(BLOCK_BYTES if reads < SMALL_BLOCKS else LARGE_BLOCK_BYTES)
        reads += 1
        if not data:
            break
        head: bytes | None = None
        if pending or skipped >= 0:
            at = data.find(b"\n")
            if at < 0:
                if skipped >= 0:
                    skipped += len(data)
                else:
                    pending.append(data)
                    pending_bytes += len(data)
                    if pending_bytes > max_line_bytes:
                        skipped, pending, pending_bytes = pending_bytes, [], 0
                continue
            if skipped >= 0:
                yield Block([], False, False, False, skipped + at + 1)
                skipped = -1
            else:
                pending.append(data[:at])
                head = b"".join(pending)
                pending, pending_bytes = [], 0
            data = data[at + 1 :]
        cut = data.rfind(b"\n") + 1
        rest = data[cut:]
        if rest:
            if len(rest) > max_line_bytes:
                skipped = len(rest)
            else:
                pending, pending_bytes = [rest], len(rest)
        if head is not None or cut:
            yield Piece(head, data)
    if skipped >= 0:
        yield Block([], False, False, False, skipped)
    elif pending:
        tail = b"".join(pending)
        yield Block([tail], True, b"\r" in tail, may_escape(tail), 0, may_exponent(tail))


# A block's searches run on every block, so each is a C-level pass: one-byte needles go at memchr
# speed, longer ones about thirty times slower. So the rare first byte of "e+" ("+") and the
# common prefix of the escaped controls ("\u00") are looked for first, and the exact needles
# only in a block that holds them: the same answers, in a fraction of the time on most blocks.


def may_escape(data: bytes) -> bool:
    """Whether ``data`` may hold an escaped ESC or C1 control, or a raw C1 (no false negative).

    Only those are judged (``frame``: ``line.ansi``); another escaped control (``\\u0010``, text
    a generator or a tool's output may hold) leaves the block to the C-level proof."""
    return _ESCAPED.search(data) is not None or (b"\xc2" in data and _C1_RAW.search(data) is not None)


def may_exponent(data: bytes) -> bool:
    """Whether ``data`` may hold a number written with "e+" (``Block.may_exp``): a digit, "e+", a
    digit, as orjson writes one (``1.5e+300``). "e+" in text (``line+=1`` in a tool's code) is no
    such number when no digit is on both sides; where one is, the block takes the exact path."""
    return b"+" in data and next(_exponents(data), -1) >= 0


def exponent_lines(bodies: list[bytes]) -> list[int]:
    """The offsets of the lines that ``may_exponent`` says yes of (a digit, "e+", a digit), found
    in the lines joined by LF (``_exponents``; no LF is a digit, so none spans two lines)."""
    text = b"\n".join(bodies)
    found = _exponents(text)
    at = next(found, -1)
    if at < 0:
        return []
    ends = list(accumulate(map((1).__add__, map(len, bodies))))  # each line's end, its LF included
    lines = {bisect_right(ends, at)}
    lines.update(bisect_right(ends, at) for at in found)
    return sorted(lines)


def _exponents(text: bytes) -> Iterator[int]:
    """Where in ``text`` a "+" has "e" and a digit before it and a digit after it.

    "+" is rare in most blocks and a one-byte needle, so its occurrences are found at memchr
    speed and looked at one by one; after ``_FEW_PLUS`` of them (a text full of "+") the rest is
    searched for "e+" (a two-byte needle, slower) and, from the first, by ``_EXPONENT``, in C."""
    find, end = text.find, len(text) - 1
    at = find(b"+")
    for _ in range(_FEW_PLUS):
        if at < 0:
            return
        if 2 <= at < end and text[at - 1] == 0x65 and text[at - 2] in _DIGITS and text[at + 1] in _DIGITS:
            yield at
        at = find(b"+", at + 1)
    at = find(b"e+", max(at - 1, 0)) if at >= 0 else -1  # the "+" at ``at``: the next not looked at
    if at >= 0:  # the rest by the pattern, in C, from the first "e+" left
        yield from (match.start() + 2 for match in _EXPONENT.finditer(text, max(at - 1, 0)))


_FEW_PLUS = 256  # a block of stamps with a +05:30 offset has one a line


_DIGITS = frozenset(b"0123456789")


def _single_lines(stream: Any, max_line_bytes: int) -> Iterator[Block]:
    """A stream with only ``readline`` (a live pipe): one line at a time, as it arrives."""
    readline = stream.readline
    limit = max_line_bytes + 1  # room for the LF
    while True:
        raw = readline(limit)
        if not raw:
            break
        if raw[-1] == 0x0A:  # 0x0A is LF
            yield Block([raw[:-1]], False, True, True)
        elif len(raw) == limit:
            yield Block([], False, False, False, len(raw) + _skip_line(readline, limit))
        else:
            yield Block([raw], True, True, True)


def _skip_line(readline: Any, limit: int) -> int:
    """Discard the rest of an over-long line, in bounded pieces; return how much was skipped."""
    skipped = 0
    while True:
        piece = readline(limit)
        skipped += len(piece)
        if not piece or piece[-1] == 0x0A:
            return skipped


# C1 controls, U+0080 to U+009F: ECMA-48 §5.3 codes each C1 control function either as one 8-bit
# character or, in 7-bit form, as the escape sequence ESC Fe (CSI U+009B is ESC [, OSC U+009D is
# ESC ]). "never any ANSI escapes" forbids every ESC, so every ESC Fe, so the same control function
# in its one-character coding too (issue 23; docs/rules.md). They reach a line raw (UTF-8 C2 80 to
# C2 9F, valid JSON: RFC 8259 §7 asks only U+0000 to U+001F to be escaped) or as \u0080..\u009f.
_C1_RAW = re.compile(rb"\xc2[\x80-\x9f]")
_EXPONENT = re.compile(rb"[0-9]e\+[0-9]")
# An escaped ESC or C1 control (may_escape): one search, whose literal prefix the regex engine
# scans for at twice the speed of ``in`` for the four bytes alone.
_ESCAPED = re.compile(rb"\\u00(?:1[bB]|[89])")
_ANSI_TEXT = re.compile("[\x1b\x80-\x9f]")
_ESC_TEXT = re.compile("\x1b")
_C1_TEXT = re.compile("[\x80-\x9f]")
_C1_NAMES = {0x9B: "CSI", 0x9D: "OSC", 0x90: "DCS", 0x98: "SOS", 0x9C: "ST", 0x9E: "PM", 0x9F: "APC"}


def may_c1(data: bytes) -> bool:
    """Whether ``data`` may hold a C1 control, raw or escaped (C-level searches; no false negative)."""
    return b"\\u008" in data or b"\\u009" in data or (b"\xc2" in data and _C1_RAW.search(data) is not None)


def _c1(text: str) -> str:
    """Which C1 control a decoded string holds (its first one), and ECMA-48's 7-bit form of it."""
    match = _C1_TEXT.search(text)
    code = ord(match.group()) if match else 0x9B
    name = _C1_NAMES.get(code, "a C1 control")
    return f"{name} (U+{code:04X}, ECMA-48's one-character form of ESC {chr(code - 0x40)})"


def _escapes_in(text: str, where: str, number: int, out: Sink, what: str) -> None:
    """line.ansi for ESC (the escape character itself, written) and line.c1 for a C1 control (the
    same control functions in one character, by ECMA-48 §5.3: derived) in one decoded string."""
    if _ESC_TEXT.search(text):
        out.emit("line.ansi", number, where, f"expected no ANSI escapes, found ESC (U+001B) in {what}",
                 "the seed says never any ANSI escapes, free-form payloads included: strip terminal "
                 "colour from what tools print before writing it")
    if _C1_TEXT.search(text):
        out.emit("line.c1", number, where, f"expected no C1 control, found {_c1(text)} in {what}",
                 "a C1 control is an ANSI escape in one character (ECMA-48); in text it is often Latin-1 "
                 "mis-decoding")


def _decoded_escapes(value: dict[str, Any], number: int, out: Sink) -> None:
    """line.ansi (ESC) and line.c1 (a C1 control) in any decoded string or member name of a
    stream-json line.

    "never any ANSI escapes" has no written exception: free-form payloads (tool_use.input,
    tool_result content, tool_use_result, task, extension, _meta) are scanned like the rest.
    """
    search = _ANSI_TEXT.search
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, str):
            if search(node):
                _escapes_in(node, where, number, out, "a decoded string")
        elif isinstance(node, dict):
            for key, child in node.items():
                if search(key):  # a member name is text too (a model_usage key, say)
                    _escapes_in(key, f"{where}/{escape(key)}", number, out, "a member name")
                stack.append((f"{where}/{escape(key)}", child))
        elif isinstance(node, list):
            stack.extend((f"{where}/{i}", child) for i, child in enumerate(node))


