"""The pytest plugin end to end: the shipped suite run against emitters, as milk's CI would."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

EMITTERS = Path(__file__).parent / "emitters"


def run_suite(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``pytest --pyargs contract …`` from a directory that is not the checkout."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--pyargs", "contract.tests.test_emitter", "-p", "no:cacheprovider",
         "-q", *args],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )


def test_faithful_replay_passes(tmp_path: Path) -> None:
    done = run_suite(tmp_path, "-k", "stream-json and (hello or refused)")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout
    assert "milk-contract: 2 golden scenarios run through bundled reference emitters" in done.stdout


def test_dropped_result_field_fails_and_names_it(tmp_path: Path) -> None:
    emitter = shlex.join([sys.executable, str(EMITTERS / "drop_result_field.py"), "num_turns"])
    done = run_suite(tmp_path, "-k", "stream-json and hello", "--contract-emitter", emitter)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "/num_turns" in done.stdout
    assert "breaking removed" in done.stdout
    assert "milk-contract: 1 failed: stream-json/hello" in done.stdout


def test_emitter_from_the_environment(tmp_path: Path) -> None:
    import os

    emitter = shlex.join([sys.executable, str(EMITTERS / "drop_result_field.py"), "duration_ms"])
    env = {**os.environ, "MILK_CONTRACT_EMITTER": emitter}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--pyargs", "contract.tests.test_emitter", "-p", "no:cacheprovider",
         "-q", "-k", "stream-json and refused"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False, env=env,
    )
    assert done.returncode == 1
    assert "/duration_ms" in done.stdout


def test_an_emitter_that_cannot_start_is_one_usage_error(tmp_path: Path) -> None:
    """Fail fast: exit 4 with one line at session start, not one failure per golden scenario."""
    done = run_suite(tmp_path, "--contract-emitter", "./no-such-milk --flag")
    assert done.returncode == 4, done.stdout + done.stderr
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert lines == ["ERROR: --contract-emitter: cannot start './no-such-milk': not found on PATH or not an "
                     "executable file"]


@pytest.mark.parametrize("emitter", ['"unclosed', ""])
def test_an_unparsable_or_empty_emitter_is_one_usage_error(emitter: str, tmp_path: Path) -> None:
    done = run_suite(tmp_path, "--contract-emitter", emitter)
    assert done.returncode == 4, done.stdout + done.stderr
    assert "ERROR: --contract-emitter:" in done.stdout + done.stderr
    assert "failed" not in done.stdout


def test_failure_shows_the_finding_and_the_line_not_reprs(tmp_path: Path) -> None:
    emitter = shlex.join([sys.executable, str(EMITTERS / "drop_result_field.py"), "num_turns"])
    done = run_suite(tmp_path, "-k", "stream-json and hello", "--contract-emitter", emitter)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "line 3 /num_turns: breaking removed" in done.stdout
    for noise in ("Report(", "ScenarioRun(", "Comparison(", "Difference(", "line None", " at -"):
        assert noise not in done.stdout


def _run_live(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--pyargs", "contract.tests.test_live_fuzz", "-p", "no:cacheprovider",
         "-q", *args],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )


def test_contract_provoke_catches_colour_only_on_a_terminal(tmp_path: Path) -> None:
    emitter = shlex.join([sys.executable, str(Path(__file__).parent / "faulty_emitters" / "tty_colour.py")])
    done = _run_live(tmp_path, "-k", "provoked_scenario and hello", "--contract-provoke",
                     "--contract-emitter", emitter)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "under pty: expected no ANSI escapes" in done.stdout
    near_miss = _run_live(tmp_path, "-k", "provoked_scenario and hello", "--contract-provoke")
    assert near_miss.returncode == 0, near_miss.stdout + near_miss.stderr


def test_contract_fuzz_holds_conversations_with_the_host(tmp_path: Path) -> None:
    done = _run_live(tmp_path, "-k", "fuzz_subagent_host", "--contract-fuzz", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout  # not skipped: without the option (and no emitter) it is
