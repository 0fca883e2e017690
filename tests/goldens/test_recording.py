"""Re-recording as a person runs it: where it writes, what it leaves alone, how it fails.

- A real ``pip install .`` (non-editable, built once by hatchling with no index) then ``record``
  outside a checkout: exit 2 with one line, site-packages untouched; with ``--goldens`` or from
  inside a checkout it records there.
- A checkout (the ``pip install -e .`` case: the package imported from the tree) under git:
  ``record`` against the faithful replay leaves ``git status`` clean; an emitter adding one
  optional field changes exactly the lines that carry it, and the metas name the emitter with
  no absolute path.
- An emitter that cannot start, hangs or crashes: one line, exit 2, under ``--dry-run`` too;
  never "line None" or "at -". These call the verb in this process (``contract.cli.run``): what
  they prove is the verb's, and the installed-copy and checkout tests above run it end to end.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from contract import cli
from contract.goldens import recording
from contract.goldens.store import goldens_dir
from tests.support.paths import TESTS
from tests.support.project_copy import ROOT, copy_project, git

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

EMITTERS = TESTS / "emitters"
ADD_FIELD = EMITTERS / "add_result_field.py"
PY = sys.executable


def _tree(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _git(cwd: Path, *args: str) -> str:
    return git(cwd, *args)


def _cli(*args: str, cwd: Path, pythonpath: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    return subprocess.run([PY, "-m", "contract", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the project's files, committed in a git repository of its own."""
    return copy_project(tmp_path_factory.mktemp("checkout") / "milk-contract")


# -- where ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package as `pip install .` lays it out (a real, non-editable install into a target folder)."""
    pytest.importorskip("hatchling", reason="the offline build needs hatchling (the test extra)")
    site = tmp_path_factory.mktemp("site")
    done = subprocess.run([PY, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                           "--target", str(site), str(ROOT)], capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert (site / "contract" / "_data" / "goldens").is_dir()
    return site


def test_installed_copy_outside_a_checkout_refuses_to_record(installed: Path, tmp_path: Path) -> None:
    before = _tree(installed)
    done = _cli("record", "--scenario", "hello", cwd=tmp_path, pythonpath=installed)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1
    assert "installed copy" in done.stderr
    assert "--goldens DIR" in done.stderr
    assert "Traceback" not in done.stderr
    assert _tree(installed) == before  # site-packages untouched


def test_installed_copy_records_into_the_checkout_it_runs_in(installed: Path, checkout: Path) -> None:
    """Near miss: the same installed copy, run inside a checkout, records there (and nothing changes)."""
    before = _tree(installed)
    done = _cli("record", "--wire", "stream-json", "--scenario", "hello", "--", PY, str(ADD_FIELD),
                cwd=checkout / "goldens", pythonpath=installed)
    try:
        assert done.returncode == 0, done.stdout + done.stderr
        assert _git(checkout, "status", "--porcelain").split() == [
            "M", "goldens/stream-json/hello.jsonl", "M", "goldens/stream-json/hello.meta.json"]
        assert _tree(installed) == before
    finally:
        _git(checkout, "checkout", "--", ".")


def test_goldens_option_names_the_folder(installed: Path, tmp_path: Path) -> None:
    folder = tmp_path / "goldens"
    shutil.copytree(goldens_dir(), folder)
    before = _tree(installed)
    done = _cli("record", "--goldens", str(folder), "--wire", "stream-json", "--scenario", "hello", "--",
                PY, str(ADD_FIELD), cwd=tmp_path, pythonpath=installed)
    assert done.returncode == 0, done.stdout + done.stderr
    assert b"total_cost_usd" in (folder / "stream-json" / "hello.jsonl").read_bytes()
    assert _tree(installed) == before


def _fake_checkout(folder: Path) -> Path:
    """Another clone as record recognises one: this project's pyproject.toml and a goldens folder."""
    (folder / "goldens").mkdir(parents=True)
    shutil.copy(ROOT / "pyproject.toml", folder / "pyproject.toml")
    return folder


def test_record_run_inside_another_checkout_names_its_folder_and_warns(checkout: Path, tmp_path: Path) -> None:
    """An editable install (the package imported from `checkout`) run inside another clone writes its own
    goldens: it says so, names the folder, and gives a review command that shows them from here."""
    other = _fake_checkout(tmp_path / "other-clone")
    done = _cli("record", "--wire", "stream-json", "--scenario", "hello", cwd=other, pythonpath=checkout)
    assert done.returncode == 0, done.stdout + done.stderr
    goldens = str((checkout / "goldens").resolve())
    [warning] = done.stderr.splitlines()
    assert warning.startswith(f"warning: recording into {goldens}, ")
    assert f"not of {other.resolve()}, the checkout the working directory is in" in warning
    assert f"--goldens {other.resolve() / 'goldens'}" in warning
    assert f"goldens: {goldens}; review with git -C {goldens} diff -- ." in done.stdout


def test_record_run_inside_its_own_checkout_does_not_warn(checkout: Path) -> None:
    """Near miss: run from its own checkout, no warning, and the review command is the short one."""
    done = _cli("record", "--wire", "stream-json", "--scenario", "hello", cwd=checkout, pythonpath=checkout)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == ""
    assert f"goldens: {(checkout / 'goldens').resolve()}; review with git diff -- goldens/," in done.stdout


def _plugin_record(cwd: Path, pythonpath: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``pytest --contract-record`` on one scenario, the package imported from ``pythonpath``."""
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    env.pop("MILK_CONTRACT_EMITTER", None)
    return subprocess.run([PY, "-m", "pytest", "--pyargs", "contract.tests.test_emitter", "-p", "no:cacheprovider",
                           "-p", "no:randomly", "-k", "stream-json and hello", "--contract-record", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.deep  # 12 s: a whole pytest run in a second checkout; the verb's warning is tested by default
def test_plugin_record_inside_another_checkout_warns_as_the_verb_does(checkout: Path, tmp_path: Path) -> None:
    """`pytest --contract-record` writes the goldens of the checkout it is imported from: run inside
    another clone, it says so with the verb's own warning, before recording and again at the end
    (the header is not shown under -q). From its own checkout it does not."""
    other = _fake_checkout(tmp_path / "other-clone")
    done = _plugin_record(other, checkout)
    assert done.returncode == 0, done.stdout + done.stderr
    goldens = (checkout / "goldens").resolve()
    shown, again = [line for line in done.stdout.splitlines() if line.startswith("warning: recording into")]
    assert shown == again
    assert done.stdout.index(shown) < done.stdout.index("collected")  # in the header, before any scenario
    assert shown.startswith(f"warning: recording into {goldens}, the goldens of the checkout this milk-contract "
                            f"runs from, not of {other.resolve()}, the checkout the working directory is in ")
    assert f"(for that one: milk-contract record --goldens {other.resolve() / 'goldens'}, or its own" in shown
    assert "milk-contract: re-recorded stream-json/hello: no differences" in done.stdout
    assert [line for line in _plugin_record(other, checkout, "-q").stdout.splitlines()
            if line.startswith("warning: ")] == [shown]  # under -q: in the summary
    near_miss = _plugin_record(checkout, checkout)
    assert near_miss.returncode == 0, near_miss.stdout + near_miss.stderr
    assert "warning" not in near_miss.stdout + near_miss.stderr
    assert _git(checkout, "status", "--porcelain") == ""


def test_goldens_option_must_be_a_folder(tmp_path: Path) -> None:
    with pytest.raises(recording.RecordingError, match="not a folder"):
        recording.target(tmp_path / "absent")


# -- idempotent ----------------------------------------------------------------------------------


def test_faithful_replay_leaves_git_status_clean(checkout: Path) -> None:
    done = _cli("record", cwd=checkout, pythonpath=checkout)
    assert done.returncode == 0, done.stdout + done.stderr
    # every golden of the checkout's corpus, counted from it (an ADR's new scenario is one more)
    assert done.stdout.count(": unchanged: no differences") == len(recording.all_in(checkout / "goldens"))
    assert _git(checkout, "status", "--porcelain") == ""


def test_one_optional_field_changes_exactly_the_lines_that_carry_it(checkout: Path) -> None:
    emitter = os.path.relpath(ADD_FIELD, checkout)  # as a person would type it
    done = _cli("record", "--wire", "stream-json", "--", PY, str(ADD_FIELD), cwd=checkout, pythonpath=checkout)
    try:
        assert done.returncode == 0, done.stdout + done.stderr
        numstat = [row.split("\t") for row in _git(checkout, "diff", "--numstat").splitlines()]
        transcripts = {path: (added, removed) for added, removed, path in numstat if path.endswith(".jsonl")}
        # one per stream-json golden of the corpus (each has its one result line)
        assert len(transcripts) == len(recording.scenarios_in(checkout / "goldens", "stream-json"))
        for path in transcripts:
            old = _git(checkout, "show", f"HEAD:{path}").splitlines()
            new = (checkout / path).read_text(encoding="utf-8").splitlines()
            assert len(old) == len(new)
            changed = [(a, b) for a, b in zip(old, new, strict=True) if a != b]
            assert len(changed) == sum(1 for line in old if json.loads(line).get("type") == "result") == 1
            before, after = changed[0]
            assert after == before[:-1] + ',"total_cost_usd":0.0123}'  # stored volatile values kept
        meta = json.loads((checkout / "goldens" / "stream-json" / "hello.meta.json").read_text())
        label = meta["provenance"]["recorded"]["emitter"]
        assert not any(os.path.isabs(word) for word in label.split()), label
        assert label.endswith(emitter.split("/", 1)[-1] if emitter.startswith("..") else emitter) or \
            label.endswith("add_result_field.py")
        # the subagent-stdio goldens were not run: untouched
        assert not any(p.startswith("goldens/subagent-stdio") for *_, p in numstat)
    finally:
        _git(checkout, "checkout", "--", ".")


def test_emitter_label_has_no_absolute_path(tmp_path: Path) -> None:
    inside = tmp_path / "bin" / "milk"
    assert recording.emitter_label([str(inside), "--x"], tmp_path) == "bin/milk --x"
    assert recording.emitter_label(["/opt/elsewhere/milk"], tmp_path) == "milk"
    assert recording.emitter_label(["./milk", "-v"], tmp_path) == "./milk -v"  # near miss: kept as given
    assert recording.emitter_label(None, tmp_path) == "bundled reference emitter"


def test_a_merge_that_would_not_be_sound_writes_the_run_itself() -> None:
    """Stored lines kept where a line moved would break seq: the merge falls back to the run's bytes."""
    golden = (goldens_dir() / "stream-json" / "hello.jsonl").read_bytes()
    lines = golden.splitlines(keepends=True)
    # the run drops the assistant line: the result's seq shifts, so its stored bytes cannot be kept
    actual = lines[0] + lines[2].replace(b'"seq":3', b'"seq":2')
    merged = recording.merge(golden, actual, "stream-json")
    assert merged == actual


# -- harness failures ----------------------------------------------------------------------------


HANG = "import time; time.sleep(60)"
CRASH = "import sys; sys.stderr.write('boom\\n'); sys.exit(3)"
# the hanging emitter writes nothing, so a short timeout loses no output: it only has to pass
TIMEOUT = "0.5"


def _record(args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
            cwd: Path) -> tuple[int, str, str]:
    """``milk-contract record ARGS`` run in this process from ``cwd``: exit code, stdout, stderr."""
    monkeypatch.chdir(cwd)
    code = cli.run(["record", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("dry", [False, True], ids=["record", "dry-run"])
@pytest.mark.parametrize(("emitter", "rule"), [
    (["./no-such-milk"], "run.start"),
    ([PY, "-c", HANG], "run.timeout"),
    ([PY, "-c", CRASH], "run.exit-status"),
], ids=["cannot-start", "hangs", "crashes"])
def test_harness_failure_is_one_line_and_exit_2(emitter: list[str], rule: str, dry: bool, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "goldens"
    shutil.copytree(goldens_dir(), folder)
    before = _tree(folder)
    code, out, err = _record(["--goldens", str(folder), "--wire", "stream-json", "--scenario", "hello",
                              "--timeout", TIMEOUT, *(["--dry-run"] if dry else []), "--", *emitter],
                             capsys, monkeypatch, tmp_path)
    assert code == 2, out + err
    *tail, last = err.splitlines()
    assert rule in last
    assert "golden kept" in last
    # before the one-line error, what the emitter said on stderr, as `run` shows it (nothing when silent)
    assert tail == (["emitter stderr:", "  | boom"] if emitter[-1] == CRASH else []), err
    assert out == ""  # no diff was reported
    for noise in ("line None", "at -", "Traceback", "missing line"):
        assert noise not in out + err
    assert _tree(folder) == before


def test_a_real_finding_is_still_a_finding(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Near miss: an emitter that ran and dropped a field is a diff (exit 1), not a harness error."""
    folder = tmp_path / "goldens"
    shutil.copytree(goldens_dir(), folder)
    code, out, err = _record(["--goldens", str(folder), "--wire", "stream-json", "--scenario", "hello", "--dry-run",
                              "--", PY, str(EMITTERS / "drop_result_field.py"), "num_turns"],
                             capsys, monkeypatch, tmp_path)
    assert code == 1, out + err
    assert "would change" in out
    assert "/num_turns" in out
    assert err == ""


def test_a_folder_with_no_golden_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """``record --goldens EMPTYDIR`` once printed nothing and exited 0: re-recording nothing is no success."""
    empty = tmp_path / "emptydir"
    empty.mkdir()
    code, out, err = _record(["--goldens", str(empty)], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "no golden to record in this folder" in err
    code, _, err = _record(["--goldens", str(empty), "--wire", "subagent-stdio"], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert "no golden of the subagent-stdio wire to record" in err


# -- a regression told apart from a wire change (issue 47) ------------------------------------------

ONE_LINE = EMITTERS / "one_line_more_or_less.py"


@pytest.mark.parametrize(("how", "change", "line"), [("banner", "extra line", 1), ("extra", "extra line", 2),
                                                      ("drop", "missing line", 2)])
def test_one_line_more_or_less_is_one_finding_and_the_builds(how: str, change: str, line: int, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A build that prints a banner, one line more or one line fewer changed the stream under the schema
    its goldens were recorded under: one difference (not a /seq change for every later line), said to
    be the build's, with no advice to accept it as a wire change (``evolve --accept``)."""
    folder = tmp_path / "goldens"
    shutil.copytree(goldens_dir(), folder)
    code, out, err = _record(["--goldens", str(folder), "--wire", "stream-json", "--scenario", "tool_calls",
                              "--dry-run", "--", PY, str(ONE_LINE), how], capsys, monkeypatch, tmp_path)
    assert code == 1, out + err
    assert "would change: 1 breaking, 0 additive differences" in out, out
    assert f"the build changed the stream, first at {'golden ' if how == 'drop' else ''}line {line} ({change})" in out
    assert "/seq" not in out
    assert "a regression to fix in the build, not a wire change to accept" in out
    assert "evolve --accept" not in out


def _evolved_checkout(tmp_path: Path) -> Path:
    """A checkout whose stream-json schema is no longer the one its goldens were recorded under (r1's)."""
    checkout = tmp_path / "checkout"
    for part in ("goldens", "requirements"):
        shutil.copytree(ROOT / part, checkout / part)
    schema = json.loads((ROOT / "schemas" / "stream-json.schema.json").read_text(encoding="utf-8"))
    schema["description"] += " (evolved)"
    (checkout / "schemas").mkdir()
    (checkout / "schemas" / "stream-json.schema.json").write_text(json.dumps(schema), encoding="utf-8")
    return checkout


def test_a_change_under_another_schema_names_evolve_accept(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Near miss: the checkout's schema is no longer the one its goldens were recorded under (the first
    revision's, r1, for a meta that names none) and the build writes a kind of line the golden does not
    show: that may be the line kind an ADR added, so the advice is to record again."""
    checkout = _evolved_checkout(tmp_path)
    code, out, err = _record(["--goldens", str(checkout / "goldens"), "--wire", "stream-json", "--scenario",
                              "tool_calls", "--dry-run", "--", PY, str(ONE_LINE), "new-kind"], capsys, monkeypatch,
                             tmp_path)
    assert code == 1, out + err
    assert "the schema in force is not the one stream-json/tool_calls was recorded under" in out, out
    assert "if an ADR added it, record again" in out
    assert "a regression" not in out


def test_a_member_lost_after_an_additive_adr_is_the_builds(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The schema changed, but no accepted break names num_turns: an additive ADR explains no member lost,
    so a build that drops it regressed (an ADR walk found every later regression told "evolve --accept")."""
    checkout = _evolved_checkout(tmp_path)
    code, out, err = _record(["--goldens", str(checkout / "goldens"), "--wire", "stream-json", "--scenario", "hello",
                              "--dry-run", "--", PY, str(EMITTERS / "drop_result_field.py"), "num_turns"],
                             capsys, monkeypatch, tmp_path)
    assert code == 1, out + err
    assert "a regression to fix in the build, not a wire change to accept" in out, out
    assert "evolve --accept" not in out


@pytest.mark.parametrize("odd", [[], {}, 1, None])
def test_a_line_of_an_odd_type_is_judged_without_a_crash(odd: object) -> None:
    """An extra or missing line whose type is no string (a list, an object) is no ADR's change, and no crash
    (``record`` raised "unhashable type" on {"type": []} after an ADR)."""
    from contract.goldens.compare import Difference
    from contract.goldens.scenarios import _an_adrs

    for change, side in (("extra line", "actual"), ("missing line", "golden")):
        line = {"type": odd}
        if side == "actual":
            difference = Difference("breaking", change, None, 1, "", actual=line)
        else:
            difference = Difference("breaking", change, 1, None, "", golden=line)
        assert _an_adrs(difference, {"result"}, frozenset({"result"})) is False


@pytest.mark.parametrize("how", ["banner", "extra", "drop"])
def test_a_line_more_or_less_is_the_builds_under_an_evolved_schema_too(
        how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """After an ADR took a schema in, a banner, a second line of a kind the golden shows or a line left out
    of a kind the schema still knows is no wire change the ADR decided: still the build's regression
    (found by the ADR walk space: every walk's recording tests said "evolve --accept" for a banner)."""
    checkout = _evolved_checkout(tmp_path)
    code, out, err = _record(["--goldens", str(checkout / "goldens"), "--wire", "stream-json", "--scenario",
                              "tool_calls", "--dry-run", "--", PY, str(ONE_LINE), how], capsys, monkeypatch, tmp_path)
    assert code == 1, out + err
    assert "a regression to fix in the build, not a wire change to accept" in out, out
    assert "evolve --accept" not in out


def test_the_plugins_failure_report_tells_a_regression_too() -> None:
    """What the pytest plugin fails a scenario with (its headline and report, ScenarioRun): the
    build's changed stream with its first differing line, and no ADR advice under the same schema."""
    from contract.goldens.scenarios import run_scenario
    from contract.goldens.store import load

    # hello streams no delta: dropping its line 2 leaves a conformant stream (tool_calls' line 2 is a text
    # delta, whose loss sj.delta-reassembly finds: a finding, not a difference)
    run_ = run_scenario(load("stream-json", "hello"), [PY, str(ONE_LINE), "drop"], timeout=60)
    assert run_.headline() == ("stream-json/hello: the build changed the stream: 1 breaking difference from its "
                               "golden, first at line 2")
    report = run_.explain()
    assert "  the build changed the stream, first at golden line 2 (missing line)\n" in report
    assert "no ADR changed the wire" in report
    assert "evolve --accept" not in report
