"""``check`` over many files and directories: order, verdicts, --jobs, misuse, the JSON and JUnit shapes."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from contract.checking import manyfiles
from contract.cli import run
from contract.rules.report import FIRST_PER_RULE
from contract.wires import BUNDLED
from tests.support.outside import NO_FOREIGN_CORPUS, foreign_corpus, foreign_transcripts
from tests.support.paths import ROOT, TESTS

GOLDENS = ROOT / "goldens"
CONFORMANT = TESTS / "data" / "conformant.jsonl"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """b/ok.jsonl (conformant), a/gap.jsonl (a seq gap), a/notes.txt (not a transcript)."""
    lines = CONFORMANT.read_text().splitlines(keepends=True)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "gap.jsonl").write_text("".join(lines[:2] + lines[3:]))
    (tmp_path / "a" / "notes.txt").write_text("not a transcript\n")
    (tmp_path / "b" / "ok.jsonl").write_text("".join(lines))
    return tmp_path


def test_directory_recurses_sorted_into_jsonl_only(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", str(tree)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{tree}/a/gap.jsonl: NOT conformant")
    assert "sj.seq" in out[0]
    assert out[1].startswith(f"{tree}/b/ok.jsonl: conformant")
    assert out[-1] == "2 files: 1 conformant, 1 NOT conformant"
    assert not any("notes.txt" in line for line in out)


def test_many_conformant_files_exit_0(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ok = str(tree / "b" / "ok.jsonl")
    assert run(["check", ok, str(CONFORMANT)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 3
    assert out[-1] == "2 files: all conformant"


def test_goldens_with_auto_wire_pick_each_files_wire(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", "--wire", "auto", "--format", "json", str(GOLDENS)]) == 0
    payload = json.loads(capsys.readouterr().out)
    wires = {Path(r["source"]).parent.name: r["wire"] for r in payload["reports"]}
    assert wires == {name: name for name in BUNDLED}
    assert payload["files"] == len(list(GOLDENS.rglob("*.jsonl")))
    # without --wire auto the subagent goldens are judged as stream-json, and fail
    assert run(["check", str(GOLDENS)]) == 1
    capsys.readouterr()


def test_json_many_shape_and_one_file_keeps_the_single_shape(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", "--format", "json", str(tree)]) == 1
    many = json.loads(capsys.readouterr().out)
    assert (many["version"], many["conformant"], many["files"], many["failed"]) == (1, False, 2, 1)
    assert [Path(r["source"]).name for r in many["reports"]] == ["gap.jsonl", "ok.jsonl"]
    assert run(["check", "--format", "json", str(tree / "a" / "gap.jsonl")]) == 1
    single = json.loads(capsys.readouterr().out)
    assert "reports" not in single
    assert single["source"] == str(tree / "a" / "gap.jsonl")
    assert single == many["reports"][0]


def test_junit_one_testsuite_per_file(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", "--format", "junit", str(tree)]) == 1
    root = ET.fromstring(capsys.readouterr().out)
    assert root.tag == "testsuites"
    assert root.get("failures") == "1"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [f"milk-contract {tree}/a/gap.jsonl", f"milk-contract {tree}/b/ok.jsonl"]
    assert suites[0].find("testcase/failure") is not None
    assert suites[1].find("testcase/failure") is None


@pytest.mark.process
@pytest.mark.parametrize("fmt", ["text", "json", "junit", "github", "sarif", "markdown"])
def test_jobs_2_gives_the_same_report_as_one_process(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["check", "--wire", "auto", "--format", fmt, str(GOLDENS), str(CONFORMANT)]
    assert run([*argv, "--jobs", "1"]) == 0
    one = capsys.readouterr().out
    assert run([*argv, "--jobs", "2"]) == 0
    assert capsys.readouterr().out == one


@pytest.mark.process
def test_jobs_2_really_uses_processes(tree: Path) -> None:
    files = manyfiles.expand([str(tree)])
    options = manyfiles.Options("stream-json", False, (), 1 << 20)
    assert manyfiles._workers(files, 2) == 2
    serial = manyfiles.check_many(files, options, jobs=1)
    parallel = manyfiles.check_many(files, options, jobs=2)
    assert [r.to_json() for r in parallel] == [r.to_json() for r in serial]


def test_symlink_loop_is_entered_once(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.symlink(tree, tree / "b" / "loop")
    os.symlink(tree / "a", tree / "also-a")
    files = manyfiles.expand([str(tree)])
    assert sorted(Path(f).name for f in files) == ["gap.jsonl", "ok.jsonl"]


def test_a_file_named_twice_is_checked_once(tree: Path) -> None:
    ok = str(tree / "b" / "ok.jsonl")
    assert manyfiles.expand([ok, str(tree / "b"), ok]) == [ok]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", "MISSING", "/nonexistent/x.jsonl"], "cannot read /nonexistent/x.jsonl"),
        (["check", "EMPTY"], "no *.jsonl files in this directory"),
        (["check", "-", "OK"], "- (stdin) cannot be checked together"),
        (["check", "--baseline", "b.json", "OK", "OK2"], "--baseline and --baseline-write take one"),
        (["check", "--baseline-write", "b.json", "DIR"], "--baseline and --baseline-write take one"),
    ],
)
def test_many_files_misuse_is_one_line_and_exit_2(
    argv: list[str], message: str, tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tree / "empty").mkdir()
    (tree / "empty" / "x.json").write_text("{}\n")  # not *.jsonl: the directory holds no transcript
    names = {"MISSING": str(tree / "b" / "ok.jsonl"), "EMPTY": str(tree / "empty"), "DIR": str(tree),
             "OK": str(tree / "b" / "ok.jsonl"), "OK2": str(CONFORMANT)}
    assert run([names.get(a, a) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("milk-contract: error: ")
    assert message in err


def test_a_near_miss_directory_with_a_nested_jsonl_is_not_empty(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "deep" / "er").mkdir(parents=True)
    (tree / "deep" / "er" / "ok.jsonl").write_text(CONFORMANT.read_text())
    assert run(["check", str(tree / "deep")]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 file: all conformant"


def test_many_files_keep_a_bounded_number_of_findings_and_say_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(manyfiles, "MANY_KEPT_PER_FILE", 3)
    (tmp_path / "bad.jsonl").write_text("{}\n" * 40)
    (tmp_path / "ok.jsonl").write_text(CONFORMANT.read_text())
    assert run(["check", "--format", "json", str(tmp_path)]) == 1
    bad = json.loads(capsys.readouterr().out)["reports"][0]
    kept = Counter(v["rule"] for v in bad["violations"])
    assert bad["dropped"] == sum(bad["counts"].values()) - len(bad["violations"]) > 0
    # past the cap: each rule's first few, and the terminal finding at the end of the file
    assert kept["sj.schema"] == FIRST_PER_RULE < bad["counts"]["sj.schema"]
    assert kept["sj.result-last"] == 1
    assert bad["kept"] == dict(sorted(kept.items()))


def test_stdin_alone_still_works(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(CONFORMANT.read_bytes())))
    assert run(["check", "-"]) == 0
    assert "<stdin>: conformant" in capsys.readouterr().out


def test_version_comes_from_package_metadata(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    assert run(["--version"]) == 0
    assert capsys.readouterr().out == f"milk-contract {version('milk-contract')}\n"


@pytest.mark.process
@pytest.mark.skipif(foreign_corpus() is None, reason=NO_FOREIGN_CORPUS)
def test_foreign_corpus_summary_names_each_files_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(p) for p in foreign_transcripts()]
    folder = foreign_corpus()
    assert run(["check", "--wire", "auto", "--jobs", "1", str(folder)]) == 1
    one = capsys.readouterr().out
    lines = one.splitlines()
    assert [line.split(": ", 1)[0] for line in lines[: len(files)]] == files
    assert all(": NOT conformant (" in line for line in lines[: len(files)])
    assert lines[-1] == f"{len(files)} files: 0 conformant, {len(files)} NOT conformant"
    assert run(["check", "--wire", "auto", "--jobs", "2", str(folder)]) == 1
    assert capsys.readouterr().out == one


# -- an input with no line at all: checking nothing is never reported as conformant ------------


def _one_line_misuse(argv: list[str], capsys: pytest.CaptureFixture[str], says: str) -> str:
    assert run(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert says in err
    assert "checking nothing is never reported as conformant" in err
    return err


def test_an_empty_file_is_never_conformant(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    # subagent-stdio judges nothing in nothing: once "conformant (subagent-stdio, 0 lines, no findings)"
    _one_line_misuse(["check", "--wire", "subagent-stdio", str(empty)], capsys, f"{empty}: no line to check")
    # stream-json's rules judge emptiness themselves (no init first, no result last): the report stands
    assert run(["check", "--format", "json", str(empty)]) == 1
    assert set(json.loads(capsys.readouterr().out)["counts"]) == {"sj.init-first", "sj.result-last"}
    # stdin, as a file
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    _one_line_misuse(["check", "--wire", "subagent-stdio", "-"], capsys, "<stdin>: no line to check")
    # near miss: one blank line is a line, and a finding
    blank = tmp_path / "blank.jsonl"
    blank.write_bytes(b"\n")
    assert run(["check", "--wire", "subagent-stdio", str(blank)]) == 1


def test_many_files_name_the_empty_ones(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("a/none.jsonl", "b/zero.jsonl"):
        (tree / name).write_bytes(b"")
    err = _one_line_misuse(["check", "--wire", "subagent-stdio", str(tree)], capsys, "no line to check in 2 of 4 files")
    assert f"{tree}/a/none.jsonl, {tree}/b/zero.jsonl" in err
    assert run(["check", str(tree)]) == 1  # stream-json: the empty ones fail by their findings
    capsys.readouterr()
