"""Where checks write what they find: the ``Sink`` protocol.

The reader, the schema step and every rule machine write findings through a sink and nothing
else, so the same code runs against the report's collector (``contract.rules.report.Collector``),
the two-process checker's event log and its main process's discard sink. A protocol (not the
concrete collector) is what keeps the wires and the reader below the report in the import
order; see docs/architecture.md.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol


class Emit(NamedTuple):
    """One finding as ``Sink.emit`` received it (kept to be passed on later, or compared)."""

    rule: str
    line: int | None
    pointer: str | None
    message: str
    hint: str | None


class Sink(Protocol):
    """Takes findings (``emit``), notes for the report (``note``) and which rules judged (``exercised``)."""

    def emit(self, rule: str, line: int | None, pointer: str | None, message: str,
             hint: str | None = None) -> None:
        """One finding of catalog rule ``rule`` at ``line`` (1-based) and JSON ``pointer``."""

    def note(self, text: str) -> None:
        """A sentence for the report's notes (said once, not a finding)."""

    def exercised(self, rule: str) -> None:
        """Catalog rule ``rule`` judged something in this stream, passed or not (requirement verdicts)."""
