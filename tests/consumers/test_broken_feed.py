"""``feed --broken``: streams real pipes deliver, judged by an honest ending (consumer.dishonest).

The fire/no-fire cases of consumer.dishonest were written from issue 30's text alone, before the
rule (tests/data/consumer_dishonest.json), and are held against the implementation here; then
whole feeds: the reference consumer passes with and without --expect-json, one that prints
"success" for a truncated stream fails, one killed by a signal is a crash, misuse is exit 2.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import contract
from contract import cli
from contract.consumers import broken_feed, transport
from contract.consumers.feed import Outcome
from contract.wires.stream_json.kit.feeds import KINDS
from tests.support.paths import TESTS
from tests.wires.audit_log import AUDIT_LOG
from tests.wires.audit_log import GOLDEN as AUDIT_GOLDEN
from tests.wires.audit_log import NAME as AUDIT_LOG_NAME

pytestmark = pytest.mark.process

CASES = json.loads((TESTS / "data" / "consumer_dishonest.json").read_text("utf-8"))["cases"]
REFERENCE = [sys.executable, "-m", "contract.reference.stream_json_consumer"]
SUCCESS = [sys.executable, "-c", "import sys; sys.stdin.buffer.read(); print('success')"]
RESULT = {"members": {"is_error": "/is_error", "result": "/result"}}


def _outcome(case: dict[str, Any]) -> Outcome:
    status = case["status"]
    stdout = case["stdout"].encode()
    return Outcome(status, status is None, stdout, len(stdout), "", 3, 3, 0.1)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_the_cases_written_from_the_issue(case: dict[str, Any]) -> None:
    member = "is_error" if case["expect_json"] else None
    found = [f.rule for f in broken_feed.judge_broken(_outcome(case), member, "a broken stream")]
    assert found == ([case["rule"]] if case["rule"] else [])


def test_every_broken_stream_is_not_conformant_and_named() -> None:
    streams = broken_feed.broken_streams()
    assert [s.kind for s in streams] == list(KINDS)
    assert len({s.data for s in streams}) == len(streams)
    for stream in streams:
        assert not contract.check(stream.data, "stream-json").conformant, stream.name
        assert stream.source


@pytest.fixture
def result_contract(tmp_path: Path) -> Path:
    path = tmp_path / "expect.json"
    path.write_text(json.dumps(RESULT))
    return path


def _feed(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = cli.run(["feed", "--broken", "--format", "json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_the_reference_consumer_passes(capsys: pytest.CaptureFixture[str], result_contract: Path) -> None:
    code, report = _feed(capsys, "--", *REFERENCE)
    assert (code, report["conformant"]) == (0, True), report
    code, report = _feed(capsys, "--expect-json", str(result_contract), "--", *REFERENCE)
    assert (code, report["conformant"]) == (0, True), report


def test_a_consumer_printing_success_on_a_truncated_stream_fails(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _feed(capsys, "--", *SUCCESS)
    assert code == 1
    assert report["counts"] == {"consumer.dishonest": len(KINDS)}
    assert any("cut-mid-run" in v["message"] for v in report["violations"])


# Reports the last result line's is_error and result when it reads one whole, and is_error false
# (success) when it finds none: it passes the control (the golden as recorded) and lies on the rest.
LYING = """
import json, sys
found = {"is_error": False, "result": None}
for raw in sys.stdin.buffer.read().split(b"\\n"):
    try:
        line = json.loads(raw)
    except ValueError:
        continue
    if isinstance(line, dict) and line.get("type") == "result":
        found = {"is_error": line.get("is_error"), "result": line.get("result")}
print(json.dumps(found))
"""


def test_a_report_of_is_error_false_fails(capsys: pytest.CaptureFixture[str], result_contract: Path) -> None:
    code, report = _feed(capsys, "--expect-json", str(result_contract), "--", sys.executable, "-c", LYING)
    assert code == 1
    # every case but success-is-error, whose result line itself says is_error true
    assert report["counts"] == {"consumer.dishonest": len(KINDS) - 1}
    assert not any("success-is-error" in v["message"] for v in report["violations"])


def test_a_consumer_killed_by_a_signal_is_a_crash(capsys: pytest.CaptureFixture[str]) -> None:
    dies = [sys.executable, "-c",
            "import os, signal, sys; sys.stdin.buffer.read(); os.kill(os.getpid(), signal.SIGSEGV)"]
    code, report = _feed(capsys, "--scenario", "hello", "--", *dies)
    assert code == 1
    assert set(report["counts"]) == {"consumer.crash"}


@pytest.mark.parametrize(("args", "says"), [
    (["--future"], "--future"),
    (["--transport"], "--broken and --transport"),
    (["--wire", "subagent-stdio"], "stream consumers"),
])
def test_misuse_is_one_line(capsys: pytest.CaptureFixture[str], args: list[str], says: str) -> None:
    assert cli.run(["feed", "--broken", *args, "--", *REFERENCE]) == 2
    err = capsys.readouterr().err
    assert says in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("mode", ["--broken", "--transport"])
def test_another_stream_wire_is_refused_not_fed_stream_json(capsys: pytest.CaptureFixture[str], mode: str) -> None:
    # The synthetic audit-log wire is a stream wire registered for the session (tests/conftest.py):
    # it declares no Wire.feeds, so neither mode has streams of its lines (stream-json's judge another wire).
    assert cli.run(["feed", mode, "--wire", AUDIT_LOG_NAME, "--", *REFERENCE]) == 2
    err = capsys.readouterr().err
    assert f"{AUDIT_LOG_NAME} has no such streams" in err
    assert len(err.strip().splitlines()) == 1


def test_an_expectation_without_is_error_is_misuse(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "expect.json"
    path.write_text(json.dumps({"members": {"result": "/result"}}))
    assert cli.run(["feed", "--broken", "--expect-json", str(path), "--", *REFERENCE]) == 2
    assert "/is_error" in capsys.readouterr().err


def test_a_wire_s_streams_come_from_its_descriptor_not_from_stream_json() -> None:
    """The generic feeds read what a wire's broken and transport streams are from ``Wire.feeds``: a copy of
    the synthetic wire given one gets its streams, its failed member and its padding, never stream-json's."""
    wire = dataclasses.replace(AUDIT_LOG, feeds="tests.wires.audit_log.feeds")
    golden = SimpleNamespace(name="hello", wire=wire, data=AUDIT_GOLDEN.read_bytes)
    streams = broken_feed.broken_streams([golden], wire)
    assert [(s.wire, s.name, s.kind) for s in streams] == [(AUDIT_LOG.name, "hello-no-last-line", "no-last-line")]
    assert streams[0].data == b"".join(AUDIT_GOLDEN.read_bytes().splitlines(keepends=True)[:-1])
    assert broken_feed.is_error_member({"failed": "/failed"}, wire) == "failed"
    with pytest.raises(broken_feed.BrokenUsage, match="/failed"):
        broken_feed.is_error_member({"is_error": "/is_error"}, wire)
    dishonest = broken_feed.judge_broken(Outcome(0, False, b'{"failed": false}\n', 17, "", 1, 1, 0.1), "failed",
                                         "a broken stream", wire)
    assert [(f.rule, f.hint) for f in dishonest] == [("consumer.dishonest", "say the run failed")]
    first = transport.padded(AUDIT_GOLDEN.read_bytes(), 10, wire).split(b"\n")[0]
    assert json.loads(first)["_pad"] == {"x_milk_contract_padding": "p" * 10}
    assert "_meta" not in json.loads(first)


def test_a_wire_without_feeds_has_no_broken_streams() -> None:
    with pytest.raises(broken_feed.BrokenUsage, match=r"Wire\.feeds"):
        broken_feed.broken_streams(wire=AUDIT_LOG)
