"""A capture's coverage of its wire's surface (contract.checking.capture_coverage): what it showed, what not.

Computed from a bounded sample, the same in one process and two, said when the sample was
cut, and never a traceback on hostile shapes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

import pytest

from contract.checking import capture_coverage
from contract.checking.checker import check
from contract.checking.coverage import Item
from contract.cli import run
from contract.core.resources import data_dir
from contract.rules.report import Report

GOLDENS = data_dir("goldens")
HELLO = GOLDENS / "stream-json" / "hello.jsonl"
TOOL_CALLS = GOLDENS / "stream-json" / "tool_calls.jsonl"


def _coverage(report: Report) -> capture_coverage.Coverage | None:
    """The report's coverage as check() fills it: the report types it by a protocol only (a layer below)."""
    return cast("capture_coverage.Coverage | None", report.coverage)


def test_hello_never_shows_a_tool_call_and_tool_calls_does() -> None:
    hello = _coverage(check(HELLO, coverage=True))
    assert hello is not None
    assert Item("content block type", "tool_use") in hello.missing
    assert Item("line type", "assistant") not in hello.missing
    assert hello.complete
    calls = _coverage(check(TOOL_CALLS, coverage=True))
    assert calls is not None
    assert Item("content block type", "tool_use") not in calls.missing
    assert len(calls.shown) > len(hello.shown)
    assert 0 < hello.percent() < calls.percent() < 100


def test_coverage_is_measured_only_when_asked() -> None:
    assert check(HELLO).coverage is None
    assert "coverage" not in check(HELLO).to_json()
    document = check(HELLO, coverage=True).to_json()
    listed = document["coverage"]
    assert isinstance(listed, dict)
    assert "content block type: tool_use" in listed["missing"]
    assert listed["shown"] + len(listed["missing"]) == listed["items"]


def test_cli_text_only_with_the_flag_and_json_always(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", str(HELLO)]) == 0
    assert "never shown" not in capsys.readouterr().out
    assert run(["check", "--coverage", str(HELLO)]) == 0
    out = capsys.readouterr().out
    assert "coverage: " in out
    assert "never shown (content block type): thinking; tool_result; tool_use" in out
    assert run(["check", "--format", "json", str(HELLO)]) == 0
    assert json.loads(capsys.readouterr().out)["coverage"]["complete"] is True
    assert run(["check", "--format", "json", str(HELLO), str(TOOL_CALLS)]) == 0
    reports = json.loads(capsys.readouterr().out)["reports"]
    assert reports[0]["coverage"]["items"] == reports[1]["coverage"]["items"] > 0
    assert reports[0]["coverage"]["shown"] < reports[1]["coverage"]["shown"]


@pytest.mark.process
def test_two_processes_give_the_same_coverage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capture_coverage, "MAX_LINES", 40)
    lines = TOOL_CALLS.read_bytes().splitlines(keepends=True)
    path = tmp_path / "long.jsonl"
    path.write_bytes(b"".join(lines * 5))  # 85 object lines: past the sample bound
    one = _coverage(check(path, coverage=True, jobs=1))
    two = _coverage(check(path, coverage=True, jobs=2))
    assert one is not None
    assert one == two
    assert not one.complete
    assert (one.sampled, one.seen) == (40, 5 * len(lines))
    assert "from the first 40 of 85 object lines" in "\n".join(one.text_lines())


def test_the_byte_bound_cuts_the_sample_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capture_coverage, "MAX_BYTES", 1000)
    found = _coverage(check(TOOL_CALLS, coverage=True))
    assert found is not None
    assert not found.complete
    assert 0 < found.sampled < found.seen


def test_hostile_shapes_are_counted_not_raised() -> None:
    lines = [json.loads(line) for line in (GOLDENS / "subagent-stdio" / "first_poll.jsonl").read_bytes().splitlines()]
    answer = next(obj for obj in lines if obj.get("type") == "response")
    answer["data"]["capabilities"] = ["events"]  # a list where the edge test reads an object
    data = b"".join(json.dumps(obj).encode() + b"\n" for obj in lines)
    report = check(data, "subagent-stdio", coverage=True)
    coverage = _coverage(report)
    assert coverage is not None
    assert coverage.unreadable >= 1
    assert "could not be read for coverage" in "\n".join(coverage.text_lines())
    assert not report.conformant  # the schema's finding, unchanged by the coverage


def test_a_line_too_deep_to_price_is_left_out_and_counted() -> None:
    from tests.hostile.cases import deep_tool_args

    report = check(deep_tool_args(1000, same=True), coverage=True)
    assert report.conformant  # 1000 levels are within the checker's limits: judged normally
    coverage = _coverage(report)
    assert coverage is not None
    assert coverage.unreadable >= 1
    assert coverage.sampled < coverage.seen
