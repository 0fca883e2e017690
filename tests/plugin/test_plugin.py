"""The pytest plugin end to end: the shipped suite run against emitters, as milk's CI would.

The first test runs the suite exactly as milk's CI would, every installed pytest plugin loaded.
The others start pytest without hypothesis' plugin (``-p no:hypothesispytest``): it imports
hypothesis at start-up, which is most of a second per run on this machine, and none of these
runs uses hypothesis (the fuzz run still does, through ``contract.live.fuzz``).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from contract import plugin
from contract.plugin.session import startup_problem
from tests.support.depth import sample
from tests.support.paths import TESTS

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

EMITTERS = TESTS / "emitters"
LEAN = ("-p", "no:hypothesispytest")  # see the module docstring


def run_suite(tmp_path: Path, *args: str, lean: bool = True,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``pytest --pyargs contract …`` from a directory that is not the checkout."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--pyargs", "contract.tests.test_emitter", "-p", "no:cacheprovider",
         "-q", *(LEAN if lean else ()), *args],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False, env=env,
    )


def test_faithful_replay_passes(tmp_path: Path) -> None:
    done = run_suite(tmp_path, "-k", "stream-json and (hello or refused)", lean=False)  # as milk's CI would
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout
    assert "milk-contract: 2 golden scenarios run through bundled reference emitters" in done.stdout


def test_contract_basis_reaches_the_scenarios_and_the_summary(tmp_path: Path) -> None:
    done = run_suite(tmp_path, "-k", "stream-json and hello", "--contract-basis", "written")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "milk-contract: judged --contract-basis written only" in done.stdout
    refused = run_suite(tmp_path, "--contract-basis", "literal")  # misuse: one line, exit 4
    assert refused.returncode == 4, refused.stdout + refused.stderr
    assert "--contract-basis: unknown basis 'literal'" in refused.stdout + refused.stderr


@pytest.fixture(scope="module")
def dropped_num_turns(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    """One run of the suite against an emitter that drops result.num_turns, named by the
    environment (three tests read it; --contract-emitter fails a run in the provoke test below)."""
    emitter = shlex.join([sys.executable, str(EMITTERS / "drop_result_field.py"), "num_turns"])
    # as on CI (pytest prints a failure's whole message in its summary there, plugin/failure.py)
    env = {**os.environ, "MILK_CONTRACT_EMITTER": emitter, "CI": "true"}
    return run_suite(tmp_path_factory.mktemp("dropped"), "-k", "stream-json and hello", env=env)


HEADER = "milk-contract: golden scenarios through"


def _pytest_in(folder: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """pytest in ``folder`` (no -q: the header is shown), its output."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *LEAN, *args], cwd=folder,
                          capture_output=True, text=True, timeout=300, check=False, env=env)
    return done.stdout + done.stderr


def test_the_header_shows_only_in_a_contract_run(tmp_path: Path) -> None:
    """The plugin is loaded by every pytest run where milk-contract is installed: another project's
    run gets no milk-contract header; a run with a --contract-* option, or that names the suite, does."""
    (tmp_path / "test_other.py").write_text("def test_other():\n    assert True\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "MILK_CONTRACT_EMITTER"}
    other = _pytest_in(tmp_path, env=env)
    assert "1 passed" in other
    assert HEADER not in other
    assert "milk-contract:" not in other
    suite = Path(plugin.__file__).parents[1] / "tests"
    # each way of making a contract run in the deep run; in the default run an option, the emitter's
    # variable and a path naming the suite (tests/support/depth.py)
    for args, extra in sample([(("--contract-timeout", "30"), {}), (("--contract-provoke", "--co"), {}),
                               ((), {"MILK_CONTRACT_EMITTER": f"{sys.executable} -V"}),
                               (("--co", "--pyargs", "contract.tests.test_goldens"), {}),
                               (("--co", f"{suite / 'test_goldens.py'}::test_nothing_here"), {})], 2):
        shown = _pytest_in(tmp_path, *args, env={**env, **extra})
        assert HEADER in shown, (args, extra, shown)


def test_an_argument_names_the_suite_in_it_or_above_it_unless_pytest_skips_a_folder_on_the_way(
        tmp_path: Path, pytestconfig: pytest.Config) -> None:
    """Above the suite, pytest's own rule decides (here: a virtualenv is not recursed into), as a
    milk repository with milk-contract installed in its .venv runs `pytest` with no arguments."""
    def ignored(folder: Path) -> bool:
        return pytestconfig.hook.pytest_ignore_collect(collection_path=folder, config=pytestconfig) is True

    venv = tmp_path / "proj" / ".venv"
    in_venv = venv / "lib" / "site-packages" / "contract" / "tests"
    vendored = tmp_path / "proj" / "vendor" / "contract" / "tests"
    for folder in (in_venv, vendored):
        folder.mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    assert not plugin.names_the_suite("proj", tmp_path, False, ignored, suite=in_venv)
    assert plugin.names_the_suite("proj", tmp_path, False, ignored, suite=vendored)
    assert plugin.names_the_suite(f"{in_venv}/test_x.py::test_y", tmp_path, False, ignored, suite=in_venv)
    assert plugin.names_the_suite(str(in_venv), tmp_path, False, ignored, suite=in_venv)
    assert not plugin.names_the_suite("proj/vendor/other", tmp_path, False, ignored, suite=vendored)
    for name, named in [("contract", True), ("contract.tests", True), ("contract.tests.test_emitter::x", True),
                        ("contract.testsuite", False), ("contractual", False), ("other.contract.tests", False)]:
        assert plugin.names_the_suite(name, tmp_path, True, ignored, suite=vendored) is named, name
    assert not plugin.names_the_suite("contract", tmp_path, False, ignored, suite=vendored)  # a path then


def test_dropped_result_field_fails_and_names_it(dropped_num_turns: subprocess.CompletedProcess[str]) -> None:
    done = dropped_num_turns
    assert done.returncode == 1, done.stdout + done.stderr
    assert "/num_turns" in done.stdout
    assert "breaking removed" in done.stdout
    assert "milk-contract: 1 failed: stream-json/hello" in done.stdout


def test_emitter_from_the_environment(dropped_num_turns: subprocess.CompletedProcess[str]) -> None:
    # the bundled emitter passes this scenario (test_faithful_replay_passes): the failure is the
    # environment's emitter
    assert dropped_num_turns.returncode == 1
    assert "/num_turns" in dropped_num_turns.stdout


def test_an_emitter_that_cannot_start_is_one_usage_error(tmp_path: Path) -> None:
    """Fail fast: exit 4 with one line at session start, not one failure per golden scenario."""
    done = run_suite(tmp_path, "--contract-emitter", "./no-such-milk --flag")
    assert done.returncode == 4, done.stdout + done.stderr
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert lines == ["ERROR: --contract-emitter: cannot start './no-such-milk': no such file"]


@pytest.mark.parametrize(("emitter", "problem"), [('"unclosed', "cannot parse"), ("", "empty command"),
                                                  ("  ", "empty command")])
def test_an_unparsable_or_empty_emitter_is_one_usage_error(emitter: str, problem: str) -> None:
    """The same check as the emitter that cannot start (whose test above runs pytest end to end,
    exit 4 and one line): here in this process, one line naming what is wrong."""
    found = startup_problem(emitter, record=False)
    assert found is not None
    assert found.startswith("--contract-emitter: ")
    assert problem in found
    assert "\n" not in found
    assert startup_problem(f"{sys.executable} -V", record=False) is None  # near miss: a command that starts


def test_failure_shows_the_finding_and_the_line_not_reprs(dropped_num_turns: subprocess.CompletedProcess[str]) -> None:
    done = dropped_num_turns
    assert done.returncode == 1, done.stdout + done.stderr
    assert "line 3 /num_turns: breaking removed" in done.stdout
    for noise in ("Report(", "ScenarioRun(", "Comparison(", "Difference(", "line None", " at -", "ContractFailed"):
        assert noise not in done.stdout
    assert done.stdout.count("line 3 /num_turns: breaking removed") == 1  # the explanation once, even on CI
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    assert failed == ["FAILED ::test_scenario[stream-json/hello] - "
                      "stream-json/hello: the build changed the stream: 1 breaking difference from its golden, "
                      "first at line 3"], done.stdout
    # a build's regression under the schema the golden was recorded under: no ADR advice (issue 47)
    assert "the build changed the stream, first at line 3 (removed)" in done.stdout
    assert "no ADR changed the wire" in done.stdout
    assert "evolve --accept" not in done.stdout


def _run_live(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--pyargs", "contract.tests.test_live_fuzz", "-p", "no:cacheprovider",
         "-q", *LEAN, *args],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )


def test_contract_provoke_catches_colour_only_on_a_terminal(tmp_path: Path) -> None:
    emitter = shlex.join([sys.executable, str(TESTS / "faulty_emitters" / "tty_colour.py")])
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


def test_contract_late_grace_reaches_the_scenarios(tmp_path: Path) -> None:
    """A build that leaves a child holding stdout fails with run.stdout-held after the plugin's grace."""
    emitter = shlex.join([sys.executable, str(EMITTERS / "leaves_child.py")])
    done = run_suite(tmp_path, "-k", "stream-json and hello", "--contract-emitter", emitter,
                     "--contract-late-grace", "0.2")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "run.stdout-held" in done.stdout
    assert "within 0.2s of its exit" in done.stdout


def _run_consumer(tmp_path: Path, consumer: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--pyargs", "contract.tests.test_consumer", "-p", "no:cacheprovider",
         "-q", *LEAN, "-k", "hello", "--contract-consumer", consumer, "--contract-consumer-examples", "3"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )


def test_contract_consumer_feeds_goldens_and_future_variants(tmp_path: Path) -> None:
    strict = _run_consumer(tmp_path, shlex.join([sys.executable, "-m", "contract.reference.strict_consumer"]))
    assert strict.returncode == 1, strict.stdout + strict.stderr
    assert "consumer.crash" in strict.stdout
    assert "failing stream: hello+" in strict.stdout
    reference = _run_consumer(tmp_path, shlex.join([sys.executable, "-m", "contract.reference.stream_json_consumer"]))
    assert reference.returncode == 0, reference.stdout + reference.stderr
    assert "1 passed" in reference.stdout  # not skipped: the option was given


def test_snapshot_update_is_refused_for_an_installed_copy_only(monkeypatch: pytest.MonkeyPatch,
                                                                pytestconfig: pytest.Config) -> None:
    """--snapshot-update from site-packages rewrote the installed package's own snapshots (a second
    outside review: the next run failed until a reinstall); from a checkout it is the ADR walk's step."""
    from contract.core import resources

    class Option:
        update_snapshots = True

    class Config:
        option = Option()
        getoption = pytestconfig.getoption
        args = ("--pyargs", "contract")
        invocation_params = pytestconfig.invocation_params

    monkeypatch.setattr(plugin, "uses_the_suite", lambda _config: True)
    monkeypatch.setattr(resources, "installed_copy", lambda: True)
    problem = plugin._snapshot_update_problem(Config())  # type: ignore[arg-type]  # a stand-in with what the check reads
    assert problem is not None
    assert problem.startswith("--snapshot-update would write into the installed milk-contract")
    monkeypatch.setattr(resources, "installed_copy", lambda: False)
    assert plugin._snapshot_update_problem(Config()) is None  # type: ignore[arg-type]  # a stand-in with what the check reads
    monkeypatch.setattr(resources, "installed_copy", lambda: True)
    Option.update_snapshots = False
    assert plugin._snapshot_update_problem(Config()) is None  # type: ignore[arg-type]  # a stand-in with what the check reads


def test_a_run_stopped_by_x_gives_no_snapshot_update_advice(tmp_path: Path) -> None:
    """-x leaves tests unrun; syrupy counted their snapshots unused and advised --snapshot-update."""
    broken = tmp_path / "broken"
    broken.write_text('#!/bin/sh\nhead -n 2 "$MILK_CONTRACT_GOLDEN"\n', encoding="utf-8")
    broken.chmod(0o755)
    shown = _pytest_in(tmp_path, "-q", "-x", "-p", "no:randomly", "--pyargs", "contract", "--contract-emitter",
                       str(broken))
    assert "failed" in shown
    assert "Re-run pytest with --snapshot-update" not in shown, shown[-2000:]
    assert "stopped early (a signal, -x or --maxfail)" in shown
