"""The wire schemas are the user's contract: byte-identical copies of the seeds, pinned by sha256.

The pins live in schemas/pins.json, a data file that only `milk-contract evolve` rewrites (with
the schema, in one step, when an ADR takes a new schema in). These tests prove the bundled
schemas are the pinned bytes, and that in this repository the pins are the seeds' digests.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from contract.core.resources import data_dir, schema_path
from contract.wires import BUNDLED
from tests.support.outside import NO_SEEDS, seeds
from tests.support.seeds import SEED_DIGESTS, seed_bytes

PINS = json.loads((data_dir("schemas") / "pins.json").read_text(encoding="utf-8"))
WIRES = BUNDLED  # every wire the package ships is pinned (schemas/pins.json)


def test_every_wire_is_pinned() -> None:
    assert sorted(PINS["sha256"]) == sorted(WIRES)


@pytest.mark.parametrize("wire", WIRES)
def test_schema_copy_is_pinned(wire: str) -> None:
    digest = hashlib.sha256(schema_path(wire).read_bytes()).hexdigest()
    assert digest == PINS["sha256"][wire], (
        f"schemas/{wire}.schema.json is not the pinned schema: a wire schema changes only through "
        "`milk-contract evolve` (README: evolving a wire), which rewrites the pin with it")


@pytest.mark.parametrize("wire", WIRES)
def test_unevolved_pins_are_the_seeds(wire: str) -> None:
    """Until an ADR takes a new schema in (pins.json names it), the pin is the seed's digest."""
    if PINS["evolved"].get(wire) is not None:
        pytest.skip(f"{wire} was evolved: {PINS['evolved'][wire]}")
    if wire not in SEED_DIGESTS:
        pytest.skip(f"{wire} was copied from no seed: schemas/pins.json is its only record")
    assert PINS["sha256"][wire] == SEED_DIGESTS[wire]


@pytest.mark.skipif(seeds() is None, reason=NO_SEEDS)
def test_pins_match_the_seeds() -> None:
    folder = seeds()
    assert folder is not None
    found = {hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.glob("*.txt")}
    assert set(SEED_DIGESTS.values()) <= found


def test_every_recorded_seed_is_a_shipped_wire() -> None:
    assert set(SEED_DIGESTS) <= set(WIRES)


@pytest.mark.parametrize("wire", sorted(SEED_DIGESTS))
def test_the_tests_copies_of_the_seeds_are_the_seeds(wire: str) -> None:
    """tests/support/seeds/ holds the seeds byte for byte (the tests of what a seed is read them), and
    while a wire is not evolved its bundled schema is that same copy."""
    data = seed_bytes(wire)
    if PINS["evolved"].get(wire) is None:
        assert schema_path(wire).read_bytes() == data
