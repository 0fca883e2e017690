"""The verbs that draw with hypothesis write nothing into the working directory, and a seed still
reproduces the run exactly.

Hypothesis caches the constants it collects from local modules in its storage folder
(``.hypothesis/`` in the working directory) even with no example database; ``fuzz``, ``feed
--future`` and ``vectors export`` keep that storage in a temporary folder
(``contract.cli.output.hypothesis_storage_apart``). Each verb runs as a process in an empty folder,
twice with one seed: the folder stays empty, and the two outputs are the same but for elapsed times.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

PY = sys.executable
ELAPSED = re.compile(r"\b\d+(?:\.\d+)?s\b")  # "in 0.6s", "after 1.01s": the only thing that varies


def _verb(cwd: Path, *args: str) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HYPOTHESIS", "MILK_CONTRACT"))}
    done = subprocess.run([PY, "-m", "contract", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    return done.returncode, ELAPSED.sub("…s", done.stdout + done.stderr)


@pytest.mark.parametrize(("args", "code"), [
    # the same storage apart as feed's (contract.cli.output); fuzz's seed: tests/live/test_host_fuzz.py
    pytest.param(["fuzz", "--examples", "3", "--seed", "7"], 0, marks=pytest.mark.deep),
    # a failing variant is found, shrunk and shown: the stream drawn is in the output
    (["feed", "--future", "--examples", "3", "--seed", "1", "--scenario", "hello", "--shrink-seconds", "120",
      "--", PY, "-m", "contract.reference.strict_consumer"], 1),
], ids=["fuzz", "feed-future"])
def test_a_verb_that_draws_leaves_the_working_directory_empty_and_a_seed_reproduces_it(
        tmp_path: Path, args: list[str], code: int) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    one = _verb(first, *args)
    assert one[0] == code, one[1]
    assert sorted(os.listdir(first)) == []  # no .hypothesis/ (nor anything else)
    assert _verb(second, *args) == one
    assert sorted(os.listdir(second)) == []


@pytest.mark.deep  # 10 s: the whole export; the other drawing verbs keep the working-directory claim by default
def test_vectors_export_writes_only_its_folder(tmp_path: Path) -> None:
    code, out = _verb(tmp_path, "vectors", "export", "vectors")
    assert code == 0, out
    assert sorted(os.listdir(tmp_path)) == ["vectors"]
