"""``milk-contract compat``: the matrix of registered consumers by wire revision (issue 49's done-when).

A checkout with two requirement-set revisions of the wire (r1 the seed, r2 an ADR adding a line kind;
r1's schema found in the schema file's git history) and two versions of one SDK (0.1.0 crashes on a
line type it does not know, 0.2.0 skips it) gives exactly the expected matrix; shards merged equal the
unsharded run byte for byte, and the process pool changes nothing; a consumer that hangs, is killed,
cannot start, or a revision whose schema is found nowhere is never a green cell; a merge of shards that
do not make one matrix is refused (exit 2).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from contract import cli
from contract.compat.matrix import problem_of
from contract.statement.model import seal
from tests.compat.schemas import WIRE, with_kind, written
from tests.support.paths import ROOT, TESTS
from tests.support.project_copy import git

pytestmark = pytest.mark.process

SDK = [sys.executable, str(TESTS / "faulty_consumers" / "versioned_sdk.py")]
GOLDENS = ("hello", "tool_calls")
EXPECTED = {("0.1.0", "r1"): ("pass", None), ("0.1.0", "r2"): ("fail", "consumer.crash"),
            ("0.2.0", "r1"): ("pass", None), ("0.2.0", "r2"): ("pass", None)}


def _sdk(version: str, **more: Any) -> dict[str, Any]:
    return {"name": "sdk", "version": version, "command": [*SDK, version], **more}


def _checkout(folder: Path, consumers: list[dict[str, Any]], history: bool = True) -> Path:
    """Two revisions: the seed committed (r1), then the ADR's schema taken in (r2), goldens as recorded under r1."""
    schema = folder / "schemas" / f"{WIRE}.schema.json"
    schema.parent.mkdir(parents=True)
    shutil.copy(ROOT / "schemas" / f"{WIRE}.schema.json", schema)
    (folder / "goldens" / WIRE).mkdir(parents=True)
    for name in GOLDENS:
        for suffix in (".jsonl", ".meta.json"):
            shutil.copy(ROOT / "goldens" / WIRE / (name + suffix), folder / "goldens" / WIRE / (name + suffix))
    sets = folder / "requirements" / WIRE
    sets.mkdir(parents=True)
    shutil.copy(ROOT / "requirements" / WIRE / "r1.json", sets / "r1.json")
    if history:
        git(folder, "init", "-q")
        git(folder, "add", "-A")
        git(folder, "commit", "-qm", "r1")
    written(schema, with_kind())
    r2 = {**json.loads((sets / "r1.json").read_text(encoding="utf-8")), "revision": "r2",
          "schema_sha256": hashlib.sha256(schema.read_bytes()).hexdigest()}
    (sets / "r2.json").write_text(json.dumps(r2), encoding="utf-8")
    (folder / "milk-consumers.json").write_text(json.dumps({"consumers": consumers}), encoding="utf-8")
    return folder


def _compat(folder: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any], str]:
    code = cli.run(["compat", "--root", str(folder), "--consumers", str(folder / "milk-consumers.json"),
                    "--format", "json", "--timeout", "5", *args])
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if captured.out else {}, captured.out


def _cells(matrix: dict[str, Any]) -> dict[tuple[str, str], tuple[str, str | None]]:
    return {(c["version"], c["revision"]): (c["verdict"], c["finding"] and c["finding"]["rule"])
            for c in matrix["cells"]}


def test_two_versions_by_two_revisions_give_the_expected_matrix(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    root = _checkout(tmp_path, [_sdk("0.1.0"), _sdk("0.2.0")])
    code, matrix, text = _compat(root, capsys, "--jobs", "2")
    assert code == 1  # a cell failed
    assert _cells(matrix) == EXPECTED
    assert problem_of(matrix) is None  # schemas/compat.schema.json
    columns = {c["revision"]: c for c in matrix["basis"]["columns"]}
    assert not columns["r1"]["derived"]
    assert columns["r2"]["derived"]  # r2's streams are migrated, and said so
    crash = next(c for c in matrix["cells"] if c["verdict"] == "fail")["finding"]
    assert "Unknown message type: rate_limit" in crash["message"]
    # shards merged are the unsharded matrix, byte for byte; the pool changes nothing
    shards = []
    for index in (1, 2):
        shard = tmp_path / f"shard-{index}.json"
        cli.run(["compat", "--root", str(root), "--consumers", str(root / "milk-consumers.json"), "--format", "json",
                 "--timeout", "5", "--shard", f"{index}/2", "--jobs", "1", "--output", str(shard)])
        shards.append(str(shard))
    capsys.readouterr()
    assert cli.run(["compat", "--format", "json", "merge", *shards]) == 1
    assert capsys.readouterr().out == text
    # the renderings carry the same verdicts
    assert cli.run(["compat", "--format", "markdown", "merge", *shards]) == 1
    markdown = capsys.readouterr().out
    assert "| sdk 0.1.0 | pass | FAIL `consumer.crash` |" in markdown
    assert "| sdk 0.2.0 | pass | pass |" in markdown


def test_the_sdk_that_skips_new_kinds_passes_every_revision(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    root = _checkout(tmp_path, [_sdk("0.2.0")])
    code, matrix, _ = _compat(root, capsys, "--jobs", "1")
    assert code == 0
    assert {v for v, _ in _cells(matrix).values()} == {"pass"}


@pytest.mark.parametrize(("command", "rule"), [
    (["sleep", "30"], "consumer.hang"),
    (["sh", "-c", "kill -9 $$"], "consumer.crash"),
    (["sh", "-c", "exit 0"], "consumer.early-exit"),
    (["/nonexistent/consumer"], "run.start"),
], ids=["hangs", "killed", "reads-nothing", "cannot-start"])
def test_a_consumer_that_misbehaves_is_never_a_green_cell(command: list[str], rule: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    root = _checkout(tmp_path, [{"name": "bad", "version": "1", "command": command, "timeout": 1}])
    code, matrix, _ = _compat(root, capsys)
    assert code == 1
    assert {cell["verdict"] for cell in matrix["cells"]} == {"fail"}
    assert {cell["finding"]["rule"] for cell in matrix["cells"]} == {rule}


def test_a_consumer_registered_as_reading_must_write_its_reading(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """``reading: true`` is a promise: the SDK that prints but writes no reading fails every cell for it,
    while the reference consumer, which writes one, passes; the same SDK without the flag passes."""
    reference = [sys.executable, "-m", "contract.reference.stream_json_consumer"]
    root = _checkout(tmp_path, [_sdk("0.2.0", reading=True), _sdk("0.3.0"),
                                {"name": "reference", "version": "1", "command": reference, "reading": True}])
    code, matrix, _ = _compat(root, capsys, "--jobs", "1")
    assert code == 1
    by = {(c["name"] if "name" in c else c["consumer"], c["version"], c["revision"]): c for c in matrix["cells"]}
    assert {(c["verdict"], c["finding"]["rule"]) for k, c in by.items() if k[1] == "0.2.0"} == {
        ("fail", "consumer.reading-schema")}
    assert {c["verdict"] for k, c in by.items() if k[1] != "0.2.0"} == {"pass"}


def test_a_revision_whose_schema_is_found_nowhere_is_an_error_column(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    root = _checkout(tmp_path, [_sdk("0.2.0")], history=False)
    code, matrix, _ = _compat(root, capsys)
    assert code == 1
    # r1's schema is unknown, and so is the schema r2's streams are migrated from (the goldens were written under r1)
    assert _cells(matrix) == {("0.2.0", "r1"): ("error", "compat.column"), ("0.2.0", "r2"): ("error", "compat.column")}
    # given by hand, with the right digest, it is found; with another digest it is misuse
    seed = ROOT / "schemas" / f"{WIRE}.schema.json"
    code, matrix, _ = _compat(root, capsys, "--revision-schema", f"r1={seed}")
    assert code == 0
    assert _cells(matrix) == {("0.2.0", "r1"): ("pass", None), ("0.2.0", "r2"): ("pass", None)}
    own = root / "schemas" / f"{WIRE}.schema.json"
    assert cli.run(["compat", "--root", str(root), "--revision-schema", f"r1={own}",
                    "--consumers", str(root / "milk-consumers.json")]) == 2
    assert "another schema" in capsys.readouterr().err


def test_an_adr_column_is_added(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _checkout(tmp_path, [_sdk("0.1.0")])
    adr = written(tmp_path / "ADR-0009.json", with_kind(kind="usage_update", at=0))
    code, matrix, _ = _compat(root, capsys, "--adr", str(adr))
    assert code == 1
    assert _cells(matrix)[("0.1.0", "adr:ADR-0009.json")] == ("fail", "consumer.crash")


def _shard_files(tmp_path: Path, root: Path) -> list[Path]:
    out = []
    for index in (1, 2):
        path = tmp_path / f"s{index}.json"
        cli.run(["compat", "--root", str(root), "--consumers", str(root / "milk-consumers.json"), "--format", "json",
                 "--shard", f"{index}/2", "--jobs", "1", "--output", str(path)])
        out.append(path)
    return out


def _resealed(document: dict[str, Any]) -> dict[str, Any]:
    return seal({key: value for key, value in document.items() if key != "sha256"})


def test_a_merge_of_shards_that_do_not_make_one_matrix_is_refused(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    root = _checkout(tmp_path / "root", [_sdk("0.2.0"), _sdk("0.3.0")])
    one, two = _shard_files(tmp_path, root)
    capsys.readouterr()
    cases: dict[str, tuple[list[str], str]] = {"missing": ([str(one)], "is missing"),
                                               "twice": ([str(one), str(one)], "are both shard")}
    whole = json.loads(one.read_text(encoding="utf-8"))
    edited = tmp_path / "edited.json"
    # resealed (seal() over the edit), so that the structure is what is refused, not the seal
    edited.write_text(json.dumps(_resealed({**whole, "basis": {**whole["basis"], "suite": "9.9"}})), encoding="utf-8")
    cases["other-basis"] = ([str(edited), str(two)], "other consumers, revisions or options")
    cut = tmp_path / "cut.json"
    second = json.loads(two.read_text(encoding="utf-8"))
    cut.write_text(json.dumps(_resealed({**second, "cells": second["cells"][1:], "summary": {
        verdict: sum(1 for cell in second["cells"][1:] if cell["verdict"] == verdict)
        for verdict in ("pass", "fail", "error")}})), encoding="utf-8")
    cases["cell-removed"] = ([str(one), str(cut)], "not the matrix's cells")
    unsealed = tmp_path / "unsealed.json"
    unsealed.write_text(json.dumps({**second, "cells": second["cells"][1:]}), encoding="utf-8")
    cases["edited-unsealed"] = ([str(one), str(unsealed)], "its sha256 is not its content's")
    (tmp_path / "not.json").write_text('{"kind": "statement"}', encoding="utf-8")
    cases["not-a-matrix"] = ([str(tmp_path / "not.json")], "is not a compat matrix")
    for name, (files, says) in cases.items():
        assert cli.run(["compat", "merge", *files]) == 2, name
        err = capsys.readouterr().err
        assert says in err, (name, err)
        assert err.count("\n") == 1, (name, err)


def test_hostile_names_are_escaped_in_every_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name = "<script>alert(1)</script>|\u202e"
    root = _checkout(tmp_path, [{"name": name, "version": "1", "command": ["sh", "-c", "exit 3"]}])
    for fmt in ("markdown", "html"):
        cli.run(["compat", "--root", str(root), "--consumers", str(root / "milk-consumers.json"), "--format", fmt])
        out = capsys.readouterr().out
        assert "<script>" not in out
        assert "\u202e" not in out


def test_future_variants_are_fed_in_each_cell(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--future``: each stream's future variants too; a consumer strict on line types fails even r1."""
    strict = {"name": "strict", "version": "1", "command": [sys.executable, "-m", "contract.reference.strict_consumer"]}
    root = _checkout(tmp_path, [strict, _sdk("0.2.0")])
    code, matrix, _ = _compat(root, capsys, "--future", "--examples", "2", "--seed", "1", "--jobs", "1")
    assert code == 1
    verdicts = {(c["consumer"], c["revision"]): c["verdict"] for c in matrix["cells"]}
    assert verdicts[("strict", "r1")] == "fail"
    assert verdicts[("sdk", "r1")] == "pass"
    assert matrix["basis"]["options"]["future"] is True
    # without --future the strict consumer passes the goldens as recorded (the near miss)
    code, matrix, _ = _compat(root, capsys, "--jobs", "1")
    assert {(c["consumer"], c["revision"]): c["verdict"] for c in matrix["cells"]}[("strict", "r1")] == "pass"


def test_consumers_by_build_through_each_statement_s_revision(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """``--statement``: a build judged by r1 (the bundled reference emitters' statement) shows each consumer's
    r1 verdict; a statement that is not one is misuse."""
    statement = tmp_path / "reference.json"
    assert cli.run(["statement", "--output", str(statement)]) == 0
    root = _checkout(tmp_path / "root", [_sdk("0.1.0"), _sdk("0.2.0")])
    code, matrix, _ = _compat(root, capsys, "--statement", str(statement))
    assert code == 1
    stream_builds = [b for b in matrix["basis"]["builds"] if b["wire"] == WIRE]
    assert [(b["name"], b["revision"], b["column"], b["level"]) for b in stream_builds] == [
        ("bundled reference emitters", "r1", "r1", "MUST+SHOULD")]
    assert problem_of(matrix) is None
    cli.run(["compat", "--root", str(root), "--consumers", str(root / "milk-consumers.json"), "--format", "markdown",
             "--statement", str(statement)])
    markdown = capsys.readouterr().out
    assert "| bundled reference emitters, milk-contract" in markdown
    by_build = markdown[markdown.index("By build"):]
    assert "| sdk 0.1.0 | pass |" in by_build  # its r1 verdict, not its r2 one
    bogus = tmp_path / "bogus.json"
    bogus.write_text('{"build": {}}', encoding="utf-8")
    assert cli.run(["compat", "--root", str(root), "--consumers", str(root / "milk-consumers.json"),
                    "--statement", str(bogus)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_a_build_whose_schema_no_column_has_is_not_known() -> None:
    from contract.compat.columns import Column
    from contract.compat.matrix import builds_of

    columns = [Column(WIRE, "r1", "a" * 64)]
    statement = {"build": {"name": "milk", "version": "2.1.45"}, "level": {"achieved": "MUST"},
                 "wires": [{"wire": WIRE, "revision": "r7", "schema_sha256": "b" * 64},
                           {"wire": "another-wire", "revision": "r1", "schema_sha256": "a" * 64}]}
    assert builds_of([statement], columns) == [{"name": "milk", "version": "2.1.45", "level": "MUST", "wire": WIRE,
                                                "revision": "r7", "column": None}]
