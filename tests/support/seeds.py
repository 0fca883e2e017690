"""The wires' seeds, the user's original schemas, as tests that state facts about them read them.

``schemas/<wire>.schema.json`` is the schema in force, which an ADR may have evolved (``milk-contract
evolve``): a test of what the seeds are ("read whole", "every tightening of them is breaking") reads
the seed, never whatever schema is in force, or one ADR's evolve turns it red for good (issue 47).
The seeds are kept byte for byte under tests/support/seeds/ and pinned by their sha256 (the digests
of shared/seeds/, which tests/architecture/test_schemas_pinned.py also holds the pins to).
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parent / "seeds"
SEED_DIGESTS = {
    # the seeds these copies were taken from (shared/seeds/000_90736987e1c1f5ee.txt and 003_6b04cd759bd99691.txt);
    # a wire whose schema was written here, copied from no seed, has no entry (its pin is the record)
    "stream-json": "8d1f211b27c62dd1fffa5f5f82cd26fb37fe3a2965dbd87eca32ac3a048c30d7",
    "subagent-stdio": "2c979c0598306920a04438312f27616bd638b80a71a550426cb513a4f0877c01",
}


def seed_bytes(wire: str) -> bytes:
    """The seed's bytes, checked against its digest (AssertionError when the copy was edited)."""
    data = (FOLDER / f"{wire}.schema.json").read_bytes()
    assert hashlib.sha256(data).hexdigest() == SEED_DIGESTS[wire], f"{wire}: the copy is not the seed"
    return data


def seed(wire: str) -> dict[str, Any]:
    """The seed of ``wire`` as a JSON Schema document (a fresh copy each call)."""
    document: dict[str, Any] = json.loads(seed_bytes(wire))
    return document


def original(wire: str) -> dict[str, Any]:
    """The seed of ``wire``, or for a wire copied from no seed (one registered by a test) its schema."""
    if wire in SEED_DIGESTS:
        return seed(wire)
    from contract.checking.schema import load

    return copy.deepcopy(load(wire))
