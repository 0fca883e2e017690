"""The plugin's --contract-statement and --contract-shard (contract.plugin.statement): a shard runs
its scenarios only, the statement holds what ran (provoked runs too), misuse is one line, and in the
deep run three shards' statements merge to the one-runner statement byte for byte (after the timestamp).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from contract.cli import run
from contract.statement import collect, model
from tests.support.depth import deep

pytestmark = pytest.mark.process


def _suite(folder: Path, *args: str, module: str = "contract.tests.test_emitter") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MILK_CONTRACT_EMITTER"}
    return subprocess.run([sys.executable, "-m", "pytest", "--pyargs", module, "-p", "no:cacheprovider", "-q",
                           "-p", "no:hypothesispytest", *args], cwd=folder, capture_output=True, text=True,
                          timeout=600, check=False, env=env)


def test_a_shard_runs_its_scenarios_and_writes_its_statement(tmp_path: Path) -> None:
    done = _suite(tmp_path, "--contract-shard", "2/3", "--contract-statement", "s.json")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    document = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    assert document["shard"] == {"index": 2, "total": 3}
    mine = [f"{g.wire}/{g.name}" for g in collect.all_scenarios() if collect.in_shard(f"{g.wire}/{g.name}", (2, 3))]  # type: ignore[attr-defined]  # the scenarios as collect sees them (its import, not re-exported)
    assert document["scenarios"] == sorted(mine)
    assert f"{len(mine)} passed" in done.stdout
    assert model.sealed(document)
    assert "milk-contract: statement s.json: shard 2/3: merge the shards for a level, resting on" in done.stdout
    assert document["level"]["achieved"] == "none"  # a shard has no level of its own (issue 46)


def test_provoked_runs_join_the_statement(tmp_path: Path) -> None:
    done = _suite(tmp_path, "-k", "hello", "--contract-provoke", "--contract-statement", "s.json",
                  module="contract.tests")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    document = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    runs = {(r["scenario"], r["environment"]) for r in document["runs"]}
    scenarios = {scenario for scenario, _ in runs}
    # every wire's hello golden (a wire added later may have one too: an outside trial's did), each
    # run as its scenario and provoked
    assert "stream-json/hello" in scenarios
    assert {scenario.rsplit("/", 1)[1] for scenario in scenarios} == {"hello"}
    assert runs == {(scenario, env) for scenario in scenarios for env in ("scenario", "provoked")}
    assert document["provoked"] is True
    # -k left the other scenarios out: a statement of part of the suite has no level, and says why
    due = [f"{g.wire}/{g.name}" for g in collect.all_scenarios()  # type: ignore[attr-defined]
           if g.wire in {r["wire"] for r in document["runs"]}]
    unrun = [name for name in due if name not in scenarios]
    assert document["level"]["achieved"] == "none"
    assert not document["level"]["must_complete"]
    note = f"{len(unrun)} of {len(due)} shipped scenarios not run (first: {unrun[0]})"
    assert document["level"]["note"].startswith(note)
    assert f"milk-contract: statement s.json: {note}" in done.stdout


def test_a_bad_shard_is_one_usage_line(tmp_path: Path) -> None:
    done = _suite(tmp_path, "--contract-shard", "0/3")
    assert done.returncode == 4
    assert "--contract-shard: expected I/N" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(not deep(), reason="deep: runs in the deep run only (tox -e deep; tests/support/depth.py)")
def test_three_plugin_shards_merge_to_the_one_runner_statement(tmp_path: Path) -> None:
    assert _suite(tmp_path, "--contract-statement", "whole.json").returncode == 0
    for index in (1, 2, 3):
        shard = _suite(tmp_path, "--contract-shard", f"{index}/3", "--contract-statement", f"{index}.json")
        assert shard.returncode == 0
    merged = tmp_path / "merged.json"
    assert run(["statement", "merge", *(str(tmp_path / f"{i}.json") for i in (1, 2, 3)), "--output", str(merged)]) == 0
    whole = json.loads((tmp_path / "whole.json").read_text(encoding="utf-8"))
    joined = json.loads(merged.read_text(encoding="utf-8"))
    assert model.dumps({**joined, "generated": whole["generated"]}) == model.dumps(whole)
