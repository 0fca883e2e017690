"""Conformance statements (contract.statement): the reference build is MUST+SHOULD complete, a build
with one fault is not and names the rule, two builds diff to exactly their regressions, shards
merge to the one-runner statement byte for byte (after the timestamp), and every format holds
the build's hostile words inert.

The three statements are made once (a module fixture: about five seconds each).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from contract.cli import run
from contract.core.resources import data_dir
from contract.goldens import store
from contract.rules import revisions
from contract.statement import collect, combine, model, render
from contract.wires import BUNDLED
from tests.support.paths import TESTS

pytestmark = pytest.mark.process
SCHEMA = json.loads((data_dir("schemas") / "statement.schema.json").read_text(encoding="utf-8"))
FAULTY = TESTS / "faulty_emitters" / "one_fault_build.py"


def _statement(tmp: Path, name: str, *command: str) -> dict[str, Any]:
    """A statement made by ``milk-contract statement`` in its own process: the bundled registry alone
    (a test in this worker may have registered the synthetic wire, whose scenarios would join)."""
    path = tmp / f"{name}.json"
    done = subprocess.run([sys.executable, "-m", "contract", "statement", "--output", str(path),
                           *(["--", *command] if command else [])], capture_output=True, text=True, timeout=600,
                          check=False, cwd=tmp)
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert done.returncode == (0 if document["level"]["must_complete"] else 1), done.stderr[-2000:]
    return document


@pytest.fixture(scope="module")
def statements(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("statements")
    return {"dir": tmp, "reference": _statement(tmp, "reference"),
            "ts": _statement(tmp, "ts", sys.executable, str(FAULTY), "ts"),
            "seq": _statement(tmp, "seq", sys.executable, str(FAULTY), "seq")}


def test_the_reference_build_is_must_and_should_complete(statements: dict[str, Any]) -> None:
    document = statements["reference"]
    jsonschema.validate(document, SCHEMA)
    assert model.sealed(document)
    assert document["level"]["achieved"] == model.MUST_SHOULD
    assert document["build"]["command"] is None
    # r1 each as shipped, later after an ADR's evolve; the shipped wires, not a test-registered one
    assert {w["wire"]: w["revision"] for w in document["wires"]} == {w: revisions.current(w) for w in BUNDLED}
    assert len(document["scenarios"]) == sum(len(store.scenarios(wire)) for wire in BUNDLED)
    for wire in document["wires"]:
        verdicts = {r["rule"]: r["verdict"] for r in wire["requirements"]}
        gaps = set(document["level"]["suite_gaps"])  # what no golden exercises: the suite's gap, said
        assert all(v in ("passed", "not-applicable") or r in gaps for r, v in verdicts.items()), verdicts
        assert all(verdicts[r] == "not-exercised" for r in gaps if r in verdicts)
        assert all(verdicts[r] == "not-applicable" for r in verdicts if r.startswith(("consumer.", "baseline.")))
        assert verdicts["run.timeout"] == "passed"  # live runs: the run rules apply
    shown = {c["capability"]: c["shown"] for c in document["wires"][0]["capabilities"]}
    assert shown["partial_messages_v1"] is True  # declared by tool_calls and others, and shown
    assert not document["findings"]


def test_a_faulty_build_is_not_complete_and_names_the_rule(statements: dict[str, Any]) -> None:
    seq, ts = statements["seq"], statements["ts"]
    jsonschema.validate(seq, SCHEMA)
    assert seq["level"]["achieved"] == model.NONE
    assert seq["level"]["short_of_must"] == ["sj.seq-contiguous"]
    assert seq["build"]["version"] == "one-fault-build 1.0 (seq)"  # its --version output
    failed = next(r for r in seq["wires"][0]["requirements"] if r["rule"] == "sj.seq-contiguous")
    assert failed["verdict"] == "failed"
    assert len(failed["failed_in"]) == sum(s.startswith("stream-json/") for s in seq["scenarios"])
    assert ts["level"]["achieved"] == model.MUST  # a SHOULD fault only
    assert ts["level"]["short_of_should"] == ["sj.ts-order"]


def test_two_builds_diff_to_exactly_their_regressions(statements: dict[str, Any],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    folder: Path = statements["dir"]
    found = combine.diff(statements["reference"], statements["seq"])
    assert [(w, r, lv) for w, r, lv, _, _ in found.regressed] == [("stream-json", "sj.seq-contiguous", "MUST")]
    assert not found.passing
    assert not found.applicable
    assert not found.revisions
    assert run(["statement", "diff", str(folder / "reference.json"), str(folder / "seq.json")]) == 1
    capsys.readouterr()
    assert run(["statement", "diff", str(folder / "reference.json"), str(folder / "ts.json"), "--format", "text"]) == 0
    text = capsys.readouterr().out
    assert "regressed: stream-json sj.ts-order [SHOULD] passed -> failed" in text
    assert text.count("regressed:") == 1
    back = combine.diff(statements["ts"], statements["reference"])
    assert [r for _, r, _, _, _ in back.passing] == ["sj.ts-order"]
    assert not back.regressed


def _shards(document: dict[str, Any], total: int, pick: Callable[[str, int], bool]) -> list[dict[str, Any]]:
    """The shard statements one runner per shard would have written, from the same runs."""
    out = []
    for index in range(1, total + 1):
        runs = [r for r in document["runs"] if pick(r["scenario"], index)]
        out.append(model.assemble(runs, document["build"], suite=document["suite"]["version"],
                                  generated=f"2026-01-0{index}T00:00:00Z", provoked=document["provoked"],
                                  shard=(index, total)))
    return out


def test_three_shards_merge_to_the_one_runner_statement_byte_for_byte(statements: dict[str, Any]) -> None:
    whole = statements["reference"]
    shards = _shards(whole, 3, lambda name, index: collect.in_shard(name, (index, 3)))
    assert all(s["runs"] for s in shards)  # the partition by name puts something in every shard here
    assert sum(len(s["runs"]) for s in shards) == len(whole["runs"])
    merged = combine.merge(shards)
    same = {**merged, "generated": whole["generated"]}
    assert model.dumps(same) == model.dumps(whole)
    assert merged["sha256"] == whole["sha256"]


def test_merge_refuses_overlaps_missing_shards_and_strangers(statements: dict[str, Any]) -> None:
    whole = statements["reference"]
    shards = _shards(whole, 3, lambda name, index: collect.in_shard(name, (index, 3)))
    with pytest.raises(combine.StatementError, match="missing shard"):
        combine.merge(shards[:2])
    with pytest.raises(combine.StatementError, match="more than once"):
        combine.merge([shards[0], *shards])
    overlapping = _shards(whole, 3, lambda name, index: index == 1 or collect.in_shard(name, (index, 3)))
    with pytest.raises(combine.StatementError, match="overlap"):
        combine.merge(overlapping)
    other = _shards(statements["seq"], 3, lambda name, index: collect.in_shard(name, (index, 3)))
    with pytest.raises(combine.StatementError, match="build"):
        combine.merge([shards[0], shards[1], other[2]])
    with pytest.raises(combine.StatementError, match="not a shard"):
        combine.merge([whole])


def test_a_statement_edited_after_it_was_written_is_refused(statements: dict[str, Any], tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    edited = json.loads(json.dumps(statements["seq"]))
    edited["level"]["achieved"] = "MUST+SHOULD"
    path = tmp_path / "edited.json"
    path.write_text(model.dumps(edited), encoding="utf-8")
    assert run(["statement", "diff", str(path), str(path)]) == 2
    assert "sha256 is not its content's" in capsys.readouterr().err
    path.write_text('{"statement_version": 1}', encoding="utf-8")
    assert run(["matrix", str(path)]) == 2
    assert "not a milk-contract statement" in capsys.readouterr().err


def test_the_formats(statements: dict[str, Any], tmp_path: Path) -> None:
    reference, seq = statements["reference"], statements["seq"]
    markdown = render.markdown(seq)
    assert markdown.startswith("### milk-contract statement: **none**")
    assert "| sj.seq-contiguous | MUST | **failed** |" in markdown
    page = render.html_page(reference)
    assert 'data-level="MUST+SHOULD"' in page
    assert "<script" not in page
    assert "http" not in page.split("</style>")[1]
    badge = json.loads(render.shields(reference))
    assert badge == {"schemaVersion": 1, "label": "milk-contract", "color": "green",
                     "message": "MUST+SHOULD ({})".format(", ".join(f"{w} {revisions.current(w)}" for w in BUNDLED))}
    assert json.loads(render.shields(seq))["color"] == "red"
    matrix = combine.matrix_markdown([reference, statements["ts"], seq])
    assert "| stream-json | MUST | sj.seq-contiguous | pass | pass | FAIL |" in matrix
    assert "| stream-json | SHOULD | sj.ts-order | pass | FAIL | pass |" in matrix


def test_hostile_build_words_stay_inert() -> None:
    document = json.loads(json.dumps({"build": {"command": ["x"], "name": "<script>alert(1)</script> | *x*",
                                                "version": "\u001b[31mred\u202e"}}))
    hostile = model.assemble([], document["build"], suite="1", generated="t", provoked=False)
    page, markdown = render.html_page(hostile), render.markdown(hostile)
    assert "<script>" not in page
    assert "\u001b" not in page
    assert "\u202e" not in page
    assert "&lt;script&gt;" in page
    assert "\\<script\\>" in markdown
    assert "\\| \\*x\\*" in markdown
    assert "\u001b" not in markdown
    assert hostile["level"]["achieved"] == model.NONE  # no run: complete at no level (fail closed)


def test_a_declared_capability_never_shown_is_a_finding(tmp_path: Path) -> None:
    hello = (data_dir("goldens") / "stream-json" / "hello.jsonl").read_bytes().splitlines(keepends=True)
    init = json.loads(hello[0])
    init["capabilities"] = ["stream_v1", "partial_messages_v1"]
    (tmp_path / "declared.jsonl").write_bytes(json.dumps(init).encode() + b"\n" + b"".join(hello[1:]))
    out = tmp_path / "captures.json"
    assert run(["statement", "--captures", str(tmp_path), "--output", str(out)]) == 1
    document = json.loads(out.read_text(encoding="utf-8"))
    jsonschema.validate(document, SCHEMA)
    assert [f["kind"] for f in document["findings"]] == ["capability-never-shown"]
    assert "partial_messages_v1" in document["findings"][0]["message"]
    reassembly = next(r for r in document["wires"][0]["requirements"] if r["rule"] == "sj.tool-args-reassembly")
    assert reassembly["verdict"] == "not-exercised"  # declared: applicable, and a gap
    (tmp_path / "declared.jsonl").write_bytes(b"".join(hello))  # not declared: no finding, not applicable
    assert run(["statement", "--captures", str(tmp_path), "--output", str(out)]) == 1  # captures: gaps remain
    plain = json.loads(out.read_text(encoding="utf-8"))
    assert not plain["findings"]
    assert next(r for r in plain["wires"][0]["requirements"]
                if r["rule"] == "sj.tool-args-reassembly")["verdict"] == "not-applicable"


def test_statement_misuse_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["statement", "frobnicate"]) == 2
    assert run(["statement", "--shard", "4/3"]) == 2
    assert run(["statement", "merge"]) == 2
    assert run(["statement", "--captures", "/nonexistent-folder-xyz"]) == 2
    err = capsys.readouterr().err
    assert err.count("milk-contract: error:") == 4
    assert "Traceback" not in err
