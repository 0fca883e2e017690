"""The parse's fast paths say what the strict parse says, on hostile lines (issue 34).

``contract.core.jsonline.parse`` reads a line with orjson and keeps orjson's value only when the
line is a canonical spelling of it (orjson's compact text, Go's escapes of it, Python's default
``json.dumps``: ``spelt``), reading its "e+" numbers as written (``written_exactly``); a block of
lines is proven at once (``Spellings``). Admitting a line the strict parse would report is the
worst bug the checker can have (a false "conformant"), so every fast answer is compared with the
strict parse alone (``jsonline.strict``: duplicate members, exact numbers) and with the oracle's
independent parser (tests/oracle/jsonparse.py) on texts built to break them: repeated member
names in every spelling, ``\\u`` escapes of ordinary characters, lone surrogates, -0, 1e400,
1.0 against 1, integers beyond 64 bits, integral floats written with "e+", deep nesting.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contract.core import jsonline
from contract.core.jsonline import Spellings, go_spelling, parse, spaced_spelling, strict, written_exactly
from contract.core.reader import exponent_lines, may_exponent
from tests.oracle import jsonparse


def _pairs(a: Any, b: Any, leaf: Any) -> bool:
    """``leaf(x, y)`` on every pair of leaves of two values of one shape, without recursion."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, dict):
            if not isinstance(y, dict) or list(x) != list(y):
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list):
            if not isinstance(y, list) or len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif not leaf(x, y):
            return False
    return True


def _same_leaf(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, Decimal):
        return bool(a.as_tuple() == b.as_tuple())
    return bool(a == b)


def same(a: Any, b: Any) -> bool:
    """Equal as values and as types, all the way down (a float's sign too; dicts in order)."""
    return _pairs(a, b, _same_leaf)


def _oracle_leaf(fast: Any, read: Any) -> bool:
    if type(fast) is bool or fast is None or isinstance(fast, str):
        return bool(fast == read) and type(read) is type(fast)
    if isinstance(read, bool) or not isinstance(read, Decimal):
        return False
    if type(fast) is float and not fast.is_integer():
        return (math.floor(fast) == math.floor(read) and read != read.to_integral_value()
                and (fast < 0) == (read < 0))
    return bool(Decimal(fast) == read)


def oracle_equal(fast: Any, read: Any) -> bool:
    """``fast`` (the parse) against the oracle's exact value: integers and integral numbers
    exactly, a non-integral float within the same two integers as the text, with its sign."""
    return _pairs(fast, read, _oracle_leaf)


def check_line(body: bytes) -> None:
    """``agrees``, with numbers judged by ``oracle_equal`` (the parse keeps a rounded float only
    where it cannot change a verdict)."""
    fast, faults = parse(body)
    try:
        orjson.loads(body)
    except orjson.JSONDecodeError:
        return
    slow, slow_faults = strict(body)
    assert faults == slow_faults, body
    assert same(fast, slow), body
    if not faults:
        read = jsonparse.parse(body.decode("utf-8"))
        assert read.duplicate_pointers == [], body
        assert oracle_equal(fast, read.value), body


# -- hostile texts, built by hand so that a member can repeat and every token be respelt --------

NUMBERS = ("-0", "-0.0", "0", "1", "1.0", "1E5", "1e5", "1e+5", "1e16", "1e+16", "1E+16", "1e400", "-1e400",
           "1e-400", "2.0000000000000001", "9007199254740993", "9007199254740993.0", "18446744073709551615",
           "18446744073709551616", "-9223372036854775809", "123456789012345678901234567890",
           "3.6845546438802145e+18", "-3.935697740874459e+16", "-1.3819285987768397e+103", "1.5e+300",
           "0.1", "1e-07", "1e-7", "5e0", "100000.0")
TEXTS = ("", "a", "<", ">", "&", "<&>", '"', "\\", "\\u003c", "\n", "\x00", "\x1f", "\x7f", "\u2028", "é",
         "\U0001f600", ", ", ": ", '", "', '": "', "e+5", "\ud800", "\udfff", "\ud83d\ude00")


def _string(text: str, mode: str) -> str:
    """``text`` as a JSON string: ``mode`` json (Python's escapes, UTF-8), ascii, go (Go's "<",
    ">", "&"), or every character as a \\u escape (a needless but valid spelling)."""
    if mode == "ascii":
        return json.dumps(text)
    if mode == "escapes":
        return '"' + "".join(f"\\u{ord(c):04x}" if ord(c) < 0x10000 else json.dumps(c)[1:-1] for c in text) + '"'
    out = json.dumps(text, ensure_ascii=False)
    if mode == "go":
        out = out.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return out


@st.composite
def texts(draw: st.DrawFn, depth: int = 0) -> str:
    """One JSON text (or a near miss of one), members possibly repeated, in one spelling."""
    comma, colon = draw(st.sampled_from([(",", ":"), (", ", ": "), (",", ": "), (" ,", ":"), (", ", ":")]))
    mode = draw(st.sampled_from(["json", "json", "ascii", "go", "escapes"]))
    kind = draw(st.sampled_from(["number", "string", "literal", "array", "object", "object"] if depth < 3
                                else ["number", "string", "literal"]))
    if kind == "number":
        return draw(st.sampled_from(NUMBERS) | st.integers(-(2**70), 2**70).map(str)
                    | st.floats(allow_nan=False, allow_infinity=False).map(repr))
    if kind == "string":
        return _string(draw(st.sampled_from(TEXTS) | st.text(max_size=4)), mode)
    if kind == "literal":
        return draw(st.sampled_from(["true", "false", "null"]))
    items = draw(st.lists(texts(depth + 1), max_size=3))
    if kind == "array":
        return "[" + comma.join(items) + "]"
    names = draw(st.lists(st.sampled_from(["a", "b", "a", "<", "\ud800", "é", ""]), min_size=len(items),
                          max_size=len(items)))
    return "{" + comma.join(_string(n, mode) + colon + v for n, v in zip(names, items, strict=True)) + "}"


def encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


@given(texts())
def test_parse_says_what_the_strict_parse_says(text: str) -> None:
    check_line(encoded(text))


@st.composite
def values(draw: st.DrawFn) -> Any:
    """A value orjson reads back, to be written in each canonical spelling."""
    leaves = (st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False, allow_infinity=False)
              | st.sampled_from(TEXTS[:-4]) | st.text(max_size=5) | st.booleans() | st.none())
    return draw(st.recursive(leaves, lambda kids: st.lists(kids, max_size=3)
                             | st.dictionaries(st.sampled_from(["a", "b", "<&>", "é", "", "e+5"]) | st.text(max_size=3),
                                               kids, max_size=3), max_leaves=12))


def spellings(value: Any) -> list[bytes]:
    compact = orjson.dumps(value)
    python = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    return [compact, go_spelling(compact), spaced_spelling(value), json.dumps(value).encode(), python,
            go_spelling(spaced_spelling(value))]


@given(values())
def test_every_spelling_of_a_value_reads_as_the_strict_parse_reads_it(value: Any) -> None:
    for body in spellings(value):
        check_line(body)


def _repeated(text: str) -> str:
    """``text`` (an object's spelling) with its first member written twice: a repeated name."""
    inner = text[1:-1]
    read = json.loads(text)
    first = next(iter(read))
    spelt = json.dumps({first: read[first]}, ensure_ascii=False)[1:-1] if ": " in text else \
        json.dumps({first: read[first]}, separators=(",", ":"), ensure_ascii=False)[1:-1]
    return "{" + spelt + (", " if ", " in text or ": " in text else ",") + inner + "}"


@given(st.dictionaries(st.sampled_from(["a", "b", "<", "é", "x, y"]),
                       st.integers(-(2**63), 2**63) | st.text(max_size=3), min_size=1, max_size=4))
def test_a_repeated_member_is_reported_in_every_spelling(value: dict[str, Any]) -> None:
    for body in spellings(value):
        repeated = _repeated(body.decode()).encode()
        _, faults = parse(repeated)
        assert [f.rule for f in faults] == ["line.duplicate-key"], repeated
        check_line(repeated)


@pytest.mark.parametrize("text", [
    '{"a": 1, "a": 1}', '{"a": 1, "b": {"c": 2, "c": 2}}', '{"a":"<","a":"<"}', '{"a":"\\u003c","a":"\\u003c"}',
    '{"a": "\\u003c"}', '{"a": "\\u003c", "b": 1}', '{"\\u0061": 1}', '{"a": "\\u0041"}',
    '{"a": 1e400}', '{"a": -1e400}', '{"a": 1e-400}', '{"a": 3.6845546438802145e+18}',
    '{"a":3.6845546438802145e+18}', '{"a": 1e+16}', '{"a": -0}', '{"a": -0.0}', '{"a": 1.0}', '{"a": 1}',
    '{"a": 18446744073709551616}', '{"a": 123456789012345678901234567890}', '{"a": "\\ud800"}',
    '{"a": "\\ud800", "a": 1}', '{"a":  1}', '{"a" : 1}', ' {"a": 1}', '{"a": 1} ', '{"a": [1, 2]}',
    '{"a": [1,2]}', '{"a": NaN}', '{"a": Infinity}', '{"a": "x", "b": "y", "a": "x"}',
    '{"a": {"a": {"a": 1, "a": 2}}}', '{"<": 1, "<": 1}', '{"a": "<", "b": ">"}', '{"a": 9007199254740993.0}',
    '{"a": 2.0000000000000001}', '{"a": 1E5}', '{"a": 1e5}', '{"a": 100000.0}',
])
def test_near_misses(text: str) -> None:
    check_line(encoded(text))


@pytest.mark.parametrize("depth", [253, 254, 255, 999, 1000, 1024, 1025])
def test_deep_lines_in_every_spelling(depth: int) -> None:
    for open_, close in (('{"a": ', "}"), ('{"a":', "}"), ("[", "]"), ('{"a": [', "]}")):
        body = (open_ * depth + "1" + close * depth).encode()
        check_line(body)
        _, faults = parse(body)
        if depth * (2 if "[" in open_ and "{" in open_ else 1) > jsonline.MAX_DEPTH:
            assert [f.rule for f in faults] == ["line.limit"]


@given(st.lists(texts(), min_size=1, max_size=6) | st.lists(values().map(lambda v: spellings(v)[2].decode()),
                                                          min_size=1, max_size=6))
def test_a_block_proven_whole_or_by_line_is_read_as_the_strict_parse_reads_it(lines: list[str]) -> None:
    """``Spellings.unproven``: every line it proves reads, with its "e+" numbers as written, as
    the strict parse reads it, with no fault (so the block path may keep orjson's value)."""
    bodies = [encoded(text) for text in lines]
    try:
        read = [orjson.loads(body) for body in bodies]
    except orjson.JSONDecodeError:
        return
    for spelling in (Spellings(), Spellings()):
        left = spelling.unproven(bodies, read)
        for offset, body in enumerate(bodies):
            if offset in left:
                continue
            slow, faults = strict(body)
            assert faults == (), body
            kept = read[offset] if b"e+" not in body else written_exactly(body)[0]
            assert same(kept, slow), body


def test_a_block_with_one_repeated_member_is_not_proven_whole() -> None:
    lines = [json.dumps({"type": "user", "n": n}) for n in range(5)]
    lines[3] = '{"type": "user", "n": 3, "n": 3}'
    bodies = [line.encode() for line in lines]
    for warmed in (False, True):
        spelling = Spellings()
        if warmed:
            spelling.unproven(bodies[:3], [orjson.loads(b) for b in bodies[:3]])
        assert spelling.unproven(bodies, [orjson.loads(b) for b in bodies]) == [3]


PIECES = [b"1e+5", b"e+", b"+", b"1e", b"e+5", b"2", b'"x"', b",", b"1E+5", b"\xc3\xa9"]


@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=6).map(b"".join), min_size=1, max_size=8))
def test_the_block_search_for_exponents_finds_what_each_line_would(bodies: list[bytes]) -> None:
    """``reader.exponent_lines``: one search of the block, the same lines as ``may_exponent`` of each."""
    assert exponent_lines(bodies) == [at for at, body in enumerate(bodies) if may_exponent(body)]
