"""Live runs and recording fail closed: no crash, timeout, escaped descendant or Ctrl-C passes.

Issue 11, the live half. A reader or judge that did not finish gives ``checker.internal`` (with
the findings before it), never an empty conformant report; a ``setsid`` grandchild holding
stdout is found (the harness is a child subreaper) and killed without losing findings; Ctrl-C
is ``run.interrupted`` and exit 130 with what was seen; ``record`` writes a golden only from a
complete, conformant run, atomically. Every test is bounded in time and checks that no process
carrying its marker is left (the ``marker`` fixture).
"""

from __future__ import annotations

import _thread
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from contract import cli
from contract.core.reader import Record
from contract.goldens import rewrite as golden_rewrite
from contract.goldens import store as goldens
from contract.live.driver import converse
from contract.live.harness import GRACE_SECONDS, TOKEN_VARIABLE, Interrupted, run_stream
from contract.rules.report import Collector
from contract.wires.stream_json.machines import StreamRules
from contract.wires.subagent_stdio.machines import Correlation
from tests.live.test_misbehaving_emitters import EMITTERS, HOSTS, SLACK, marker, survivors
from tests.support.paths import TESTS
from tests.support.processes import zombie_children

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

__all__ = ["marker"]  # the fixture, imported for its teardown check

PY = sys.executable
ODD_LINES = ('{"type":[]}', '{"type":{}}', '{"type":"result","subtype":["success"]}',
             '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":[]}]}}')


def _faulty_feed(cls: type[Any], at_line: int) -> Callable[..., None]:
    """A machine's feed that raises on ``at_line`` (a stand-in for any bug in a rule machine)."""
    original = cls.feed

    def feed(self: Any, record: Record, out: Collector) -> None:
        if record.line == at_line:
            raise TypeError("unhashable type: 'list' (injected)")
        original(self, record, out)

    return feed


@pytest.fixture
def tmp_goldens(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the golden corpus that ``record`` rewrites instead of the checkout's."""
    folder = tmp_path / "goldens"
    shutil.copytree(goldens.goldens_dir(), folder)
    monkeypatch.setattr(goldens, "goldens_dir", lambda: folder)
    return folder


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# -- a reader or judge that did not finish ------------------------------------------------------


@pytest.mark.parametrize("line", ODD_LINES)
def test_an_odd_line_fails_the_live_run(line: str, marker: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.run(["run", "--timeout", "20", "--format", "json", "--", PY, str(EMITTERS / "odd_line.py"),
                    marker, line])
    report = json.loads(capsys.readouterr().out)
    assert code == 1, report
    assert not report["conformant"]
    assert report["lines"] > 0
    assert report["counts"]


def test_a_machine_that_raises_is_checker_internal_with_the_findings_before_it(
        marker: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(StreamRules, "feed", _faulty_feed(StreamRules, 4))
    began = time.monotonic()
    code = cli.run(["run", "--timeout", "20", "--format", "json", "--", PY, str(EMITTERS / "odd_line.py"),
                    marker, "{}"])
    report = json.loads(capsys.readouterr().out)
    assert time.monotonic() - began < 10
    assert code == 1
    assert any(v["rule"] == "sj.schema" and v["line"] == 2 for v in report["violations"])  # before the fault
    [fault] = [v for v in report["violations"] if v["rule"] == "checker.internal"]
    assert fault["line"] == 4
    assert "TypeError" in fault["message"]
    assert "injected" in fault["message"]


def test_checker_internal_cannot_be_ignored(marker: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(StreamRules, "feed", _faulty_feed(StreamRules, 1))
    argv = [PY, str(EMITTERS / "odd_line.py"), marker, "{}"]
    with pytest.raises(ValueError, match="cannot be ignored"):  # refused before the emitter starts
        run_stream(argv, timeout=20, ignore=["checker.internal", "sj.schema"])
    report = run_stream(argv, timeout=20, ignore=["sj.schema"])
    assert "checker.internal" in report.counts
    assert not report.conformant


def test_a_near_miss_without_a_fault_stays_conformant(marker: str) -> None:
    report = run_stream([PY, str(EMITTERS / "writes_after_result.py"), marker], timeout=20)
    assert "checker.internal" not in report.counts
    # a child that closes stdout within the late grace, writing nothing: no finding
    report = run_stream([PY, str(EMITTERS / "late_child.py"), marker, "close"], timeout=20)
    assert report.conformant, report.counts


def test_a_host_judge_that_raises_is_checker_internal(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(Correlation, "feed", _faulty_feed(Correlation, 2))
    code = cli.run(["run", "--wire", "subagent-stdio", "--timeout", "20", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    [fault] = [v for v in report["violations"] if v["rule"] == "checker.internal"]
    assert "injected" in fault["message"]


# -- descendants that leave the process group -----------------------------------------------


@pytest.mark.parametrize("mode", ["exit", "hang"])
def test_a_setsid_grandchild_is_killed_and_no_finding_is_lost(mode: str, marker: str, tmp_path: Path) -> None:
    # long enough for the emitter to start, write and fork on a loaded machine (it takes about a
    # tenth of a second idle)
    timeout = 2.0
    pidfile = tmp_path / "grandchild"
    began = time.monotonic()
    report = run_stream([PY, str(EMITTERS / "setsid_child.py"), marker, str(pidfile), mode], timeout=timeout,
                        late_grace=0.2)
    took = time.monotonic() - began
    assert took < timeout + 3, f"took {took:.1f}s"
    assert {"sj.seq-contiguous", "sj.result-last"} <= report.rules(), report.counts
    grandchild = int(pidfile.read_text())
    assert not Path(f"/proc/{grandchild}").exists(), "the grandchild is alive or an unreaped zombie"
    assert not survivors(marker)
    if mode == "hang":
        assert "run.timeout" in report.rules()
        assert report.exit_status == -signal.SIGKILL  # the harness killed the emitter at the timeout
    else:
        assert "run.timeout" not in report.rules()  # the emitter exited: its descendants are reaped
        assert "run.stdout-held" in report.rules()  # after the late grace, the grandchild still held stdout
        assert report.exit_status == 0


@pytest.mark.deep
@pytest.mark.parametrize("script", ["hangs.py", "leaves_child.py", "closes_stdout.py"])
def test_descendants_orphaned_to_us_are_reaped(script: str, marker: str) -> None:
    """As a subreaper we inherit the emitter's orphans: killed, they must not stay our zombies
    (the autouse ``_no_zombies`` check; tests/checking/test_parallel.py also asserts no children at all).

    Deep run only: in the default run the ``marker`` fixture makes the same zombie check after
    tests/live/test_misbehaving_emitters.py runs these three emitters (test_cli_run_reports_a_hung_emitter
    and the cases closes-stdout-keeps-running and leaves-child-holding-stdout)."""
    report = run_stream([PY, str(EMITTERS / script), marker], timeout=1.0)
    assert report.exit_status is not None


def test_every_process_of_a_run_carries_its_token() -> None:
    """The token is how escaped descendants are found: it must reach the emitter's environment."""
    report = run_stream([PY, "-c", f"import os; assert os.environ['{TOKEN_VARIABLE}']; print('x')"],
                        timeout=20, expect_exit=0)
    assert report.exit_status == 0


# -- Ctrl-C ---------------------------------------------------------------------------------


SLEEPER = b"import time; time.sleep(120)"  # the code the emitters' setsid grandchildren run


def _grandchild(marker: str) -> bool:
    """The setsid grandchild carrying ``marker`` runs (so its parent wrote what it writes first)."""
    for pid in survivors(marker):
        try:
            if SLEEPER in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0"):
                return True
        except OSError:
            continue
    return False


def _await_marker(marker: str, proc: subprocess.Popen[bytes], seconds: float = 30.0) -> None:
    """Until the emitter's setsid grandchild runs, then a moment for the CLI to judge the lines
    the emitter wrote before starting it (they are in the pipe already: reading and judging
    three lines takes milliseconds, half a second covers a loaded machine's scheduling)."""
    until = time.monotonic() + seconds
    while not _grandchild(marker):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < until, "the emitter never started its child"
        time.sleep(0.02)
    time.sleep(0.5)


def _interrupt(args: list[str], marker: str, prefix: list[str] | None = None) -> tuple[int, str, str, float]:
    proc = subprocess.Popen([*(prefix or [PY, "-m", "contract"]), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        _await_marker(marker, proc)
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, err = proc.communicate(timeout=10)
        return proc.returncode, out.decode(), err.decode(), time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_ctrl_c_during_a_stream_json_run(marker: str, tmp_path: Path) -> None:
    code, out, err, took = _interrupt(["run", "--timeout", "60", "--format", "json", "--", PY,
                                       str(EMITTERS / "setsid_child.py"), marker, str(tmp_path / "pid"), "hang"],
                                      marker)
    assert code == 130, err
    assert took < GRACE_SECONDS + SLACK
    assert "Traceback" not in err
    report = json.loads(out)
    assert {"run.interrupted", "sj.seq-contiguous"} <= set(report["counts"])
    assert "run.timeout" not in report["counts"]
    assert not report["conformant"]
    assert not survivors(marker)


def test_ctrl_c_during_a_subagent_run(marker: str) -> None:
    code, out, err, took = _interrupt(["run", "--wire", "subagent-stdio", "--timeout", "60", "--format", "json",
                                       "--", PY, str(HOSTS / "hangs_marked.py"), marker], marker)
    assert code == 130, err
    assert took < GRACE_SECONDS + SLACK
    assert "Traceback" not in err
    report = json.loads(out)
    assert "run.interrupted" in report["counts"]
    assert "run.timeout" not in report["counts"]
    assert not survivors(marker)


@pytest.fixture
def library_sigint() -> Iterator[None]:
    """Python's own SIGINT handler, as a library caller's process has: this pytest run is a contract
    run, whose plugin takes SIGINT for the session (contract.core.interrupts) and would stop it."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _ctrl_c_when(ready: Callable[[], bool], seconds: float = 30.0) -> threading.Thread:
    """Ctrl-C in the main thread as soon as ``ready()`` (or after ``seconds``, to stay bounded)."""
    def wait() -> None:
        until = time.monotonic() + seconds
        while not ready() and time.monotonic() < until:
            time.sleep(0.02)
        _thread.interrupt_main()

    thread = threading.Thread(target=wait, daemon=True)
    thread.start()
    return thread


def test_ctrl_c_in_a_library_call_raises_interrupted_with_the_report(
        marker: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, library_sigint: None) -> None:
    """A library caller (or pytest) still sees a KeyboardInterrupt, and can read what was seen."""
    judged = threading.Event()  # the judge has fed line 3 (the repeated seq)
    feed = StreamRules.feed

    def spy(self: StreamRules, record: Record, out: Collector) -> None:
        feed(self, record, out)
        if record.line >= 3:
            judged.set()

    monkeypatch.setattr(StreamRules, "feed", spy)
    ctrl_c = _ctrl_c_when(lambda: judged.is_set() and _grandchild(marker))
    with pytest.raises(Interrupted) as caught:
        run_stream([PY, str(EMITTERS / "setsid_child.py"), marker, str(tmp_path / "pid"), "hang"], timeout=60)
    ctrl_c.join()
    assert isinstance(caught.value, KeyboardInterrupt)
    assert {"run.interrupted", "sj.seq-contiguous"} <= caught.value.report.rules()
    assert not caught.value.report.conformant


def test_ctrl_c_in_a_library_conversation_raises_interrupted(marker: str, library_sigint: None) -> None:
    ctrl_c = _ctrl_c_when(lambda: _grandchild(marker))
    with pytest.raises(Interrupted) as caught:
        converse([PY, str(HOSTS / "hangs_marked.py"), marker], timeout=60)
    ctrl_c.join()
    assert "run.interrupted" in caught.value.report.rules()


# -- record -------------------------------------------------------------------------------------


# re-recording writes only a real change (contract/goldens/recording.py): this emitter makes one
ADD_FIELD = TESTS / "emitters" / "add_result_field.py"
RECORD_SHIM = ("import pathlib, sys; import contract.goldens.store as g; folder = pathlib.Path(sys.argv.pop(1)); "
               "g.goldens_dir = lambda: folder; from contract.cli import main; main()")


@pytest.mark.parametrize("line", ODD_LINES[:2])
def test_record_keeps_the_golden_on_an_odd_line(line: str, marker: str, tmp_goldens: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    before = _snapshot(tmp_goldens)
    code = cli.run(["record", "--wire", "stream-json", "--scenario", "hello", "--timeout", "20", "--",
                    PY, str(EMITTERS / "odd_line.py"), marker, line])
    assert code == 1
    assert "NOT conformant, golden kept" in capsys.readouterr().out
    assert _snapshot(tmp_goldens) == before


def test_record_keeps_the_golden_when_the_judge_raises(tmp_goldens: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """The bundled emitter's hello run is conformant: only the injected fault may stop the rewrite."""
    monkeypatch.setattr(StreamRules, "feed", _faulty_feed(StreamRules, 2))
    before = _snapshot(tmp_goldens)
    code = cli.run(["record", "--wire", "stream-json", "--scenario", "hello", "--timeout", "20"])
    assert code == 1
    assert "checker.internal" in capsys.readouterr().out
    assert _snapshot(tmp_goldens) == before


def test_record_near_miss_rewrites_from_a_conformant_run(tmp_goldens: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    # an emitter with a real (additive) change: an unchanged run leaves the golden untouched
    code = cli.run(["record", "--wire", "stream-json", "--scenario", "hello", "--timeout", "20", "--",
                    PY, str(ADD_FIELD)])
    assert code == 0, capsys.readouterr().out
    meta = json.loads((tmp_goldens / "stream-json" / "hello.meta.json").read_text())
    assert "recorded" in meta["provenance"]
    assert not [p for p in tmp_goldens.rglob("*") if p.name.endswith(golden_rewrite.STAGING_SUFFIX)]


def test_an_interrupted_rewrite_leaves_every_file_whole(tmp_goldens: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = _snapshot(tmp_goldens)

    def interrupted(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    code = cli.run(["record", "--wire", "stream-json", "--scenario", "hello", "--timeout", "20", "--",
                    PY, str(ADD_FIELD)])
    assert code == 130
    assert _snapshot(tmp_goldens) == before  # no half-written golden and no temporary file


@pytest.mark.deep  # record interrupted: tests/core/test_signals.py (SIGTERM); Ctrl-C: the two runs above
def test_ctrl_c_mid_record(marker: str, tmp_path: Path) -> None:
    folder = tmp_path / "goldens"
    shutil.copytree(goldens.goldens_dir(), folder)
    before = _snapshot(folder)
    code, out, err, took = _interrupt(
        ["record", "--wire", "stream-json", "--scenario", "hello", "--timeout", "60", "--",
         PY, str(EMITTERS / "setsid_child.py"), marker, str(tmp_path / "pid"), "hang"],
        marker, prefix=[PY, "-c", RECORD_SHIM, str(folder)])
    assert code == 130, err
    assert took < GRACE_SECONDS + SLACK
    assert "Traceback" not in err
    assert out == ""  # no diff of the partial output: one line naming the rule (docs/adr-walk.md)
    last = err.splitlines()[-1]
    assert "run.interrupted" in last, err
    assert "golden kept" in last, err
    assert _snapshot(folder) == before
    assert not survivors(marker)


@pytest.fixture(autouse=True)
def _no_zombies() -> Iterator[None]:
    """Being a subreaper must not leave zombies in the test process."""
    yield
    zombies = zombie_children()
    assert not zombies, f"zombie children left: {zombies}"
