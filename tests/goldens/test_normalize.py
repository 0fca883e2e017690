"""Normalization: per-run values compare equal, everything else still differs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from contract.goldens import compare as golden_compare
from contract.goldens import store as goldens
from contract.goldens.normalize import VOLATILE, Normalizer, Treatment, normalize

# the measured times stream-json declares volatile (contract/wires/stream_json/volatile.py), by the
# declaration, so a renamed member moves this test with it
MEASURED = tuple(v.segments[0] for v in VOLATILE["stream-json"] if v.name == "ms")


def _lines(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.splitlines()]


def _bytes(lines: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def _rerun_stream_json(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a second run of the same scenario changes: every per-run value."""
    text = json.dumps(lines)
    for old in sorted(set(_ids(lines)), key=len, reverse=True):
        text = text.replace(old, old[::-1])  # same length, same identity, new value
    rerun: list[dict[str, Any]] = json.loads(text)
    for line in rerun:
        line["ts"] = line["ts"].replace("2026-11-30", "2027-01-02")
        for key in MEASURED:
            if key in line:
                line[key] += 17
        if "output_tokens_per_second" in line:
            line["output_tokens_per_second"] = 3.25
        if line.get("subtype") == "init":
            line["cwd"] = "/tmp/ci/workspace"
            line["milk_version"] = "0.43.0-dev+g1234abc"
    return rerun


def _ids(lines: list[dict[str, Any]]) -> list[str]:
    found = []
    for line in lines:
        found.append(line["session_id"])
        message = line.get("message")
        if isinstance(message, dict):
            found += [message["id"]] if "id" in message else []
            for block in message["content"]:
                found += [block[k] for k in ("id", "tool_use_id") if k in block]
    return found


@pytest.mark.parametrize("golden", goldens.scenarios("stream-json"), ids=lambda g: g.name)
def test_a_rerun_differing_only_in_volatile_values_compares_equal(golden: goldens.Golden) -> None:
    rerun = _bytes(_rerun_stream_json(_lines(golden.data())))
    assert rerun != golden.data()
    comparison = golden_compare.compare(golden.data(), rerun, "stream-json")
    assert comparison.equal, comparison.summary()


def test_tool_identity_is_kept() -> None:
    golden = goldens.load("stream-json", "tool_calls").data()
    lines = _lines(golden)
    results = [x for x in lines if x["type"] == "user"]
    first, second = (r["message"]["content"][0] for r in results)
    first["tool_use_id"], second["tool_use_id"] = second["tool_use_id"], first["tool_use_id"]
    comparison = golden_compare.compare(golden, _bytes(lines), "stream-json")
    pointers = {d.pointer for d in comparison.breaking}
    assert pointers == {"/message/content/0/tool_use_id"}
    assert len(comparison.breaking) == 2


def test_placeholders_number_by_first_appearance() -> None:
    lines: list[dict[str, Any]] = [{"session_id": "sess_b", "parent_tool_use_id": "t2"},
             {"session_id": "sess_b", "message": {"content": [{"id": "t1"}, {"id": "t2"}]}}]
    out = normalize("stream-json", lines)
    assert out[0] == {"session_id": "<session:1>", "parent_tool_use_id": "<tool:1>"}
    assert out[1]["message"]["content"] == [{"id": "<tool:2>"}, {"id": "<tool:1>"}]
    assert lines[0]["parent_tool_use_id"] == "t2", "the input is never modified"


@pytest.mark.parametrize(("field", "value"), [
    ("duration_ms", "120"), ("duration_ms", 1.5), ("ts", 1764500000), ("session_id", None),
    ("duration_ms", True),
])
def test_a_value_of_the_wrong_type_is_left_alone(field: str, value: Any) -> None:
    assert Normalizer("stream-json").line({field: value}) == {field: value}


def test_subagent_values_at_any_depth() -> None:
    snapshot = {"sessionId": None, "epoch": "ep-1", "revision": 7, "runs": [
        {"key": "a", "startedAt": 5, "runId": "r-9", "children": [
            {"key": "b", "startedAt": 6, "updatedAt": 7, "endedAt": 8,
             "processTerminal": {"state": "observed", "observedAt": 9}}]}]}
    line = {"type": "response", "id": "c-1", "data": snapshot}
    out = Normalizer("subagent-stdio").line(line)
    assert out["id"] == "<command:1>"
    data = out["data"]
    assert (data["sessionId"], data["epoch"], data["revision"]) == (None, "<epoch:1>",
                                                                    "<revision:1>")
    child = data["runs"][0]["children"][0]
    assert (child["startedAt"], child["endedAt"]) == ("<ms>", "<ms>")
    assert child["processTerminal"]["observedAt"] == "<ms>"
    assert data["runs"][0]["runId"] == "<run:1>"
    assert child["key"] == "b", "keys are the scenario's, not per-run"


def test_an_epoch_change_stays_visible() -> None:
    golden = goldens.load("subagent-stdio", "epoch_change").data()
    same_epoch = golden.replace(b"ep-5c7e2b18", b"ep-aa01f3c9")
    comparison = golden_compare.compare(golden, same_epoch, "subagent-stdio")
    assert comparison.breaking
    assert all(d.pointer.endswith("/epoch") for d in comparison.differences)


def test_fresh_epochs_and_revisions_compare_equal() -> None:
    golden = goldens.load("subagent-stdio", "workflow_events").data()
    rerun = golden.replace(b"ep-2b81d0c4", b"ep-0000beef")
    for old, new in ((b'"revision":7', b'"revision":70'), (b'"revision":6', b'"revision":60'),
                     (b'"revision":5', b'"revision":50'), (b'"revision":4', b'"revision":40')):
        rerun = rerun.replace(old, new)
    assert rerun != golden
    comparison = golden_compare.compare(golden, rerun, "subagent-stdio")
    assert comparison.equal, comparison.summary()


@pytest.mark.parametrize("wire", sorted(VOLATILE))
def test_the_volatile_lists_are_documented_data(wire: str) -> None:
    for field in VOLATILE[wire]:
        assert field.pattern.startswith("/")
        assert field.why
        assert field.json_type in ("string", "integer", "number")
        assert isinstance(field.treatment, Treatment)
