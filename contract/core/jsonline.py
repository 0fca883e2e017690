"""Strict parsing of one JSONL line: exactly one RFC 8259 JSON text, judged as the wire demands.

Python's ``json`` keeps the last of duplicate keys and accepts NaN and Infinity; orjson
rejects NaN/Infinity, invalid UTF-8 and lone surrogates, but silently keeps the last duplicate
and turns integers beyond 64 bits into floats. So the fast path parses with orjson and
re-serialises: when the compact re-serialisation equals the input byte for byte, the input
held exactly the members that were parsed (no duplicates) and every number survived exactly.
So does an input that is the parsed value in another canonical spelling (``spelt``: Go's
escaped "<", ">" and "&", or Python's default ``json.dumps``, with ", " and ": "), and a block of
lines in one spelling is proven at once (``Spellings``; a block whose lines are orjson's text
but for spaces between tokens, wherever they are, is proven so too: ``unspaced``). Anything else
(other whitespace, escapes written differently, big integers, duplicates, numbers written as
``5e0`` or beyond double range) takes the exact path through ``json`` with hooks, which is
slower but only runs on unusual lines.

Numbers are read so that no verdict depends on float rounding (JSON Schema judges a number by
its value: ``7.0`` and ``5e0`` are integers, ``2.0000000000000001`` is not). A number written
as an integer is an ``int``; any other number is a ``float`` when the float holds its exact
value or cannot change a verdict (a non-integral float lies strictly between the same two
integers as the text, with the same sign), and a ``decimal.Decimal`` otherwise: beyond double
range (``1e400``), rounded to zero (``1e-400``) or rounded onto an integer
(``9007199254740991.0000001``). Consumers judge integers with ``exact_int``.

Nesting is measured without recursion, so the verdict never depends on the caller's stack:
a line ``MAX_DEPTH`` levels deep or less is parsed (with the recursion headroom it needs),
a deeper one is a ``line.limit``.
"""

from __future__ import annotations

import codecs
import json
import math
import re
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from itertools import accumulate, repeat
from operator import sub
from types import FrameType
from typing import Any, cast

import orjson

from contract.core.jsonvalue import clip, escape, same_value
from contract.core.textsafe import counted

BOM = b"\xef\xbb\xbf"
MAX_INT_DIGITS = 4300  # Python's own int/str conversion limit; longer numbers are a line.limit
QUOTED_LINE_BYTES = 80  # of a line that is not JSON, its finding quotes this much (and says what is left)
MAX_DEPTH = 1024  # orjson's nesting limit; deeper lines are a line.limit, never a RecursionError
# The catalog rules a Fault can name (the reader emits them; see contract.rules.catalog).
RULES = frozenset({"line.utf8", "line.blank", "line.json", "line.surrogate", "line.duplicate-key", "line.ansi",
                   "line.limit"})
# The rules that apply only where the wire's seed says "never any ANSI escapes" (``Wire.ansi``):
# ESC itself (line.ansi, written) and the C1 controls, ESC's one-character equivalents (derived).
ANSI_RULES = frozenset({"line.ansi", "line.c1"})
Number = int | float | Decimal


def exact_int(value: object, digits: int = MAX_INT_DIGITS) -> int | None:
    """The exact integer a JSON number stands for (``7.0`` and ``5E+0`` too), else None.

    None for a non-number, a boolean, a number whose exact value is not an integer, and an
    integer of more than ``digits`` digits (converting ``1e999999999`` would not terminate in
    bounded memory; the schemas' maxima reject such values anyway).
    """
    kind = type(value)
    if kind is int:  # the common case first: this runs for every integer a rule reads
        return cast(int, value)
    if kind is bool:
        return None
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, Decimal):
        if not value.is_finite() or value != value.to_integral_value() or value.adjusted() >= digits:
            return None
        return int(value)
    return None


@dataclass(frozen=True, slots=True)
class Fault:
    """A framing finding on one line: the rule, where in the line, what was found."""

    rule: str
    pointer: str | None
    message: str
    hint: str | None = None


class _Limit(Exception):
    pass


class _Constant(ValueError):
    """NaN, Infinity or -Infinity: Python's json reads them, RFC 8259 has no such numbers."""


def reject_constant(name: str) -> Any:
    """``parse_constant`` hook for ``json.loads``: strict RFC 8259 numbers only."""
    raise _Constant(f"{name} is not JSON")


def parse(body: bytes) -> tuple[Any, tuple[Fault, ...]]:
    """Parse one line (without its LF). Returns the value (None when unusable) and its faults."""
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        message = str(exc)
        if "infinity" in message:  # a float that overflows, or an integer orjson cannot hold
            return _exact(body)
        faults = _diagnose(body, message)
        if faults[-1].rule == "line.surrogate":
            return _lone_surrogate(body, faults)
        return None, faults
    try:
        written = orjson.dumps(value)
    except orjson.JSONEncodeError:  # orjson writes at most 254 levels deep but reads 1024
        return _exact(body)
    if written == body or spelt(body, value, written):
        # orjson writes a float of 1e16 or more as "1.5e+300" (and Python as "1.5e+300" too): such
        # a float is integral but may not be the number written (3.6845546438802145e+18 is not the
        # double's exact value), so those lines keep their numbers as written (``written_exactly``).
        return (value, ()) if b"e+" not in body else written_exactly(body)
    return _exact(body)


# Python's json.dumps with its default separators (", " and ": ") and ensure_ascii=False; a
# parser's value holds no cycle, so no check for one.
_SPACED = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode


def go_spelling(written: bytes) -> bytes:
    """orjson's text ``written`` as Go's encoding/json spells it: "<", ">" and "&" escaped
    (``\\u003c``, ``\\u003e``, ``\\u0026``). Those characters occur in a JSON text orjson writes only
    inside strings, so the result is a JSON text of the same value, with the same members."""
    return written.replace(b"&", b"\\u0026").replace(b"<", b"\\u003c").replace(b">", b"\\u003e")


def spaced_spelling(value: Any) -> bytes:
    """``value`` as Python's ``json.dumps(value, ensure_ascii=False)`` writes it, in UTF-8 (raises
    RecursionError for a value nested deeper than Python's encoder goes)."""
    return _SPACED(value).encode()


def unspaced(text: bytes) -> bytes:
    """A JSON text without its spaces (U+0020; one C-level pass).

    Used on a block's lines joined as one array, against orjson's compact text of their values:
    when the two are equal, the lines hold the very tokens of orjson's text (the block proof of
    the spaced spelling, ``Spellings``, without writing the block back with Python's encoder).
    Deleting spaces from a JSON text leaves a JSON text of the same tokens, in the same order:
    outside strings a space is whitespace between tokens, never inside a number or a literal, and
    two tokens always have a structural character between them (so none is joined to the next);
    inside a string it is a character (never part of an escape), so the string stays one string.
    Equal texts have equal tokens, so the lines and orjson's text have the same tokens: the
    same members in every object (a repeated member would have made the lines' text longer by
    a member than orjson's, which names each member of the value once) and every number written
    as orjson writes the parsed number (numbers hold no space), which is what ``spelt`` proves
    of a line in a canonical spelling. Tabs and other whitespace are kept, so they differ."""
    return text.translate(None, b" ")


def spelt(body: bytes, value: Any, written: bytes) -> bool:
    """Whether ``body``, which orjson read as ``value`` and writes back as ``written``, is
    ``value`` in another canonical spelling: Go's (``go_spelling``) or Python's default
    (``spaced_spelling``). Such a text is a serialisation of the parsed value, so it names each
    member once (a dict's keys are distinct, and distinct strings are written distinctly) and
    every number is written as the parsed number is (an integer in full, a float as the shortest
    text that reads back as that float): the strict parse reads it as orjson did, but for the
    floats written with "e+" (``written_exactly``). A spelling that cannot be written says no."""
    if b"\\u00" in body and go_spelling(written) == body:
        return True
    if b": " in body or b", " in body:
        try:
            return spaced_spelling(value) == body
        except (RecursionError, ValueError, TypeError):
            return False
    return False


class Spellings:
    """Which lines of a block are proven read as written by orjson (``unproven``), a block at a
    time: the block's lines, as one array, written back in one spelling (orjson's compact text,
    or ``go_spelling`` of it) equal to the lines joined by that spelling's separator, inside
    brackets. Each line was read alone, so each is a JSON text, as is each line's spelling: the
    array text has one parse, so the two texts are equal exactly when each line is its own
    spelling. The spaced spelling (Python's default, ", " and ": ") is proven without writing
    the block back: the lines' array and orjson's compact text are equal without their spaces
    (``unspaced``: then they hold the same tokens, so no repeated member and every number as
    orjson writes it). The spelling that proved the last block is tried first; a block none
    proves is proven line by line (``spelt``)."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last = COMPACT

    def unproven(self, bodies: list[bytes], values: list[Any]) -> list[int]:
        """The offsets of the lines that are no canonical spelling of their values (``spelt``)."""
        first = bodies[0]
        order = [self._last, *(s for s in (COMPACT, GO, SPACED) if s != self._last)]
        for spelling in order:
            if spelling == SPACED and self._last != SPACED and not (b'": ' in first or b'", ' in first):
                continue  # no line of Python's spelling in sight: not worth writing the block
            try:
                if _spelt_whole(spelling, bodies, values):
                    self._last = spelling
                    return []
            except (orjson.JSONEncodeError, RecursionError, ValueError, TypeError):
                break  # a line too deep to write: each line alone
        dumps = orjson.dumps
        left = []
        for offset, body in enumerate(bodies):
            try:
                written = dumps(values[offset])
            except orjson.JSONEncodeError:
                left.append(offset)
                continue
            if written != body and not spelt(body, values[offset], written):
                left.append(offset)
        return left


COMPACT, GO, SPACED = 0, 1, 2


def _spelt_whole(spelling: int, bodies: list[bytes], values: list[Any]) -> bool:
    text = b"[" + b",".join(bodies) + b"]"
    if spelling == SPACED:
        return unspaced(text) == unspaced(orjson.dumps(values))
    if spelling == GO:
        return b"\\u00" in text and go_spelling(orjson.dumps(values)) == text
    return orjson.dumps(values) == text


def written_exactly(body: bytes) -> tuple[Any, tuple[Fault, ...]]:
    """The strict parse of a line known to be a canonical spelling of its value (``spelt``, or
    orjson's own text): no duplicate member, no NaN, every integer short, so only its floats
    need the strict reading (``number``: a Decimal where the float is integral but not the
    number written); the same value as ``_exact``'s, read by ``json`` without a Python hook per
    object. A line deeper than the caller's recursion allows takes ``_exact`` (its headroom)."""
    try:
        return json.loads(body, parse_float=number), ()
    except (RecursionError, _Limit, ValueError):
        return _exact(body)


def strict(body: bytes) -> tuple[Any, tuple[Fault, ...]]:
    """The exact path alone, for a line orjson reads (``parse`` of such a line takes it unless a
    fast path proves it would say the same): what the fast paths are held to
    (tests/core/test_spellings.py)."""
    return _exact(body)


def _exact(body: bytes) -> tuple[Any, tuple[Fault, ...]]:
    """The slow, exact path: duplicate members, big integers, numbers kept as written."""
    duplicates: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(items)
        if len(obj) != len(items):
            seen: set[str] = set()
            for k, _ in items:  # every sighting of a name after its first
                if k in seen:
                    duplicates.append(k)
                else:
                    seen.add(k)
        return obj

    def integer(text: str) -> int:
        if len(text) > MAX_INT_DIGITS:
            raise _Limit(f"an integer of {counted(len(text), 'digit')} (the checker reads at most {MAX_INT_DIGITS})")
        return int(text)

    depth = nesting(body)
    if depth > MAX_DEPTH:
        return None, (Fault("line.limit", None,
                            f"nesting deeper than {MAX_DEPTH} levels (the checker's limit), found {depth}"),)
    try:
        value = _loads_with_headroom(body, depth, pairs, integer)
    except _Limit as exc:
        return None, (Fault("line.limit", None, str(exc)),)
    except RecursionError:
        return None, (Fault("line.limit", None, "nesting too deep for the exact parser"),)
    except ValueError as exc:  # orjson accepted it, so this should not happen
        return None, (Fault("line.json", None, f"not strict JSON: {exc}"),)
    if duplicates:
        name = duplicates[0]
        where = _first_holder(value, name)
        more = f" (and {len(duplicates) - 1} more)" if len(duplicates) > 1 else ""
        return value, (
            Fault(
                "line.duplicate-key",
                where,
                f'expected unique member names, found "{clip(name)}" repeated{more}',
                "parsers disagree on which duplicate wins; emit each member once",
            ),
        )
    return value, ()


class Ambiguous:
    """A member repeated with different values: which one a reader keeps is unpredictable (RFC 8259
    §4), so no rule reads it (``top_members``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "AMBIGUOUS"


AMBIGUOUS = Ambiguous()


def top_members(body: bytes, names: tuple[str, ...]) -> dict[str, Any]:
    """Of a line whose outermost value is an object (one with a repeated member name: the line is
    opaque), the members ``names`` as every reading of the repeats agrees: a member present once,
    or repeated with one value, is that value; one repeated with different values is
    ``AMBIGUOUS``; an absent one is absent.

    For the rules about a line's place in the run (``sj.init-first``, ``sj.result-once``,
    ``sj.result-last``): a repeated member elsewhere in the line (``extension``, a payload) leaves
    its type as readable as any other line's. Only opaque lines take this second parse.
    """
    outermost: list[list[tuple[str, Any]]] = [[]]

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        outermost[0] = items  # the outermost object closes last, so its pairs come last
        return dict(items)

    _loads_with_headroom(body, nesting(body), pairs, int)
    found: dict[str, Any] = {}
    for name, value in outermost[0]:
        if name not in names:
            continue
        if name in found and (found[name] is AMBIGUOUS or not same_value(found[name], value)):
            found[name] = AMBIGUOUS
        else:
            found.setdefault(name, value)
    return found


def first_wins(body: bytes) -> Any:
    """The other reading of a line with a repeated member name: each name's first value kept
    (``parse`` keeps the last, as Python's json, orjson and JavaScript's JSON.parse do). Only a
    line ``parse`` read with a ``line.duplicate-key`` fault takes this second parse."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for name, value in items:
            obj.setdefault(name, value)
        return obj

    return _loads_with_headroom(body, nesting(body), pairs, int)


_LONE = re.compile("[\ud800-\udfff]")


def _lone_surrogate(body: bytes, faults: tuple[Fault, ...]) -> tuple[Any, tuple[Fault, ...]]:
    """A line orjson refused only for a lone surrogate escape: RFC 8259 §8.2 admits it in the
    grammar, so the line is read (exactly, by ``json``) and stays a JSON text. Its fault is
    ``line.surrogate`` (policy), at the first string or member name holding one; anything else
    wrong with the line is the exact parse's finding alone."""
    value, more = _exact(body)
    if value is None:
        return None, more
    where = next((pointer for pointer, node in walk(value)
                  if (isinstance(node, str) and _LONE.search(node))
                  or (isinstance(node, dict) and any(_LONE.search(name) for name in node))), None)
    found = tuple(fault if fault.rule != "line.surrogate" else Fault(fault.rule, where, fault.message, fault.hint)
                  for fault in faults)
    return value, (*found, *more)


def number(text: str) -> float | Decimal:
    """``parse_float`` hook: a float where it is exact or cannot change a verdict, else a Decimal."""
    value = float(text)
    if value in (math.inf, -math.inf) or value.is_integer():  # is_integer() is True for 0.0
        try:
            exact = Decimal(text)
        except InvalidOperation:  # an exponent beyond any decimal's (1e followed by 50,000 nines)
            raise _Limit(f"a number whose exponent the checker cannot hold: {clip(text)}") from None
        return value if exact == value else exact  # Decimal == float compares exact values
    return value


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_SIGNS = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")


def nesting(body: bytes) -> int:
    """How deeply the arrays and objects of one JSON text nest, without recursion.

    Strings are removed first (their brackets are text); what remains is counted in C-level
    passes, so even a 64 MiB line is measured in seconds, never with a recursion.
    """
    skeleton = _STRING.sub(b"", body).translate(None, _NOT_BRACKETS)
    opens = skeleton.count(b"[") + skeleton.count(b"{")
    if opens <= 1:
        return opens
    # +1 per opening bracket, -1 per closing one: the highest running sum is the depth
    depth: int = max(accumulate(map(sub, skeleton.translate(_SIGNS), repeat(1))))
    return depth


_HEADROOM = threading.Lock()


def _loads_with_headroom(body: bytes, depth: int, pairs: Any, integer: Any) -> Any:
    """``json.loads`` with enough recursion limit for ``depth``, whatever the caller's stack.

    Python's json decoder spends a recursion level per nesting level, counted against the
    interpreter-wide limit from wherever the caller stands. A shallow line needs no change; a
    deep one raises the limit for the parse (under a lock, so two threads never restore each
    other's limit early). ``depth`` is at most ``MAX_DEPTH``, so the C stack stays small.
    """

    def loads() -> Any:
        return json.loads(body, object_pairs_hook=pairs, parse_int=integer, parse_float=number,
                          parse_constant=reject_constant)

    if depth <= 32:
        try:
            return loads()
        except RecursionError:  # a caller already near the limit: take the headroom path
            pass
    with _HEADROOM:
        frames = _stack_depth()
        before = sys.getrecursionlimit()
        sys.setrecursionlimit(max(before, frames + 2 * depth + 200))
        try:
            return loads()
        finally:
            sys.setrecursionlimit(before)


def _stack_depth() -> int:
    frame: FrameType | None = sys._getframe()
    count = 0
    while frame is not None:
        count += 1
        frame = frame.f_back  # None past the outermost frame: it ends the loop
    return count


def _diagnose(body: bytes, orjson_message: str) -> tuple[Fault, ...]:
    """Say why a line failed to parse, in the catalog's terms."""
    if not body.strip(b" \t\r\n\f\v"):
        return (Fault("line.blank", None, "expected one JSON object, found an empty line"),)
    faults: list[Fault] = []
    if body.startswith(BOM):
        faults.append(Fault("line.utf8", None, "expected UTF-8 without a byte order mark, found a BOM",
                            "write UTF-8 without BOM"))
        return tuple(faults)
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as exc:
        found = body[exc.start : exc.start + 4].hex(" ")
        faults.append(Fault("line.utf8", None,
                            f"expected valid UTF-8, found invalid bytes {found} at byte {exc.start}"))
        return tuple(faults)
    if b"\x1b" in body:
        at = body.index(b"\x1b")
        # line.ansi applies as the wire's descriptor says (Wire.ansi): the reader drops this
        # fault on a wire it does not apply to (under --wire auto, once the wire is decided).
        faults.append(Fault("line.ansi", None,
                            f"expected no ANSI escapes, found a raw ESC byte at byte {at}",
                            "strip terminal colouring from machine-readable output"))
        if "control character" in orjson_message:  # a raw control byte in a string: not JSON either
            faults.append(Fault("line.json", None,
                                f"expected strict JSON, found a raw control character (ESC) at byte {at} "
                                "inside a string (RFC 8259 §7: escape it)"))
            return tuple(faults)
    if "depth limit" in orjson_message:
        faults.append(Fault("line.limit", None,
                            f"nesting deeper than {MAX_DEPTH} levels (the checker's limit)"))
    elif "surrogate" in orjson_message:  # RFC 8259 §8.2 admits it: policy, and the line is still JSON
        faults.append(Fault("line.surrogate", None,
                            "expected Unicode text, found a lone surrogate escape (RFC 8259 §8.2: software "
                            "behaviour on it is unpredictable; it cannot be encoded in UTF-8)",
                            "escape a code point above U+FFFF as a surrogate pair, never one half alone"))
    else:
        faults.append(Fault("line.json", None, f"expected one strict JSON text, found {quoted_start(body)}: "
                                               f"{_why(body, orjson_message)}"))
    return tuple(faults)


def quoted_start(body: bytes) -> str:
    """The start of a line, in double quotes, for a message: at most ``QUOTED_LINE_BYTES`` bytes
    (cut before a character the bound would split) and how many bytes more the line holds.

    The text is the line's own (decoded, invalid bytes as U+FFFD): the reporter that prints the
    message escapes it (``contract.core.textsafe``), once, as it does every input-derived string.
    """
    head = body[:QUOTED_LINE_BYTES]
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    text = decoder.decode(head, final=len(body) <= QUOTED_LINE_BYTES)
    shown = len(head) - len(decoder.getstate()[0])  # the bytes of a split character are not shown
    more = len(body) - shown
    return f'"{text}"' + (f"…({more} more bytes)" if more else "")


def _why(body: bytes, orjson_message: str) -> str:
    if b"NaN" in body or b"Infinity" in body:
        try:
            json.loads(body, parse_constant=reject_constant)
        except _Constant as exc:
            return f"{exc} (RFC 8259 has no NaN or Infinity)"
        except (ValueError, RecursionError):
            pass
    return orjson_message


def _first_holder(value: Any, name: str) -> str | None:
    """JSON pointer of the first object (depth first) that has member ``name``."""
    for pointer, node in walk(value):
        if isinstance(node, dict) and name in node:
            return pointer
    return None


def walk(value: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    """Every node of a parsed value with its JSON pointer, iteratively (no recursion limit)."""
    stack: list[tuple[str, Any]] = [(pointer, value)]
    while stack:
        where, node = stack.pop()
        yield where, node
        if isinstance(node, dict):
            stack.extend((f"{where}/{escape(k)}", v) for k, v in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((f"{where}/{i}", v) for i, v in reversed(list(enumerate(node))))

