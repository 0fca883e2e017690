"""``--contract-seed N``: a fuzzing failure names its seed and the two commands that find it again,
and the pytest one, run as printed, finds the same failure; a failing contract test shows its
report once (``pytest.fail``), never ``assert False`` with a ``Report(...)`` repr.

The default run uses a host that answers every command with a wrong id (it fails on the first
conversation, so the test is quick); the deep run a host that fails only on long ids, which a
seed finds or does not: there the seed is what makes the failure come back.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from contract.plugin.session import option_problem
from tests.support.paths import TESTS

pytestmark = pytest.mark.process

HOSTS = TESTS / "faulty_hosts"
LEAN = ("-p", "no:hypothesispytest", "-p", "no:cacheprovider")
AGAIN = re.compile(r"^seed: (\d+); find it again with: (.+)$", re.M)
CLI_AGAIN = re.compile(r"^  or from the command line: (milk-contract fuzz .+)$", re.M)


def _pytest(argv: list[str], cwd: Path, ci: bool = False) -> subprocess.CompletedProcess[str]:
    # pytest prints a failure's whole message in its short summary when $CI is set (running_on_ci)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "BUILD_NUMBER")} | ({"CI": "true"} if ci else {})
    return subprocess.run([sys.executable, "-m", "pytest", *LEAN, "-q", *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=600, check=False, env=env)


def _fuzz(host: str, seed: int, cwd: Path, ci: bool = False) -> subprocess.CompletedProcess[str]:
    emitter = shlex.join([sys.executable, str(HOSTS / host)])
    return _pytest(["--pyargs", "contract.tests.test_live_fuzz", "-k", "test_fuzz_subagent_host", "--contract-fuzz",
                    "5", "--contract-seed", str(seed), "--contract-emitter", emitter], cwd, ci)


def _failure(done: subprocess.CompletedProcess[str]) -> str:
    """The shrunk conversation and the finding: what a replay must find again."""
    out = done.stdout
    return out[out.index("shrunk failing conversation"):out.index("\nseed: ")]


def _replayed(done: subprocess.CompletedProcess[str], seed: int, cwd: Path) -> subprocess.CompletedProcess[str]:
    found = AGAIN.search(done.stdout)
    assert found is not None, done.stdout
    assert int(found.group(1)) == seed
    printed = shlex.split(found.group(2))
    assert printed[:3] == ["python", "-m", "pytest"]
    assert ["--contract-seed", str(seed)] == printed[printed.index("--contract-seed"):][:2]
    cli = CLI_AGAIN.search(done.stdout)
    assert cli is not None, done.stdout
    assert f"--seed {seed} --examples 5" in cli.group(1)
    return _pytest(printed[3:], cwd)


# two whole pytest runs of 3 s each: CI's own form in the default run, the terminal's in the deep run
@pytest.mark.parametrize("ci", [pytest.param(False, marks=pytest.mark.deep), True], ids=["terminal", "on-ci"])
def test_a_fuzz_failure_prints_its_replay_and_the_report_once(tmp_path: Path, ci: bool) -> None:
    done = _fuzz("wrong_id.py", 7, tmp_path, ci)
    assert done.returncode == 1, done.stdout + done.stderr
    for noise in ("assert False", "Report(", "FuzzResult(", "AssertionError", "ContractFailed"):
        assert noise not in done.stdout
    failures, _, summary = done.stdout.partition("short test summary info")
    assert failures.count("NOT conformant (subagent-stdio") == 1  # the report, once
    assert "# conversation: stopped at line 2" in failures  # ... and whole
    # the summary: one line per failure, its verdict; on CI pytest would print the whole report again
    failed = [line for line in summary.splitlines() if line.startswith("FAILED")]
    assert len(failed) == 1, summary
    assert failed[0].startswith("FAILED ::test_fuzz_subagent_host - "), summary
    if ci:  # untrimmed there: the whole headline (on a terminal pytest cuts it to the width)
        assert failed[0].endswith("NOT conformant (subagent-stdio, 2 lines): 1 finding (MUST 1, SHOULD 0) of 1 rule: "
                                  "sa.response-correlation"), summary
    assert "# conversation" not in summary
    again = _replayed(done, 7, tmp_path)
    assert again.returncode == 1, again.stdout + again.stderr
    assert _failure(again) == _failure(done)


@pytest.mark.deep
def test_the_printed_seed_finds_a_seed_dependent_failure_again(tmp_path: Path) -> None:
    """truncates_ids fails only on an id over 64 characters: seed 1757902976 draws one within 5."""
    done = _fuzz("truncates_ids.py", 1757902976, tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    again = _replayed(done, 1757902976, tmp_path)
    assert again.returncode == 1, again.stdout + again.stderr
    assert _failure(again) == _failure(done)


@pytest.mark.parametrize(("seed", "problem"), [(-1, "found -1"), (2**64, "expected a seed from 0 to 2**64-1")])
def test_a_seed_out_of_range_is_one_usage_error(seed: int, problem: str) -> None:
    found = option_problem(0, 60.0, 2.0, seed)
    assert found is not None
    assert found.startswith("--contract-seed: ")
    assert problem in found
    assert option_problem(0, 60.0, 2.0, 2**64 - 1) is None  # near miss: the largest seed
