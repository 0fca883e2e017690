"""The live subagent-stdio driver against the reference host and one faulty host per failure mode.

Each faulty host must be reported with the rule that names its fault, in bounded time, with no
process of its group left behind.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import contract
from contract.live import driver, session
from contract.live.driver import EXIT_GRACE, Step, command, converse, record, run_subagent
from contract.live.harness import GRACE_SECONDS, default_command
from tests.support.paths import ROOT, TESTS
from tests.support.processes import spy_on_starts
from tests.support.wires import registered

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

FAULTY = TESTS / "faulty_hosts"
SLACK = 3.0  # interpreter start-up on a loaded two-core machine


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The pids (= process group ids) of the hosts the driver starts; checks none survive."""
    yield from spy_on_starts(monkeypatch, driver)


def _host(name: str) -> list[str]:
    return [sys.executable, str(FAULTY / f"{name}.py")]


def test_reference_host_is_conformant_under_strict(started: list[int]) -> None:
    began = time.monotonic()
    report = run_subagent(timeout=10, strict=True)
    assert report.conformant, report.violations
    assert not report.counts
    assert report.exit_status == 0
    assert time.monotonic() - began < 10
    assert "sent 7 of 7 commands" in report.notes[-1]


def test_live_and_recorded_verdicts_agree(started: list[int]) -> None:
    live = record(_host("wrong_id"), timeout=10)
    recorded = contract.check(live.transcript, wire="subagent-stdio")
    assert recorded.counts == live.report.counts  # no run.* finding on this host
    assert live.report.counts["sa.response-correlation"] == 7


def test_transcript_holds_both_directions_in_order(started: list[int]) -> None:
    plan = (Step((command("a"),)), Step((command(None), command("b"))))
    conversation = record(default_command("subagent-stdio"), timeout=10, plan=plan)
    lines = conversation.transcript.decode().splitlines()
    kinds = [line.split('"type":"', 1)[1].split('"', 1)[0] for line in lines]
    assert kinds[:2] == ["subagent_status", "response"]
    assert kinds.count("subagent_status") == 3
    assert kinds.count("response") == 3
    assert kinds.index("subagent_status", 2) < kinds.index("response", 2)
    assert conversation.report.conformant


@pytest.mark.parametrize(
    ("host", "rules", "timeout"),
    [
        # silent and hangs: test_silent_host_is_reported_on_the_unanswered_command_line and
        # test_hung_host_and_its_child_are_killed (one run each, both checks)
        ("wrong_id", {"sa.response-correlation"}, 10.0),
        ("unadvertised_events", {"sa.events-capability"}, 10.0),
        ("banner", {"line.json"}, 10.0),
        ("dies", {"run.no-response", "run.exit-status"}, 10.0),
    ],
)
def test_faulty_host_is_named_in_bounded_time(
    started: list[int], host: str, rules: set[str], timeout: float
) -> None:
    began = time.monotonic()
    report = converse(_host(host), timeout=timeout)
    elapsed = time.monotonic() - began
    assert not report.conformant
    assert rules <= report.rules(), dict(report.counts)
    assert elapsed < timeout + EXIT_GRACE + GRACE_SECONDS + SLACK


def test_silent_host_is_reported_on_the_unanswered_command_line(started: list[int]) -> None:
    # it has its response time in full (the conversation's deadline is far): its silence is the
    # finding; nothing is expected from it then but its exit, which has its own grace (EXIT_GRACE)
    timeout = 0.3
    began = time.monotonic()
    report = converse(_host("silent"), timeout=10 * timeout, response_timeout=timeout)
    assert time.monotonic() - began < timeout + EXIT_GRACE + GRACE_SECONDS + SLACK
    assert not report.conformant
    [finding] = [v for v in report.violations if v.rule == "run.no-response"]
    assert finding.line == 1
    assert "expected a response to the command on line 1" in finding.message
    assert report.exit_status == 0  # it did exit once stdin closed


def test_hung_host_and_its_child_are_killed(started: list[int]) -> None:
    # its child's pid is written on stderr before it answers, so by the time the conversation
    # ends (and the grace after it) it is there to read
    timeout = 0.5
    began = time.monotonic()
    report = converse(_host("hangs"), timeout=timeout, exit_grace=0.1)
    assert time.monotonic() - began < timeout + EXIT_GRACE + GRACE_SECONDS + SLACK
    assert not report.conformant
    assert "run.timeout" in report.rules()
    child = int(report.stderr.split("child ", 1)[1].split()[0])
    deadline = time.monotonic() + 2.0
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child), "the host's child outlived the kill"


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def test_dying_host_names_its_exit_status(started: list[int]) -> None:
    report = converse(_host("dies"), timeout=10)
    [status] = [v for v in report.violations if v.rule == "run.exit-status"]
    assert "found exit status 3" in status.message
    assert report.exit_status == 3


def test_host_pushing_events_forever_still_times_out(started: list[int]) -> None:
    flood = ("import sys, time\n"
             "while True:\n"
             "    sys.stdout.write('{\"type\":\"banner\"}\\n')\n"
             "    sys.stdout.flush()\n"
             "    time.sleep(0.01)\n")
    began = time.monotonic()
    report = converse([sys.executable, "-c", flood], timeout=0.5, response_timeout=0.2, exit_grace=0.1)
    assert {"run.no-response", "run.timeout"} <= report.rules()
    assert time.monotonic() - began < 0.5 + EXIT_GRACE + GRACE_SECONDS + SLACK


def test_flooding_host_is_stopped_at_the_output_limit(started: list[int]) -> None:
    flood = "import sys\nwhile True:\n    sys.stdout.write('x' * 999 + '\\n')\n"
    report = converse([sys.executable, "-c", flood], timeout=10, max_output_bytes=100_000)
    assert "run.output-limit" in report.rules()


def test_missing_command_is_run_start() -> None:
    report = converse(["/nonexistent/milk-host"], timeout=1.0)
    assert report.rules() == {"run.start"}
    assert not report.conformant


def test_reference_host_replays_a_script(tmp_path: Path, started: list[int]) -> None:
    script = tmp_path / "script.jsonl"
    script.write_bytes(record(default_command("subagent-stdio"), timeout=10).transcript)
    argv = [*default_command("subagent-stdio"), "--script", str(script)]
    report = converse(argv, timeout=10, strict=True)
    assert report.conformant
    assert not report.counts, report.violations


def test_env_is_passed_to_the_host(started: list[int]) -> None:
    env = {**os.environ, "MILK_CONTRACT_GOLDEN": "/nonexistent.jsonl"}
    report = converse(default_command("subagent-stdio"), timeout=10, env=env)
    assert report.conformant  # a missing golden falls back to the built-in script


def test_a_child_holding_stdout_costs_no_timeout(started: list[int]) -> None:
    began = time.monotonic()
    report = converse(_host("leaves_child"), timeout=20, late_grace=0.2)
    assert report.rules() == {"run.stdout-held"}, report.violations  # held past the late grace, then reaped
    assert time.monotonic() - began < 10  # the 20 s timeout was not waited out


@pytest.mark.parametrize(("what", "rules"), [("line", {"line.json"}), ("close", set())])
def test_what_a_child_writes_after_the_host_exits_is_judged(what: str, rules: set[str],
                                                             started: list[int]) -> None:
    """Issue 20, the conversation half: the host's stdout is read on after it exits, up to the
    late grace (the default here: a child that writes or closes within it costs nothing)."""
    report = converse([*_host("late_child"), what], timeout=20)
    assert report.rules() == rules, report.violations
    assert report.exit_status == 0


def test_a_golden_replays_through_the_reference_host(started: list[int]) -> None:
    golden = ROOT / "goldens" / "subagent-stdio" / "epoch_change.jsonl"
    if not golden.exists():
        pytest.skip("no subagent-stdio golden yet")
    data = golden.read_bytes()
    plan = driver.plan_from(data)
    assert sum(len(step.commands) for step in plan) == data.count(b'"type":"subagent_status"')
    argv = [*default_command("subagent-stdio"), "--script", str(golden)]
    live = record(argv, timeout=10, plan=plan, strict=True)
    assert live.report.conformant
    assert not live.report.counts, live.report.violations
    assert live.transcript.count(b"\n") == data.count(b"\n")  # the same conversation, line for line


def test_plan_from_groups_pipelined_commands() -> None:
    lines = [command("a"), command("b"), {"type": "response"}, {"type": "subagent_event"},
             command(None)]
    data = b"".join(json.dumps(line).encode() + b"\n" for line in lines) + b"not json\n"
    plan = driver.plan_from(data)
    assert [len(step.commands) for step in plan] == [2, 1]


def test_commands_shorthand_sends_each_alone(started: list[int]) -> None:
    two = [command("x"), command(None)]
    report = converse(default_command("subagent-stdio"), timeout=10, commands=two)
    assert report.conformant
    assert "sent 2 of 2 commands in 2 of 2 steps" in report.notes[-1]


# -- stop_early: the fuzzer's conversations end at their first failing line ---------------------


def test_an_early_stop_ends_at_the_first_failing_line(started: list[int]) -> None:
    # the mis-escaping host answers 'a\' with a line that is not JSON: the driver cannot read it
    # as a response, so without the early stop it would wait out the whole response timeout
    plan = (Step((command("ok"),)), Step((command("a\\"), command("b"))), Step((command("c"),)))
    began = time.monotonic()
    live = record(_host("misescapes_ids"), timeout=60, plan=plan, stop_early=True)
    assert time.monotonic() - began < 60 / 2  # neither the response wait nor the exit was waited out
    lines = live.transcript.split(b"\n")[:-1]
    [broken] = [v for v in live.report.violations if v.rule == "line.json"]
    # the transcript holds the failing line and what the host had written after it (the answer to 'b')
    assert broken.line is not None
    assert lines[broken.line - 1].startswith(b'{"id":"a\\"')
    # the verdict is check's on the transcript read (no run.* finding: nothing was waited out)
    assert contract.check(live.transcript, wire="subagent-stdio").counts == live.report.counts
    assert f"stopped at line {broken.line}, where line.json made it non-conformant" in " ".join(live.report.notes)
    assert "sent 3 of 4 commands" in live.report.notes[-1]
    assert "run.exit-status" not in live.report.exercised  # the host was killed, its exit never judged


@pytest.mark.parametrize(("ignore", "stopped"), [((), True), (("sa.response-correlation",), False)])
def test_an_early_stop_obeys_ignore(started: list[int], ignore: tuple[str, ...], stopped: bool) -> None:
    live = record(_host("wrong_id"), timeout=10, stop_early=True, ignore=ignore)
    notes = " ".join(live.report.notes)
    if stopped:  # the first wrong id, on line 2, fails the conversation
        assert "stopped at line 2, where sa.response-correlation" in notes
        assert "sent 1 of 7 commands" in notes
        assert not live.report.conformant
    else:  # near miss: an ignored finding cannot fail it, so it runs to its end and exits
        assert "stopped at" not in notes
        assert "sent 7 of 7 commands" in notes
        assert live.report.conformant, live.report.violations
        assert live.report.exit_status == 0
        assert "run.exit-status" in live.report.exercised


def test_an_early_stop_lets_a_conformant_conversation_end_as_usual(started: list[int]) -> None:
    live = record(default_command("subagent-stdio"), timeout=10, stop_early=True, strict=True)
    assert live.report.conformant, live.report.violations
    assert not live.report.counts
    assert live.report.exit_status == 0
    assert "stopped at" not in " ".join(live.report.notes)
    assert contract.check(live.transcript, wire="subagent-stdio", strict=True).conformant


def test_an_early_stop_the_judge_does_not_confirm_is_checker_internal(
    started: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # fail closed: a line-by-line judge that stops a conformant conversation must not yield a pass
    add = session._Watch.add

    def wrong(self: session._Watch, line: bytes) -> None:
        add(self, line)
        if self.lines == 2:
            self.failed_at = 2

    monkeypatch.setattr(session._Watch, "add", wrong)
    live = record(default_command("subagent-stdio"), timeout=10, stop_early=True)
    assert not live.report.conformant
    [fault] = [v for v in live.report.violations if v.rule == "checker.internal"]
    assert "stopped early at line 2" in fault.message


def test_a_fault_in_the_early_stop_only_turns_it_off(started: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: object, **__: object) -> Iterator[object]:
        raise RuntimeError("boom")

    monkeypatch.setattr(session, "frame", broken)  # the line-by-line judge's reader only
    live = record(_host("wrong_id"), timeout=10, stop_early=True)
    notes = " ".join(live.report.notes)
    assert "the early stop was off" in notes
    assert "sent 7 of 7 commands" in notes  # the conversation ran to its end
    assert live.report.counts["sa.response-correlation"] == 7  # judged as usual
    assert "checker.internal" not in live.report.counts


# -- the suite's own deadline is not the host's fault -------------------------------------------


def test_a_conversation_cut_by_its_deadline_is_run_timeout_not_the_hosts_silence(started: list[int]) -> None:
    """The reference host, still reading and answering, with a --timeout too short for the plan:
    the deadline stopped the conversation (run.timeout, never silenced), not the host
    (run.no-response would be ignorable and baselinable, and made a cut conversation pass)."""
    report = run_subagent(timeout=0.1)
    assert not report.conformant
    assert "run.timeout" in report.counts
    assert "run.no-response" not in report.counts, [v.message for v in report.violations]
    message = next(v.message for v in report.violations if v.rule == "run.timeout")
    assert "the conversation was cut there" in message
    with pytest.raises(ValueError, match="cannot be ignored"):
        run_subagent(timeout=0.1, ignore=["run.timeout"])
    ignored = run_subagent(timeout=0.1, ignore=["run.no-response"])
    assert not ignored.conformant  # before: "conformant (subagent-stdio, 13 lines)"
    whole = run_subagent(timeout=60)  # near miss: time enough, every command answered
    assert whole.conformant, dict(whole.counts)
    assert whole.lines == 17


def test_the_cli_says_run_timeout_for_a_cut_conversation(started: list[int], capsys: pytest.CaptureFixture[str],
                                                          tmp_path: Path) -> None:
    from contract import cli

    argv = ["run", "--wire", "subagent-stdio", "--timeout", "0.1", "--format", "json"]
    assert cli.run([*argv, "--ignore", "run.no-response"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert "run.timeout" in report["counts"]
    written = tmp_path / "known.json"
    assert cli.run([*argv, "--baseline-write", str(written)]) == 1
    capsys.readouterr()
    assert json.loads(written.read_text())["entries"] == []  # nothing a baseline could accept


def test_fuzz_with_no_time_is_never_conformant(started: list[int]) -> None:
    from contract.live.fuzz import fuzz_host

    result = fuzz_host(None, examples=3, timeout=0.001, ignore=["run.no-response"], shrink_seconds=5)
    assert not result.report.conformant  # before: every conversation "conformant", 0 lines
    assert "run.timeout" in result.report.counts


def test_an_unanswered_command_is_named_by_the_held_wire_s_dialogue(started: list[int]) -> None:
    """The wire is the caller's, not fixed at import (issue 29): on a conversation wire with other
    line types, the run.no-response hint names that wire's command, not the registry's."""
    import dataclasses

    from contract.wires import Dialogue, conversation

    other = dataclasses.replace(conversation(), name="ping-stdio", dialogue=Dialogue(
        command="ping", response="pong", event=None, build=lambda ident: {"type": "ping", "id": ident}))
    silent = [sys.executable, "-c", "import sys; sys.stdin.read()"]  # reads every command, answers none
    with registered(other):
        live = record(silent, plan=(Step((command("p1", other),)),), timeout=10, response_timeout=0.5, wire=other)
    assert live.report.wire == "ping-stdio"
    [unanswered] = [v for v in live.report.violations if v.rule == "run.no-response"]
    assert unanswered.hint == "a host answers every ping command, in order"
