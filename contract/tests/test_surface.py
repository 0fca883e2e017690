"""The surface gate: each wire's surface is a reviewed snapshot that may only move additively.

One readable JSON snapshot per wire lives in __snapshots__/test_surface/. The stored snapshot is
read before asserting, so that a breaking change is refused even under ``--snapshot-update``
(the stored value is asserted again, which keeps the file as it was) unless accepted-breaks.json
names it with its ADR; a stale entry there fails too. Additive changes fail until the snapshot is
updated, saying that nothing breaks. See contract/gate.py for the rules.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.json import JSONSnapshotExtension

from contract.gate import evaluate, load_accepted, sources
from contract.surface import WIRES, surface_for


@pytest.fixture
def surface_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(JSONSnapshotExtension)


def _stored(snap: SnapshotAssertion) -> dict[str, Any] | None:
    """The snapshot as it is on disk now, before this run may rewrite it."""
    location = Path(snap.extension.get_location(test_location=snap.test_location,
                                                index=snap.index))
    if not location.exists():
        return None
    with open(location, encoding="utf-8") as handle:
        stored: dict[str, Any] = json.load(handle)
    return stored


@pytest.mark.parametrize("wire", WIRES)
def test_surface(wire: str, surface_snapshot: SnapshotAssertion) -> None:
    where = sources()
    current = surface_for(wire, where.schemas, where.goldens)
    verdict = evaluate(wire, _stored(surface_snapshot), current, load_accepted(where.accepted))
    # Compare before any failure: a test that fails first leaves its snapshot unused, and
    # --snapshot-update would then delete it (docs/architecture.md, "Pitfalls").
    matches = verdict.value == surface_snapshot
    if verdict.problems:
        pytest.fail(verdict.problems, pytrace=False)
    if not matches:
        pytest.fail(verdict.pending(), pytrace=False)
