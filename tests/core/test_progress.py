"""Progress of long live work (``contract.core.progress``): on a terminal stderr, and never on a pipe.

``fuzz`` (conversation n of N, then shrinking), ``run --provoke`` (which environment is running)
and ``record`` (which scenario) each show one status line, rewritten in place, when stderr is a
terminal (here a pseudo-terminal), and erase it before the report. With stderr a pipe (CI logs,
tests, ``2>log``) not one byte of it is written. One test runs the real command in a process
with a pseudo-terminal as its stderr; the others swap ``sys.stderr`` in this process.
"""

from __future__ import annotations

import contextlib
import io
import os
import pty
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import TextIO

import pytest

from contract import cli
from contract.core.progress import ERASE, MAX_CHARS, Progress, on_terminal
from contract.live import driver, fuzz, provoke
from contract.live.driver import Step
from contract.rules.report import Report
from tests.support.paths import ROOT


class _Terminal:
    """A pseudo-terminal whose slave is a text stream; what reaches the master is collected."""

    def __init__(self) -> None:
        self.master, self.slave = pty.openpty()
        self.stream: TextIO = open(self.slave, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        self.received = bytearray()
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 4096)
            except OSError:  # EIO: the slave is closed
                return
            if not chunk:
                return
            self.received += chunk

    def text(self) -> str:
        """Everything written, once the slave is closed (the drain reads to EIO)."""
        with contextlib.suppress(OSError, ValueError):
            self.stream.close()
        with contextlib.suppress(OSError):
            os.close(self.slave)
        self.thread.join(10)
        with contextlib.suppress(OSError):
            os.close(self.master)
        return self.received.decode("utf-8", "replace")


# pytest's capture sets sys.stderr again when a test's call phase starts, after its fixtures:
# each test makes the stream its stderr in its own body (_as_stderr), not in the fixture.


def _as_stderr(monkeypatch: pytest.MonkeyPatch, stream: TextIO) -> None:
    monkeypatch.setattr(sys, "stderr", stream)


@pytest.fixture
def terminal() -> Iterator[_Terminal]:
    """A pseudo-terminal for the test's stderr."""
    tty = _Terminal()
    yield tty
    tty.text()


class _Pipe:
    """A pipe whose write end is a text stream; what was written is read back at the end."""

    def __init__(self) -> None:
        self.read, write = os.pipe()
        self.stream: TextIO = open(write, "w", encoding="utf-8")  # noqa: SIM115

    def getvalue(self) -> str:
        """Everything written so far (nothing expected: well under the pipe's buffer)."""
        self.stream.flush()
        os.set_blocking(self.read, False)
        data = b""
        with contextlib.suppress(BlockingIOError):
            while chunk := os.read(self.read, 65536):
                data += chunk
        return data.decode("utf-8", "replace")

    def close(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.stream.close()
        with contextlib.suppress(OSError):
            os.close(self.read)


@pytest.fixture
def pipe() -> Iterator[_Pipe]:
    """A pipe for the test's stderr."""
    piped = _Pipe()
    yield piped
    piped.close()


class _Passing:
    def __call__(self, argv: list[str], *, plan: tuple[Step, ...], **_: object) -> driver.Conversation:
        return driver.Conversation(Report(wire="subagent-stdio"), b"")


class _FailingOnBursts:
    def __call__(self, argv: list[str], *, plan: tuple[Step, ...], **_: object) -> driver.Conversation:
        report = Report(wire="subagent-stdio")
        if any(len(step.commands) >= 2 for step in plan):
            report.counts["sa.response-correlation"] += 1
        return driver.Conversation(report, b"")


def test_a_terminal_is_one_and_a_pipe_is_not() -> None:
    tty = _Terminal()
    read, write = os.pipe()
    try:
        assert on_terminal(tty.stream)
        with open(write, "w", closefd=False) as piped:
            assert not on_terminal(piped)
        assert not on_terminal(None)
        assert not on_terminal(io.StringIO())
    finally:
        tty.text()
        os.close(read)
        os.close(write)


def test_the_status_line_is_rewritten_in_place_escaped_clipped_and_erased() -> None:
    tty = _Terminal()
    with Progress("verb", tty.stream) as progress:
        progress.update("first")
        progress.update("a name with \x1b]0;title\x07 in it " + "x" * 200)
    shown = tty.text()
    assert shown.startswith("\rmilk-contract verb: first" + ERASE)
    assert "\x1b]" not in shown  # input never reaches the terminal as a control sequence
    assert "\\u001b]0;title\\u0007" in shown
    assert all(len(part) <= MAX_CHARS for part in shown.replace(ERASE, "").split("\r"))  # one terminal line
    assert shown.endswith("\r" + ERASE)  # erased: the report starts on a clean line


def test_fuzz_shows_the_conversation_count_then_shrinking(terminal: _Terminal, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    _as_stderr(monkeypatch, terminal.stream)
    monkeypatch.setattr(driver, "record", _FailingOnBursts())
    assert cli.run(["fuzz", "--seed", "11", "--examples", "30"]) == 1
    shown = terminal.text()
    assert "milk-contract fuzz: conversation 1 of 30" in shown
    assert "milk-contract fuzz: shrinking the failure of conversation " in shown
    assert shown.endswith("\r" + ERASE)
    assert "shrunk failing conversation" in capsys.readouterr().out  # the report is unchanged


def test_fuzz_writes_nothing_when_stderr_is_not_a_terminal(pipe: _Pipe, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    _as_stderr(monkeypatch, pipe.stream)
    monkeypatch.setattr(driver, "record", _FailingOnBursts())
    assert cli.run(["fuzz", "--seed", "11", "--examples", "30"]) == 1
    assert pipe.getvalue() == ""
    monkeypatch.setattr(driver, "record", _Passing())
    result = fuzz.fuzz_host(["host"], examples=3, seed=1)
    assert result.report.conformant
    assert pipe.getvalue() == ""


@pytest.mark.process
def test_provoke_names_the_environment_running(terminal: _Terminal, monkeypatch: pytest.MonkeyPatch) -> None:
    _as_stderr(monkeypatch, terminal.stream)
    pty_only = tuple(e for e in provoke.ENVIRONMENTS if e.name == "stderr-tty")
    report = provoke.provoke(timeout=10, environments=pty_only)
    assert report.conformant, report.violations
    shown = terminal.text()
    assert "milk-contract run --provoke: environment 1 of 2: pipe (as run)" in shown
    assert "milk-contract run --provoke: environment 2 of 2: stderr-tty" in shown


@pytest.mark.process
def test_provoke_writes_nothing_when_stderr_is_not_a_terminal(pipe: _Pipe, monkeypatch: pytest.MonkeyPatch) -> None:
    _as_stderr(monkeypatch, pipe.stream)
    report = provoke.provoke(timeout=10, environments=provoke.ENVIRONMENTS[:1])
    assert report.conformant, report.violations
    assert pipe.getvalue() == ""


@pytest.mark.process
def test_record_names_the_scenario_running(terminal: _Terminal, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    _as_stderr(monkeypatch, terminal.stream)
    args = ["record", "--dry-run", "--wire", "stream-json", "--scenario", "hello", "--scenario", "tool_calls"]
    assert cli.run(args) == 0, capsys.readouterr().out
    shown = terminal.text()
    assert "milk-contract record: scenario 1 of 2: stream-json/" in shown
    assert "milk-contract record: scenario 2 of 2: stream-json/" in shown
    assert shown.endswith("\r" + ERASE)


@pytest.mark.process
def test_record_writes_nothing_when_stderr_is_not_a_terminal(pipe: _Pipe, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    _as_stderr(monkeypatch, pipe.stream)
    assert cli.run(["record", "--dry-run", "--wire", "stream-json", "--scenario", "hello"]) == 0
    assert pipe.getvalue() == ""
    capsys.readouterr()


def _fuzz_process(stderr: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "contract", "fuzz", "--seed", "1", "--examples", "2"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr, cwd=ROOT)


@pytest.mark.process
def test_the_real_command_shows_progress_on_a_terminal_and_never_on_a_pipe() -> None:
    tty = _Terminal()
    try:
        with _fuzz_process(tty.slave) as shown:
            out, _ = shown.communicate(timeout=120)
    finally:
        on_tty = tty.text()
    assert shown.returncode == 0, out
    assert "milk-contract fuzz: conversation 2 of 2" in on_tty
    assert on_tty.endswith("\r" + ERASE)
    with _fuzz_process(subprocess.PIPE) as piped:
        out, err = piped.communicate(timeout=120)
    assert piped.returncode == 0, out
    assert b"milk-contract fuzz:" not in err
    assert b"\x1b" not in err
    assert b"milk-contract fuzz:" not in out  # never on stdout either: the report is all it holds
