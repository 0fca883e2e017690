"""The rule of the house: a finding "not judged to the end" is never ignored nor baselined.

``catalog.not_judged_to_the_end`` is the one predicate (docs/unjudged.md). Every path that takes
rule ids to switch findings off (the CLI's ``--ignore``, ``--baseline``, ``--baseline-write``, every
Python function with an ``ignore`` parameter, the baseline functions, the pytest plugin's options)
is listed in one table below; the tests derive the paths from the code (argparse's options,
function signatures, the plugin's ``addoption`` calls) and fail when one is missing from the
table, so a new path cannot be forgotten silently. Then each path is driven with every unjudged
rule, and with every rule declared ``silenceable=False`` (a stream that does not show a whole run:
no ignore or baseline silences it either), and must refuse it. The reproducers of issue 20 close
the file.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import pkgutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import contract
from contract import cli, plugin
from contract.core.resources import data_dir
from contract.reporting.reporters import render_text
from contract.rules import baseline, requirements
from contract.rules.catalog import CATALOG, NOT_WHOLE, UNFINISHED, UNJUDGED, not_judged_to_the_end, unsilenceable
from contract.rules.report import Collector, Report
from contract.wires import WIRES
from tests.support.paths import TESTS
from tests.support.seeds import SEED_DIGESTS

HERE = TESTS
HELLO = data_dir("goldens") / "stream-json" / "hello.jsonl"
CLOSES_STDOUT = HERE / "faulty_emitters" / "closes_stdout.py"  # a whole run, then never exits
NOT_STARTED = ["/nonexistent/milk-contract-test-emitter"]  # a path that refuses before this is reached

# The rules whose findings say "not judged to the end", decided by the lead (issue 20).
# run.stdout-held: the holder is killed at the grace, so what it would still have written was not seen;
# run.exit-after-result (issue 32) for the same reason: the emitter is killed at its exit grace.
EXPECTED = frozenset({"checker.internal", "checker.limit", "checker.input-changed", "run.timeout", "run.output-limit",
                      "run.interrupted", "run.start", "run.stdout-held", "run.exit-after-result"})
# The rules whose finding says the stream does not show a whole run (the lead's decision): never
# silenced, by the same paths, but not unjudged (their findings are verdicts on what was seen).
NOT_WHOLE_RULES = frozenset({"sj.init-first", "sj.result-last"})
REFUSED = sorted(EXPECTED | NOT_WHOLE_RULES)  # what every path below must refuse


def _milk_s(rule: str) -> bool:
    """A rule every wire shares, or one of milk's wires' (copied from a seed): what the pins hold."""
    return CATALOG[rule].wire not in WIRES or CATALOG[rule].wire in SEED_DIGESTS


def test_the_rules_no_path_silences_are_declared_on_the_rules() -> None:
    """Pinned for milk's wires (the lead's decision: sj.init-first, sj.result-last); a wire written
    here may declare its own first/terminal-line rules so, and each is held to the same terms."""
    declared = {rule.id for rule in CATALOG.values() if not rule.silenceable}
    assert {rule for rule in unsilenceable() if _milk_s(rule)} == EXPECTED | NOT_WHOLE_RULES
    assert {rule for rule in declared if _milk_s(rule)} == NOT_WHOLE_RULES
    for rule in declared:  # declared in the wire's rules.py, not unjudged, not filterable
        assert CATALOG[rule].unjudged.value == "never"
        assert not CATALOG[rule].filterable
        assert not not_judged_to_the_end(rule)


def _reason(rule: str) -> str:
    return NOT_WHOLE if rule in NOT_WHOLE_RULES else UNFINISHED


def test_the_predicate_names_exactly_the_unjudged_rules() -> None:
    assert UNJUDGED == EXPECTED
    assert all(not_judged_to_the_end(rule) for rule in EXPECTED)
    # run.exit-status: a status the emitter chose is judged; an end by a signal is not
    assert not not_judged_to_the_end("run.exit-status", 3)
    assert not not_judged_to_the_end("run.exit-status", None)
    assert not_judged_to_the_end("run.exit-status", -9)
    judged = [rule for rule in CATALOG if rule not in EXPECTED and rule != "run.exit-status"]
    assert judged
    assert not any(not_judged_to_the_end(rule, -9) for rule in judged)


# -- every path, in one table ----------------------------------------------------------------

def _modules() -> list[Any]:
    """Every library module (not the shipped tests, reference emitters or strategies: no ignore there)."""
    skip = ("contract.tests", "contract.reference", "contract.strategies")
    names = [m.name for m in pkgutil.walk_packages(contract.__path__, "contract.")
             if not m.name.startswith(skip) and not m.name.endswith("__main__")]
    return [importlib.import_module(name) for name in names]


def _ignore_takers() -> set[str]:
    """Public functions and classes of the library that take an ``ignore`` parameter or field."""
    found = set()
    for module in _modules():
        for name, value in vars(module).items():
            if name.startswith("_") or getattr(value, "__module__", None) != module.__name__:
                continue
            if not (inspect.isfunction(value) or inspect.isclass(value)):
                continue
            try:
                parameters = inspect.signature(value).parameters
            except (TypeError, ValueError):
                continue
            if "ignore" in parameters:
                found.add(f"{module.__name__}.{name}")
    return found


def _api(call: Callable[[list[str]], object]) -> Callable[[str, Path], None]:
    def refuse(rule: str, tmp_path: Path) -> None:
        with pytest.raises(ValueError, match=f"cannot be ignored: {_reason(rule)}"):
            call([rule])
    return refuse


def _many(rules: list[str]) -> object:
    from contract.checking import manyfiles

    return manyfiles.check_path(str(HELLO), manyfiles.Options("stream-json", False, tuple(rules), 1 << 20, False))


def _settle(rules: list[str]) -> object:
    return baseline.settle(Report(wire="stream-json"), baseline=None, write_to=None, ignore=rules)


def _lazy(module: str, name: str) -> Callable[..., Any]:
    found: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return found


API: dict[str, Callable[[str, Path], None]] = {
    "contract.checking.checker.check": _api(lambda rules: contract.check(b"", ignore=rules)),
    "contract.checking.pipeline.check_stream": _api(lambda rules: _lazy("contract.checking.pipeline", "check_stream")(
        b"", "stream-json", strict=False, ignore=rules, max_line_bytes=1 << 20, source="-")),
    "contract.rules.report.Collector": _api(lambda rules: Collector(Report(wire="stream-json"), rules)),
    "contract.checking.manyfiles.Options": _api(_many),
    "contract.checking.parallel.check_file": _api(lambda rules: _lazy("contract.checking.parallel", "check_file")(
        HELLO.open("rb"), "stream-json", ignore=rules, max_line_bytes=1 << 20)),
    # run_stream(argv, **options) hands its options to record_stream: the same path
    "contract.live.harness.record_stream": _api(lambda rules: _lazy("contract.live.harness", "record_stream")(
        NOT_STARTED, ignore=rules)),
    "contract.live.driver.record": _api(lambda rules: _lazy("contract.live.driver", "record")(
        NOT_STARTED, ignore=rules)),
    "contract.live.driver.run_subagent": _api(lambda rules: _lazy("contract.live.driver", "run_subagent")(
        NOT_STARTED, ignore=rules)),
    "contract.live.provoke.provoke": _api(lambda rules: _lazy("contract.live.provoke", "provoke")(
        NOT_STARTED, ignore=rules)),
    "contract.live.fuzz.fuzz_host": _api(lambda rules: _lazy("contract.live.fuzz", "fuzz_host")(
        NOT_STARTED, ignore=rules)),
    "contract.rules.baseline.settle": _api(_settle),
    "contract.api.run": _api(lambda rules: contract.run(NOT_STARTED, ignore=rules)),
    "contract.api.fuzz": _api(lambda rules: contract.fuzz(NOT_STARTED, ignore=rules)),
}


def _cli_options() -> set[tuple[str, str]]:
    """(verb, option) for every CLI option that takes rule ids or a baseline."""
    parser = cli.build_parser()
    found = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for verb, sub in action.choices.items():
                for option in sub._actions:
                    for flag in option.option_strings:
                        if "ignore" in flag or "baseline" in flag:
                            found.add((verb, flag))
    return found


def _baseline_file(tmp_path: Path, rule: str, pointer: str | None = None) -> str:
    path = tmp_path / "known.json"
    path.write_text(json.dumps({"version": 1, "entries": [{"rule": rule, "pointer": pointer}]}))
    return str(path)


def _one_line_misuse(argv: list[str], capsys: pytest.CaptureFixture[str], reason: str = UNFINISHED) -> None:
    assert cli.run(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert reason in err


Capsys = pytest.CaptureFixture[str]


def _refused(argv: Callable[[str, Path], list[str]]) -> Callable[[str, Path, Capsys], None]:
    """The option names ``rule`` (through argv): exit 2 and one line saying why."""
    return lambda rule, tmp, capsys: _one_line_misuse(argv(rule, tmp), capsys, _reason(rule))


def _never_written(verb: str) -> Callable[[str, Path, Capsys], None]:
    """--baseline-write on a run with an unjudged finding (check: checker.limit; run: run.start), or
    with a stream that does not show a whole run (check: an empty file; run: ``true``), never lists it.

    The other unjudged rules cannot be made to occur through this verb cheaply; the function
    below the CLI (baseline.from_report and settle) is driven with every one of them.
    """
    def check(rule: str, tmp: Path, capsys: Capsys) -> None:
        written = tmp / "written.json"
        if rule in NOT_WHOLE_RULES:  # both of them: nothing at all shows no init and no result
            if verb == "check":
                stream = tmp / "empty.jsonl"
                stream.write_bytes(b"")
                argv = ["check", "--format", "json", "--baseline-write", str(written), str(stream)]
            else:
                argv = ["run", "--format", "json", "--baseline-write", str(written), "--", "true"]
            assert cli.run(argv) == 1
            report = json.loads(capsys.readouterr().out)
            assert rule in report["counts"]
            assert any(rule in note and "cannot be baselined" in note for note in report["notes"])
            assert not [e for e in json.loads(written.read_text())["entries"] if e["rule"] in unsilenceable()]
            return
        if verb == "check":
            stream = tmp / "limit.jsonl"
            stream.write_bytes(_seq_1e5000())
            assert cli.run(["check", "--format", "json", "--baseline-write", str(written), str(stream)]) == 1
            found = "checker.limit"
        else:
            assert cli.run(["run", "--format", "json", "--baseline-write", str(written), "--", *NOT_STARTED]) == 2
            found = "run.start"
        assert found in json.loads(capsys.readouterr().out)["counts"]
        assert not [e for e in json.loads(written.read_text())["entries"] if e["rule"] in UNJUDGED]
    return check


# (verb, option) -> the proof that an unjudged rule does not get through it.
CLI: dict[tuple[str, str], Callable[[str, Path, Capsys], None]] = {
    ("check", "--ignore"): _refused(lambda rule, tmp: ["check", "--ignore", rule, str(HELLO)]),
    ("run", "--ignore"): _refused(lambda rule, tmp: ["run", "--ignore", rule, "--", *NOT_STARTED]),
    ("fuzz", "--ignore"): _refused(lambda rule, tmp: ["fuzz", "--ignore", rule, "--", *NOT_STARTED]),
    ("check", "--baseline"): _refused(lambda rule, tmp: ["check", "--baseline", _baseline_file(tmp, rule),
                                                         str(HELLO)]),
    ("run", "--baseline"): _refused(lambda rule, tmp: ["run", "--baseline", _baseline_file(tmp, rule), "--",
                                                       *NOT_STARTED]),
    ("check", "--baseline-write"): _never_written("check"),
    ("run", "--baseline-write"): _never_written("run"),
}

# The pytest plugin's options that take rule ids or a baseline: none today. One added must
# be listed here with its refusal, or the derivation test fails.
PLUGIN: dict[str, Callable[[str, Path], None]] = {}


def test_the_table_lists_every_path() -> None:
    assert _ignore_takers() == set(API)
    assert _cli_options() == set(CLI)
    options: list[str] = []

    class Group:
        def addoption(self, *names: str, **kwargs: object) -> None:
            options.extend(names)

    class Parser:
        def getgroup(self, *args: object) -> Group:
            return Group()

    plugin.pytest_addoption(Parser())  # type: ignore[arg-type]  # a stand-in with only what the hook calls
    assert options, "the plugin's options were not seen"
    assert {o for o in options if "ignore" in o or "baseline" in o or "rule" in o} == set(PLUGIN)


@pytest.mark.parametrize("rule", REFUSED)
@pytest.mark.parametrize("path", sorted(API))
def test_no_python_path_reaches_an_unjudged_rule(path: str, rule: str, tmp_path: Path) -> None:
    API[path](rule, tmp_path)


@pytest.mark.parametrize("rule", REFUSED)
@pytest.mark.parametrize("path", sorted(CLI), ids=[" ".join(path) for path in sorted(CLI)])
def test_no_cli_path_reaches_an_unjudged_rule(path: tuple[str, str], rule: str, tmp_path: Path,
                                              capsys: Capsys) -> None:
    CLI[path](rule, tmp_path, capsys)


@pytest.mark.parametrize("rule", REFUSED)
def test_no_baseline_function_reaches_an_unjudged_rule(rule: str, tmp_path: Path) -> None:
    with pytest.raises(baseline.BaselineError, match="cannot be baselined"):
        baseline.parse({"version": 1, "entries": [{"rule": rule, "pointer": None}]})
    with pytest.raises(baseline.BaselineError, match="cannot be baselined"):
        baseline.load(_baseline_file(tmp_path, rule))
    report = Report(wire="stream-json")
    Collector(report).emit(rule, None, None, "injected")
    made = baseline.Baseline((baseline.Entry(rule, None),))  # made in code: parse() never saw it
    with pytest.raises(baseline.BaselineError, match="cannot be baselined"):
        baseline.apply(report, made)
    assert baseline.from_report(report).entries == ()
    written = tmp_path / "written.json"
    result = baseline.settle(report, baseline=None, write_to=str(written), ignore=())
    assert json.loads(written.read_text())["entries"] == []
    assert any("cannot be baselined" in note for note in result.notes)
    assert not result.conformant


def test_a_killed_runs_exit_status_is_neither_ignored_nor_baselined() -> None:
    report = Report(wire="stream-json", exit_status=-9)
    out = Collector(report, ignore=["run.exit-status"])
    out.emit("run.exit-status", None, None, "expected exit status 0, found killed by signal 9")
    assert report.counts["run.exit-status"] == 1
    assert not report.conformant
    listed = baseline.parse({"version": 1, "entries": [{"rule": "run.exit-status", "pointer": None}]})
    applied = baseline.apply(report, listed)
    assert applied.counts["run.exit-status"] == 1
    assert not applied.conformant
    assert "baseline.stale" not in applied.counts  # the entry matched; it just cannot accept it
    assert any("not judged to the end" in note for note in applied.notes)
    # an exit status the emitter chose is a verdict on what was seen: ignorable and baselinable
    chosen = Report(wire="stream-json", exit_status=3)
    Collector(chosen, ignore=["run.exit-status"]).emit("run.exit-status", None, None, "found 3")
    assert "run.exit-status" not in chosen.counts
    Collector(chosen).emit("run.exit-status", None, None, "found 3")
    assert baseline.apply(chosen, listed).conformant


def test_no_passed_verdict_for_a_run_ended_by_a_signal() -> None:
    report = Report(wire="stream-json", exit_status=-11, lines=1)
    requirements.mark_checked(report)
    verdicts = requirements.verdicts(report)
    assert not [v for v in verdicts if v.status == requirements.PASSED]
    assert any("signal 11" in v.reason for v in verdicts)


# -- the reproducers of issue 20 -------------------------------------------------------------

def _seq_1e5000() -> bytes:
    lines = HELLO.read_bytes().splitlines(keepends=True)
    last = json.loads(lines[-1])
    return b"".join(lines[:-1]) + lines[-1].replace(b'"seq":%d' % last["seq"], b'"seq":1e5000')


def test_a_baseline_cannot_silence_checker_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stream = tmp_path / "limit.jsonl"
    stream.write_bytes(_seq_1e5000())
    assert cli.run(["check", str(stream)]) == 1  # without a baseline: not conformant
    capsys.readouterr()
    # the entry a --baseline-write of that stream once wrote (its pointer: the seq check that stopped)
    _one_line_misuse(["check", "--baseline", _baseline_file(tmp_path, "checker.limit", "/seq"), str(stream)],
                     capsys)


@pytest.mark.process
def test_a_never_exiting_emitter_is_never_conformant(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [sys.executable, str(CLOSES_STDOUT), "unjudged-test"]
    _one_line_misuse(["run", "--ignore", "run.timeout", "--", *argv], capsys)
    _one_line_misuse(["run", "--baseline", _baseline_file(tmp_path, "run.timeout"), "--", *argv], capsys)
    from contract.live.harness import run_stream

    report = run_stream(argv, timeout=1.0)
    assert report.exit_status == -9
    assert "run.timeout" in report.counts
    assert not report.conformant
    assert not [v for v in requirements.verdicts(report) if v.status == requirements.PASSED]
    assert "requirements: 0 passed, " in render_text(report)
    with pytest.raises(baseline.BaselineError):
        baseline.apply(report, baseline.Baseline((baseline.Entry("run.timeout", None),)))


# -- an emitter ended by a signal never finished, whatever status was expected ------------------

WHOLE_THEN_KILLED = HERE / "faulty_emitters" / "whole_then_killed.py"


@pytest.mark.process
def test_a_run_ended_by_a_signal_is_never_conformant_even_with_no_expected_status() -> None:
    from contract.live.harness import run_stream

    report = run_stream([sys.executable, str(WHOLE_THEN_KILLED), "whole-then-killed"], timeout=20,
                        expect_exit=None, late_grace=0.2)
    assert report.exit_status == -9
    assert not report.conformant
    assert report.counts.get("run.exit-status") == 1
    message = next(v.message for v in report.violations if v.rule == "run.exit-status")
    assert "never conformant" in message
    assert not [r for r in requirements.verdicts(report) if r.status == "passed"]


@pytest.mark.parametrize("status", ["-9", "256", "x"])
def test_an_expected_exit_status_is_one_a_process_can_choose(status: str,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.run(["run", "--expect-exit", status]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "--expect-exit" in err


# -- a run that did not finish is never conformant, whatever --ignore or a baseline says ---------

def _truncating_emitter(tmp_path: Path) -> list[str]:
    """An emitter that writes the first two lines of a whole run and exits 0: no result line."""
    script = tmp_path / "trunc.sh"
    script.write_text(f"#!/bin/sh\nhead -n 2 '{HELLO}'\n")
    script.chmod(0o755)
    return [str(script)]


@pytest.mark.process
def test_a_run_with_no_result_is_never_conformant(tmp_path: Path, capsys: Capsys) -> None:
    emitter = _truncating_emitter(tmp_path)
    _one_line_misuse(["run", "--ignore", "sj.result-last", "--", *emitter], capsys, NOT_WHOLE)
    written = tmp_path / "written.json"
    assert cli.run(["run", "--baseline-write", str(written), "--", *emitter]) == 1
    assert "sj.result-last not written" in capsys.readouterr().out
    assert json.loads(written.read_text())["entries"] == []
    _one_line_misuse(["run", "--baseline", _baseline_file(tmp_path, "sj.result-last"), "--", *emitter], capsys,
                     NOT_WHOLE)
    _one_line_misuse(["run", "--ignore", "sj.init-first", "--ignore", "sj.result-last", "--", "true"], capsys,
                     NOT_WHOLE)
    from contract.live.harness import run_stream

    with pytest.raises(ValueError, match="cannot be ignored"):
        run_stream(emitter, ignore=["sj.result-last"])
    report = run_stream(emitter)
    assert set(report.counts) == {"sj.result-last"}
    assert not report.conformant
    with pytest.raises(baseline.BaselineError, match="cannot be baselined"):
        baseline.apply(report, baseline.Baseline((baseline.Entry("sj.result-last", None),)))


def test_a_stream_not_whole_keeps_its_requirement_wording() -> None:
    """Not unjudged: the other rules' verdicts still say passed (what was seen was judged)."""
    report = contract.check(b"".join(HELLO.read_bytes().splitlines(True)[:2]))
    verdicts = {v.rule.id: v.status for v in requirements.verdicts(report)}
    assert verdicts["sj.result-last"] == requirements.FAILED
    assert verdicts["sj.init-first"] == requirements.PASSED


def test_a_wire_written_here_may_declare_its_own_unsilenceable_rule() -> None:
    """The eleventh add-a-wire trial declared its first- and terminal-line rules as stream-json's
    are, and the pins above, which then named stream-json's two as the only ones, failed."""
    import dataclasses

    from contract.core.rule import Basis, Level, Rule
    from tests.support.wires import registered
    from tests.wires.audit_log import AUDIT_LOG

    first = Rule("al.first", Level.MUST, AUDIT_LOG.name, "the first line is an audit line",
                 "audit-log schema (synthetic)", basis=Basis.WRITTEN, filterable=False, silenceable=False)
    with registered(dataclasses.replace(AUDIT_LOG, rules=(*AUDIT_LOG.rules, first))):
        assert "al.first" in unsilenceable()
        test_the_rules_no_path_silences_are_declared_on_the_rules()
