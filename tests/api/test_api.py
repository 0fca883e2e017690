"""The Python API of every verb (contract.api, loaded lazily by ``import contract``): each returns
the report the CLI renders, fails closed as the CLI does, and refuses misuse before running.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import contract
from contract import cli
from contract.goldens.store import goldens_dir
from contract.rules.report import Report
from tests.support.paths import TESTS

pytestmark = pytest.mark.process

EMITTERS = TESTS / "faulty_emitters"
HOSTS = TESTS / "faulty_hosts"
CONSUMER = [sys.executable, "-m", "contract.reference.stream_json_consumer"]
STRICT = [sys.executable, "-m", "contract.reference.strict_consumer"]


def test_every_verb_is_a_name_of_the_package_loaded_on_first_use() -> None:
    code = ("import sys, contract; "
            "print('contract.api' in sys.modules, callable(contract.run), 'contract.api' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code],
                          capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True", "True"]
    assert {"run", "feed", "fuzz", "record", "check", "conformance_statement"} <= set(contract.__all__)


def test_the_conformance_statement_from_python_is_the_clis(tmp_path: Path) -> None:
    """Found by an outside review: no statement from Python. The CLI's statement is this function's."""
    from contract.core.resources import data_dir
    from contract.statement import model

    captures = tmp_path / "captures"
    captures.mkdir()
    shutil.copyfile(goldens_dir() / "stream-json" / "hello.jsonl", captures / "hello.jsonl")
    document = contract.conformance_statement(captures=captures, generated="2026-12-03T00:00:00Z")
    schema = json.loads((data_dir("schemas") / "statement.schema.json").read_text(encoding="utf-8"))
    import jsonschema

    jsonschema.validate(document, schema)
    assert model.sealed(document)
    assert document["generated"] == "2026-12-03T00:00:00Z"
    out = tmp_path / "cli.json"
    assert cli.run(["statement", "--captures", str(captures), "--output", str(out)]) in (0, 1)
    from_cli = json.loads(out.read_text(encoding="utf-8"))
    assert from_cli["sha256"] == document["sha256"]  # the same canonical content (the timestamp aside)
    with pytest.raises(ValueError, match="captures judges files"):
        contract.conformance_statement(["./milk"], captures=captures)
    with pytest.raises(ValueError, match="shard"):
        contract.conformance_statement(shard=(3, 2))


def test_run_returns_the_report_the_cli_renders(capsys: pytest.CaptureFixture[str]) -> None:
    exits_early = [sys.executable, str(EMITTERS / "exits_early.py")]
    report = contract.run(exits_early)
    assert isinstance(report, Report)
    assert not report.conformant
    assert cli.run(["run", "--format", "json", "--", *exits_early]) == 1
    shown = json.loads(capsys.readouterr().out)
    assert shown["counts"] == dict(sorted(report.counts.items()))
    assert contract.run().conformant  # near miss: the bundled reference emitter


def test_run_fails_closed_on_an_emitter_that_does_not_start(tmp_path: Path) -> None:
    report = contract.run([str(tmp_path / "no-such-milk")])
    assert not report.conformant
    assert "run.start" in report.counts


def test_run_refuses_misuse_before_running() -> None:
    with pytest.raises(ValueError, match="provoke runs stream-json"):
        contract.run(wire="subagent-stdio", provoke=True)
    with pytest.raises(ValueError, match="no wire named"):
        contract.run(wire="stream-jsn")
    with pytest.raises(ValueError, match="ignore"):
        contract.run(ignore=["no.such-rule"])


def test_run_judges_the_bases_asked_for() -> None:
    report = contract.run(basis=["written"])
    assert [b.value for b in report.bases] == ["written"]


def test_feed_returns_the_verdict_and_the_failing_streams() -> None:
    passed = contract.feed(CONSUMER, scenarios=["hello"])
    assert passed.report.conformant
    failed = contract.feed(STRICT, scenarios=["hello"], future=True, examples=3, seed=1, shrink_seconds=5)
    assert not failed.report.conformant
    assert failed.failures
    assert failed.failures[0].data.endswith(b"\n")
    assert failed.seed == 1


def test_feed_refuses_misuse_before_running() -> None:
    with pytest.raises(ValueError, match="no golden scenario named 'nope'"):
        contract.feed(CONSUMER, scenarios=["nope"])
    with pytest.raises(ValueError, match="consumer's command"):
        contract.feed([])
    with pytest.raises(ValueError, match="expect_stdout compares one scenario"):
        contract.feed(CONSUMER, expect_stdout=b"")


def test_feed_checks_the_members_a_consumer_reports() -> None:
    result = contract.feed(CONSUMER, scenarios=["hello"], expect_json={"is_error": "/is_error", "result": "/result"})
    assert result.report.conformant
    wrong = contract.feed(CONSUMER, scenarios=["hello"], expect_json={"is_error": "/result"})
    assert "consumer.output" in wrong.report.counts


def test_fuzz_returns_the_verdict_and_the_shrunk_conversation() -> None:
    assert contract.fuzz(examples=2, seed=1).report.conformant
    failed = contract.fuzz([sys.executable, str(HOSTS / "wrong_id.py")], examples=2, seed=7)
    assert not failed.report.conformant
    assert failed.plan is not None
    assert failed.transcript
    with pytest.raises(ValueError, match="fuzz holds"):
        contract.fuzz(wire="stream-json")


def test_record_reports_each_scenario_and_writes_only_when_asked(tmp_path: Path) -> None:
    folder = tmp_path / "goldens"
    shutil.copytree(goldens_dir(), folder)
    before = (folder / "stream-json" / "hello.jsonl").read_bytes()
    (recorded,) = contract.record(wire="stream-json", scenarios=["hello"], goldens=folder, dry_run=True)
    assert recorded.scenario == "stream-json/hello"
    assert recorded.report.conformant
    assert recorded.comparison is not None
    assert recorded.comparison.equal
    assert not recorded.rewritten
    assert not recorded.breaking
    assert (folder / "stream-json" / "hello.jsonl").read_bytes() == before
    with pytest.raises(ValueError, match="no golden scenario named"):
        contract.record(scenarios=["nope"], goldens=folder)


def test_record_stops_at_a_run_that_was_not_a_run(tmp_path: Path) -> None:
    folder = tmp_path / "goldens"
    shutil.copytree(goldens_dir(), folder)
    results = contract.record([str(tmp_path / "no-such-milk")], wire="stream-json", goldens=folder)
    assert len(results) == 1  # the first scenario stopped the recording, as the CLI's does
    assert results[0].comparison is None
    assert results[0].breaking
    assert not results[0].report.conformant
