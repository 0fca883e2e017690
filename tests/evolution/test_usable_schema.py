"""contract/evolution/usable.py: a schema no validator can use (a $ref cycle, a $ref to nothing or outside
the file) is refused in one line, exit 2, by diff, evolve and feed --adr; every usable one (the seeds, a
recursion that descends into the line) passes. And diff's golden check: a schema that rejects today's
goldens is breaking, named, escaped and bounded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contract.checking.schema import load
from contract.cli import run as main
from contract.evolution.usable import problem
from tests.support.depth import deep
from tests.support.paths import ROOT

# (id, schema, words the problem says); each must be refused
UNUSABLE: list[tuple[str, dict[str, Any], str]] = [
    ("self-ref", {"$ref": "#"}, "cycle"),
    ("two-ref-cycle", {"oneOf": [{"$ref": "#/$defs/a"}],
                       "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}, "cycle"),
    ("allof-cycle", {"$defs": {"a": {"allOf": [{"type": "object"}, {"$ref": "#/$defs/a"}]}},
                     "properties": {"x": {"$ref": "#/$defs/a"}}}, "cycle"),
    ("not-cycle", {"$defs": {"a": {"not": {"$ref": "#/$defs/a"}}}}, "cycle"),
    ("if-then-cycle", {"if": {"type": "object"}, "then": {"$ref": "#"}}, "cycle"),
    ("anchor-cycle", {"$defs": {"a": {"$anchor": "here", "anyOf": [{"$ref": "#here"}]}}}, "cycle"),
    ("file-ref", {"oneOf": [{"$ref": "file:///etc/passwd"}]}, "outside the file"),
    ("remote-ref", {"properties": {"x": {"$ref": "https://example.com/s.json"}}}, "outside the file"),
    ("relative-ref", {"items": {"$ref": "other.schema.json#/x"}}, "outside the file"),
    ("dangling-pointer", {"oneOf": [{"$ref": "#/$defs/nothing"}], "$defs": {}}, "to nothing"),
    ("dangling-anchor", {"oneOf": [{"$ref": "#nowhere"}]}, "to nothing"),
    ("index-out-of-range", {"oneOf": [{"$ref": "#/oneOf/5"}]}, "to nothing"),
    ("ref-to-a-list", {"required": ["a"], "properties": {"a": {"$ref": "#/required"}}}, "not a schema"),
]

# each must pass: recursion through a member or an item descends into the line, so it ends
USABLE: list[tuple[str, dict[str, Any]]] = [
    ("empty", {}),
    ("recursion-through-properties", {"$defs": {"node": {"type": "object", "properties": {
        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}, "$ref": "#/$defs/node"}),
    ("root-ref-in-a-member", {"properties": {"child": {"$ref": "#"}}}),
    ("ref-to-a-boolean", {"$defs": {"yes": True}, "properties": {"a": {"$ref": "#/$defs/yes"}}}),
    ("anchor", {"$defs": {"a": {"$anchor": "here", "type": "string"}}, "properties": {"a": {"$ref": "#here"}}}),
    ("escaped-pointer", {"$defs": {"a/b": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/a~1b"}}}),
    ("shared-target-twice", {"allOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}],
                             "$defs": {"a": {"type": "object"}}}),
]


@pytest.mark.parametrize(("schema", "said"), [pytest.param(s, w, id=i) for i, s, w in UNUSABLE])
def test_an_unusable_schema_is_named(schema: dict[str, Any], said: str) -> None:
    found = problem(schema)
    assert found is not None
    assert said in found


@pytest.mark.parametrize("schema", [pytest.param(s, id=i) for i, s in USABLE])
def test_a_usable_schema_passes(schema: dict[str, Any]) -> None:
    assert problem(schema) is None


@pytest.mark.parametrize("wire", ["stream-json", "subagent-stdio"])
def test_the_seeds_are_usable(wire: str) -> None:
    assert problem(load(wire)) is None


@settings(derandomize=True, max_examples=40 if deep() else 12, deadline=None)
@given(length=st.integers(1, 8), closes=st.booleans(), via=st.sampled_from(["$ref", "allOf", "oneOf"]))
def test_a_chain_of_refs_is_refused_exactly_when_it_closes(length: int, closes: bool, via: str) -> None:
    """A chain of ``length`` definitions, each applying the next in place; the last applies the first
    (a cycle: refused) or is a plain object schema (usable)."""
    def step(target: str) -> dict[str, Any]:
        ref = {"$ref": f"#/$defs/d{target}"}
        return ref if via == "$ref" else {via: [ref]}
    defs: dict[str, Any] = {f"d{i}": step(str(i + 1)) for i in range(length - 1)}
    defs[f"d{length - 1}"] = step("0") if closes else {"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}}
    schema = {"$defs": defs, "oneOf": [{"$ref": "#/$defs/d0"}]}
    found = problem(schema)
    assert (found is not None and "cycle" in found) if closes else found is None


def _dump(path: Path, document: Any) -> str:
    path.write_text(json.dumps(document), encoding="utf-8")
    return str(path)


def _seed_with_first_branch(ref: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(json.dumps(load("stream-json")))
    schema["oneOf"][0] = {"$ref": ref}
    return schema


@pytest.mark.parametrize("ref", ["file:///etc/passwd", "#/$defs/probe_nothing"])
def test_evolve_dry_run_refuses_an_unfollowable_ref_in_one_line(tmp_path: Path, ref: str,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = _dump(tmp_path / "adr.json", _seed_with_first_branch(ref))
    assert main(["evolve", "--wire", "stream-json", "--dry-run", "--root", str(ROOT), path]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "not a usable JSON Schema" in err[0]


def test_diff_refuses_a_cycle_in_the_old_schema_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = _dump(tmp_path / "old.json", {**load("stream-json"), "$ref": "#"})
    new = _dump(tmp_path / "new.json", load("stream-json"))
    assert main(["diff", old, new]) == 2
    assert "cycle" in capsys.readouterr().err


def _hostile_required() -> dict[str, Any]:
    """stream-json with a required member no property allows, named with a terminal escape."""
    schema: dict[str, Any] = json.loads(json.dumps(load("stream-json")))
    schema["required"].append("\x1b[31mred\u202e")
    return schema


def test_diff_names_the_rejected_golden_escaped_and_bounded(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    old = _dump(tmp_path / "old.json", load("stream-json"))
    assert main(["diff", old, _dump(tmp_path / "new.json", _hostile_required())]) == 1
    out = capsys.readouterr().out
    rejected = [line for line in out.splitlines() if line.startswith("rejected  golden stream-json/")]
    assert rejected
    assert len(rejected) <= 10
    assert "\x1b" not in out
    assert "\u202e" not in out
    assert all(len(line) < 500 for line in rejected)
    assert out.splitlines()[-1].endswith("goldens not valid under the new schema (BREAKING)")


def test_diff_json_says_the_rejections(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema: dict[str, Any] = json.loads(json.dumps(load("subagent-stdio")))
    schema["oneOf"].append(json.loads(json.dumps(schema["oneOf"][0])))
    old = _dump(tmp_path / "old.json", load("subagent-stdio"))
    assert main(["diff", "--format", "json", old, _dump(tmp_path / "new.json", schema)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["breaking"] is True
    assert report["goldens_rejected"]["wire"] == "subagent-stdio"
    assert report["goldens_rejected"]["count"] >= 1


def test_diff_of_a_seed_with_itself_has_no_rejections(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The near miss: every golden is valid under its own seed, so nothing is rejected and diff is green."""
    for wire in ("stream-json", "subagent-stdio"):
        old = _dump(tmp_path / "old.json", load(wire))
        assert main(["diff", "--format", "json", old, _dump(tmp_path / "new.json", load(wire))]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["breaking"] is False
        assert "goldens_rejected" not in report


def test_diff_refuses_a_schema_its_validator_cannot_compile(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """A pattern the validator cannot compile: no verdict, one line, exit 2 (never a green)."""
    schema: dict[str, Any] = json.loads(json.dumps(load("stream-json")))
    schema["properties"]["session_id"] = {**schema["properties"].get("session_id", {}), "pattern": "(unclosed"}
    old = _dump(tmp_path / "old.json", load("stream-json"))
    status = main(["diff", old, _dump(tmp_path / "new.json", schema)])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2
    assert len(err) == 1
