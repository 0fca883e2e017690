"""Hypothesis strategies for both wires, for this suite and for anyone who parses them.

What each public strategy returns:

* :func:`lines` — ``dict`` line objects (not bytes), each valid against the wire's seed schema
  (both validation engines, ECMA-262 ``$``). Composed per schema node from the seed schema
  itself (:mod:`contract.strategies._compose`): any branch of the top-level ``oneOf``, any
  member, but each line alone, so no cross-line rule (seq, init first, ...) is implied.
  Strings may hold ESC: the schema allows it, the stream rules may not.
* :func:`streams` — ``bytes``: whole conformant transcripts as they appear on the wire (one
  compact JSON object per line, each ending in one LF), clean under ``check --strict``.
* :func:`broken_streams` — ``bytes``: transcripts that break exactly one rule of the catalog.
  Where breaking one rule necessarily breaks another, :func:`also_fires` names the other.

For a parser of either wire::

    from hypothesis import given
    from contract.strategies import broken_streams, streams

    @given(streams("stream-json"))
    def test_my_parser_reads_every_conformant_stream(data: bytes) -> None:
        my_parser.read(data)

    @given(broken_streams("stream-json", "sj.seq"))
    def test_my_parser_notices_a_dropped_line(data: bytes) -> None:
        assert my_parser.read(data).gaps

Every public strategy passes hypothesis' health checks under default settings (the suite tests
that); drawing costs milliseconds per line (BENCHMARKS.md, ``bench/generate.py``). Importing
this module imports hypothesis; ``import contract`` does not import it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from contract.catalog import CATALOG
from contract.strategies import (
    framing,
    stream_json,
    stream_json_broken,
    subagent_stdio,
    subagent_stdio_broken,
)
from contract.strategies._common import render
from contract.strategies._compose import lines as _composed_lines
from contract.strategies._schemas import DEFAULT_DEPTH

WIRES = ("stream-json", "subagent-stdio")


def _why_not_breakable(rule: str) -> str | None:
    """Why no stream can break ``rule``, or None when one can."""
    if CATALOG[rule].wire == "run":
        return "observed by the live harness (a process, its exit, its timing), not in the bytes"
    if CATALOG[rule].wire == "checker":
        return "the checker's own integrity (an internal error or bound), not a property of the stream"
    if rule == "baseline.stale":
        return "compares a baseline file with a report; not a property of any stream"
    return None


# Catalog rules that are not properties of a stream, with the reason.
NOT_STREAM_PROPERTIES: dict[str, str] = {rule: why for rule in CATALOG if (why := _why_not_breakable(rule)) is not None}


def lines(wire: str, *, depth: int = DEFAULT_DEPTH) -> st.SearchStrategy[dict[str, Any]]:
    """Schema-valid line objects (dicts) of ``wire`` (subagent node trees up to ``depth`` + 1 levels)."""
    _known(wire)
    return _composed_lines(wire, depth)


def streams(wire: str) -> st.SearchStrategy[bytes]:
    """Whole conformant transcripts of ``wire``, as the bytes on the wire (LF-terminated JSONL)."""
    _known(wire)
    return stream_json.streams() if wire == "stream-json" else subagent_stdio.streams()


def breakable(wire: str) -> frozenset[str]:
    """The catalog rules of ``wire`` that :func:`broken_streams` can break."""
    _known(wire)
    return frozenset(_wire_breakers(wire)) | _framing_rules(wire)


def _framing_rules(wire: str) -> frozenset[str]:
    """The framing breakers whose rule applies to ``wire`` (line.ansi is stream-json's only)."""
    return frozenset(rule for rule in framing.BREAKERS if CATALOG[rule].wire in ("line", wire))


def broken_streams(wire: str, rule: str) -> st.SearchStrategy[bytes]:
    """Transcripts (bytes) of ``wire`` that break ``rule`` (and only it, but for :func:`also_fires`)."""
    _known(wire)
    if rule in NOT_STREAM_PROPERTIES:
        raise ValueError(f"{rule} is not a stream property: {NOT_STREAM_PROPERTIES[rule]}")
    if rule in _framing_rules(wire):
        return _framing(wire, framing.BREAKERS[rule])
    breakers = _wire_breakers(wire)
    if rule not in breakers:
        raise ValueError(f"no breaking strategy for {rule!r} on {wire}")
    breaker = breakers[rule]
    return st.composite(lambda draw: render(breaker(draw)))()


def also_fires(wire: str, rule: str) -> frozenset[str]:
    """Rules that necessarily fire along with ``rule`` in :func:`broken_streams`."""
    _known(wire)
    also = stream_json_broken.ALSO if wire == "stream-json" else subagent_stdio_broken.ALSO
    return also.get(rule, frozenset())


def _framing(wire: str, breaker: Callable[..., bytes]) -> st.SearchStrategy[bytes]:
    if wire == "stream-json":
        sacrificial, transcripts = stream_json_broken.sacrificial, stream_json.transcripts
    else:
        sacrificial, transcripts = subagent_stdio_broken.sacrificial, subagent_stdio.transcripts
    return st.composite(lambda draw: breaker(draw, sacrificial, transcripts))()


def _wire_breakers(wire: str) -> dict[str, Callable[[st.DrawFn], list[dict[str, Any]]]]:
    return stream_json_broken.BREAKERS if wire == "stream-json" else subagent_stdio_broken.BREAKERS


def _known(wire: str) -> None:
    if wire not in WIRES:
        raise ValueError(f"unknown wire {wire!r}; expected one of {', '.join(WIRES)}")


__all__ = [
    "NOT_STREAM_PROPERTIES",
    "WIRES",
    "also_fires",
    "breakable",
    "broken_streams",
    "lines",
    "streams",
]
