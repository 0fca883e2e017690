"""Open line types (README policy): an unlisted stream-json ``type`` is judged without the top-level oneOf.

Both validation engines must give the same verdict, every other keyword must still hold, the
explanation must point at what is wrong (not at the type), and subagent-stdio stays closed.
"""

from __future__ import annotations

from typing import Any

import pytest

from contract.checking.schema import engine, load, open_type_schema

ENVELOPE = {"session_id": "sess_1", "seq": 1, "ts": "2026-01-01T00:00:00Z"}

CASES: list[tuple[str, dict[str, Any], bool]] = [
    ("an unlisted type with the envelope", {"type": "thought", **ENVELOPE}, True),
    ("an unlisted type with a modelled member", {"type": "thought", **ENVELOPE, "body": "x"}, True),
    ("an unlisted type with a member the schema does not model", {"type": "thought", **ENVELOPE, "mood": 1}, False),
    ("an unlisted type without seq", {"type": "thought", "session_id": "sess_1", "ts": "2026-01-01T00:00:00Z"},
     False),
    ("an unlisted type with a mistyped modelled member", {"type": "thought", **ENVELOPE, "body": 5}, False),
    ("a type that is not a string is judged by the whole seed", {"type": 7, **ENVELOPE}, False),
    ("a listed type keeps its branch", {"type": "result", **ENVELOPE, "subtype": "success", "is_error": False}, True),
]


@pytest.mark.parametrize(("instance", "valid"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_both_engines_read_unlisted_types_as_open(instance: dict[str, Any], valid: bool) -> None:
    eng = engine("stream-json")
    assert eng.is_valid_fast(instance) is valid
    assert eng.is_valid_reference(instance) is valid
    assert eng.is_valid(instance) is valid
    if not valid:
        assert eng.explain(instance)
        assert eng.explain_fast(instance)


def test_explanation_points_at_the_fault_not_the_type() -> None:
    errors = engine("stream-json").explain({"type": "thought", **ENVELOPE, "mood": 1})
    assert [e.pointer for e in errors] == ["/mood"]


def test_subagent_types_stay_closed() -> None:
    eng = engine("subagent-stdio")
    line = {"type": "subagent_ping", "version": 1, "id": "c1"}
    assert eng.is_valid_fast(line) is False
    assert eng.is_valid_reference(line) is False


def test_the_open_schema_is_derived_not_stored() -> None:
    seed = load("stream-json")
    derived = open_type_schema("stream-json")
    assert "oneOf" in seed
    assert "oneOf" not in derived
    assert {k: v for k, v in seed.items() if k != "oneOf"} == derived
