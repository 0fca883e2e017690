"""Small shared strategies and helpers: safe text, free-form JSON, rendering lines to bytes."""

from __future__ import annotations

import functools
import json
from typing import Any

import orjson
from hypothesis import strategies as st

ESC = "\x1b"
SAFE_INT = 2**53 - 1  # JSON's interoperable integer range; orjson cannot dump beyond 64 bits


@functools.cache
def text(min_size: int = 0, max_size: int = 12) -> st.SearchStrategy[str]:
    """Free text outside free-form payloads: any Unicode except ESC (line.ansi) and surrogates."""
    return st.text(
        st.characters(exclude_characters=ESC, exclude_categories=["Cs"]),
        min_size=min_size,
        max_size=max_size,
    )


@functools.cache
def ident(prefix: str = "", min_size: int = 1, max_size: int = 8) -> st.SearchStrategy[str]:
    """An identifier-like token (letters, digits, ``_-.``), optionally prefixed."""
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-."
    return st.text(alphabet, min_size=min_size, max_size=max_size).map(lambda s: prefix + s)


def flags(draw: st.DrawFn, count: int, sparse: bool = False) -> list[bool]:
    """``count`` coins from one integer (two ANDed when ``sparse``: each true one time in four).

    Hypothesis pays per choice, so one bit mask is much cheaper than a coin per flag, and it
    shrinks the same way: towards 0, every flag false.
    """
    bits = st.integers(0, 2**count - 1)
    mask = draw(bits) & draw(bits) if sparse else draw(bits)
    return [bool(mask >> i & 1) for i in range(count)]


@functools.cache
def json_values(max_leaves: int = 3, escapes: bool = False) -> st.SearchStrategy[Any]:
    """Free-form JSON (tool input, tool result content, _meta). No ESC unless ``escapes``:
    stream-json's "never any ANSI escapes" has no exception for free-form payloads."""
    strings = st.text(max_size=8) if escapes else text(max_size=8)
    leaves = (
        st.none()
        | st.booleans()
        | st.integers(-SAFE_INT, SAFE_INT)
        | st.floats(allow_nan=False, allow_infinity=False)
        | strings
    )
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=2) | st.dictionaries(strings, inner, max_size=2),
        max_leaves=max_leaves,
    )


@functools.cache
def json_objects(max_leaves: int = 3) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(text(max_size=8), json_values(max_leaves), max_size=2)


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
