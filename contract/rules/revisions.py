"""Frozen requirement sets: what each revision of a wire was judged by, as data shipped with the package.

A wire revision is its seed schema as taken in (the original seed is ``r1``; each ``milk-contract
evolve`` that takes a new schema in writes the next, ``r2``, ...). Its requirement set is
``requirements/<wire>/r<N>.json`` (in the wheel under ``contract/_data/requirements``): per
catalogued rule of the wire, its id, level, basis and text (the title), with the sha256 of the
schema that revision stands on. The latest revision's set is generated from the catalog
(``python tools/requirement_sets.py``) and held equal to it by tests/rules/test_revisions.py;
an earlier revision's file is never rewritten, so a statement judged by ``r1`` can be read
against exactly what ``r1`` asked. Reports and statements name the revision they judged by
(``current``).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from contract.core.resources import data_dir
from contract.rules.catalog import rules_for
from contract.wires import by_wire, get

FOLDER = "requirements"
_REVISION = re.compile(r"r([1-9][0-9]*)\.json")


def folder(wire: str, root: Path | None = None) -> Path:
    """Where ``wire``'s requirement sets are: under ``root`` (a checkout), else the bundled data."""
    return (root / FOLDER if root is not None else data_dir(FOLDER)) / wire


def numbers(wire: str, root: Path | None = None) -> list[int]:
    """The revisions of ``wire`` that have a set, in order (empty when none was written yet)."""
    place = folder(wire, root)
    if not place.is_dir():
        return []
    return sorted(int(m.group(1)) for p in place.iterdir() if (m := _REVISION.fullmatch(p.name)))


@by_wire
def current(wire: str) -> str:
    """The revision the bundled data judges ``wire`` by (``r1``, ...), or ``unfrozen`` when it has no set."""
    found = numbers(wire)
    return f"r{found[-1]}" if found else "unfrozen"


def generated(wire: str, revision: str, schema: Path | None = None) -> dict[str, Any]:
    """The requirement set of ``wire`` from the catalog, for ``revision``, standing on ``schema``."""
    path = schema if schema is not None else get(wire).schema_path
    return {
        "wire": wire,
        "revision": revision,
        "schema_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "rules": [{"id": rule.id, "level": rule.level.value, "basis": rule.basis_for(wire).value,
                   "text": rule.title} for rule in rules_for(wire)],
    }


def render(requirement_set: dict[str, Any]) -> str:
    """A set as it is written (the file's exact text: sorted keys, two-space indent, one LF at the end)."""
    return json.dumps(requirement_set, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def load(wire: str, revision: str, root: Path | None = None) -> dict[str, Any]:
    """A frozen set (``FileNotFoundError`` when that revision has none)."""
    with (folder(wire, root) / f"{revision}.json").open(encoding="utf-8") as handle:
        found: dict[str, Any] = json.load(handle)
    return found


def write_latest(wire: str, root: Path, schema: Path | None = None) -> Path:
    """Regenerate the latest revision's set from the catalog (``r1`` when none exists): the tool's job."""
    found = numbers(wire, root)
    revision = f"r{found[-1] if found else 1}"
    return _write(wire, root, generated(wire, revision, schema))


def write_next(wire: str, root: Path, schema: Path) -> Path:
    """Write the next revision's set beside the previous ones (``milk-contract evolve``), from ``schema``."""
    found = numbers(wire, root)
    return _write(wire, root, generated(wire, f"r{(found[-1] if found else 0) + 1}", schema))


def _write(wire: str, root: Path, requirement_set: dict[str, Any]) -> Path:
    path = folder(wire, root) / f"{requirement_set['revision']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(requirement_set), encoding="utf-8")
    return path
