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
that); drawing costs one to a few milliseconds a line (BENCHMARKS.md, ``bench/generate.py``). Importing
this module imports hypothesis; ``import contract`` does not import it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from contract.core.rule import Observed
from contract.rules.catalog import CATALOG, rules_for
from contract.strategies import framing
from contract.strategies._common import render
from contract.strategies._compose import lines as _composed_lines
from contract.strategies._schemas import DEFAULT_DEPTH
from contract.wires import NAMES, Strategies, Wire, get

WIRES = NAMES

# Why no stream can break a rule, by where the rule is observed.
_NOT_IN_STREAMS = {
    Observed.PROCESS: "observed by the live harness (a process, its exit, its timing), not in the bytes",
    Observed.CHECKER: "the checker's own integrity (an internal error or bound), not a property of the stream",
    Observed.BASELINE: "compares a baseline file with a report; not a property of any stream",
    Observed.CONSUMER: "judges a consumer fed streams (how it ended, what it printed), not the stream",
}

# Catalog rules that are not properties of a stream, with the reason.
NOT_STREAM_PROPERTIES: dict[str, str] = {
    rule.id: _NOT_IN_STREAMS[rule.observed] for rule in CATALOG.values() if rule.observed in _NOT_IN_STREAMS
}


def lines(wire: str, *, depth: int = DEFAULT_DEPTH) -> st.SearchStrategy[dict[str, Any]]:
    """Schema-valid line objects (dicts) of ``wire`` (subagent node trees up to ``depth`` + 1 levels)."""
    _known(wire)
    if type(depth) is not int:  # checked here: a strategy is drawn from later, far from the call
        raise TypeError(f"depth must be an int, not {type(depth).__name__}")
    if depth < 0:
        raise ValueError(f"depth must be 0 or more, found {depth}")
    return _composed_lines(wire, depth)


def streams(wire: str) -> st.SearchStrategy[bytes]:
    """Whole conformant transcripts of ``wire``, as the bytes on the wire (LF-terminated JSONL)."""
    result: st.SearchStrategy[bytes] = _strategies(wire).streams()
    return result


def breakable(wire: str) -> frozenset[str]:
    """The catalog rules of ``wire`` that :func:`broken_streams` can break."""
    return frozenset(_strategies(wire).breakers) | _framing_rules(wire)


def _framing_rules(wire: str) -> frozenset[str]:
    """The framing breakers whose rule applies to ``wire`` (line.ansi: where ``Wire.ansi`` asks for it)."""
    applies = {rule.id for rule in rules_for(wire)}
    return frozenset(rule for rule in framing.BREAKERS if rule in applies)


def broken_streams(wire: str, rule: str) -> st.SearchStrategy[bytes]:
    """Transcripts (bytes) of ``wire`` that break ``rule`` (and only it, but for :func:`also_fires`)."""
    parts = _strategies(wire)
    if not isinstance(rule, str):
        raise TypeError(f"rule must be a rule id (str), not {type(rule).__name__}")
    if rule in NOT_STREAM_PROPERTIES:
        raise ValueError(f"{rule} is not a stream property: {NOT_STREAM_PROPERTIES[rule]}")
    if rule in _framing_rules(wire):
        return _framing(parts, framing.BREAKERS[rule])
    if rule not in parts.breakers:
        raise ValueError(f"no breaking strategy for {rule!r} on {wire}")
    breaker = parts.breakers[rule]
    return st.composite(lambda draw: render(breaker(draw)))()


def also_fires(wire: str, rule: str) -> frozenset[str]:
    """Rules that necessarily fire along with ``rule`` in :func:`broken_streams`."""
    return _strategies(wire).also.get(rule, frozenset())


def _framing(parts: Strategies, breaker: Callable[..., bytes]) -> st.SearchStrategy[bytes]:
    return st.composite(lambda draw: breaker(draw, parts.sacrificial, parts.transcripts))()


def _strategies(wire: str) -> Strategies:
    return _known(wire).load_strategies()


def _known(wire: str) -> Wire:
    if not isinstance(wire, str):  # the public functions' edge: a wrong type is a TypeError
        raise TypeError(f"wire must be a wire name (str), not {type(wire).__name__}")
    return get(wire)  # ValueError naming the known wires


__all__ = [
    "NOT_STREAM_PROPERTIES",
    "WIRES",
    "also_fires",
    "breakable",
    "broken_streams",
    "lines",
    "streams",
]
