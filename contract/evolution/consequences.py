"""What an ADR's schema does to the rest of a checkout, told before anything is written (issue 36).

``milk-contract evolve`` classifies a new schema against the current one; that says what changes
on the wire, not what it takes to get the checkout green again. This module says the rest:

* the goldens that would not be valid under the new schema, each with its first finding, and
  the mechanical migration that would fix them when the changes imply one (a member renamed:
  ``--rename``; an optional member removed: ``--remove``), as the ``migrate`` command to run;
* the accepted-breaks entries the surface gate will need once the goldens follow the schema:
  the schema's own breaks and any corpus change they do not imply (a member no longer seen
  because its removal or rename was accepted is implied, contract/evolution/gate.py ``implied_by``),
  computed by running the gate's own judgement on the predicted surface;
* the places that name a changed member: the wire's volatile declaration (the one fact about a
  member the schema cannot say, declared once per wire), told as "ttft_ms is volatile: the
  declaration in ... names it; rename it there", and any other code or test that spells it.

Nothing here writes into the checkout; the predicted surface is built in a temporary folder.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contract.core import textsafe
from contract.evolution.classify import BREAKING, Change
from contract.evolution.gate import Accepted, evaluate, sources
from contract.evolution.migration import Step, first_finding, migrate_bytes
from contract.wires import get

CODE_FOLDERS = ("contract", "tests", "tools", "bench", "fuzz")  # where the checkout's code is
CODE_HITS_SHOWN = 20  # places named per member; the rest are counted
MAX_CODE_BYTES = 1 << 20  # a source file larger than this is not read (none is near it)
_TOP = re.compile(r"[^.\[\]{}]+")  # a surface path with no dot, [] or {}: a top-level member


@dataclass
class Consequences:
    """Everything ``evolve`` tells about a new schema beyond its changes."""

    nonconformant: list[tuple[str, str]] = field(default_factory=list)  # (golden name, first finding)
    goldens: int = 0
    migration: list[Step] = field(default_factory=list)
    after_migration: list[tuple[str, str]] = field(default_factory=list)  # still invalid once migrated
    needed: list[Change] = field(default_factory=list)  # breaks the gate will need entries for
    volatile: list[str] = field(default_factory=list)
    code: list[str] = field(default_factory=list)


def migration_for(changes: Sequence[Change]) -> list[Step]:
    """The mechanical golden migration the changes imply: a top-level member renamed or removed."""
    steps: list[Step] = []
    for change in changes:
        if not _TOP.fullmatch(change.path):
            continue
        if change.code == "field-renamed" and change.reason.startswith("renamed to "):
            to = change.reason.removeprefix("renamed to ")
            if _TOP.fullmatch(to):
                steps.append(Step("rename", change.path, to=to))
        elif change.code == "field-removed":
            steps.append(Step("remove", change.path))
    return steps


def _goldens(root: Path, wire: str) -> list[Path]:
    folder = root / "goldens" / wire
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


def _judged(paths: list[Path], schema: dict[str, Any], steps: Sequence[Step]) -> list[tuple[str, str]]:
    out = []
    for path in paths:
        data = path.read_bytes()
        finding = first_finding(migrate_bytes(data, steps) if steps else data, schema)
        if finding is not None:
            out.append((path.stem, finding))
    return out


def rejected_goldens(root: Path, wire: str, schema: dict[str, Any]) -> list[tuple[str, str]]:
    """The goldens of ``wire`` under ``root`` that ``schema`` does not accept, each with its first finding:
    what ``evolve`` says of them, and what makes ``diff`` call a change breaking."""
    return _judged(_goldens(root, wire), schema, ())


@dataclass(frozen=True, slots=True)
class Rejections:
    """The goldens of ``wire`` (``total`` of them) a new schema does not accept, each with its first finding."""

    wire: str
    total: int
    rejected: list[tuple[str, str]]


def rejected_by(old: Any, new: Any) -> Rejections | None:
    """For ``diff``: when ``new`` is a schema of a registered wire (``old``'s, as diff names the wire, else
    its own), the wire's goldens (the gate's, contract/evolution/gate.py ``sources``) it does not accept;
    None for a surface or a schema of no registered wire. A validator's error on ``new`` propagates."""
    from contract.evolution.surface import is_surface, named_by

    if not isinstance(new, dict) or is_surface(new):
        return None
    wire = (named_by(old) if isinstance(old, dict) and not is_surface(old) else None) or named_by(new)
    if wire is None:
        return None
    root = sources().goldens.parent
    return Rejections(wire, len(_goldens(root, wire)), rejected_goldens(root, wire, new))


def _stored(root: Path, wire: str) -> dict[str, Any] | None:
    path = root / "contract" / "tests" / "__snapshots__" / "test_surface" / f"test_surface[{wire}].json"
    try:
        stored: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return stored


def needed_entries(root: Path, wire: str, schema: dict[str, Any], steps: Sequence[Step],
                   accepted: list[Accepted]) -> list[Change]:
    """The breaks the surface gate will refuse once the goldens are migrated by ``steps``."""
    from contract.evolution.surface import surface_of

    stored = _stored(root, wire)
    if stored is None:  # no snapshot: the gate takes a baseline, nothing to accept
        return []
    with tempfile.TemporaryDirectory(prefix="milk-contract-evolve-") as scratch:
        goldens = Path(scratch) / "goldens"
        (goldens / wire).mkdir(parents=True)
        for path in _goldens(root, wire):
            (goldens / wire / path.name).write_bytes(migrate_bytes(path.read_bytes(), steps))
        for other in (root / "goldens").iterdir() if (root / "goldens").is_dir() else ():
            if other.is_dir() and other.name != wire:
                shutil.copytree(other, goldens / other.name)
        current = surface_of(schema, wire, goldens)
    first = evaluate(wire, stored, current, accepted)
    schema_breaks = [c for c in first.refused if not c.path.startswith("corpus:")]
    hypothetical = [Accepted(wire, c.path, c.code or "", "ADR-NNNN") for c in schema_breaks]
    second = evaluate(wire, stored, current, [*accepted, *hypothetical])
    return [*schema_breaks, *second.refused]


def _changed_members(changes: Sequence[Change]) -> list[tuple[str, str]]:
    """(member, what the ADR does to it) for each top-level member renamed or removed."""
    out = []
    for change in changes:
        if change.kind == BREAKING and _TOP.fullmatch(change.path) and change.code in (
                "field-renamed", "field-removed", "type-changed", "required-field-added"):
            out.append((change.path, change.reason))
    return out


def volatile_notes(root: Path, wire: str, changes: Sequence[Change]) -> list[str]:
    """For each changed member the wire declares volatile: where the declaration is, and what to do."""
    notes = []
    declared = {v.segments[0]: v for v in get(wire).volatile if len(v.segments) >= 1}
    for member, reason in _changed_members(changes):
        rule = declared.get(member)
        if rule is None:
            continue
        where = _declaration(root, rule.pattern)
        to = reason.removeprefix("renamed to ") if reason.startswith("renamed to ") else None
        todo = f"rename it there (to /{to})" if to else "change or remove it there"
        notes.append(f"{textsafe.text(member)} is volatile: the declaration in {where} names it "
                     f"({textsafe.text(rule.pattern)}); {todo}")
    return notes


def _declaration(root: Path, pattern: str) -> str:
    literal = json.dumps(pattern)
    for path in sorted((root / "contract" / "wires").glob("*/volatile.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if literal in line:
                return f"{path.relative_to(root).as_posix()}:{number}"
    return "the wire's volatile declaration (contract/wires/<wire>/volatile.py)"


def _sources(root: Path) -> Iterator[Path]:
    for folder in CODE_FOLDERS:
        for path in sorted((root / folder).rglob("*.py")) if (root / folder).is_dir() else ():
            if "__pycache__" not in path.parts and path.stat().st_size <= MAX_CODE_BYTES:
                yield path


def code_naming(root: Path, changes: Sequence[Change]) -> list[str]:
    """Each place in the checkout's code that spells a renamed or removed member as a string."""
    notes = []
    for member, _ in _changed_members(changes):
        spelled = re.compile(rf"""["'](?:/)?{re.escape(member)}["']""")
        hits = []
        for path in _sources(root):
            if path.name == "volatile.py" and path.parent.parent.name == "wires":
                continue  # told as the declaration, above
            text = path.read_text(encoding="utf-8", errors="replace")
            if member not in text:
                continue
            hits += [f"{path.relative_to(root).as_posix()}:{number}"
                     for number, line in enumerate(text.splitlines(), 1) if spelled.search(line)]
        if hits:
            more = f" and {len(hits) - CODE_HITS_SHOWN} more" if len(hits) > CODE_HITS_SHOWN else ""
            notes.append(f"{textsafe.text(member)} is named in code: {', '.join(hits[:CODE_HITS_SHOWN])}{more}")
    return notes


def consequences(root: Path, wire: str, schema: dict[str, Any], changes: Sequence[Change],
                 accepted: list[Accepted]) -> Consequences:
    """Everything the new schema implies for the checkout at ``root`` (nothing written)."""
    paths = _goldens(root, wire)
    told = Consequences(goldens=len(paths))
    told.nonconformant = rejected_goldens(root, wire, schema)
    if told.nonconformant:
        told.migration = migration_for(changes)
        if told.migration:
            told.after_migration = _judged(paths, schema, told.migration)
    told.needed = needed_entries(root, wire, schema, told.migration, accepted)
    told.volatile = volatile_notes(root, wire, changes)
    told.code = code_naming(root, changes)
    return told
