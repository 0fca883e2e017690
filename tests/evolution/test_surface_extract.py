"""Surface extraction: field paths, recursion, open sets, line kinds and the golden corpus part."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contract.checking.schema import load
from contract.evolution.surface import READ, corpus_surface, open_set_values, schema_surface, surface_for, surface_of
from contract.wires import WIRES
from tests.support.seeds import SEED_DIGESTS, seed


def _keywords(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            if key in ("properties", "$defs"):
                for sub in value.values():
                    yield from _keywords(sub)
            else:
                yield from _keywords(value)
    elif isinstance(node, list):
        for item in node:
            yield from _keywords(item)


@pytest.mark.parametrize("wire", tuple(WIRES))
def test_every_schema_keyword_is_read_or_recorded_unread(wire: str) -> None:
    """A keyword the surface does not read is recorded as it is, under ``unread`` (where any change
    to it is breaking, tests/evolution/test_surface_blind_spots.py), never left out."""
    recorded = surface_for(wire)["schema"].get("unread", {}).values()  # the schema in force, evolved or not
    unread = {keyword for found in recorded for keyword in _keywords(found)}  # what is under one too
    assert set(_keywords(load(wire))) <= READ | unread


@pytest.mark.parametrize("wire", sorted(SEED_DIGESTS))
def test_the_seeds_are_read_whole(wire: str) -> None:
    """milk's two seeds use only what the surface reads (a wire written here may use more, and so may
    an evolved schema: this is about the seeds, tests/support/seeds.py, not the schema in force)."""
    assert "unread" not in surface_of(seed(wire))["schema"]


@pytest.mark.parametrize(("text", "values"), [
    ("text | thinking | tool_use | tool_result (open set)",
     ["text", "thinking", "tool_result", "tool_use"]),
    ("open set (known: end_turn, max_turns, refusal)", ["end_turn", "max_turns", "refusal"]),
    ("open-set strings (known: stream_v1, tasks_v1) — tolerate unknown values",
     ["stream_v1", "tasks_v1"]),
    ("system family: init | state; result family: success | refused (open sets — ignore)",
     ["result/refused", "result/success", "system/init", "system/state"]),
    ("line discriminator — system | result (open set: ignore unknown values)",
     ["result", "system"]),
])
def test_open_set_forms(text: str, values: list[str]) -> None:
    assert open_set_values(text) == values


def test_closed_alternatives_are_not_an_open_set() -> None:
    """The agent label lists values but never calls them open: no open_set for it."""
    assert open_set_values("a role label string (primary | escalation) on assistant lines") is None


def _branch_types(schema: dict[str, Any]) -> list[str]:
    """The ``type`` const of each top-level ``oneOf`` branch, in order: the line kinds the schema
    in force states (read here from the document itself, so an ADR that adds or moves one needs no
    edit of this test)."""
    return [branch["properties"]["type"]["const"] for branch in schema["oneOf"]]


def test_stream_json_schema_part() -> None:
    schema = seed("stream-json")
    part = schema_surface(schema)
    fields = part["fields"]
    assert list(part["line_kinds"]) == _branch_types(schema)
    assert {"system", "result"} <= set(part["line_kinds"])  # the two the framing rules name
    assert fields["agent"]["types"] == ["object", "string"]  # dual form: both branches kept
    assert fields["agent.name"]["required"] is True
    assert fields["message.content[].input"]["types"] == ["any"]  # free-form
    assert fields["model_usage"]["additionalProperties"] == "schema"
    assert fields["model_usage{}.cache_read"]["required"] is True
    assert fields["usage.cache_creation"]["types"] == ["integer"]  # through allOf + $ref
    assert {p for p, e in fields.items() if e.get("required") and "." not in p} == set(schema["required"])
    assert part["root"] == {"types": ["object"], "additionalProperties": False}


def test_subagent_schema_part_records_recursion_without_unrolling() -> None:
    schema = seed("subagent-stdio")
    part = schema_surface(schema)
    fields = part["fields"]
    kinds = {n: k["type"] for n, k in part["line_kinds"].items()}
    # each kind is a $defs entry whose type const it records (read from the schema in force)
    assert kinds == {n: schema["$defs"][n]["properties"]["type"]["const"] for n in kinds}
    assert {"command", "response", "event"} <= set(kinds)
    assert all(p.split(".")[0].split("[")[0] in part["line_kinds"] for p in fields)
    assert fields["response.data.runs[].children[]"]["recursive"] == "response.data.runs[]"
    assert not any("children[]." in p for p in fields)
    assert fields["command.id"]["pattern"] == "^[^\\r\\n]*$"
    assert fields["event.sessionId"]["types"] == ["null", "string"]
    assert fields["event.revision"]["maximum"] == 9007199254740991


def _write(folder: Path, name: str, lines: list[Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    text = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n"
    (folder / name).write_text(text, encoding="utf-8")


def test_corpus_maps_seen_fields_to_schema_paths(tmp_path: Path) -> None:
    _write(tmp_path / "stream-json", "a.jsonl", [
        {"type": "system", "subtype": "init", "agent": {"name": "m", "provider": "p"}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "input": {"deep": {"er": 1}}}]}},
        "not json {",
        {"type": "result", "subtype": "success", "surprise": {"x": 1}},
    ])
    part = schema_surface(seed("stream-json"))
    kinds = corpus_surface("stream-json", part, tmp_path)["kinds"]
    assert kinds["system/init"] == ["agent", "agent.name", "agent.provider", "subtype", "type"]
    # free-form tool input is not descended; an unmodeled member is recorded as seen
    assert "message.content[].input" in kinds["assistant"]
    assert not any("deep" in p for p in kinds["assistant"])
    assert kinds["result/success"] == ["subtype", "surprise", "type"]


def test_corpus_folds_recursion(tmp_path: Path) -> None:
    leaf = {"key": "c", "status": "running", "children": [], "omittedChildren": 0}
    node = {"key": "a", "status": "running", "children": [
        {"key": "b", "status": "running", "children": [leaf], "omittedChildren": 0}],
        "omittedChildren": 0}
    _write(tmp_path / "subagent-stdio", "a.jsonl", [
        {"type": "subagent_status", "version": 1},
        {"type": "subagent_event", "snapshot": {"runs": [node]}},
    ])
    part = schema_surface(seed("subagent-stdio"))
    kinds = corpus_surface("subagent-stdio", part, tmp_path)["kinds"]
    assert kinds["command"] == ["command.type", "command.version"]
    assert "event.snapshot.runs[].children[]" in kinds["event"]
    assert all(p in part["fields"] for p in kinds["event"])


def test_corpus_of_lines_with_no_type_is_one_kind_named_as_such(tmp_path: Path) -> None:
    """A wire whose lines are told apart by another member (``kind``), or by none, is not filed
    under a kind "None" (the ninth add-a-wire trial's surface)."""
    schema = {"type": "object", "properties": {"kind": {"type": "string"}, "n": {"type": "integer"}}}
    _write(tmp_path / "tool-trail", "a.jsonl", [{"kind": "call.begin", "n": 0}, {"n": 1}])
    kinds = corpus_surface("tool-trail", schema_surface(schema), tmp_path)["kinds"]
    assert kinds == {"(line)": ["kind", "n"]}


def test_empty_corpus(tmp_path: Path) -> None:
    part = schema_surface(seed("subagent-stdio"))
    assert corpus_surface("subagent-stdio", part, tmp_path) == {"goldens": 0, "kinds": {}}


def test_surface_for_unknown_wire() -> None:
    with pytest.raises(ValueError, match="unknown wire"):
        surface_for("nope")


def test_a_wire_s_surface_holds_its_own_policy_notes_and_no_other_wire_s() -> None:
    """Each wire's seed-quirk notes (``Wire.surface_policy``) stand in its surface alone: stream-json's
    note that a new kind is additive once stood in subagent-stdio's, where a new kind breaks consumers."""
    for wire in WIRES:
        notes = surface_for(wire)["policy"]
        for other in WIRES.values():
            for name, text in other.surface_policy:
                assert (notes.get(name) == text) is (other.name == wire), (wire, other.name, name)
