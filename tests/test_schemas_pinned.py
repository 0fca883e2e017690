"""The wire schemas are the user's contract: byte-identical copies of the seeds, pinned by sha256."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from contract.resources import schema_path

PINNED = {
    # ../shared/seeds/000_90736987e1c1f5ee.txt
    "stream-json": "8d1f211b27c62dd1fffa5f5f82cd26fb37fe3a2965dbd87eca32ac3a048c30d7",
    # ../shared/seeds/003_6b04cd759bd99691.txt
    "subagent-stdio": "2c979c0598306920a04438312f27616bd638b80a71a550426cb513a4f0877c01",
}
SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"


@pytest.mark.parametrize("wire", sorted(PINNED))
def test_schema_copy_is_pinned(wire: str) -> None:
    digest = hashlib.sha256(schema_path(wire).read_bytes()).hexdigest()
    assert digest == PINNED[wire], f"schemas/{wire}.schema.json changed: the wire schemas are never edited"


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seeds are only beside a developer checkout")
def test_pins_match_the_seeds() -> None:
    seeds = {hashlib.sha256(p.read_bytes()).hexdigest() for p in SEEDS.glob("*.txt")}
    assert set(PINNED.values()) <= seeds
