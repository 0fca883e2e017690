"""Small shared strategies and helpers: safe text, free-form JSON, rendering lines to bytes."""

from __future__ import annotations

import functools
import json
import math
from typing import Any

import orjson
from hypothesis import strategies as st

ESC = "\x1b"
# What line.ansi forbids in a stream-json string: ESC and the C1 controls (ECMA-48's one-character
# codings of ESC Fe, CSI U+009B included).
ANSI = ESC + "".join(map(chr, range(0x80, 0xA0)))
SAFE_INT = 2**53 - 1  # JSON's interoperable integer range; orjson cannot dump beyond 64 bits


@functools.cache
def text(min_size: int = 0, max_size: int = 12) -> st.SearchStrategy[str]:
    """Free text outside free-form payloads: any Unicode except ESC and C1 (line.ansi) and surrogates."""
    return st.text(
        st.characters(exclude_characters=ANSI, exclude_categories=["Cs"]),
        min_size=min_size,
        max_size=max_size,
    )


@functools.cache
def ident(prefix: str = "", min_size: int = 1, max_size: int = 8) -> st.SearchStrategy[str]:
    """An identifier-like token (letters, digits, ``_-.``), optionally prefixed."""
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-."
    return st.text(alphabet, min_size=min_size, max_size=max_size).map(lambda s: prefix + s)


@functools.cache
def ints(low: int, high: int) -> st.SearchStrategy[int]:
    """``st.integers(low, high)``, built once: the builders draw small integers by the
    thousand, and looking one up in hypothesis' strategy cache costs a third of the draw."""
    return st.integers(low, high)


UNIFORM = 256  # hypothesis draws integers up to about this uniformly, larger ones leaning small


def flags(draw: st.DrawFn, count: int, sparse: bool = False) -> list[bool]:
    """``count`` coins from one integer; when ``sparse`` each is true one time in four (a base-4
    digit each for up to four coins, two ANDed masks for more).

    Hypothesis pays per choice, so one bit mask is much cheaper than a coin per flag, and it
    shrinks the same way: towards 0, every flag false.
    """
    if sparse and 4**count <= UNIFORM:
        return [digit == 3 for digit in pick(draw, *[4] * count)]
    bits = ints(0, 2**count - 1)
    mask = draw(bits) & draw(bits) if sparse else draw(bits)
    return [bool(mask >> i & 1) for i in range(count)]


def pick(draw: st.DrawFn, *sizes: int) -> list[int]:
    """Several small choices (the n-th in ``range(sizes[n])``) from one drawn integer: its digits.

    Hypothesis pays per choice (about 0.1 ms each), so a stream's skeleton (how many blocks,
    which kind, which optional member) is drawn a few fields at a time. It shrinks the way
    separate draws do: towards 0, every field at its first (simplest) value. Hypothesis draws
    integers uniformly up to about :data:`UNIFORM` and leans towards small ones beyond, so in a
    pick whose sizes multiply past that, the later fields are 0 more often: put the fields that
    must vary most first.
    """
    return digits(draw(ints(0, math.prod(sizes) - 1)), *sizes)


def digits(value: int, *sizes: int) -> list[int]:
    """``value`` in mixed radix: the n-th digit in ``range(sizes[n])``, the first least significant."""
    out = []
    for size in sizes:
        value, digit = divmod(value, size)
        out.append(digit)
    return out


def count(draw: st.DrawFn, most: int) -> int:
    """How many items (0 to ``most``) in one choice, where ``st.lists`` pays a coin per item."""
    return draw(ints(0, most))


# Free-form JSON shapes, one choice for which: the scalars, then containers of 0 to 2 items.
_SCALARS = 6  # null, false, true, an integer, a float, a string
_SHAPES = _SCALARS + 6  # [], [v], [v, v], {}, {k: v}, {k: v, k: v}


def _free(draw: st.DrawFn, strings: st.SearchStrategy[str], depth: int) -> Any:
    shape = draw(ints(0, _SHAPES - 1 if depth else _SCALARS - 1))
    if shape < 3:
        return (None, False, True)[shape]
    if shape == 3:
        return draw(ints(-SAFE_INT, SAFE_INT))
    if shape == 4:
        return draw(st.floats(allow_nan=False, allow_infinity=False))
    if shape == 5:
        return draw(strings)
    size = (shape - _SCALARS) % 3
    if shape < _SCALARS + 3:
        return [_free(draw, strings, depth - 1) for _ in range(size)]
    return {draw(strings): _free(draw, strings, depth - 1) for _ in range(size)}


@functools.cache
def json_values(depth: int = 2, escapes: bool = False) -> st.SearchStrategy[Any]:
    """Free-form JSON (tool input, tool result content, _meta): scalars, and arrays and objects
    of up to two items, nested up to ``depth`` levels (so at most ``2**depth`` leaves).

    One choice picks a value's shape (a scalar kind, or a container and its size), one more
    its content where it has some: about three choices a value, where ``st.recursive`` took
    six. It shrinks towards null. No ESC unless ``escapes``: stream-json's "never any ANSI
    escapes" has no exception for free-form payloads.
    """
    strings = st.text(max_size=8) if escapes else text(max_size=8)
    return st.composite(lambda draw: _free(draw, strings, depth))()


@functools.cache
def json_objects(depth: int = 2) -> st.SearchStrategy[dict[str, Any]]:
    """Free-form JSON objects of up to two members (``_meta``, tool input), values ``depth - 1`` deep."""
    keys = text(max_size=8)

    def draw_object(draw: st.DrawFn) -> dict[str, Any]:
        return {draw(keys): _free(draw, keys, depth - 1) for _ in range(count(draw, 2))}

    return st.composite(draw_object)()


def dump(obj: Any) -> bytes:
    """One compact JSON text, as an emitter would write it (no trailing newline).

    Schema-drawn integers are unbounded (``{"type": "integer"}``); orjson stops at 64 bits,
    so such lines are written by ``json`` instead, exactly as a bignum-capable emitter would.
    """
    try:
        return orjson.dumps(obj)
    except TypeError:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def render(objs: list[dict[str, Any]]) -> bytes:
    """Line objects as a JSONL stream: one object per line, each ending in exactly one LF."""
    return b"".join(dump(obj) + b"\n" for obj in objs)
