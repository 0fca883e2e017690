"""`milk-contract diff` and `milk-contract surface`: reports and exit codes (0, 1, 2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from contract.checking.schema import load
from contract.cli import run as main
from tests.support.paths import ROOT

SNAPSHOTS = ROOT / "contract" / "tests" / "__snapshots__"


def _dump(path: Path, document: Any) -> str:
    path.write_text(json.dumps(document), encoding="utf-8")
    return str(path)


@pytest.fixture
def pair(tmp_path: Path) -> tuple[str, str, str]:
    schema = load("subagent-stdio")
    additive = json.loads(json.dumps(schema))
    additive["$defs"]["command"]["properties"]["note"] = {"type": "string"}
    breaking = json.loads(json.dumps(schema))
    breaking["$defs"]["command"]["required"].append("id")
    return (_dump(tmp_path / "old.json", schema), _dump(tmp_path / "add.json", additive),
            _dump(tmp_path / "break.json", breaking))


def test_additive_exits_0_and_breaking_exits_1(pair: tuple[str, str, str],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    old, additive, breaking = pair
    assert main(["diff", old, additive]) == 0
    assert "additive  command.note" in capsys.readouterr().out
    assert main(["diff", old, breaking]) == 1
    out = capsys.readouterr().out
    assert "breaking  command.id" in out
    assert "breaks emitters" in out
    assert main(["diff", old, old]) == 0
    assert "no change" in capsys.readouterr().out


def test_json_report(pair: tuple[str, str, str], capsys: pytest.CaptureFixture[str]) -> None:
    old, _, breaking = pair
    assert main(["diff", "--format", "json", old, breaking]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["breaking"] is True
    [change] = report["changes"]
    assert {k: change[k] for k in ("kind", "path", "breaks", "code")} == {
        "kind": "breaking", "path": "command.id", "breaks": "emitters",
        "code": "optional-made-required"}
    assert change["reason"]


def test_stored_snapshot_against_schema(capsys: pytest.CaptureFixture[str]) -> None:
    """A stored surface snapshot and a schema compare (the corpus is left out)."""
    [stored] = SNAPSHOTS.glob("*/*subagent-stdio*.json")
    schema = str(ROOT / "schemas" / "subagent-stdio.schema.json")
    assert main(["diff", str(stored), schema]) == 0


@pytest.mark.parametrize(("content", "message"), [
    (None, "cannot read"),
    ("{", "is not valid JSON"),
    ("[1, 2]", "neither a JSON Schema nor a milk-contract surface"),
    ('{"properties": []}', "not a usable JSON Schema"),
    ('{"oneOf": [{"$ref": "#/$defs/missing"}]}', "not a usable JSON Schema"),
    ('{"format": "milk-contract-surface/1"}', "cannot compare"),
])
def test_usage_errors_exit_2_in_one_line(tmp_path: Path, content: str | None, message: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_text(content, encoding="utf-8")
    good = _dump(tmp_path / "good.json", load("subagent-stdio"))
    assert main(["diff", str(bad), good]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_surface_verb(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["surface", "--wire", "subagent-stdio"]) == 0
    surface = json.loads(capsys.readouterr().out)
    assert surface["format"] == "milk-contract-surface/1"
    assert "corpus" in surface
    assert main(["surface"]) == 2
    assert "give either --wire or a SCHEMA" in capsys.readouterr().err
