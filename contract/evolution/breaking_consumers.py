"""Which registered consumers a proposed schema would break: what ``evolve`` says before it writes anything.

``evolve`` is all or nothing (contract/evolution/takein.py); before its first write it feeds each consumer
the repository registers for the wire (``milk-consumers.json``, contract/consumers/registered.py) the
goldens as milk writes them under the new schema (contract/evolution/adr_streams.py), by the feed loop of
``milk-contract feed``, and names each consumer that does not pass, with its first finding. A consumer
that cannot be fed (the goldens do not migrate, the file is broken) is said too: naming none then would
be a wrong green. The naming informs the ADR's author; the gate, not this, decides what is taken in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contract.consumers.registered import Consumer, ConsumersError, found, load
from contract.core import textsafe
from contract.core.jsonvalue import clip
from contract.evolution.adr_streams import AdrError, Stream, streams_under

TIMEOUT = 10.0  # seconds per stream, unless the consumer's entry says otherwise


@dataclass(frozen=True, slots=True)
class Broken:
    """A registered consumer the new schema breaks (or that could not be judged: ``judged`` False)."""

    consumer: Consumer
    finding: str
    judged: bool = True


def first_finding(consumer: Consumer, streams: Sequence[Stream]) -> str | None:
    """The consumer's first finding on ``streams`` (None: it passed every one)."""
    from contract.consumers.feed import feed_stream
    from contract.consumers.judging import Expectation

    result = feed_stream(list(consumer.command), list(streams), wire=consumer.wire, pace=0.0,
                         timeout=consumer.timeout or TIMEOUT, expect=Expectation(reading=consumer.reading))
    failing = result.report.failing()
    if result.report.conformant and not failing:
        return None
    if not failing:
        return "its feed was not conformant"
    return f"{failing[0].rule}: {ends(textsafe.text(failing[0].message))}"


def ends(text: str, head: int = 160, tail: int = 240) -> str:
    """``text`` bounded by its beginning (where and what) and its end (a traceback's last line, the fault)."""
    return text if len(text) <= head + tail + 1 else f"{text[:head]} … {text[-tail:]}"


def broken(root: Path, wire: str, goldens: Sequence[Any], current: Mapping[str, Any], new: Mapping[str, Any],
           given: str | None = None) -> tuple[Path | None, list[Consumer], list[Broken]]:
    """(the consumers file, the consumers of ``wire`` it registers, those ``new`` breaks or that were not judged)."""
    path = found(root, given)
    if path is None:
        return None, [], []
    try:
        consumers = [c for c in load(path) if c.wire == wire]
    except ConsumersError as exc:
        return path, [], [Broken(Consumer("(consumers file)", "", (), wire), str(exc), judged=False)]
    if not consumers:
        return path, [], []
    try:
        streams = streams_under(goldens, current, new, label="the new schema")
    except AdrError as exc:
        return path, consumers, [Broken(c, f"not fed: {exc}", judged=False) for c in consumers]
    out = []
    for consumer in consumers:
        try:
            finding = first_finding(consumer, streams)
        except Exception as exc:  # fail closed: an internal error names the consumer, never passes it
            finding = f"checker.internal: {type(exc).__name__}: {clip(str(exc), 200)}"
        if finding is not None:
            out.append(Broken(consumer, finding))
    return path, consumers, out


def tell(out: Any, wire: str, path: Path | None, consumers: Sequence[Consumer], found_broken: Sequence[Broken]) -> None:
    """The ``consumers`` lines of ``evolve``'s report."""
    if path is None:
        return
    shown = textsafe.text(str(path))
    if not consumers and not found_broken:
        out.write(f"consumers {shown} registers no {wire} consumer\n")
        return
    if not found_broken:
        out.write(f"consumers none of the {textsafe.counted(len(consumers), 'registered consumer')} ({shown}) breaks "
                  "on the goldens under the new schema\n")
        return
    judged = [b for b in found_broken if b.judged]
    if judged:
        registered = textsafe.counted(len(consumers), "registered consumer")
        out.write(f"consumers the new schema breaks {len(judged)} of {registered} ({shown}):\n")
    else:
        out.write(f"consumers could not judge the registered consumers ({shown}):\n")
    for item in found_broken:
        label = item.consumer.label if item.consumer.command else "(consumers file)"
        out.write(f"            {label}: {textsafe.text(item.finding)}\n")
