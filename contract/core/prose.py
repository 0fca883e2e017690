"""How a schema description lists values in prose: one reading for every reader.

The seeds document open sets in words, not keywords: ``text | thinking | tool_use (open set)``,
``open set (known: end_turn, max_turns, refusal)``. The surface (``contract.evolution.surface``)
records them, coverage (``contract.checking.coverage``) requires the goldens to show them, and a
wire's strategies draw them; all read them here, so a value with a dot or a slash
(``call.begin``, ``result/refused``) is one value to each of them (coverage once read
``call.begin | call.end`` as ``begin``/``call`` where the surface read it whole).
"""

from __future__ import annotations

import re

_VALUE = r"[\w./-]+"  # a value as the seeds write one: words, dots, slashes, hyphens
ALTERNATION = re.compile(rf"{_VALUE}(?:\s*\|\s*{_VALUE})+")
KNOWN = re.compile(rf"known:\s*({_VALUE}(?:\s*[,|]\s*{_VALUE})*)")


def _value(text: str) -> str:
    return text.strip().rstrip("./-")  # a sentence's full stop is not part of its last value


def split_run(run: str) -> tuple[str, ...]:
    """The values of one ``a | b | c`` run (a match of ``ALTERNATION``)."""
    return tuple(_value(v) for v in run.split("|"))


def runs(text: str) -> list[tuple[str, ...]]:
    """Each ``a | b | c`` run in ``text``, in order, as its values."""
    return [split_run(match.group(0)) for match in ALTERNATION.finditer(text)]


def known(text: str) -> list[tuple[str, ...]]:
    """Each ``known: a, b`` list in ``text``, in order, as its values."""
    return [tuple(v for v in map(_value, re.split(r"[,|]", match.group(1))) if v) for match in KNOWN.finditer(text)]
