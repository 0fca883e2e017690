"""Breaking strategies for the ``line.*`` framing rules, shared by every wire (``line.ansi`` and
``line.c1`` are offered only for a wire whose ``ansi`` is set; see ``contract.strategies.breakable``).

Each breaker takes a conformant transcript and damages its bytes in one way. Breakers that make
a line unparseable damage a *sacrificial* line: one the wire module placed so that losing it
breaks no cross-line rule (a stream-json notification, a subagent-stdio event that the next one
supersedes). The sacrificial line carries :data:`MARK` in a plain-text field, so a breaker can
put bytes inside a JSON string without knowing the wire.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from contract.core.jsonline import MAX_DEPTH
from contract.strategies._common import dump

Line = dict[str, Any]
MARK = "@@MARK@@"
QMARK = dump(MARK)  # the marker as a JSON string, quotes included

# A wire's hook: a conformant transcript holding ``text`` in a plain-text field of the line at
# the returned index, a line whose loss breaks no other rule.
Sacrificial = Callable[[st.DrawFn, str], tuple[list[Line], int]]
Transcripts = Callable[[], st.SearchStrategy[list[Line]]]


def _rendered(lines: list[Line]) -> list[bytes]:
    return [dump(line) for line in lines]


def _join(bodies: list[bytes]) -> bytes:
    return b"".join(body + b"\n" for body in bodies)


def _sacrificed(draw: st.DrawFn, sacrificial: Sacrificial, damage: Callable[[bytes], bytes], text: str = MARK) -> bytes:
    lines, index = sacrificial(draw, text)
    bodies = _rendered(lines)
    bodies[index] = damage(bodies[index])
    return _join(bodies)


def utf8(draw: st.DrawFn, sacrificial: Sacrificial, transcripts: Transcripts) -> bytes:
    """Invalid UTF-8 inside a string (truncated, overlong, surrogate, stray byte), or a BOM."""
    bad = draw(st.sampled_from([b"\xff", b"\xc3", b"\xc0\xaf", b"\xed\xa0\x80", b"\x80abc", b"\xf4\x90\x80\x80"]))
    if draw(st.booleans()):
        return _sacrificed(draw, sacrificial, lambda body: b"\xef\xbb\xbf" + body)
    return _sacrificed(draw, sacrificial, lambda body: body.replace(MARK.encode(), bad))


def newline(draw: st.DrawFn, sacrificial: Sacrificial, transcripts: Transcripts) -> bytes:
    """CR LF on one line, a bare CR between tokens, or no LF after the last line."""
    bodies = _rendered(draw(transcripts()))
    way = draw(st.sampled_from(["crlf", "bare-cr", "no-final-lf"]))
    if way == "no-final-lf":
        return _join(bodies)[:-1]
    index = draw(st.integers(0, len(bodies) - 1))
    if way == "crlf":
        bodies[index] += b"\r"
    else:  # CR is JSON whitespace, so the line still parses: only the framing is wrong
        bodies[index] = b"{\r" + bodies[index][1:]
    return _join(bodies)


def blank(draw: st.DrawFn, sacrificial: Sacrificial, transcripts: Transcripts) -> bytes:
    """An empty or whitespace-only line anywhere, the first and last places included."""
    bodies = _rendered(draw(transcripts()))
    index = draw(st.integers(0, len(bodies)))
    bodies.insert(index, draw(st.sampled_from([b"", b" ", b"\t", b"  \t "])))
    return _join(bodies)


def json_text(draw: st.DrawFn, sacrificial: Sacrificial, transcripts: Transcripts) -> bytes:
    """Not one strict JSON text: NaN, Infinity, trailing data, cut off.

    (A number beyond double range, ``1e999``, is valid RFC 8259 JSON and is read exactly: not here;
    nor a lone surrogate escape, which RFC 8259 §8.2 admits: ``surrogate``.)
    """
    value = draw(
        st.sampled_from(
            [
                b"NaN",
                b"Infinity",
                b"-Infinity",
                b"1e",
                b"'single'",
                b"undefined",
                b"01",
            ]
        )
    )
    damages: list[Callable[[bytes], bytes]] = [
        lambda body: body.replace(QMARK, value),
        lambda body: body + b" 1",
        lambda body: body + b"{}",
        lambda body: body[:-1],
        lambda body: body[:-1] + b",}",
    ]
    return _sacrificed(draw, sacrificial, draw(st.sampled_from(damages)))


def json_object(draw: st.DrawFn, sacrificial: Sacrificial, transcripts: Transcripts) -> bytes:
    """A JSON value that is not an object: the line wrapped in an array, a scalar, null."""
    other = draw(st.sampled_from([b"[]", b"1", b'"text"', b"true", b"false", b"null", b"wrap"]))
    return _sacrificed(draw, sacrificial, lambda body: b"[" + body + b"]" if other == b"wrap" else other)


def surrogate(draw: st.DrawFn, sacrificial: Sacrificial, transcripts: Transcripts) -> bytes:
    """A lone surrogate escape in a string of the sacrificial line (valid RFC 8259 JSON: policy)."""
    lone = draw(st.sampled_from([b"\\ud800", b"\\udc00", b"\\ude00\\ud83d", b"a\\udbff"]))
    return _sacrificed(draw, sacrificial, lambda body: body.replace(MARK.encode(), lone))


def duplicate_key(draw: st.DrawFn, sacrificial: Sacrificial, transcripts: Transcripts) -> bytes:
    """The sacrificial line repeats a member with the same value.

    A line with a repeated member is opaque (parsers disagree on which duplicate wins, so no
    schema or content rule reads it), so the repeat goes on the line whose loss breaks nothing.
    """
    lines, index = sacrificial(draw, "dup")
    bodies = _rendered(lines)
    key = draw(st.sampled_from(sorted(lines[index])))
    bodies[index] = bodies[index][:-1] + b"," + dump({key: lines[index][key]})[1:]
    return _join(bodies)


def ansi(draw: st.DrawFn, sacrificial: Sacrificial, transcripts: Transcripts) -> bytes:
    """ESC in a plain-text field: raw (not even JSON then) or escaped as \\u001b."""
    colour = draw(st.sampled_from(["\x1b[31m", "\x1b[0m", "\x1b]0;title\x07", "\x1b"]))
    if draw(st.booleans()):
        lines, _ = sacrificial(draw, f"{colour}red")
        return _join(_rendered(lines))
    return _sacrificed(draw, sacrificial, lambda body: body.replace(MARK.encode(), colour.encode()))


def c1(draw: st.DrawFn, sacrificial: Sacrificial, transcripts: Transcripts) -> bytes:
    """A C1 control in a plain-text field, raw (UTF-8 C2 80 to C2 9F) or escaped as \\u0080-\\u009f."""
    code = draw(st.sampled_from([0x9B, 0x85, 0x80, 0x9D, 0x9F]))
    form = draw(st.sampled_from([chr(code).encode(), f"\\u{code:04x}".encode(), f"\\u{code:04X}".encode()]))
    return _sacrificed(draw, sacrificial, lambda body: body.replace(MARK.encode(), form + b"31m"))


def limit(draw: st.DrawFn, sacrificial: Sacrificial, transcripts: Transcripts) -> bytes:
    """Nesting deeper than the checker's limit (``contract.core.jsonline.MAX_DEPTH``)."""
    depth = MAX_DEPTH + draw(st.integers(1, 64))
    return _sacrificed(draw, sacrificial, lambda body: body.replace(QMARK, b"[" * depth + b"]" * depth))


BREAKERS: dict[str, Callable[[st.DrawFn, Sacrificial, Transcripts], bytes]] = {
    "line.utf8": utf8,
    "line.newline": newline,
    "line.blank": blank,
    "line.json": json_text,
    "line.surrogate": surrogate,
    "line.object": json_object,
    "line.duplicate-key": duplicate_key,
    "line.ansi": ansi,
    "line.c1": c1,
    "line.limit": limit,
}
