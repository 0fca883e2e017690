"""Re-recorded differences that an ADR accepted: ``record`` reports them as accepted, not breaking.

After an ADR's break is taken in (``milk-contract evolve --accept``, or an entry written by hand in
accepted-breaks.json), re-recording the goldens from a build that follows the ADR shows that very
change, a member removed or renamed, as a breaking difference between each golden and its run.
It is the decided change, not a regression: a breaking difference whose place an entry of the
wire names (the entry's surface path, or a member under it) becomes ``accepted``, which does not
fail ``record``. Every other breaking difference stays breaking.

A difference's JSON pointer is read as a surface path: member names joined with ``.``, array
indices as ``[]`` (``/message/content/0/id`` is ``message.content[].id``); on a wire whose
surface paths start with the line kind (subagent-stdio: ``event.sessionId``) the entry's path is
also matched without it. A member of a map (``model_usage{}``) is matched by its map's entry.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from contract.core.jsonvalue import tokens
from contract.evolution.gate import ACCEPTED_NAME, Accepted, load_accepted
from contract.goldens.compare import ACCEPTED, BREAKING, Comparison, Difference


def surface_path(pointer: str) -> str:
    """A JSON pointer inside a line as a surface path (``/a/0/b`` → ``a[].b``)."""
    out = ""
    for part in tokens(pointer):
        if part.isdigit():
            out += "[]"
        else:
            out += f".{part}" if out else part
    return out


def _covers(entry: str, path: str) -> bool:
    for candidate in (entry, entry.partition(".")[2]):
        if candidate and (path == candidate or path.startswith((candidate + ".", candidate + "[", candidate + "{"))):
            return True
    return False


def accepted_by(difference: Difference, entries: list[Accepted]) -> Accepted | None:
    if difference.kind != BREAKING or not difference.pointer:
        return None
    path = surface_path(difference.pointer)
    return next((e for e in entries if _covers(e.path, path)), None)


def with_accepted(comparison: Comparison, entries: list[Accepted]) -> Comparison:
    """The comparison with each breaking difference an entry of its wire names marked accepted."""
    mine = [e for e in entries if e.wire == comparison.wire]
    if not mine or not comparison.breaking:
        return comparison
    marked = tuple(replace(d, kind=ACCEPTED, reason=f"{d.reason}; accepted by {found.adr}")
                   if (found := accepted_by(d, mine)) is not None else d for d in comparison.differences)
    return replace(comparison, differences=marked)


def entries_for(root: Path) -> list[Accepted]:
    """The accepted-breaks entries of the checkout at ``root`` (none without the file)."""
    return load_accepted(root / ACCEPTED_NAME)
