"""The surface gate: each wire's surface is a reviewed snapshot that may only move additively.

One readable JSON snapshot per wire lives in __snapshots__/test_surface/. The stored snapshot is
read before asserting, so that a breaking change is refused even under ``--snapshot-update``
(the stored value is asserted again, which keeps the file as it was) unless accepted-breaks.json
names it with its ADR; a stale entry there fails too. Additive changes fail until the snapshot is
updated, saying that nothing breaks. See contract/evolution/gate.py for the rules.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.json import JSONSnapshotExtension

from contract.evolution.gate import Accepted, Verdict, evaluate, load_accepted, sources
from contract.evolution.surface import WIRES, surface_for
from contract.plugin.failure import fail
from contract.wires import BUNDLED, get


class SurfaceGate(JSONSnapshotExtension):
    """The gate as a syrupy extension: it sees the stored snapshot as syrupy reads it.

    syrupy reads the stored snapshot (``read_snapshot_data_from_location``) before it serializes
    the asserted value (``serialize``); the gate keeps the first and turns the current surface
    into what the snapshot must hold after this run (``Verdict.value``: the stored value when a
    break is refused, so ``--snapshot-update`` cannot write it).
    """

    def __init__(self) -> None:
        super().__init__()
        self.wire = ""
        self.accepted: list[Accepted] = []
        self.stored: dict[str, Any] | None = None
        self.verdict: Verdict | None = None

    def bind(self, wire: str, accepted: list[Accepted]) -> None:
        self.wire, self.accepted = wire, accepted

    def read_snapshot_data_from_location(self, *, snapshot_location: str, snapshot_name: str,
                                         session_id: str) -> Any:
        data = super().read_snapshot_data_from_location(snapshot_location=snapshot_location,
                                                        snapshot_name=snapshot_name, session_id=session_id)
        self.stored = json.loads(data) if data is not None else None
        return data

    def serialize(self, data: Any, **kwargs: Any) -> Any:
        self.verdict = evaluate(self.wire, self.stored, data, self.accepted)
        return super().serialize(self.verdict.value, **kwargs)


@pytest.fixture
def surface_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(SurfaceGate)


def not_shipped(wire: str) -> str:
    """Why a registered wire that this package does not ship has no surface test here, naming
    where its files are (the checkout's tests/wires/audit_log for the tests' synthetic wire)."""
    import os

    root = get(wire).data_root
    where = ""
    if root:
        relative = os.path.relpath(root)
        where = f" (its files: {root if relative.startswith('..') else relative})"
    return (f"{wire}: a wire registered beside this package{where}, not one it ships ({', '.join(BUNDLED)}), "
            "so no surface snapshot ships for it")


@pytest.mark.parametrize("wire", WIRES)
def test_surface(wire: str, surface_snapshot: SnapshotAssertion) -> None:
    if wire not in BUNDLED:  # a wire registered beside the package (a test's) ships no snapshot here
        pytest.skip(not_shipped(wire))
    where = sources()
    current = surface_for(wire, where.schemas, where.goldens)
    gate = surface_snapshot.extension
    assert isinstance(gate, SurfaceGate)
    gate.bind(wire, load_accepted(where.accepted))
    # Compare before any failure: a test that fails first leaves its snapshot unused, and
    # --snapshot-update would then delete it (docs/architecture.md, "Pitfalls").
    matches = current == surface_snapshot
    verdict = gate.verdict
    assert verdict is not None  # the extension judged the surface while serializing it
    if verdict.problems:
        fail(verdict.problems, verdict.problems)
    if not matches:
        fail(verdict.pending(), verdict.pending())
