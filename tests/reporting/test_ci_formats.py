"""``--format github``, ``sarif`` and ``markdown`` on one and many files, hostile names included.

A hostile transcript carries a member name with ESC, CR, ``%``, ``:``, ``,``, ``|``, a backtick,
U+0001 and ``<b>``, in a file whose own name holds ESC, ``%``, ``:``, ``,``, ``|``, a backtick and
U+0001: none of them may reach the output raw, break a workflow command's properties, a table
row, or the SARIF schema.
"""

from __future__ import annotations

import functools
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from contract.cli import run
from contract.reporting import ci_reports
from contract.rules.catalog import CATALOG
from tests.support.paths import TESTS

DATA = TESTS / "data"
CONFORMANT = DATA / "conformant.jsonl"
SARIF_SCHEMA = TESTS / "sarif" / "sarif-schema-2.1.0.json"
HOSTILE_KEY = "k\x1b[31m\r%:,|`\x01<b>"
HOSTILE_FILE = "bad\x1b%:,|`\x01.jsonl"
RAW_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # LF is the line separator of every format
COMMAND = re.compile(r"^::(error|warning) ([^:]*)::(.*)$")


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A file whose hostile member (line 2) is two MUST findings (sj.schema: not modelled; line.ansi:
    ESC in a member name) and one SHOULD (ts goes back, line 4)."""
    lines = CONFORMANT.read_text().splitlines()
    extra = json.loads(lines[1])
    extra[HOSTILE_KEY] = 1
    back = json.loads(lines[3])
    back["ts"] = "2026-03-01T09:00:00Z"
    path = tmp_path / HOSTILE_FILE
    path.write_text("\n".join([lines[0], json.dumps(extra), lines[2], json.dumps(back), lines[4]]) + "\n")
    return path


def _out(argv: list[str], capsys: pytest.CaptureFixture[str], code: int) -> str:
    assert run(argv) == code
    return capsys.readouterr().out


def _github_decode(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


# -- github ---------------------------------------------------------------------------------------


def test_github_annotates_must_as_error_and_should_as_warning(
    hostile: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _out(["check", "--format", "github", str(hostile)], capsys, 1)
    commands = [COMMAND.match(line) for line in out.splitlines() if line.startswith("::")]
    assert all(commands)
    assert len(commands) == 3
    kinds = {_github_decode(dict(p.split("=", 1) for p in m.group(2).split(","))["title"]): m.group(1)
             for m in commands if m}
    assert kinds == {"line.ansi [MUST]": "error", "sj.schema [MUST]": "error", "sj.ts-order [SHOULD]": "warning"}
    first = commands[0]
    assert first is not None
    props = dict(p.split("=", 1) for p in first.group(2).split(","))
    assert props["line"] == "2"
    assert _github_decode(props["file"]) == str(hostile).replace("\x1b", "\\u001b").replace("\x01", "\\u0001")
    assert not RAW_CONTROLS.search(out)
    # everything that is not a workflow command is a plain, prefixed line
    assert all(line.startswith(("::", "milk-contract: ")) for line in out.splitlines())


def test_github_strict_makes_should_an_error(hostile: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _out(["check", "--strict", "--format", "github", str(hostile)], capsys, 1)
    assert [line.split(" ", 1)[0] for line in out.splitlines() if line.startswith("::")] == ["::error"] * 3


def test_github_on_a_conformant_file_annotates_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    out = _out(["check", "--format", "github", str(CONFORMANT)], capsys, 0)
    assert not [line for line in out.splitlines() if line.startswith("::")]
    assert out.splitlines()[-1] == "milk-contract: 1 file: all conformant"


def test_github_escaping() -> None:
    assert ci_reports.github_data("a%b\r\nc:d,e") == "a%25b%0D%0Ac:d,e"
    assert ci_reports.github_property("a%b\r\nc:d,e") == "a%25b%0D%0Ac%3Ad%2Ce"
    # the syntax layer alone: input reaches it through the shared escaping (ci_reports.shown)
    assert ci_reports.github_data(ci_reports.shown("esc\x1b bell\x07 sep\u2028 cr\r")) == (
        "esc\\u001b bell\\u0007 sep\\u2028 cr\\u000d")
    assert ci_reports.github_data("plain text, with: punctuation") == "plain text, with: punctuation"  # near miss


def test_github_caps_annotations_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ci_reports, "MAX_ANNOTATIONS", 1)
    lines = CONFORMANT.read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([lines[0], "[]", "{", lines[4]]) + "\n")  # line.object, line.json, a seq gap
    out = _out(["check", "--format", "github", str(bad)], capsys, 1)
    commands = [line for line in out.splitlines() if line.startswith("::")]
    assert len(commands) == 2
    assert commands[0].startswith("::error ")
    assert re.search(r"title=milk-contract::\d+ more kinds of finding not annotated", commands[1])


# -- sarif ----------------------------------------------------------------------------------------


@functools.cache
def _sarif_validator() -> Any:
    from jsonschema import Draft4Validator

    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    Draft4Validator.check_schema(schema)
    return Draft4Validator(schema)


def _valid_sarif(text: str) -> dict[str, Any]:
    sarif: dict[str, Any] = json.loads(text)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in _sarif_validator().iter_errors(sarif)]
    assert not errors, errors[:5]
    return sarif


def test_sarif_validates_and_locates_each_finding(hostile: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _out(["check", "--format", "sarif", str(hostile)], capsys, 1)
    assert out.isascii()
    assert not RAW_CONTROLS.search(out)
    sarif = _valid_sarif(out)
    assert sarif["version"] == "2.1.0"
    run_ = sarif["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(CATALOG)
    for rule in rules:
        assert rule["shortDescription"]["text"] == CATALOG[rule["id"]].title
        assert CATALOG[rule["id"]].source in rule["help"]["text"]
        level = "error" if rule["properties"]["level"] == "MUST" else "warning"
        assert rule["defaultConfiguration"]["level"] == level
    results = {r["ruleId"]: r for r in run_["results"]}
    assert set(results) == {"line.ansi", "sj.schema", "sj.ts-order"}
    schema_result = results["sj.schema"]
    assert schema_result["level"] == "error"
    assert results["sj.ts-order"]["level"] == "warning"
    assert rules[schema_result["ruleIndex"]]["id"] == "sj.schema"
    location = schema_result["locations"][0]["physicalLocation"]
    assert location["region"] == {"startLine": 2}
    assert location["artifactLocation"]["uri"] == "file://" + ci_reports.sarif_uri(str(hostile))[len("file://"):]
    assert "%1B" in location["artifactLocation"]["uri"]
    assert "%7C" in location["artifactLocation"]["uri"]
    assert schema_result["properties"]["pointer"].startswith("/k")


def test_sarif_many_files_and_a_conformant_file_validate(hostile: Path, capsys: pytest.CaptureFixture[str]) -> None:
    many = _valid_sarif(_out(["check", "--format", "sarif", str(hostile.parent), str(CONFORMANT)], capsys, 1))
    assert [f["conformant"] for f in many["runs"][0]["properties"]["files"]] == [False, True]
    clean = _valid_sarif(_out(["check", "--format", "sarif", str(CONFORMANT)], capsys, 0))
    assert clean["runs"][0]["results"] == []


def test_sarif_says_when_it_lists_fewer_findings_than_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ci_reports, "MAX_SARIF_RESULTS", 2)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{}\n" * 5)
    sarif = _valid_sarif(_out(["check", "--format", "sarif", str(bad)], capsys, 1))
    run_ = sarif["runs"][0]
    assert len(run_["results"]) == 2
    notes = run_["invocations"][0]["toolExecutionNotifications"]
    assert len(notes) == 1
    assert "further findings counted but not listed" in notes[0]["message"]["text"]


def test_sarif_uri() -> None:
    assert ci_reports.sarif_uri("goldens/a b.jsonl") == "goldens/a%20b.jsonl"
    assert ci_reports.sarif_uri("/abs/x.jsonl") == "file:///abs/x.jsonl"
    assert ci_reports.sarif_uri("<stdin>") == "%3Cstdin%3E"


# -- markdown -------------------------------------------------------------------------------------


def _cells(row: str) -> list[str]:
    return re.split(r"(?<!\\)\|", row)[1:-1]  # a pipe not backslash-escaped ends a cell


def test_markdown_table_survives_hostile_names(hostile: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _out(["check", "--format", "markdown", str(hostile.parent), str(CONFORMANT)], capsys, 1)
    assert not RAW_CONTROLS.search(out)
    assert "\r" not in out
    assert "<b>" not in out
    rows = [line for line in out.splitlines() if line.startswith("|")]
    files = [row for row in rows if "stream-json |" in row]
    assert len(files) == 2
    assert all(len(_cells(row)) == 8 for row in files)  # with the Exercised column
    assert "**NOT conformant**" in files[0]
    assert "| conformant |" in files[1]
    findings = [row for row in rows if row.startswith("| sj.")]
    assert len(findings) == 2
    assert all(len(_cells(row)) == 7 for row in findings)  # with the Basis column
    assert not re.search(r"(?<!\\)`", "\n".join(rows))  # every backtick in a cell is escaped
    assert out.startswith("### milk-contract: 2 files, 1 of 2 NOT conformant\n")


def test_markdown_escaping() -> None:
    assert ci_reports.markdown_cell("a|b`c") == "a\\|b\\`c"
    # the shared escape's backslash is escaped too, so the cell renders as line\u000d\u000anext\u0001
    assert ci_reports.markdown_cell("line\r\nnext\x01") == "line\\\\u000d\\\\u000anext\\\\u0001"
    assert ci_reports.markdown_cell("<img src=x>") == "\\<img src=x\\>"
    assert ci_reports.markdown_cell("**[x](javascript:1)** ~~y~~ &amp; \\") == (
        "\\*\\*\\[x\\](javascript:1)\\*\\* \\~\\~y\\~\\~ \\&amp; \\\\")
    assert ci_reports.markdown_cell("sj.init-first /work/a-b.jsonl") == "sj.init-first /work/a-b.jsonl"  # readable
    assert ci_reports.markdown_cell("plain words 42") == "plain words 42"  # near miss


def test_markdown_conformant_file_has_no_findings_section(capsys: pytest.CaptureFixture[str]) -> None:
    out = _out(["check", "--format", "markdown", str(CONFORMANT)], capsys, 0)
    assert out.startswith("### milk-contract: 1 file, all conformant")
    assert "####" not in out


# -- text and junit over hostile names --------------------------------------------------------------


def test_many_file_text_and_junit_hold_no_raw_controls(hostile: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _out(["check", str(hostile.parent), str(CONFORMANT)], capsys, 1)
    assert not RAW_CONTROLS.search(text)
    assert "bad\\u001b%:,|`\\u0001.jsonl: NOT conformant" in text
    junit = _out(["check", "--format", "junit", str(hostile.parent), str(CONFORMANT)], capsys, 1)
    root = ET.fromstring(junit)  # well-formed although the file name holds ESC and U+0001
    assert len(root.findall("testsuite")) == 2


@pytest.mark.parametrize("fmt", ["github", "sarif", "markdown"])
def test_new_formats_work_on_stdin(fmt: str, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(CONFORMANT.read_bytes())))
    out = _out(["check", "--format", fmt, "-"], capsys, 0)
    assert "stdin" in out
