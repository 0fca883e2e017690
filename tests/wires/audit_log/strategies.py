"""The audit-log wire's hypothesis strategies (tests only): conformant runs, and al.seq broken."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from contract.strategies._common import dump
from contract.wires.base import Strategies

Line = dict[str, Any]
_NOTES = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=8)


@st.composite
def _transcript(draw: st.DrawFn) -> list[Line]:
    size = draw(st.integers(1, 6))
    lines: list[Line] = [{"type": "audit", "seq": n} for n in range(1, size + 1)]
    for line in lines:
        if draw(st.booleans()):
            line["note"] = draw(_NOTES)
    return lines


def transcripts() -> st.SearchStrategy[list[Line]]:
    return _transcript()


def streams() -> st.SearchStrategy[bytes]:
    return transcripts().map(lambda lines: b"".join(dump(line) + b"\n" for line in lines))


def sacrificial(draw: st.DrawFn, text: str) -> tuple[list[Line], int]:
    """A run whose last line carries ``text`` in its note: losing that line breaks no other rule."""
    lines = draw(transcripts())
    lines[-1]["note"] = text
    return lines, len(lines) - 1


def _seq(draw: st.DrawFn) -> list[Line]:
    lines = draw(transcripts())
    at = draw(st.integers(0, len(lines) - 1))
    lines[at]["seq"] = lines[at]["seq"] + draw(st.sampled_from([1, 2, 7]))
    return lines


STRATEGIES = Strategies(streams=streams, transcripts=transcripts, sacrificial=sacrificial,
                        breakers={"al.seq": _seq}, also={"line.ansi": frozenset({"line.json"})})
