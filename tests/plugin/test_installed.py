"""The suite as milk's CI installs and runs it: outside this checkout, offline, strict (issue 21).

- The markers the shipped tests use (derived from contract/tests' sources) are each registered by
  the plugin, as ``pytest --markers`` shows them in a folder with a pytest configuration of its
  own: milk's repository registers none of them.
- The plugin's header says what the run does (fuzzing and provoking are opt-in), and a fuzzed host
  starts with ``MILK_CONTRACT_SCENARIO=fuzz`` and no golden, whatever the caller's environment has.
- Deep run: the offline install (a wheelhouse filled by ``pip wheel``, then ``pip install
  --no-index --find-links wheelhouse milk-contract`` with pip cut off from every configured index
  and find-links) into a fresh virtualenv, and the shipped suite run there from a "milk-like"
  repository outside the checkout (tools/milk_repo.py: ``--strict-markers``, ``-W error``,
  pytest-xdist) against the bundled reference emitters and against examples/replay_build.py, a
  build written to the replay contract alone: both pass with no warning; the same build with a
  fault fails.
"""

from __future__ import annotations

import gc
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from contract import plugin
from contract.goldens.scenarios import ENV_GOLDEN, ENV_SCENARIO, run_scenario
from contract.goldens.store import all_scenarios, goldens_dir
from contract.live import fuzz
from contract.wires import NAMES
from tests.support.project_copy import ROOT

pytestmark = pytest.mark.process  # starts processes (the plugin registers the marker)

REPLAY_BUILD = ROOT / "examples" / "replay_build.py"
MILK_REPO = ROOT / "tools" / "milk_repo.py"
BUILTIN_MARKS = {"parametrize", "skip", "skipif", "xfail", "usefixtures", "filterwarnings"}


def shipped_markers() -> set[str]:
    """Every ``pytest.mark.X`` the shipped suite's sources name, pytest's own marks aside."""
    names: set[str] = set()
    for source in (ROOT / "contract" / "tests").rglob("*.py"):
        names |= set(re.findall(r"pytest\.mark\.([A-Za-z_]\w*)", source.read_text(encoding="utf-8")))
    return names - BUILTIN_MARKS


def test_the_plugin_registers_every_marker_the_shipped_tests_use(tmp_path: Path) -> None:
    used = shipped_markers()
    assert "process" in used  # the scan finds what is there (it cannot pass by finding nothing)
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")  # not this checkout's config
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-m", "pytest", "--markers", "-p", "no:cacheprovider"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    registered = set(re.findall(r"^@pytest\.mark\.(\w+):", done.stdout, re.MULTILINE))
    assert used <= registered, f"unregistered: {sorted(used - registered)}"
    assert used <= set(plugin.MARKERS)


def test_the_header_says_fuzzing_and_provoking_are_off(pytestconfig: pytest.Config,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # a contract run (the header shows only then: tests/plugin/test_plugin.py), however this one was started
    monkeypatch.setattr(pytestconfig, "args", [str(plugin.SUITE)])
    header = plugin.pytest_report_header(pytestconfig)
    assert header == ["milk-contract: golden scenarios through bundled reference emitters; "
                      "fuzzing: off (--contract-fuzz N); provoke: off (--contract-provoke)"]


def test_a_fuzzed_host_gets_no_golden(monkeypatch: pytest.MonkeyPatch) -> None:
    """Even with a golden in the caller's environment: the replaying build then has no script and
    says so (exit 2), which is the documented fuzzing mode, not a stale golden's answers."""
    monkeypatch.setenv(ENV_GOLDEN, str(goldens_dir() / "subagent-stdio" / "first_poll.jsonl"))
    monkeypatch.setenv(ENV_SCENARIO, "first_poll")
    env = fuzz.host_env()
    assert ENV_GOLDEN not in env
    assert env[ENV_SCENARIO] == fuzz.FUZZ_SCENARIO
    assert fuzz.FUZZ_SCENARIO not in {g.name for g in all_scenarios()}  # no golden has the name
    result = fuzz.fuzz_host([sys.executable, str(REPLAY_BUILD), "--subagent-stdio"], examples=1, seed=1,
                            shrink_seconds=0.1)
    assert not result.report.conformant
    assert "MILK_CONTRACT_GOLDEN is not set" in result.report.stderr


@pytest.mark.parametrize("wire", NAMES)
def test_a_scenario_run_leaves_no_pipe_to_the_garbage_collector(wire: str) -> None:
    """Under a milk repository's ``-W error`` a ResourceWarning (an unclosed pipe) fails the test."""
    golden = next(g for g in all_scenarios() if g.wire == wire)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        run = run_scenario(golden)
        gc.collect()
    assert run.report.conformant  # the run itself was fine: only its clean-up is in question
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_the_documented_offline_recipe_is_the_one_tested() -> None:
    page = (ROOT / "docs" / "milk-ci.md").read_text(encoding="utf-8")
    assert "pip wheel -w wheelhouse ./milk-contract pytest-xdist" in page  # offline_venv below: the same
    assert "pip install --no-index --find-links wheelhouse milk-contract pytest-xdist" in page
    # `pip download` fetches no build backend, so the offline install then fails: no doc recommends it
    assert "pip download" not in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "pip download -d wheelhouse ./milk-contract` then" not in page


# -- the installed suite, deep run --------------------------------------------------------------------


def _clean_env(**extra: str) -> dict[str, str]:
    """This environment without what would make the child see the checkout or this run's settings."""
    drop = ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "MILK_CONTRACT_EMITTER", "MILK_CONTRACT_SURFACE_ROOT",
            "HYPOTHESIS_PROFILE", "VIRTUAL_ENV")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(extra)
    return env


def _offline_venv(where: Path) -> Path:
    """A fresh virtualenv with milk-contract installed offline from a wheelhouse, as docs/milk-ci.md says."""
    wheelhouse = where / "wheelhouse"
    # filling the wheelhouse is the online step: pip as this machine configures it
    filled = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "-w", str(wheelhouse), str(ROOT),
                             "pytest-xdist"], cwd=where, env=_clean_env(), capture_output=True, text=True,
                            timeout=900, check=False)
    assert filled.returncode == 0, filled.stdout + filled.stderr
    assert list(wheelhouse.glob("milk_contract-*.whl"))
    venv = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    # the offline step: no configuration file, no index, no find-links but the wheelhouse
    offline = {k: v for k, v in _clean_env().items() if not k.startswith("PIP_")}
    offline["PIP_CONFIG_FILE"] = os.devnull  # pip then reads no configuration file at all
    installed = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-index",
                                "--find-links", str(wheelhouse), "milk-contract", "pytest-xdist"], cwd=where,
                               env=offline, capture_output=True, text=True, timeout=900, check=False)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    found = subprocess.run([str(venv / "bin" / "python"), "-c", "import contract; print(contract.__file__)"],
                           cwd=where, env=_clean_env(), capture_output=True, text=True, timeout=60, check=True)
    assert Path(found.stdout.strip()).is_relative_to(venv), found.stdout  # the wheel, not this checkout
    return venv


def _milk_repo(venv: Path, folder: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(venv / "bin" / "python"), str(MILK_REPO), "--at", str(folder), *args],
                          cwd=folder.parent, env=_clean_env(**env), capture_output=True, text=True, timeout=900,
                          check=False)


def _assert_clean_pass(done: subprocess.CompletedProcess[str], emitter: str) -> None:
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "warning" not in out.lower(), out  # -W error makes one an error; none is printed either
    summary = [line for line in done.stdout.splitlines() if " passed" in line][-1]
    assert re.fullmatch(r"=* ?\d+ passed, \d+ skipped in [\d.]+s ?=*", summary), summary
    from tests.support.wires import bundled_only

    with bundled_only():  # the installed suite knows the shipped wires, not this session's synthetic one
        shipped = len(all_scenarios())
    assert f"milk-contract: {shipped} golden scenarios run through {emitter}" in out


@pytest.mark.deep
def test_offline_install_then_the_suite_in_a_milk_like_repository(tmp_path: Path) -> None:
    """One test, not three: the wheelhouse and the virtualenv take about a minute, and xdist would
    build a module-scoped fixture once per worker."""
    venv = _offline_venv(tmp_path)
    # the bundled reference emitters
    _assert_clean_pass(_milk_repo(venv, tmp_path / "reference", "-q"), "bundled reference emitters")
    # a build written to the replay contract alone; the header says what runs, the skip how to fuzz
    done = _milk_repo(venv, tmp_path / "replay", "--replay", "-rs")
    _assert_clean_pass(done, "./bin/milk")
    assert "milk-contract: golden scenarios through ./bin/milk; fuzzing: off (--contract-fuzz N)" in done.stdout
    assert "fuzzing is opt-in" in done.stdout
    # near miss: the same build with its result line dropped fails, naming the rule
    broken = _milk_repo(venv, tmp_path / "broken", "--replay", "-q", "-k", "stream-json and hello",
                        MILK_REPLAY_DROP_RESULT="1")
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "sj.result-last" in broken.stdout
    assert "milk-contract: 1 failed: stream-json/hello" in broken.stdout
