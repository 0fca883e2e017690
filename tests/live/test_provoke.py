"""``run --provoke``: the emitter again under a pseudo-terminal, with colour forced, read slowly.

Each faulty emitter of tests/faulty_emitters/ that misbehaves only in one environment is caught
there, with that environment named, and only there; the reference emitter passes everywhere,
the pseudo-terminal included (raw mode: its own CR is never blamed on the emitter). Bounded in
time; no process outlives a test.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator

import pytest

from contract import cli
from contract.core.reader import DEFAULT_MAX_LINE_BYTES
from contract.live import harness, provoke
from contract.live.provoke import ENVIRONMENTS, Environment
from contract.wires import Live, first
from tests.support.paths import TESTS
from tests.support.processes import spy_on_starts
from tests.support.wrapped import unwrap

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

EMITTERS = TESTS / "faulty_emitters"
STREAM = first(Live.STREAM).name  # the wire the private captures judge by
SLACK = 3.0  # interpreter start-up on a loaded two-core machine


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The emitters the provoked runs start (harness: the plain run); none may survive."""
    yield from spy_on_starts(monkeypatch, provoke, harness)


def _emitter(name: str) -> list[str]:
    return [sys.executable, str(EMITTERS / f"{name}.py")]


def _provoke(capsys: pytest.CaptureFixture[str], *command: str) -> tuple[int, str]:
    code = cli.run(["run", "--provoke", "--timeout", "10", *(["--", *command] if command else [])])
    return code, unwrap(capsys.readouterr().out)  # the notes as one line each (wrapped at 80 on a pipe)


def test_the_reference_emitter_passes_every_environment(started: list[int],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    began = time.monotonic()
    code, out = _provoke(capsys)
    assert code == 0, out
    assert len(started) == 1 + len(ENVIRONMENTS)  # the plain run, then one per environment
    for environment in ENVIRONMENTS:
        assert f"{environment.name}: stdout a " in out  # every environment tried is named, with its streams
    assert "line.ansi seen under: none of them" in out
    assert time.monotonic() - began < (1 + len(ENVIRONMENTS)) * (10 + SLACK)


COLOURED = {"pipe+colour", "pty+colour", "stderr-tty+colour", "stdin-tty+colour"}


@pytest.mark.parametrize(
    ("emitter", "shown"),
    [
        ("tty_colour", {"pty", "pty+colour"}),
        ("force_colour", COLOURED),
        # milk … | jq typed in a shell: stdout a pipe, stderr (or stdin) the terminal
        ("stderr_tty_colour", {"stderr-tty", "stderr-tty+colour"}),
        # the same family as stderr's (stdout a pipe, another end the terminal): the deep run
        pytest.param("stdin_tty_colour", {"stdin-tty", "stdin-tty+colour"}, marks=pytest.mark.deep),
    ],
)
def test_colour_in_one_environment_is_line_ansi_there(
    started: list[int], capsys: pytest.CaptureFixture[str], emitter: str, shown: set[str]
) -> None:
    code, out = _provoke(capsys, *_emitter(emitter))
    assert code == 1, out
    for name in shown:
        assert f"line.ansi [MUST]: under {name}: " in out, out
    for name in {e.name for e in ENVIRONMENTS} - shown:  # the near misses: every other environment
        assert f"under {name}: " not in out, out
    assert "line.ansi seen under: " + ", ".join(e.name for e in ENVIRONMENTS if e.name in shown) in out


def test_the_same_emitters_pass_a_plain_run(capsys: pytest.CaptureFixture[str]) -> None:
    """The near miss: without --provoke, a pipe and the caller's environment show nothing."""
    for emitter in ("tty_colour", "force_colour", "stderr_tty_colour", "stdin_tty_colour", "drops_when_full"):
        env_free = ["run", "--timeout", "10", "--", *_emitter(emitter)]
        assert cli.run(env_free) == 0, capsys.readouterr().out


def test_back_pressure_loss_is_caught_by_the_slow_reader(started: list[int], capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # the slow phase only has to outlast the emitter's start-up and its 0.1 s patience with a full
    # pipe; the run lasts as long as the slow phase (the pipe stays full until it ends)
    monkeypatch.setattr(provoke, "SLOW_SECONDS", 1.0)
    code, out = _provoke(capsys, *_emitter("drops_when_full"))
    assert code == 1, out
    assert "line.json [MUST]: under slow-reader: " in out, out


def test_a_pty_without_raw_mode_would_blame_the_emitter_for_its_cr(monkeypatch: pytest.MonkeyPatch) -> None:
    """Why raw mode: the terminal's own onlcr turns LF into CR LF (line.newline) otherwise."""
    # with raw mode the same run passes: test_the_reference_emitter_passes_every_environment
    pty_only = (Environment("pty", pty=True),)
    import tty

    monkeypatch.setattr(tty, "setraw", lambda fd: None)
    report = provoke.provoke(timeout=10, environments=pty_only)
    assert "line.newline" in report.counts


def test_colour_is_forced_and_no_color_removed() -> None:
    env = Environment("x", colour=True).environ({"NO_COLOR": "1", "TERM": "dumb", "HOME": "/h"})
    assert env == {"FORCE_COLOR": "1", "CLICOLOR_FORCE": "1", "TERM": "xterm-256color", "HOME": "/h"}
    assert Environment("y").environ({"NO_COLOR": "1"}) == {"NO_COLOR": "1"}


def test_an_emitter_that_hangs_in_a_pty_is_killed_in_bounded_time(started: list[int]) -> None:
    timeout = 0.3  # nothing it writes is asserted: only that the pty run is killed and says so
    began = time.monotonic()
    report = provoke._capture(_emitter("hangs"), Environment("pty", pty=True), env=None, timeout=timeout,
                              expect_exit=0, strict=False, ignore=(), max_line_bytes=DEFAULT_MAX_LINE_BYTES,
                              max_output_bytes=harness.DEFAULT_MAX_OUTPUT_BYTES, wire=STREAM)
    assert "run.timeout" in report.counts
    assert time.monotonic() - began < timeout + 2.0 + SLACK


def test_an_emitter_hung_as_run_is_not_provoked_further(started: list[int]) -> None:
    """A hung emitter would cost one more timeout per environment (issue 21: 5, then 9 x timeout,
    in silence); the plain run's run.timeout already makes it not conformant, so provoke stops there."""
    report = provoke.provoke(_emitter("hangs"), timeout=0.3)
    assert report.counts.get("run.timeout") == 1
    assert not report.conformant
    assert not any(v.message.startswith("under ") for v in report.violations)
    assert any(note.startswith("provoked environments not tried") for note in report.notes)


@pytest.mark.parametrize("args", [["--wire", "subagent-stdio", "--provoke"]])
def test_provoke_is_for_stream_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.run(["run", *args]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_a_fault_in_a_provoked_run_is_checker_internal(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("pty gone")

    monkeypatch.setattr(provoke, "_capture", broken)
    report = provoke.provoke(timeout=10, environments=(Environment("pty", pty=True),))
    assert not report.conformant
    assert "checker.internal" in report.counts


@pytest.mark.parametrize(("what", "rule"), [("line", "sj.result-last"), ("hold", "run.stdout-held")])
def test_a_descendant_on_the_pty_after_the_emitter_exits(what: str, rule: str, started: list[int]) -> None:
    """Issue 20 under a pty: a line a child writes after the emitter exited is judged, and a child
    still holding the pty's slave after the late grace is run.stdout-held (found by its fd)."""
    report = provoke.provoke([*_emitter("late_child"), "milk-provoke-late", what], timeout=10, late_grace=0.3,
                             environments=(Environment("pty", pty=True),))
    assert [v for v in report.violations if v.rule == rule and v.message.startswith("under pty: ")], report.counts
    assert rule in {v.rule for v in report.violations if not v.message.startswith("under ")}  # the plain run too


def test_a_stderr_terminal_is_drained_and_its_tail_reported(started: list[int]) -> None:
    """Megabytes on a stderr pty must not block the emitter; what it said last is kept, as from a pipe."""
    [stderr_tty] = [e for e in ENVIRONMENTS if e.name == "stderr-tty"]
    report = provoke._capture(_emitter("huge_stderr"), stderr_tty, env=None, timeout=10, expect_exit=0,
                              strict=False, ignore=(), max_line_bytes=DEFAULT_MAX_LINE_BYTES,
                              max_output_bytes=harness.DEFAULT_MAX_OUTPUT_BYTES, wire=STREAM)
    assert report.conformant, report.violations
    assert "faulty-emitter huge_stderr: done with the noise" in report.stderr


def test_provoke_judges_the_wire_it_is_given(capsys: pytest.CaptureFixture[str]) -> None:
    """``run --wire W --provoke`` judges W: every environment by W's rules, W's own reference emitter by
    default (issue 29: the wire was fixed at import to the registry's first stream wire, so another
    stream wire's runs were judged as stream-json and its reference never started)."""
    from contract.rules.requirements import verdicts
    from tests.support.wires import registered
    from tests.wires.audit_log import AUDIT_LOG

    with registered(AUDIT_LOG):
        report = provoke.provoke(None, wire=AUDIT_LOG.name, environments=ENVIRONMENTS[:1], timeout=20)
        assert report.wire == AUDIT_LOG.name
        assert report.conformant, report.violations
        assert {r.rule.id: r.status for r in verdicts(report)}["al.seq"] == "passed"
        code = cli.run(["run", "--wire", AUDIT_LOG.name, "--provoke", "--format", "json", "--timeout", "20"])
    assert code == 0, capsys.readouterr()
    assert '"wire": "audit-log"' in capsys.readouterr().out


def test_provoke_refuses_a_conversation_wire() -> None:
    """Near miss: a wire whose live mode is a conversation is no stream to provoke (its hosts are fuzzed)."""
    with pytest.raises(ValueError, match="conversation wire"):
        provoke.provoke(None, wire=first(Live.CONVERSATION).name, environments=())
