"""cases/readings.json stays usable: every stream it describes can be built and every reading has the shape.

test_consumer_readings.py holds the expected readings (READINGS.md, "Consumer readings") against the
reference reading; this holds the data to what it says: each case's transcript is built from a
golden (blackbox.transcript), its per-line records name each of its lines once, in order, with a
known `did`, and its view has the members /work/notes/shape-reading.md gives.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.independent.blackbox import GOLDENS, load_cases, transcript

DATA = load_cases("readings")
DID = {"event", "ignored", "error"}
VIEW = {"messages", "tool_calls", "ending"}
CALL = {"id", "name", "input", "result", "is_error"}
ENDING = {"failed", "subtype", "result", "usage"}


def test_every_stream_json_golden_has_a_reading() -> None:
    goldens = {f"stream-json/{path.stem}" for path in (GOLDENS / "stream-json").glob("*.jsonl")}
    read = {case["golden"] for case in DATA["cases"] if case["id"].startswith("golden-")}
    assert goldens == read


def test_ids_are_unique() -> None:
    ids = [case["id"] for case in DATA["cases"]]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("case", DATA["cases"], ids=[case["id"] for case in DATA["cases"]])
def test_reading_shape(case: dict[str, Any]) -> None:
    count = transcript(case).count(b"\n")
    expected = case["expected"]
    assert [record["line"] for record in expected["lines"]] == list(range(1, count + 1))
    assert {record["did"] for record in expected["lines"]} <= DID
    view = expected["view"]
    assert set(view) == VIEW
    for message in view["messages"]:
        assert set(message) == {"id", "blocks"}
        for block in message["blocks"]:
            assert block["type"] in ("text", "thinking")
            assert isinstance(block["text"], str)
    assert all(set(call) == CALL and call["is_error"] in (True, False, None) for call in view["tool_calls"])
    if view["ending"] is not None:
        assert set(view["ending"]) == ENDING
        assert isinstance(view["ending"]["failed"], bool)
