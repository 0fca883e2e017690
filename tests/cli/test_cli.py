"""The command line as a user meets it: exit codes, report formats, one-line misuse errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from contract.cli import run
from tests.support.paths import TESTS

DATA = TESTS / "data"
CONFORMANT = DATA / "conformant.jsonl"


def test_conformant_transcript_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", "--format", "json", str(CONFORMANT)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["conformant"] is True
    assert report["wire"] == "stream-json"
    assert not [v for v in report["violations"] if v["level"] == "MUST"]


def test_one_broken_rule_exits_1_and_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "gap.jsonl"
    lines = CONFORMANT.read_text().splitlines(keepends=True)
    broken.write_text("".join(lines[:2] + lines[3:]))  # drop line 3: a seq gap
    assert run(["check", "--format", "json", str(broken)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["conformant"] is False
    assert set(report["counts"]) == {"sj.seq-contiguous"}
    (violation,) = report["violations"]
    assert (violation["rule"], violation["line"], violation["pointer"]) == ("sj.seq-contiguous", 3, "/seq")
    assert (violation["basis"], violation["judged"]) == ("derived", True)
    assert "expected seq 2, found 3" in violation["message"]


def test_text_report_names_file_line_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "crlf.jsonl"
    broken.write_bytes(CONFORMANT.read_bytes().replace(b"\n", b"\r\n"))
    assert run(["check", str(broken)]) == 1
    out = capsys.readouterr().out
    assert f"{broken}:1 line.newline [MUST]" in out
    assert "×5 on lines 1, 2, 3, 4, 5" in out
    assert out.rstrip().splitlines()[-1].startswith(f"{broken}: NOT conformant")


def test_junit_report_is_xml_with_a_failure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import xml.etree.ElementTree as ET

    broken = tmp_path / "cut.jsonl"
    broken.write_bytes(CONFORMANT.read_bytes()[:-1])
    assert run(["check", "--format", "junit", str(broken)]) == 1
    suite = ET.fromstring(capsys.readouterr().out)
    failed = [case.get("name") for case in suite if case.find("failure") is not None]
    assert failed == ["line.newline: each line ends in exactly one LF, with no CR, and the stream ends with LF"]


def test_should_findings_fail_only_under_strict(tmp_path: Path) -> None:
    text = CONFORMANT.read_text().replace('"role":"assistant","content":[{"type":"text"',
                                         '"role":"user","content":[{"type":"text"')
    path = tmp_path / "role.jsonl"
    path.write_text(text)
    assert run(["check", str(path)]) == 0
    assert run(["check", "--strict", str(path)]) == 1
    assert run(["check", "--strict", "--ignore", "sj.role-form", str(path)]) == 0


def test_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(CONFORMANT.read_bytes())))
    assert run(["check", "-"]) == 0
    assert "<stdin>: conformant" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", "/nonexistent/x.jsonl"], "cannot read /nonexistent/x.jsonl"),
        (["check", "--wire", "nope", "x"], "invalid choice: 'nope'"),
        (["check", "--ignore", "sj.nope", "x"], "unknown rule 'sj.nope'"),
        (["check", "--max-line-bytes", "0", "x"], "expected a positive number"),
        (["bogus"], "invalid choice"),
        ([], "required"),
    ],
)
def test_misuse_is_one_line_and_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("milk-contract: error: ")
    assert message in err


def test_rules_json_lists_the_catalog(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["rules", "--format", "json"]) == 0
    rules = json.loads(capsys.readouterr().out)
    ids = {r["id"] for r in rules}
    assert {"sj.seq", "sa.revision-order", "line.duplicate-key", "run.timeout"} <= ids
    assert all(r["source"] and r["level"] in ("MUST", "SHOULD") for r in rules)


@pytest.mark.process
def test_console_script_and_module_entry_point() -> None:
    script = Path(sys.executable).parent / "milk-contract"  # installed beside this interpreter
    for argv in ([str(script)], [sys.executable, "-m", "contract"]):
        done = subprocess.run([*argv, "check", str(CONFORMANT)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert "conformant" in done.stdout


def test_format_choices_are_the_reporters_formats() -> None:
    """The parser names the formats without importing the reporters: the two lists must agree."""
    from contract.cli import FORMAT_NAMES
    from contract.reporting.formats import REPORTERS

    assert tuple(REPORTERS) == FORMAT_NAMES


def test_version_goes_to_stdout_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--version"]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("milk-contract ")
    assert out.out.endswith("\n")
    assert out.err == ""
