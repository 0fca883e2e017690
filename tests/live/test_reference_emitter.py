"""The reference stream-json emitter: fresh values every run, identical after normalization."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import contract
from contract.goldens import compare as golden_compare
from contract.goldens import store as goldens
from contract.wires.stream_json.kit.emitter import replay

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

SCENARIOS = goldens.scenarios("stream-json")


@pytest.mark.parametrize("golden", SCENARIOS, ids=lambda g: g.name)
def test_a_replay_is_fresh_conformant_and_equal_after_normalization(
        golden: goldens.Golden) -> None:
    output = replay(golden.data())
    first, original = json.loads(output.split(b"\n")[0]), json.loads(golden.data().split(b"\n")[0])
    assert first["session_id"] != original["session_id"]
    assert first["ts"] != original["ts"]
    report = contract.check(output, wire="stream-json", strict=True)
    assert report.violations == []
    comparison = golden_compare.compare(golden.data(), output, "stream-json")
    assert comparison.equal, comparison.summary()


def test_tool_ids_are_remapped_consistently() -> None:
    output = replay(goldens.load("stream-json", "subagent_tasks").data())
    golden_ids = {b"toolu_01T9aK3bN6cQ8dW2eR5fY7gHj", b"toolu_01G4hJ7kL1mN3pQ6rS8tU2vWx"}
    assert not any(i in output for i in golden_ids)
    lines = [json.loads(x) for x in output.splitlines()]
    parents = {x["parent_tool_use_id"] for x in lines if "parent_tool_use_id" in x}
    assert len(parents) == 1, "every nested line names the same, fresh Task tool_use"


def test_two_runs_differ_from_each_other() -> None:
    data = goldens.load("stream-json", "hello").data()
    assert replay(data).split(b'"seq"')[0] != replay(data).split(b'"seq"')[0]


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "contract.reference.stream_json_emitter", *args],
                          env={**os.environ, **env}, capture_output=True, timeout=60, check=False)


def test_the_module_replays_the_golden_it_is_given_with_its_exit_status() -> None:
    golden = goldens.load("stream-json", "max_turns")
    done = _run({"MILK_CONTRACT_GOLDEN": str(golden.path)}, *golden.reproduce.argv)
    assert done.returncode == golden.reproduce.exit_status == 1
    assert golden_compare.compare(golden.data(), done.stdout, "stream-json").equal
    assert done.stderr == b""


def test_an_unknown_scenario_is_one_line_on_stderr_and_status_2() -> None:
    done = _run({"MILK_CONTRACT_SCENARIO": "no_such_scenario", "MILK_CONTRACT_GOLDEN": ""})
    assert done.returncode == 2
    assert done.stdout == b""
    assert done.stderr.count(b"\n") == 1
    assert b"Traceback" not in done.stderr
