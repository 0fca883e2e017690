"""One table of reporters, chosen by name (contract.reporting.formats.REPORTERS; issue 48).

There were two: ``reporters.REPORTERS`` (text, json, junit for one file) with ``STREAMING``
beside it, and ``ci_reports.FORMATS`` (every format, one file and many), whose text, json and
junit looked the first up. Now every ``--format`` is one entry: its one-file and many-file
renderers and, for json, its streaming writer; the CLI writes every report through it.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import contract
from contract import cli
from contract.cli.common import FORMAT_NAMES
from contract.core.resources import data_dir
from contract.reporting import ci_reports, formats, reporters
from contract.reporting.formats import REPORTERS, Reporter
from contract.reporting.terminal import Style
from contract.rules.report import Report

HELLO = data_dir("goldens") / "stream-json" / "hello.jsonl"


def _broken() -> Report:
    lines = HELLO.read_bytes().splitlines(keepends=True)
    return contract.check(b"".join(lines[:2]), source="truncated.jsonl")


def test_one_table_names_every_format() -> None:
    assert tuple(REPORTERS) == FORMAT_NAMES
    assert all(isinstance(reporter, Reporter) for reporter in REPORTERS.values())
    for module in (reporters, ci_reports):  # no second table left beside it
        assert not {"REPORTERS", "STREAMING", "FORMATS"} & set(vars(module)), module.__name__


@pytest.mark.parametrize("fmt", FORMAT_NAMES)
def test_write_is_what_one_renders(fmt: str) -> None:
    report = _broken()
    out = io.StringIO()
    REPORTERS[fmt].write(report, out)
    assert out.getvalue() == REPORTERS[fmt].one(report)
    assert REPORTERS[fmt].many([report, report])  # and many files render too


def test_only_json_streams_and_only_text_takes_a_style() -> None:
    assert [name for name, reporter in REPORTERS.items() if reporter.stream is not None] == ["json"]
    report = _broken()
    quiet = Style(verbosity=-1)
    assert REPORTERS["text"].one(report, quiet) != REPORTERS["text"].one(report)
    assert REPORTERS["text"].many([report], quiet) != REPORTERS["text"].many([report])
    for name in FORMAT_NAMES[1:]:
        assert REPORTERS[name].one(report, quiet) == REPORTERS[name].one(report), name


@pytest.mark.parametrize("many", [False, True])
def test_the_cli_writes_through_the_table(many: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """A reporter put in the table is the one the CLI uses, for one file and for many."""
    marked = Reporter(lambda report, style: f"one {report.source}\n",
                      lambda reports, style: f"many {len(reports)}\n")
    monkeypatch.setitem(formats.REPORTERS, "markdown", marked)
    for name in ("a.jsonl", "b.jsonl"):
        (tmp_path / name).write_bytes(HELLO.read_bytes())
    paths = [str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")] if many else [str(HELLO)]
    assert cli.run(["check", "--format", "markdown", *paths]) == 0
    assert capsys.readouterr().out == ("many 2\n" if many else f"one {HELLO}\n")
