"""Baselines (contract/rules/baseline.py): accepted findings pass, new ones fail, stale entries fail.

Through the CLI (``check``/``run`` with ``--baseline`` and ``--baseline-write``) and the API.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from contract import cli
from contract.checking.checker import check
from contract.core.resources import data_dir
from contract.rules import baseline
from tests.hostile.cases import golden
from tests.support.paths import TESTS

HERE = TESTS
SCHEMA = json.loads((data_dir("schemas") / "baseline.schema.json").read_text())


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code = cli.run([*argv[:1], "--format", "json", *argv[1:]])
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if captured.out else {"error": captured.err}


def _stream(*lines: bytes) -> bytes:
    return b"".join(line + b"\n" for line in lines)


def _without_ts(lines: list[bytes]) -> list[bytes]:
    """Every line loses its ts: one sj.schema finding at /ts per line."""
    out = []
    for line in lines:
        obj = json.loads(line)
        obj.pop("ts")
        out.append(json.dumps(obj, separators=(",", ":")).encode())
    return out


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    """A stream-json run whose three lines all lack ts."""
    path = tmp_path / "broken.jsonl"
    path.write_bytes(_stream(*_without_ts(golden("stream-json", "hello"))))
    return path


def test_written_baseline_accepts_exactly_its_findings(
    broken: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "baseline.json"
    code, report = _run(capsys, "check", "--baseline-write", str(file), str(broken))
    assert code == 1  # writing records the findings, it does not accept them (issue 11)
    assert report["counts"] == {"sj.schema": 3}
    assert any("still reported" in note for note in report["notes"])
    written = json.loads(file.read_text())
    Draft202012Validator(SCHEMA).validate(written)
    assert [(e["rule"], e["pointer"], e["count"]) for e in written["entries"]] == [("sj.schema", "/ts", 3)]
    assert written["entries"][0]["first_line"] == 1
    code, report = _run(capsys, "check", "--baseline", str(file), str(broken))
    assert code == 0
    assert report["counts"] == {}
    assert any("3 findings accepted by 1 entry" in note for note in report["notes"])


def test_without_the_baseline_the_same_stream_fails(broken: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _run(capsys, "check", str(broken))
    assert code == 1
    assert report["counts"] == {"sj.schema": 3}


def test_a_new_finding_fails(broken: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "baseline.json"
    _run(capsys, "check", "--baseline-write", str(file), str(broken))
    worse = tmp_path / "worse.jsonl"
    lines = broken.read_bytes().splitlines()
    worse.write_bytes(_stream(lines[0], lines[1].replace(b'"seq":2', b'"seq":2,"extra":1'), lines[2]))
    code, report = _run(capsys, "check", "--baseline", str(file), str(worse))
    assert code == 1
    assert [(v["rule"], v["pointer"], v["line"]) for v in report["violations"]] == [("sj.schema", "/extra", 2)]


def test_an_occurrence_beyond_the_count_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "baseline.json"
    file.write_text(json.dumps({"version": 1, "entries": [{"rule": "sj.schema", "pointer": "/ts", "count": 2}]}))
    path = tmp_path / "t.jsonl"
    path.write_bytes(_stream(*_without_ts(golden("stream-json", "hello"))))
    code, report = _run(capsys, "check", "--baseline", str(file), str(path))
    assert code == 1
    assert [(v["rule"], v["line"]) for v in report["violations"]] == [("sj.schema", 3)]


def test_a_fixed_finding_makes_its_entry_stale(
    broken: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "baseline.json"
    _run(capsys, "check", "--baseline-write", str(file), str(broken))
    fixed = tmp_path / "fixed.jsonl"
    fixed.write_bytes(_stream(*golden("stream-json", "hello")))
    code, report = _run(capsys, "check", "--baseline", str(file), str(fixed))
    assert code == 1
    [stale] = report["violations"]
    assert (stale["rule"], stale["pointer"]) == ("baseline.stale", "/ts")
    assert "found it 0 times" in stale["message"]


def test_fewer_occurrences_than_listed_is_stale_too(
    broken: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "baseline.json"
    _run(capsys, "check", "--baseline-write", str(file), str(broken))
    partly = tmp_path / "partly.jsonl"
    fixed = golden("stream-json", "hello")
    partly.write_bytes(_stream(fixed[0], *broken.read_bytes().splitlines()[1:]))
    code, report = _run(capsys, "check", "--baseline", str(file), str(partly))
    assert code == 1
    assert [(v["rule"], v["message"]) for v in report["violations"]] == [
        ("baseline.stale", "expected sj.schema at /ts 3 times as the baseline lists, found it 2 times")]


def test_an_entry_without_count_accepts_any_number(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "baseline.json"
    file.write_text(json.dumps({"version": 1, "entries": [{"rule": "sj.schema", "pointer": "/ts"}]}))
    path = tmp_path / "t.jsonl"
    path.write_bytes(_stream(*_without_ts(golden("stream-json", "hello"))))
    assert _run(capsys, "check", "--baseline", str(file), str(path))[0] == 0
    path.write_bytes(_stream(*golden("stream-json", "hello")))
    code, report = _run(capsys, "check", "--baseline", str(file), str(path))
    assert code == 1
    assert "at least once" in report["violations"][0]["message"]


def test_a_baseline_survives_lines_moving(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Entries name a pointer, not a line: a conversation that grew by a pair still matches."""
    lines = golden("subagent-stdio", "first_poll")
    bad = lines[1].replace(b'"success":true', b'"success":true,"extra":1', 1)
    file, path = tmp_path / "baseline.json", tmp_path / "t.jsonl"
    path.write_bytes(_stream(lines[0], bad))
    _run(capsys, "check", "--wire", "subagent-stdio", "--baseline-write", str(file), str(path))
    assert json.loads(file.read_text())["entries"][0]["first_line"] == 2
    path.write_bytes(_stream(lines[0], lines[1], lines[0], bad))  # the finding moved to line 4
    code, report = _run(capsys, "check", "--wire", "subagent-stdio", "--baseline", str(file), str(path))
    assert (code, report["counts"]) == (0, {})


def test_rewriting_with_the_old_baseline_never_grows_it(
    broken: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps({"version": 1, "entries": [
        {"rule": "sj.schema", "pointer": "/ts", "count": 5},
        {"rule": "line.blank", "pointer": None, "count": 1},
    ]}))
    worse = tmp_path / "worse.jsonl"
    lines = broken.read_bytes().splitlines()
    worse.write_bytes(_stream(lines[0], lines[1].replace(b'"seq":2', b'"seq":2,"extra":1'), lines[2]))
    code, report = _run(capsys, "check", "--baseline", str(old), "--baseline-write", str(new), str(worse))
    assert code == 1  # the new finding still fails
    assert [v["pointer"] for v in report["violations"]] == ["/extra"]
    entries = json.loads(new.read_text())["entries"]
    assert [(e["rule"], e["pointer"], e["count"]) for e in entries] == [("sj.schema", "/ts", 3)]


@pytest.mark.parametrize(("content", "says"), [
    (None, "cannot read baseline"),
    ("{not json", "not JSON"),
    ('{"version": 2, "entries": []}', "not a baseline file"),
    ('{"version": 1, "entries": [{"rule": "sj.schema"}]}', "not a baseline file at /entries/0"),
    ('{"version": 1, "entries": [{"rule": "sj.nope", "pointer": null}]}', "unknown rule 'sj.nope'"),
    ('{"version": 1, "entries": [{"rule": "sj.seq", "pointer": null}, {"rule": "sj.seq", "pointer": null}]}',
     "listed twice"),
    ('{"version": 1, "wire": "subagent-stdio", "entries": []}', "is for subagent-stdio"),
])
def test_unusable_baseline_is_a_usage_error(
    content: str | None, says: str, broken: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "baseline.json"
    if content is not None:
        file.write_text(content)
    code = cli.run(["check", "--baseline", str(file), str(broken)])
    err = capsys.readouterr().err
    assert code == 2
    assert says in err
    assert "Traceback" not in err


def test_unwritable_baseline_is_a_usage_error(broken: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.run(["check", "--baseline-write", str(tmp_path / "no" / "such" / "dir.json"), str(broken)])
    assert code == 2
    assert "cannot write baseline" in capsys.readouterr().err


@pytest.mark.process
def test_run_takes_a_baseline_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A live emitter that exits 3 before its result: its exit status is accepted, then, fixed, stale;
    the missing result is never accepted (a run that did not finish: docs/unjudged.md)."""
    file = tmp_path / "baseline.json"
    emitter = [sys.executable, str(HERE / "faulty_emitters" / "exits_early.py"), "baseline-test"]
    code, written = _run(capsys, "run", "--timeout", "20", "--baseline-write", str(file), "--", *emitter)
    assert code == 1  # writing records the findings, it does not accept them (issue 11)
    rules = {e["rule"] for e in json.loads(file.read_text())["entries"]}
    assert rules == {"run.exit-status"}
    assert any("sj.result-last not written" in note for note in written["notes"])
    code, report = _run(capsys, "run", "--timeout", "20", "--baseline", str(file), "--", *emitter)
    assert (code, report["counts"]) == (1, {"sj.result-last": 1})
    code, report = _run(capsys, "run", "--timeout", "20", "--expect-exit", "3", "--baseline", str(file),
                        "--", *emitter)
    assert code == 1
    assert report["counts"] == {"baseline.stale": 1, "sj.result-last": 1}


def test_api_round_trip_and_schema() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    report = check(_stream(*_without_ts(golden("stream-json", "hello"))), wire="stream-json")
    written = baseline.from_report(report)
    Draft202012Validator(SCHEMA).validate(written.to_json())
    assert baseline.parse(written.to_json()) == written
    assert baseline.apply(report, written).conformant
    assert not report.conformant  # apply returns a new report; the original is untouched


def test_an_ignored_rule_does_not_make_its_entries_stale(
    broken: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "baseline.json"
    _run(capsys, "check", "--baseline-write", str(file), str(broken))
    code, report = _run(capsys, "check", "--ignore", "sj.schema", "--baseline", str(file), str(broken))
    assert (code, report["counts"]) == (0, {})
