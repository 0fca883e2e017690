"""The text report on a terminal, as pytest does it (contract.reporting.terminal): colour on a
terminal only (NO_COLOR, FORCE_COLOR, --color), -q and -v, lists wrapped to the width.

The pty tests run the real command with a pseudo-terminal as its stdout (the ``pty`` module),
so ``isatty`` is the kernel's answer, not a stub's.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from contract import cli
from contract.reporting.reporters import render_text
from contract.reporting.terminal import PIPE_WIDTH, Style, colour_wanted
from contract.rules.report import Report
from tests.support.paths import ROOT

HELLO = ROOT / "goldens" / "stream-json" / "hello.jsonl"
ESC = "\x1b["


class _Stream:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(("choice", "tty", "env", "wanted"), [
    ("auto", True, {}, True),
    ("auto", False, {}, False),  # a pipe or a file: never, unless forced
    ("auto", True, {"NO_COLOR": "1"}, False),
    ("auto", True, {"NO_COLOR": ""}, True),  # no-color.org: set and not empty
    ("auto", False, {"FORCE_COLOR": "1"}, True),
    ("auto", True, {"NO_COLOR": "1", "FORCE_COLOR": "1"}, False),  # as pytest: NO_COLOR first
    ("auto", True, {"TERM": "dumb"}, False),
    ("yes", False, {"NO_COLOR": "1"}, True),
    ("no", True, {"FORCE_COLOR": "1"}, False),
])
def test_colour_follows_the_choice_the_environment_and_the_stream(choice: str, tty: bool, env: dict[str, str],
                                                                  wanted: bool) -> None:
    assert colour_wanted(choice, _Stream(tty), env) is wanted  # type: ignore[arg-type]  # a stand-in stream: isatty only


@pytest.fixture
def truncated(tmp_path: Path) -> Path:
    path = tmp_path / "truncated.jsonl"
    path.write_bytes(b"".join(HELLO.read_bytes().splitlines(keepends=True)[:2]))
    return path


def _on_a_pty(argv: list[str], env: dict[str, str]) -> str:
    """The command's stdout when it is a pseudo-terminal."""
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(argv, stdout=slave, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env,
                                cwd=ROOT)
        os.close(slave)
        chunks = []
        while True:
            ready, _, _ = select.select([master], [], [], 30)
            if not ready:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the slave end closed
                break
            if not chunk:
                break
            chunks.append(chunk)
        proc.wait(timeout=30)
    finally:
        os.close(master)
    return b"".join(chunks).decode("utf-8", "replace")


def _plain_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "PY_COLORS")}
    env["TERM"] = "xterm-256color"
    return env


CHECK = [sys.executable, "-m", "contract.cli", "check"]


@pytest.mark.process
def test_a_check_on_a_pty_shows_coloured_findings(truncated: Path) -> None:
    out = _on_a_pty([*CHECK, str(truncated)], _plain_env())
    assert f"{ESC}31;1msj.result-last{ESC}0m [{ESC}31mMUST{ESC}0m]" in out
    assert f"{ESC}31;1mNOT conformant{ESC}0m" in out
    assert f"{ESC}32mconformant" in _on_a_pty([*CHECK, str(HELLO)], _plain_env())


@pytest.mark.process
def test_a_check_on_a_pipe_shows_no_colour_and_no_color_turns_a_pty_off(truncated: Path) -> None:
    piped = subprocess.run([*CHECK, str(truncated)], capture_output=True, text=True, env=_plain_env(), check=False)
    assert piped.returncode == 1
    assert "sj.result-last [MUST]" in piped.stdout
    assert "\x1b" not in piped.stdout
    assert "\x1b" not in _on_a_pty([*CHECK, str(truncated)], {**_plain_env(), "NO_COLOR": "1"})
    assert "\x1b" not in _on_a_pty([*CHECK, "--color=no", str(truncated)], {**_plain_env(), "FORCE_COLOR": "1"})
    forced = subprocess.run([*CHECK, str(truncated)], capture_output=True, text=True, check=False,
                            env={**_plain_env(), "FORCE_COLOR": "1"})
    assert f"{ESC}31mMUST" in forced.stdout  # forced: a pipe too


def test_quiet_is_the_findings_and_the_verdict_line(truncated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.run(["check", str(truncated)]) == 1
    full = capsys.readouterr().out.splitlines()
    assert cli.run(["check", "-q", str(truncated)]) == 1
    quiet = capsys.readouterr().out.splitlines()
    assert quiet[:-1] == [line for line in full if " sj.result-last " in line or line.startswith("    hint:")]
    assert quiet[-1] == full[-1]
    assert quiet[-1].startswith(f"{truncated}: NOT conformant")
    assert not any(line.startswith(("requirements:", "#")) for line in quiet)


def test_verbose_lists_every_requirement(truncated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from contract.rules import requirements

    cli.run(["check", str(truncated)])
    default = capsys.readouterr().out
    cli.run(["check", "-v", str(truncated)])
    verbose = capsys.readouterr().out
    verdicts = requirements.verdicts(contract_check(truncated))
    for verdict in verdicts:
        assert f"\n  {verdict.rule.id}: {verdict.status}\n" in verbose
    # the default's lines, and more: its one requirement line of counts becomes the lists by status
    counts = next(line for line in default.splitlines() if line.startswith("requirements: "))
    assert all(line in verbose.splitlines() for line in default.splitlines() if line != counts)
    assert counts not in verbose.splitlines()
    assert "\n  not applicable (judged only in a live run, never on a file): run.timeout," in verbose
    assert "\n  sj.result-last: failed\n" in verbose


def contract_check(path: Path) -> Report:
    import contract

    return contract.check(path.read_bytes(), wire="stream-json")


def test_quiet_and_verbose_are_one_or_the_other(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.run(["check", "-q", "-v", str(HELLO)]) == 2
    assert "not allowed with" in capsys.readouterr().err


def test_a_long_note_is_wrapped_to_the_width_and_a_finding_is_not() -> None:
    report = Report(wire="stream-json", source="x.jsonl", lines=3)
    report.notes.append("environments tried: " + "; ".join(f"env{n}: stdout a pipe, stdin /dev/null" for n in
                                                          range(30)))
    lines = render_text(report, Style(width=PIPE_WIDTH)).splitlines()
    assert max(len(line) for line in lines if line.startswith("#")) <= PIPE_WIDTH
    assert len([line for line in lines if line.startswith("#")]) > 5
    assert render_text(report).count("\n# ") == 0  # a library caller's report: one line a note, as before


@pytest.mark.process
def test_run_provoke_prints_no_line_wider_than_a_pipe(capsys: pytest.CaptureFixture[str]) -> None:
    """It printed the environments tried as one line of about 1,100 characters."""
    assert cli.run(["run", "--provoke"]) == 0
    out = capsys.readouterr().out
    notes = [line for line in out.splitlines() if line.startswith("#")]
    assert any("provoked environments tried" in line for line in notes)
    assert max(len(line) for line in notes) <= PIPE_WIDTH
