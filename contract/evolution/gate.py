"""The non-additive change gate: decide whether a wire's surface may move from its stored snapshot.

Within stream_v1 the wires evolve additively; any other change needs a superseding ADR. The gate
compares the stored surface snapshot with the surface derived now and:

* refuses every breaking change that the accepted-breaks file does not name with its ADR, and
  then keeps the stored snapshot as it is (so ``--snapshot-update`` cannot record the break);
* refuses every accepted-breaks entry that matches no change and was never recorded by the
  snapshot (a stale entry), so the file stays true;
* otherwise lets the snapshot move, recording in it the entries it absorbed (``accepted_breaks``),
  which keeps those entries valid on later runs, when the change is no longer pending.

A missing snapshot is a fresh baseline: there is nothing to compare, and the file's entries for
that wire are adopted as already absorbed. The library is pytest-free; contract/tests/
test_surface.py drives it through syrupy.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema_rs

from contract.core.resources import data_dir
from contract.core.userfiles import read_whole
from contract.evolution.classify import BREAKING, REFUSED_CODES, Change, classify

ROOT_ENV = "MILK_CONTRACT_SURFACE_ROOT"  # a folder with schemas/, goldens/, accepted-breaks.json
ACCEPTED_NAME = "accepted-breaks.json"


@dataclass(frozen=True, slots=True)
class Sources:
    schemas: Path
    goldens: Path
    accepted: Path


def sources() -> Sources:
    """Where the gate reads from: the bundled data, or copies under ``$MILK_CONTRACT_SURFACE_ROOT``
    (the suite's own gate tests run the real test module on edited copies that way)."""
    root = os.environ.get(ROOT_ENV)
    if root:
        base = Path(root)
        return Sources(base / "schemas", base / "goldens", base / ACCEPTED_NAME)
    schemas = data_dir("schemas")
    return Sources(schemas, data_dir("goldens"), schemas.parent / ACCEPTED_NAME)


@dataclass(frozen=True, slots=True, order=True)
class Accepted:
    wire: str
    path: str
    code: str
    adr: str
    note: str = ""

    def matches(self, wire: str, change: Change) -> bool:
        return (change.kind == BREAKING and self.wire == wire and self.path == change.path
                and self.code == change.code)

    def to_json(self) -> dict[str, str]:
        out = {"wire": self.wire, "path": self.path, "code": self.code, "adr": self.adr}
        if self.note:
            out["note"] = self.note
        return out

    def key(self) -> tuple[str, str, str, str]:
        return self.wire, self.path, self.code, self.adr


class AcceptedBreaksError(ValueError):
    """The accepted-breaks file is unreadable or does not follow its schema."""


def load_accepted(path: Path) -> list[Accepted]:
    """The entries of an accepted-breaks file (none when it does not exist)."""
    if not path.exists():
        return []
    try:
        document = json.loads(read_whole(path))
    except OSError as error:
        raise AcceptedBreaksError(f"{path}: {error.strerror or error}") from None
    except (ValueError, RecursionError) as error:
        raise AcceptedBreaksError(f"{path}: {error}") from None
    _validate(document, path)
    return [Accepted(e["wire"], e["path"], e["code"], e["adr"], e.get("note", ""))
            for e in document["accepted"]]


def _validate(document: Any, path: Path) -> None:
    with open(data_dir("schemas") / "accepted-breaks.schema.json", "rb") as handle:
        schema = json.load(handle)
    error = next(iter(jsonschema_rs.validator_for(schema).iter_errors(document)), None)
    if error is not None:
        where = "/".join(str(p) for p in error.instance_path)
        raise AcceptedBreaksError(f"{path}: /{where}: {error.message}")


@dataclass(slots=True)
class Verdict:
    """What the gate decided for one wire."""

    wire: str
    changes: list[Change]
    value: dict[str, Any]  # what the snapshot must hold after this run
    refused: list[Change] = field(default_factory=list)
    stale: list[Accepted] = field(default_factory=list)
    accepted: list[Accepted] = field(default_factory=list)
    baseline: bool = False  # no stored snapshot: this run creates it

    @property
    def problems(self) -> str:
        """Why the gate fails regardless of the snapshot, or "" when it does not."""
        parts: list[str] = []
        if self.refused:
            parts.append(_refused_message(self.wire, self.refused))
        if self.stale:
            parts.append(_stale_message(self.stale))
        return "\n\n".join(parts)

    def pending(self) -> str:
        """Why the snapshot does not match yet, for a change the gate lets through."""
        if self.baseline:
            return (f"No stored surface snapshot for {self.wire}: review the surface, then "
                    "create it with: pytest --snapshot-update")
        additive = [c for c in self.changes if c.kind != BREAKING]
        lines = [f"The {self.wire} surface changed and its snapshot is not updated yet."]
        if self.accepted:
            lines.append("Breaking changes accepted by ADR: " + ", ".join(
                f"{e.path} [{e.code}] by {e.adr}" for e in self.accepted) + ".")
        elif additive:
            lines.append("Every change is additive: nothing breaks for consumers or emitters.")
        lines += [f"  + {c.path}: {c.reason}" for c in additive[:40]]
        if len(additive) > 40:
            lines.append(f"  … and {len(additive) - 40} more")
        lines.append("Review the change, then record it with: pytest --snapshot-update")
        return "\n".join(lines)


def _refused_message(wire: str, refused: list[Change]) -> str:
    lines = [f"BREAKING change to the {wire} wire, not accepted by any ADR "
             f"({len(refused)}). --snapshot-update does not record it."]
    lines += [f"  ! {c.path}: {c.reason} [{c.code}; breaks {c.breaks}]" for c in refused]
    lines += [f"  {c.code} cannot be accepted: {REFUSED_CODES[c.code]}" for c in refused if c.code in REFUSED_CODES]
    acceptable = [c for c in refused if c.code not in REFUSED_CODES]
    if acceptable:
        example = acceptable[0]
        entry = json.dumps({"wire": wire, "path": example.path, "code": example.code,
                            "adr": "ADR-NNNN"})
        lines.append(f"Within stream_v1 only additive changes are allowed. If a superseding ADR "
                     f"decided this, name it in {ACCEPTED_NAME}, e.g. {entry}")
    return "\n".join(lines)


def _stale_message(stale: list[Accepted]) -> str:
    lines = [f"{ACCEPTED_NAME} names breaks that match no change between the stored snapshot "
             "and the current surface (stale entries; remove them or fix path/code):"]
    lines += [f"  ? {json.dumps(e.to_json())}" for e in stale]
    return "\n".join(lines)


def evaluate(wire: str, stored: dict[str, Any] | None, current: dict[str, Any],
             entries: list[Accepted]) -> Verdict:
    """Judge the move from the ``stored`` snapshot value to the ``current`` surface."""
    mine = [e for e in entries if e.wire == wire]
    if stored is None:  # fresh baseline: nothing to compare against
        return Verdict(wire, [], _value(current, mine), baseline=True)
    absorbed = {tuple(a.values()) for a in _absorbed(stored)}  # (wire, path, code, adr)
    changes = classify(stored, current)
    breaking = [c for c in changes if c.kind == BREAKING]
    matched = [e for e in mine if any(e.matches(wire, c) for c in breaking)]
    kept = [e for e in mine if e.key() in absorbed]
    grounds = [*matched, *kept]  # the schema breaks accepted, now or by an earlier run
    refused = [c for c in breaking if not any(e.matches(wire, c) for e in mine)
               and implied_by(c, grounds) is None]
    stale = [e for e in mine if e not in matched and e not in kept]
    if refused:
        return Verdict(wire, changes, stored, refused, stale, matched)
    return Verdict(wire, changes, _value(current, sorted({*kept, *matched})), [], stale,
                   [e for e in matched if e not in kept])


# a schema break whose consequence in the goldens is the corpus change: a member removed or renamed
# is no longer seen, a line kind removed no longer shown (the goldens follow the schema: a golden
# still showing it would not be conformant)
_CONSEQUENCES = {"field-no-longer-seen": ("field-removed", "field-renamed"),
                 "kind-no-longer-seen": ("line-kind-removed",)}


def implied_by(change: Change, accepted: list[Accepted]) -> Accepted | None:
    """The accepted schema break whose consequence a corpus change is, if any.

    An ADR that removes or renames a member also makes the goldens stop showing it (after they
    are migrated or re-recorded): the accepted ``ttft_ms`` rename accepts ``ttft_ms`` no longer
    being seen on any kind of result line, and needs no entry per line kind. Only that
    consequence is implied: a member no longer seen while the schema still has it is a corpus
    change of its own, still refused without its own entry.
    """
    grounds = _CONSEQUENCES.get(change.code or "")
    if grounds is None or not change.path.startswith("corpus:"):
        return None
    parts = change.path.split(":", 2)
    target = (f"kind:{parts[1].split('/')[0]}" if change.code == "kind-no-longer-seen" else
              parts[2] if len(parts) == 3 else "")
    for entry in accepted:
        if entry.code in grounds and (target == entry.path or target.startswith(
                (entry.path + ".", entry.path + "[", entry.path + "{"))):
            return entry
    return None


def _absorbed(stored: dict[str, Any]) -> list[dict[str, str]]:
    found = stored.get("accepted_breaks", [])
    return [{k: e[k] for k in ("wire", "path", "code", "adr")} for e in found
            if isinstance(e, dict)]


def _value(current: dict[str, Any], absorbed: list[Accepted]) -> dict[str, Any]:
    return {**current, "accepted_breaks": [e.to_json() for e in sorted(absorbed)]}
