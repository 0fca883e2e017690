"""An outside probe's findings on the ADR gate (`milk-contract diff`, `feed --adr`, `evolve`), once held as
strict xfails; fixed (diff validates the goldens under the new schema, contract/evolution/usable.py
refuses unusable schemas), kept as tests with their near misses.

- A branch added to the stream-json seed's top-level ``oneOf`` that accepts every object (``{}``,
  ``{"type": "object"}``, ...) makes every line match two branches, so a standard validator of the
  new schema rejects every line milk writes today; `diff` calls it "additive only" and exits 0 (a
  new line kind), the wrong green of a gate. `evolve --dry-run` and `feed --adr` do refuse it, as
  the goldens do not validate.
- Two more schemas under which a standard validator rejects every golden line of a kind, each
  "additive only" or "no change" by `diff` (exit 0): an existing ``oneOf`` branch given twice
  (every line of its kind matches both: "no change"), and a top-level ``required`` member that no
  property allows (``additionalProperties: false``: no line can hold it; named as "unreferenced
  'event' edited"); subagent-stdio the same ("no change"), its command given a required member
  no property allows. `evolve --dry-run` refuses them all, as the goldens do not validate.
- A ``oneOf`` branch that is a ``$ref`` cycle: `diff` exits 0 ("additive only") on a schema no
  validator can use; `feed --adr` and `evolve --dry-run` end in a RecursionError traceback.
- `feed --adr` with a schema ``{}``, a ``file:`` $ref or a $ref to nothing ends in a traceback
  (ValueError, KeyError) instead of one line and exit 2; `diff` says each in one line, exit 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from contract.checking.schema import load
from contract.cli import run as main
from contract.goldens.store import all_scenarios
from tests.support.paths import ROOT

ENVELOPE = ("type", "session_id", "seq", "ts")  # members every stream-json line carries


def _lines() -> list[dict[str, Any]]:
    """Every line of every stream-json golden, parsed."""
    return _golden_lines("stream-json")


def _golden_lines(wire: str) -> list[dict[str, Any]]:
    """Every line of every golden of ``wire``, parsed."""
    return [json.loads(line) for g in all_scenarios() if g.wire == wire
            for line in g.data().decode("utf-8").splitlines()]


def _copy(wire: str) -> dict[str, Any]:
    """The wire's schema, a copy to edit."""
    schema: dict[str, Any] = json.loads(json.dumps(load(wire)))
    return schema


def _with_branch(branch: dict[str, Any]) -> dict[str, Any]:
    schema = _copy("stream-json")
    schema["oneOf"].append(branch)
    return schema


def _dump(path: Path, document: Any) -> str:
    path.write_text(json.dumps(document), encoding="utf-8")
    return str(path)


# a oneOf branch every line today matches: any subset of these keywords (each accepts every line)
ACCEPT_ALL = st.fixed_dictionaries({}, optional={
    "type": st.just("object"),
    "required": st.lists(st.sampled_from(ENVELOPE), unique=True),
    "minProperties": st.integers(0, 1),
    "description": st.text(max_size=10),
    "properties": st.just({"type": {"type": "string"}}),
})


@settings(derandomize=True, max_examples=10, deadline=None, phases=[Phase.generate],  # a failure: its first example
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(branch=ACCEPT_ALL)
def test_an_accept_everything_oneof_branch_is_not_additive(tmp_path: Path, branch: dict[str, Any]) -> None:
    new = _with_branch(branch)
    validator = jsonschema.Draft202012Validator(new)
    line = _lines()[0]
    assert not validator.is_valid(line)  # the premise: a standard validator of the new schema rejects today's lines
    old = _dump(tmp_path / "old.json", load("stream-json"))
    assert main(["diff", old, _dump(tmp_path / "new.json", new)]) != 0


def test_a_real_new_line_kind_stays_additive(tmp_path: Path) -> None:
    """The near miss: a branch for a new line type (a const type no line has) is additive, exit 0."""
    branch = {"properties": {"type": {"const": "rate_limit_event"}}, "required": ["type"]}
    new = _with_branch(branch)
    validator = jsonschema.Draft202012Validator(new)
    assert all(validator.is_valid(line) for line in _lines()[:5])
    old = _dump(tmp_path / "old.json", load("stream-json"))
    assert main(["diff", old, _dump(tmp_path / "new.json", new)]) == 0


def _duplicated_branch(wire: str) -> dict[str, Any]:
    schema = _copy(wire)
    schema["oneOf"].append(json.loads(json.dumps(schema["oneOf"][0])))
    return schema


def _required_unholdable(wire: str) -> dict[str, Any]:
    """A member required where no property allows it (``additionalProperties: false``): the top level
    of stream-json, a subagent-stdio command."""
    schema = _copy(wire)
    (schema if wire == "stream-json" else schema["$defs"]["command"])["required"].append("probe_member")
    return schema


@pytest.mark.parametrize(("wire", "change"), [("stream-json", "duplicated-branch"),
                                              ("stream-json", "required-unholdable"),
                                              ("subagent-stdio", "duplicated-branch"),
                                              ("subagent-stdio", "required-unholdable")])
def test_a_change_that_rejects_golden_lines_is_not_green(tmp_path: Path, wire: str, change: str) -> None:
    new = _duplicated_branch(wire) if change == "duplicated-branch" else _required_unholdable(wire)
    validator = jsonschema.Draft202012Validator(new)
    assert any(not validator.is_valid(line) for line in _golden_lines(wire))  # the premise: today's lines rejected
    old = _dump(tmp_path / "old.json", load(wire))
    assert main(["diff", old, _dump(tmp_path / "new.json", new)]) != 0


def test_a_required_member_with_its_property_is_breaking(tmp_path: Path) -> None:
    """The near miss: the same required member, with its property, is breaking (exit 1) on both wires."""
    for wire in ("stream-json", "subagent-stdio"):
        new = _required_unholdable(wire)
        (new if wire == "stream-json" else new["$defs"]["command"])["properties"]["probe_member"] = {"type": "string"}
        old = _dump(tmp_path / "old.json", load(wire))
        assert main(["diff", old, _dump(tmp_path / "new.json", new)]) == 1


CYCLE = {"$ref": "#/$defs/probe_a"}
CYCLE_DEFS = {"probe_a": {"$ref": "#/$defs/probe_b"}, "probe_b": {"$ref": "#/$defs/probe_a"}}


def _cyclic() -> dict[str, Any]:
    schema = _with_branch(CYCLE)
    schema["$defs"].update(CYCLE_DEFS)
    return schema


def test_a_ref_cycle_branch_is_not_additive(tmp_path: Path) -> None:
    old = _dump(tmp_path / "old.json", load("stream-json"))
    assert main(["diff", old, _dump(tmp_path / "new.json", _cyclic())]) != 0


def _unusable(kind: str) -> dict[str, Any]:
    """A schema `diff` refuses as unusable (exit 2) or cannot follow: a $ref cycle, ``{}``, a $ref
    outside the file, a $ref to nothing."""
    if kind == "cycle":
        return _cyclic()
    if kind == "empty":
        return {}
    schema = _copy("stream-json")
    schema["oneOf"][0] = {"$ref": "file:///etc/passwd" if kind == "file-ref" else "#/$defs/probe_nothing"}
    return schema


@pytest.mark.parametrize("schema", ["cycle", "empty", "file-ref", "dangling-ref"])
def test_feed_adr_on_an_unusable_schema_is_one_line_exit_2(tmp_path: Path, schema: str,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = _dump(tmp_path / "adr.json", _unusable(schema))
    try:
        status = main(["feed", "--adr", path, "--scenario", "hello", "--", "true"])
    except (RecursionError, ValueError, KeyError) as exc:  # the traceback a user sees
        pytest.fail(f"an exception escaped: {exc!r}")
    err = capsys.readouterr().err
    assert status == 2
    assert len(err.strip().splitlines()) == 1


def test_evolve_dry_run_on_a_ref_cycle_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _dump(tmp_path / "adr.json", _cyclic())
    try:
        status = main(["evolve", "--wire", "stream-json", "--dry-run", "--root", str(ROOT), path])
    except RecursionError as exc:  # the traceback a user sees
        pytest.fail(f"an exception escaped: {exc!r}")
    assert status == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
