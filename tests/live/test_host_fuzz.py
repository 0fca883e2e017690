"""``milk-contract fuzz``: generated conversations with a live host find each faulty host, shrunk.

The reference host passes the default budget (exit 0); each faulty host of tests/faulty_hosts/
named after a capability of the fuzzer (long ids, ids with escapes, pipelined bursts, two
commands in one read, a command cut across writes) fails it (exit 1) with a shrunk
conversation and its seed printed. In the default run each faulty host but whole_line_reads (the
deep run's) is searched with a fixed seed and a third of the default budget, shrinking gets half
a second, and the reference host a sixth of the default budget; the deep
run (``ci`` profile) uses the defaults and a random seed, shrinks fully and checks that the
conversation shown is the shortest that fails. No process outlives a test.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

import contract
from contract import cli
from contract.live import driver, fuzz
from contract.live.driver import Step, command, plan_from
from contract.live.harness import default_command
from contract.rules.report import Report
from tests.support.depth import deep
from tests.support.paths import TESTS
from tests.support.processes import spy_on_starts

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

HOSTS = TESTS / "faulty_hosts"
DEEP = deep()  # tests/support/depth.py
SHRINK_SECONDS = fuzz.DEFAULT_SHRINK_SECONDS if DEEP else 0.5
# the default run: a fixed seed whose first conversations already hold every fault below (the
# budget is a third of the default, so a change in generation that loses one still fails loudly)
SEARCH = [] if DEEP else ["--seed", "1", "--examples", str(fuzz.DEFAULT_EXAMPLES // 3)]


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The hosts the driver starts; none of their process groups may survive the test."""
    yield from spy_on_starts(monkeypatch, driver)


def _host(name: str) -> list[str]:
    return [sys.executable, str(HOSTS / f"{name}.py")]


def test_the_reference_host_passes(started: list[int], capsys: pytest.CaptureFixture[str]) -> None:
    """The default budget in the deep run; a sixth of it in the default run (time)."""
    examples = fuzz.DEFAULT_EXAMPLES if DEEP else fuzz.DEFAULT_EXAMPLES // 6
    began = time.monotonic()
    code = cli.run(["fuzz", "--wire", "subagent-stdio", "--examples", str(examples)])
    elapsed = time.monotonic() - began
    out = capsys.readouterr().out
    assert code == 0, out
    assert "generated conversations" in out
    assert "every one conformant" in out
    # one host process per conversation held; hypothesis may repeat a conversation, never held twice
    assert examples // 2 <= len(started) <= examples
    assert elapsed < examples * (fuzz.DEFAULT_TIMEOUT + 3)


# drops_second's fault is an unanswered command: each time it shows, the response wait is waited
# out (3 s by default, again when the shrunk conversation is held with the full timeouts). In the
# default run its conversations get 1.5 s (--timeout), still hundreds of times what the host needs.
FAST = {host: [] if DEEP else ["--timeout", "1.5"] for host in ("drops_second", "whole_line_reads")}


@pytest.mark.parametrize(
    ("host", "rules", "shrunk"),
    [
        ("truncates_ids", {"sa.response-correlation"}, (1, 1)),
        # a dropped command is never answered (run.no-response) or, when a later command of the
        # burst is answered while it waits, answered out of order: a conversation stops at that
        # first finding, so a shrink cut short (the default run's) may show either
        ("drops_second", {"run.no-response", "sa.response-correlation"}, (1, 2)),
        # an unescaped backslash breaks the line (line.json) or, when it happens to form a valid
        # escape such as \u0041, changes the id that comes back (sa.response-correlation)
        ("misescapes_ids", {"line.json", "sa.response-correlation"}, (1, 1)),
        ("reorders_bursts", {"sa.response-correlation"}, (1, 2)),
        # a command cut across two writes is lost (never answered, or a later one answered first);
        # fully shrunk: one command, cut inside a string with a pause there. The deep run: in the
        # default run the cuts reach this host (test_a_cut_in_the_first_step_reaches_a_host_still_starting),
        # the generator makes every cut and a shrink keeps the cut (the tests with a host double below)
        pytest.param("whole_line_reads", {"run.no-response", "sa.response-correlation"}, (1, 1),
                     marks=pytest.mark.deep),
    ],
)
def test_each_faulty_host_is_found_and_shrunk(
    started: list[int], host: str, rules: set[str], shrunk: tuple[int, int], capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    began = time.monotonic()
    path = tmp_path / "failing.jsonl"
    code = cli.run(["fuzz", "--wire", "subagent-stdio", *SEARCH, *FAST.get(host, []),
                    "--shrink-seconds", str(SHRINK_SECONDS),
                    "--transcript", str(path), "--", *_host(host)])
    elapsed = time.monotonic() - began
    out = capsys.readouterr().out
    assert code == 1, out
    assert "shrunk failing conversation" in out
    assert "seed: " in out
    assert "--seed" in out
    assert any(f" {rule} [MUST]" in out for rule in rules), out  # the fault shows as one of these
    # the search, the shrink budget, one confirming conversation, each bounded
    assert elapsed < fuzz.DEFAULT_EXAMPLES * 3.0 + SHRINK_SECONDS + 2 * (fuzz.DEFAULT_TIMEOUT + 3), elapsed
    steps = sum(1 for line in out.splitlines() if line.startswith("step "))
    sent = sum(1 for line in out.splitlines() if line.startswith("  > "))
    assert steps >= 1
    assert sent >= 1
    # the transcript written is replayable: check gives a failing verdict, plan_from the client's side
    transcript = path.read_bytes()
    assert not contract.check(transcript, "subagent-stdio").conformant
    # (a conversation stops at its first unanswered command: later steps of the plan are not sent)
    assert 0 < sum(len(step.commands) for step in plan_from(transcript)) <= sent
    if host == "whole_line_reads":  # the shrunk failure keeps the cut that broke it, and says so
        assert any(line.startswith("step ") and " writes" in line for line in out.splitlines()), out
    if DEEP:  # fully shrunk: the shortest conversation that still shows the fault
        assert (steps, sent) == shrunk, out


class _FakeHost:
    """driver.record without a process: a conversation fails when a burst holds two commands."""

    def __init__(self) -> None:
        self.held = 0

    def __call__(self, argv: list[str], *, plan: tuple[Step, ...], **_: object) -> driver.Conversation:
        self.held += 1
        report = Report(wire="subagent-stdio")
        if any(len(step.commands) >= 2 for step in plan):
            report.counts["sa.response-correlation"] += 1
        return driver.Conversation(report, b"")


def test_the_same_seed_finds_the_same_conversation_and_shrinks_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(driver, "record", fake := _FakeHost())
    first = fuzz.fuzz_host(["host"], seed=11)
    second = fuzz.fuzz_host(["host"], seed=11)
    assert first.failed
    assert first.plan == second.plan
    assert first.examples == second.examples
    assert first.plan is not None
    assert [len(step.commands) for step in first.plan] == [2]  # the shortest failing conversation
    assert all(line == {"type": "subagent_status", "version": 1} for line in first.plan[0].commands)
    assert fake.held <= 2 * (fuzz.DEFAULT_EXAMPLES + fuzz.MAX_SHRINK_RUNS)


class _SplitLosingHost(_FakeHost):
    """driver.record without a process: a conversation fails when a write ends mid-line."""

    def __call__(self, argv: list[str], *, plan: tuple[Step, ...], **_: object) -> driver.Conversation:
        self.held += 1
        report = Report(wire="subagent-stdio")
        if any(piece and not piece.endswith(b"\n") for step in plan for piece in driver.writes(step)):
            report.counts["run.no-response"] += 1
        return driver.Conversation(report, b"")


def test_a_shrunk_failure_keeps_the_split_that_broke_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(driver, "record", _SplitLosingHost())
    result = fuzz.fuzz_host(["host"], seed=5)
    assert result.failed
    assert result.plan is not None
    [step] = result.plan  # the shortest failing conversation: one command, cut mid-line
    assert len(step.commands) == 1
    assert step.split is not None
    assert len(driver.writes(step)) >= 2
    [shown] = [line for line in fuzz.describe_plan(result.plan) if line.startswith("step ")]
    assert " writes" in shown, shown  # the conversation printed says how it was written
    assert "cut after byte" in shown, shown


def test_a_shrink_budget_that_runs_out_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(driver, "record", _FakeHost())
    asked = 0
    condition = fuzz._Search.__call__

    def counted(self: fuzz._Search, plan: tuple[Step, ...]) -> bool:
        nonlocal asked
        asked += 1
        return condition(self, plan)

    monkeypatch.setattr(fuzz._Search, "__call__", counted)
    result = fuzz.fuzz_host(["host"], seed=11, shrink_seconds=1e-9)
    assert result.failed
    assert any("shrinking stopped at its budget" in note for note in result.report.notes)
    # the search ends at the spent budget: hypothesis is not left proposing candidates (it
    # would propose hundreds, at about 15 ms each, none of them held)
    assert asked <= 2 * (result.examples + result.shrink_runs) + 2  # repeats are answered from a cache


def test_a_host_that_always_passes_is_held_at_most_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    class Passing(_FakeHost):
        def __call__(self, argv: list[str], *, plan: tuple[Step, ...], **_: object) -> driver.Conversation:
            self.held += 1
            return driver.Conversation(Report(wire="subagent-stdio"), b"")

    monkeypatch.setattr(driver, "record", fake := Passing())
    result = fuzz.fuzz_host(["host"], examples=12, seed=3)
    assert not result.failed
    assert result.report.conformant
    assert 1 <= fake.held <= 12


def test_a_near_miss_host_with_the_same_transcript_shape_passes(started: list[int]) -> None:
    # pipelined bursts with tricky ids, answered in order, verbatim: the reference host
    plan = (Step(tuple(command(ident) for ident in fuzz.EDGE_IDS[:5])), Step((command(None),), pause=0.01),
            Step((), pause=0.05), Step(tuple(command(ident) for ident in fuzz.EDGE_IDS[5:])))
    conversation = driver.record(driver.default_command("subagent-stdio"), plan=plan, timeout=10)  # type: ignore[attr-defined]  # the command driver runs (its import from harness, not re-exported)
    assert conversation.report.conformant, conversation.report.violations
    assert conversation.report.exit_status == 0


@pytest.mark.parametrize("cut", driver.CUTS)
def test_the_reference_host_answers_every_way_of_writing(started: list[int], cut: str) -> None:
    """The near miss of whole_line_reads: a host that reassembles lines passes every cut."""
    commands = tuple(command(ident) for ident in ("é😀 x", None, fuzz.EDGE_IDS[2]))
    plan = (Step(commands, split=driver.Split(cut, command=1, at=3, pause=driver.MID_LINE_PAUSE)),
            Step(commands[:1], split=driver.Split(cut, at=7)))
    conversation = driver.record(default_command("subagent-stdio"), plan=plan, timeout=10)
    assert conversation.report.conformant, conversation.report.violations
    assert conversation.transcript.startswith(b"".join(driver.encode(line) for line in commands))


@pytest.mark.parametrize("cut", ["in-string", pytest.param("dribble", marks=pytest.mark.deep)])
def test_a_cut_in_the_first_step_reaches_a_host_still_starting(started: list[int], cut: str) -> None:
    """The first write lands while the host is still starting: the cut must still reach it as two reads.

    Without waiting for the host to read the first piece, both pieces sat in the pipe by the
    time it first read, and the host that loses split commands passed (0 of 10 failed).
    """
    plan = (Step((command("x" * 40),), split=driver.Split(cut, at=5, pause=driver.MID_LINE_PAUSE)),)
    conversation = driver.record(_host("whole_line_reads"), plan=plan, timeout=10, response_timeout=1.5)
    assert {"run.no-response", "sa.response-correlation"} & set(conversation.report.counts), \
        conversation.report.violations


def test_each_cut_falls_where_its_class_says() -> None:
    commands = (command("c1"), command("é😀"), command(None))
    data = b"".join(driver.encode(line) for line in commands)

    def pieces(cut: str, which: int = 1, at: int = 0) -> list[bytes]:
        pieces = driver.writes(Step(commands, split=driver.Split(cut, command=which, at=at)))
        assert b"".join(pieces) == data  # no byte added, dropped or moved
        assert all(pieces)
        return pieces

    assert driver.writes(Step(commands)) == [data]
    for at in range(40):  # inside a string: the first piece ends between a string's quotes
        first, _ = pieces("in-string", at=at)
        assert first.rsplit(b"\n", 1)[-1].count(b'"') % 2 == 1, first
        utf8, _ = pieces("in-utf8", at=at)
        with pytest.raises(UnicodeDecodeError):
            utf8.decode()  # cut inside a character
    first, rest = pieces("before-lf")
    assert rest.startswith(b"\n")
    assert first.endswith(b"}")
    assert all(piece.endswith(b"\n") for piece in pieces("per-line"))
    assert len(pieces("per-line")) == len(commands)
    assert all(len(piece) == 1 for piece in pieces("dribble"))
    # a command with no multi-byte character is cut in a string instead, and the words say so
    assert "(inside a string)" in driver.cuts(Step(commands, split=driver.Split("in-utf8", command=0)))[1]
    assert driver.cuts(Step(commands[:1], split=driver.Split("per-line")))[0] == ()


def test_a_host_that_cannot_start_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    began = time.monotonic()
    assert cli.run(["fuzz", "--", "/nonexistent/host"]) == 2
    assert time.monotonic() - began < 10
    assert "run.start" in capsys.readouterr().err  # one line, as any harness error in text


@pytest.mark.parametrize("args", [["--examples", "0"], ["--seed", "-1"], ["--wire", "stream-json"],
                                  ["--timeout", "nan"], ["--baseline-write", "x.json"]])
def test_misuse_is_one_line_and_exit_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.run(["fuzz", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("milk-contract: error:")


@settings(max_examples=settings().max_examples * 5, deadline=None)
@given(fuzz.conversations())
def test_generated_conversations_are_legal_commands(plan: tuple[Step, ...]) -> None:
    """Every command the fuzzer sends is itself conformant: a finding is always the host's."""
    assert 1 <= len(plan) <= fuzz.MAX_STEPS
    lines = b"".join(json.dumps(line, ensure_ascii=False).encode() + b"\n"
                     for step in plan for line in step.commands)
    for step in plan:
        assert len(step.commands) <= fuzz.MAX_BURST
        assert step.commands or step.pause > 0
    report = contract.check(lines, "subagent-stdio")
    assert report.conformant or set(report.counts) == {"sa.response-correlation"}, report.violations
    # however a step is cut, the bytes written are its commands' lines, nothing more (no CR)
    assert b"".join(piece for step in plan for piece in driver.writes(step)) == b"".join(
        driver.encode(line) for step in plan for line in step.commands)
    for step in plan:
        for line in step.commands:
            assert len(line.get("id", "")) <= fuzz.MAX_ID_LENGTH


def test_the_edge_ids_cover_every_shape_the_issue_names() -> None:
    edges = fuzz.EDGE_IDS
    assert "" in edges
    assert any(len(ident) == fuzz.MAX_ID_LENGTH for ident in edges)
    assert any(len(ident) == fuzz.MAX_ID_LENGTH and len(ident.encode()) > 4 * 100 for ident in edges)  # astral
    for needle in ('"', "\\", "\u2028"):
        assert any(needle in ident for ident in edges), needle

@pytest.mark.parametrize(
    "shape",
    [
        lambda plan: any("id" not in line for step in plan for line in step.commands),
        lambda plan: len(ids := [line["id"] for step in plan for line in step.commands if "id" in line])
        > len(set(ids)) > 0,
        lambda plan: any(len(line.get("id", "")) == fuzz.MAX_ID_LENGTH for step in plan for line in step.commands),
        lambda plan: any(len(step.commands) == fuzz.MAX_BURST for step in plan),
        lambda plan: any(not step.commands for step in plan),
        lambda plan: any(step.pause and step.commands for step in plan),
        *(lambda plan, cut=cut: any(step.split is not None and step.split.cut == cut and len(driver.writes(step)) > 1
                                    for step in plan) for cut in driver.CUTS),
        lambda plan: any(step.split is not None and step.split.pause and len(driver.writes(step)) > 1
                         for step in plan),
    ],
    ids=["absent-id", "reused-id", "128-characters", "full-burst", "read-only-step", "paused-burst",
         *(f"cut-{cut}" for cut in driver.CUTS), "paused-mid-line"],
)
def test_the_generator_reaches_every_conversation_shape(shape: Any) -> None:
    shape_settings = settings(database=None, max_examples=2000, phases=[Phase.generate])
    plan = find(fuzz.conversations(), shape, settings=shape_settings)
    assert shape(plan)


def test_ctrl_c_reports_the_running_conversation(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from contract.live.harness import Interrupted, interrupted

    def stopped(argv: list[str], **_: object) -> driver.Conversation:
        report = Report(wire="subagent-stdio")
        interrupted(report, "the host")
        raise Interrupted(report)

    monkeypatch.setattr(driver, "record", stopped)
    assert cli.run(["fuzz", "--seed", "1"]) == cli.EXIT_INTERRUPTED
    assert "run.interrupted" in capsys.readouterr().out


def test_machine_formats_keep_stdout_parseable(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(driver, "record", _FakeHost())
    assert cli.run(["fuzz", "--seed", "2", "--format", "json", "--shrink-seconds", "1"]) == 1
    captured = capsys.readouterr()
    document = json.loads(captured.out)  # the report alone
    assert document["conformant"] is False
    assert "shrunk failing conversation" in captured.err  # the conversation beside it


# -- issue 51: every message true --------------------------------------------------------------

_OPTIONS = st.fixed_dictionaries({
    "--timeout": st.none() | st.floats(0.001, 1e4, allow_nan=False),
    "--shrink-seconds": st.none() | st.floats(0.001, 1e4, allow_nan=False),
    "--examples": st.none() | st.integers(1, 500),
    "--seed": st.none() | st.integers(0, 2**64 - 1),
    "--max-line-bytes": st.none() | st.integers(1, 2**40),
})


@settings(derandomize=True, max_examples=60, deadline=None)
@given(_OPTIONS, st.booleans(), st.lists(st.sampled_from(["sa.schema", "line.json", "run.response-late"]),
                                          max_size=2), st.lists(st.text(min_size=1, max_size=8), max_size=2))
def test_the_replay_command_holds_every_option_that_changes_the_outcome(
        options: dict[str, Any], strict: bool, ignore: list[str], command: list[str]) -> None:
    """Issue 51: "find it again with" dropped --timeout and --shrink-seconds. Parsed back, the replay
    holds every option the run was given (and the defaults of the rest, written out)."""
    from contract.cli.fuzz import replay

    argv = ["fuzz", "--wire", "subagent-stdio"]
    for name, value in options.items():
        if value is not None:
            argv += [name, repr(value) if isinstance(value, float) else str(value)]
    argv += ["--strict"] * strict + [part for rule in ignore for part in ("--ignore", rule)]
    argv += ["--", "host", *command]
    parser = cli.build_parser()
    given_args = parser.parse_args(argv)
    seed_used = given_args.seed if given_args.seed is not None else 7
    again = parser.parse_args(shlex.split(replay(given_args, seed_used, given_args.command[1:]))[1:])
    assert again.seed == seed_used
    assert again.examples == (given_args.examples or fuzz.DEFAULT_EXAMPLES)
    assert again.timeout == (given_args.timeout if given_args.timeout is not None else fuzz.DEFAULT_TIMEOUT)
    assert again.shrink_seconds == (given_args.shrink_seconds if given_args.shrink_seconds is not None
                                    else fuzz.DEFAULT_SHRINK_SECONDS)
    for name in ("wire", "strict", "ignore", "max_line_bytes", "command"):
        assert getattr(again, name) == getattr(given_args, name), name


def test_a_banner_host_s_transcript_keeps_the_response_it_sent(started: list[int], tmp_path: Path) -> None:
    """Issue 51: the shrunk transcript of a host that printed a banner held the command and the banner
    but not the response the host sent (killed at the banner), so replaying it with ``check`` added
    an sa.response-correlation the host never earned. The early stop gives the commands already
    sent their answers' time, and keeps what the host wrote."""
    result = fuzz.fuzz_host(_host("banner"), seed=1, examples=2, shrink_seconds=0.5)
    assert result.failed
    replayed = contract.check(result.transcript, "subagent-stdio")
    assert "sa.response-correlation" not in replayed.rules(), result.transcript
    assert "line.json" in replayed.rules()
    content = {rule for rule in result.report.rules() if not rule.startswith("run.")}
    assert content == replayed.rules(), (content, replayed.rules())


def test_a_host_that_never_answers_a_whole_line_is_not_called_late(started: list[int]) -> None:
    """Issue 51: a host that never answered was worded "found it 19.99 s after", as if late. Its
    response without an LF came only as it was killed: never answered, with the time waited."""
    report = driver.converse(_host("answers_unterminated"), timeout=1.5, response_within=0.5)
    [late] = [v for v in report.violations if v.rule == "run.response-late"]
    assert "never answered (waited " in late.message, late.message
    assert not re.search(r"found it [0-9.]+ ?s after", late.message), late.message
