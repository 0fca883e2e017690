"""SIGTERM and SIGHUP stop a live run as Ctrl-C does, and leave no process behind (issue 20).

CI cancellation and ``timeout`` send SIGTERM; a closed terminal sends SIGHUP. Each test starts
``milk-contract`` (or pytest with the plugin) as a real process on an emitter that hangs with a
child in its process group and a ``setsid`` grandchild outside it, sends it the real signal once
the grandchild runs, and asserts: the exit status 128 + the signal, the report of what was seen
with ``run.interrupted`` naming the signal, and no process left carrying the run's
``MILK_CONTRACT_RUN`` token (read from the grandchild's environment, scanned for in every
``/proc/*/environ``). One test per verb: run (SIGTERM and SIGHUP), record, fuzz, run --provoke
(in a provoked environment, not its first plain run) and the pytest plugin. Then two signals back
to back (the first one's report and status), and the plugin in a milk-like repository
(``tools/milk_repo.py``: ``-W error -n 2``) under SIGINT, SIGTERM and SIGHUP, to the process group
or to pytest alone, with and without xdist.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from contract.core.interrupts import Signalled, as_interrupts
from contract.goldens import store as goldens
from contract.live import process
from contract.live.harness import TOKEN_VARIABLE
from tests.live.test_live_fail_closed import RECORD_SHIM, _snapshot
from tests.live.test_misbehaving_emitters import EMITTERS, marker, survivors

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

__all__ = ["marker"]  # the fixture, imported for its teardown check (no process carries the marker)

PY = sys.executable
HANGS = str(EMITTERS / "hangs_with_descendants.py")


def carrying(token: str) -> list[int]:
    """Live processes whose environment holds this run's token (a zombie's environ reads empty)."""
    needle = f"\0{TOKEN_VARIABLE}={token}\0".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle in b"\0" + (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _token_of(pid: int, seconds: float = 10.0) -> str:
    """The run token in ``pid``'s environment. The grandchild writes its pid file just before it
    execs, and while an exec is under way /proc/PID/environ reads empty (seen once in CI): so read
    again until the token shows, for a bounded while."""
    until = time.monotonic() + seconds
    while True:
        for item in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
            if item.startswith(f"{TOKEN_VARIABLE}=".encode()):
                return item.split(b"=", 1)[1].decode()
        if time.monotonic() >= until:
            raise AssertionError(f"process {pid} carries no {TOKEN_VARIABLE}")
        time.sleep(0.01)


def _grandchild(pidfile: Path, proc: subprocess.Popen[bytes], other_than: int | None = None,
                seconds: float = 60.0) -> int:
    """The pid of the emitter's setsid grandchild once it runs (a new one, with ``other_than``)."""
    until = time.monotonic() + seconds
    while True:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < until, "the emitter never started its grandchild"
        try:
            pid = int(pidfile.read_text())
        except (OSError, ValueError):
            pid = None
        if pid is not None and pid != other_than:
            return pid
        time.sleep(0.02)


def _signal(argv: list[str], pidfile: Path, signum: int, ready: Callable[[subprocess.Popen[bytes]], int] | None = None,
            cwd: Path | None = None) -> tuple[int, str, str, str]:
    """Start ``argv``, send ``signum`` once the grandchild runs; (exit status, stdout, stderr, token)."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
    try:
        pid = ready(proc) if ready is not None else _grandchild(pidfile, proc)
        token = _token_of(pid)
        time.sleep(0.5)  # the lines written before the grandchild started are judged by then
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=30)
        return proc.returncode, out.decode(), err.decode(), token
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _interrupted(messages: list[str], name: str) -> None:
    assert messages, "no run.interrupted finding"
    assert all(f"interrupted ({name})" in message for message in messages), messages


def _no_process_left(token: str) -> None:
    until = time.monotonic() + 2.0  # SIGKILL is asynchronous: give the kernel a moment
    while carrying(token) and time.monotonic() < until:
        time.sleep(0.05)
    assert not carrying(token), f"processes of the run left behind: {carrying(token)}"


# SIGHUP's path in the default run: feed's (test_a_signal_during_feed)
@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143),
                                                pytest.param(signal.SIGHUP, 129, marks=pytest.mark.deep)])
def test_a_signal_during_run_reports_and_leaves_nothing(signum: int, status: int, marker: str,
                                                         tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    code, out, err, token = _signal([PY, "-m", "contract", "run", "--timeout", "60", "--format", "json", "--",
                                     PY, HANGS, marker, str(pidfile)], pidfile, signum)
    assert code == status, err
    assert "Traceback" not in err
    report = json.loads(out)
    assert {"run.interrupted", "sj.seq-contiguous"} <= set(report["counts"])  # what was seen is reported
    assert not report["conformant"]
    _interrupted([v["message"] for v in report["violations"] if v["rule"] == "run.interrupted"],
                 signal.Signals(signum).name)
    _no_process_left(token)
    assert not survivors(marker)


def test_sigterm_during_record_keeps_the_golden(marker: str, tmp_path: Path) -> None:
    folder = tmp_path / "goldens"
    shutil.copytree(goldens.goldens_dir(), folder)
    before = _snapshot(folder)
    pidfile = tmp_path / "pid"
    code, out, err, token = _signal(
        [PY, "-c", RECORD_SHIM, str(folder), "record", "--wire", "stream-json", "--scenario", "hello",
         "--timeout", "60", "--", PY, HANGS, marker, str(pidfile)], pidfile, signal.SIGTERM)
    assert code == 143, err
    assert "Traceback" not in err
    assert out == ""  # no diff of the partial output: one line naming the rule (docs/adr-walk.md)
    last = err.splitlines()[-1]
    assert "run.interrupted" in last, err
    assert "interrupted (SIGTERM)" in last, err
    assert "golden kept" in last, err
    assert _snapshot(folder) == before
    _no_process_left(token)


def test_sigterm_during_fuzz(marker: str, tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    code, out, err, token = _signal([PY, "-m", "contract", "fuzz", "--seed", "1", "--examples", "1", "--timeout",
                                     "60", "--format", "json", "--", PY, HANGS, marker, str(pidfile), "quiet"],
                                    pidfile, signal.SIGTERM)
    assert code == 143, err
    assert "Traceback" not in err
    report = json.loads(out)
    _interrupted([v["message"] for v in report["violations"] if v["rule"] == "run.interrupted"], "SIGTERM")
    _no_process_left(token)


def test_sigterm_during_a_provoked_run(marker: str, tmp_path: Path) -> None:
    """The signal reaches the second run (pipe+colour, where this emitter hangs), after the plain one passed."""
    pidfile = tmp_path / "pid"
    code, out, err, token = _signal([PY, "-m", "contract", "run", "--provoke", "--timeout", "1.5", "--format",
                                     "json", "--", PY, HANGS, marker, str(pidfile), "colour-only"], pidfile,
                                    signal.SIGTERM)
    assert code == 143, err
    assert "Traceback" not in err
    report = json.loads(out)
    [message] = [v["message"] for v in report["violations"] if v["rule"] == "run.interrupted"]
    _interrupted([message], "SIGTERM")
    assert "under pipe+colour" in message
    _no_process_left(token)


@pytest.mark.deep  # the plugin under SIGTERM in the default run: test_sigterm_to_a_milk_repos_xdist_run
def test_sigterm_during_a_plugin_scenario(marker: str, tmp_path: Path) -> None:
    """pytest dies at once on SIGTERM by default: the plugin makes it stop as on Ctrl-C instead."""
    pidfile = tmp_path / "pid"
    emitter = shlex.join([PY, HANGS, marker, str(pidfile)])
    code, out, err, token = _signal(
        [PY, "-m", "pytest", "--pyargs", "contract.tests.test_emitter", "-p", "no:cacheprovider", "-p",
         "no:hypothesispytest", "-q", "-k", "stream-json and hello", "--contract-emitter", emitter],
        pidfile, signal.SIGTERM, cwd=tmp_path)
    assert code == 143, out + err
    assert "run.interrupted" in out
    assert "interrupted (SIGTERM)" in out  # the report of what the run saw, in the summary
    _no_process_left(token)


# -- the mechanism, in this process ---------------------------------------------------------------


def _in_main_thread() -> None:
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers are installed from the main thread only")


def _deliver(signum: int) -> None:
    """Send ``signum`` to this process; the handler runs (and raises) before the pause ends."""
    os.kill(os.getpid(), signum)
    time.sleep(5)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_as_interrupts_raises_once_and_restores_the_handlers(signum: int) -> None:
    _in_main_thread()
    previous = signal.getsignal(signum)
    with as_interrupts() as interrupts:
        with pytest.raises(Signalled) as caught:
            _deliver(signum)
        # the near miss: a second signal, during the cleanup the first started, is only noted
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.05)
    assert caught.value.signum == signum
    assert isinstance(caught.value, KeyboardInterrupt)  # every Ctrl-C cleanup runs for it
    assert interrupts.received == signum
    assert signal.getsignal(signum) == previous
    assert signal.getsignal(signal.SIGTERM) != interrupts._handle


def test_an_interruption_during_the_cleanup_still_kills_everything(marker: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A signal that lands while a finished run is being reaped must not leave its descendants."""
    from contract.live.harness import Process

    def interrupted(self: Process) -> None:
        raise Signalled(signal.SIGTERM)

    proc = Process([PY, str(EMITTERS / "leaves_child.py"), marker])
    proc.wait(30)  # the emitter exits 0; its child holds stdout and sleeps
    monkeypatch.setattr(Process, "reap_group", interrupted)
    with pytest.raises(Signalled):
        proc.close()
    assert proc.popen.returncode == 0
    # the marker fixture: no process carrying the marker is left


def test_the_late_grace_default_is_one_number() -> None:
    """The CLI and the plugin name the harness' default without importing the harness."""
    from contract import cli
    from contract.live import harness
    from contract.plugin import session

    assert cli.LATE_GRACE == session.LATE_GRACE == harness.DEFAULT_LATE_GRACE
    assert cli.build_parser().parse_args(["run"]).late_grace == harness.DEFAULT_LATE_GRACE


def test_a_child_forked_under_as_interrupts_dies_by_the_signal() -> None:
    """The near miss of the mechanism: a forked worker (a process pool's) keeps the default."""
    _in_main_thread()
    with as_interrupts():
        pid = os.fork()
        if pid == 0:  # the child: sleeps until the signal ends it
            try:
                time.sleep(30)
            finally:
                os._exit(0)
        time.sleep(0.2)  # the child is in its sleep (were it not yet, the signal still ends it)
        os.kill(pid, signal.SIGTERM)
        _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status), status
    assert os.WTERMSIG(status) == signal.SIGTERM


def test_an_orphan_caught_mid_exec_is_still_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """While a process execs its environment reads empty for a moment; an orphan reparented to the
    harness (its subreaper) that reads empty is asked again, so the token finds it (CI saw the race)."""
    reads = iter([b"", b"", b"PATH=/bin\0MILK_CONTRACT_RUN=abc\0"])
    monkeypatch.setattr(process, "_environ", lambda pid: next(reads))
    assert process._carries(1234, b"\0MILK_CONTRACT_RUN=abc\0", patient=True)
    reads = iter([b""])
    assert not process._carries(1234, b"\0MILK_CONTRACT_RUN=abc\0")  # a zombie, a kernel thread: asked once


# SIGTERM's path in the default run: run's, record's, fuzz's (above)
@pytest.mark.parametrize(("signum", "name", "code"), [
    pytest.param(signal.SIGTERM, "SIGTERM", 143, marks=pytest.mark.deep), (signal.SIGHUP, "SIGHUP", 129)])
def test_a_signal_during_feed(signum: int, name: str, code: int, marker: str, tmp_path: Path) -> None:
    """feed too takes Ctrl-C's path with the signal's own name and status (it said SIGINT, 130)."""
    pidfile = tmp_path / "pid"
    status, out, err, token = _signal([PY, "-m", "contract", "feed", "--scenario", "hello", "--timeout", "60",
                                       "--format", "json", "--", PY, HANGS, marker, str(pidfile), "quiet"],
                                      pidfile, signum)
    assert status == code, err
    assert "Traceback" not in err
    report = json.loads(out)
    _interrupted([v["message"] for v in report["violations"] if v["rule"] == "run.interrupted"], name)
    _no_process_left(token)


# -- two signals, back to back (the first one's report and status, whatever follows) -------------

PAIRS = [(signal.SIGINT, signal.SIGTERM), (signal.SIGTERM, signal.SIGINT), (signal.SIGTERM, signal.SIGTERM),
         (signal.SIGHUP, signal.SIGINT)]
VERBS = {
    "run": ["run", "--timeout", "60", "--format", "json"],
    "fuzz": ["fuzz", "--seed", "1", "--examples", "1", "--timeout", "60", "--format", "json"],
    "feed": ["feed", "--scenario", "hello", "--timeout", "60", "--format", "json"],
}


def _gone(pid: int, seconds: float = 30.0) -> None:
    """Wait until ``pid`` (the emitter's grandchild) is killed and reaped: the first signal's cleanup runs."""
    until = time.monotonic() + seconds
    while Path(f"/proc/{pid}").exists():
        assert time.monotonic() < until, f"the first signal never ended the run (process {pid} lives)"
        time.sleep(0.002)


def _two_signals(verb: str, first: int, second: int, together: bool, marker: str,
                 tmp_path: Path) -> tuple[int, dict[str, object], str, str]:
    """Start ``milk-contract VERB`` on the hanging emitter, send ``first`` then ``second``: at once
    (``together``), or as soon as the first one's cleanup has killed the emitter's grandchild.
    (exit status, report, stderr, token)."""
    pidfile = tmp_path / "pid"
    quiet = ["quiet"] if verb != "run" else []
    proc = subprocess.Popen([PY, "-m", "contract", *VERBS[verb], "--", PY, HANGS, marker, str(pidfile), *quiet],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        pid = _grandchild(pidfile, proc)
        token = _token_of(pid)
        time.sleep(0.5)  # the lines written before the grandchild started are judged by then
        os.kill(proc.pid, first)
        if not together:
            _gone(pid)
        with contextlib.suppress(ProcessLookupError):  # the run may be over already: then nothing to break
            os.kill(proc.pid, second)
        out, err = proc.communicate(timeout=30)
        return proc.returncode, json.loads(out or b"null"), err.decode(), token
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _named(report: dict[str, object]) -> int:
    """The signal the report's single run.interrupted finding names."""
    assert isinstance(report, dict), "no report on stdout"
    violations = report["violations"]
    assert isinstance(violations, list)
    [message] = [v["message"] for v in violations if v["rule"] == "run.interrupted"]
    [signum] = [s for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP) if f"interrupted ({s.name})" in message]
    return int(signum)


def _pair_cases(verbs: list[str]) -> list[object]:
    cases: list[object] = []
    for verb in verbs:
        for first, second in PAIRS if verb == "run" else PAIRS[:2]:
            slow = not (verb == "run" and first == signal.SIGINT)  # one representative in the default run
            marks = [pytest.mark.deep] if slow else []
            cases.append(pytest.param(verb, first, second, marks=marks,
                                      id=f"{verb}-{signal.Signals(first).name}-{signal.Signals(second).name}"))
    return cases


@pytest.mark.parametrize(("verb", "first", "second"), _pair_cases(["run", "fuzz", "feed"]))
def test_a_second_signal_during_the_cleanup_changes_nothing(verb: str, first: int, second: int, marker: str,
                                                            tmp_path: Path) -> None:
    """The first signal's report and 128 + the first signal: the second lands while the first one's
    cleanup and report run (it broke the cleanup, or killed the process, before)."""
    code, report, err, token = _two_signals(verb, first, second, False, marker, tmp_path)
    assert "Traceback" not in err
    assert _named(report) == first, report
    assert code == 128 + first, err
    _no_process_left(token)


@pytest.mark.parametrize(("verb", "first", "second"), _pair_cases(["run", "fuzz", "feed"]))
def test_two_signals_at_once_report_one_of_them_consistently(verb: str, first: int, second: int, marker: str,
                                                             tmp_path: Path) -> None:
    """Sent back to back, both are pending when the process next runs and the kernel picks the order
    (docs/live-runs.md): whichever counts as first, the report is whole and the status is its own."""
    code, report, err, token = _two_signals(verb, first, second, True, marker, tmp_path)
    assert "Traceback" not in err
    named = _named(report)
    assert named in (first, second), report
    assert code == 128 + named, err
    _no_process_left(token)


def test_python_runs_handlers_by_number_the_first_delivered_counts() -> None:
    """Two signals whose C handlers ran before Python's next check: Python then calls the handlers in
    signal-number order (SIGINT's before SIGTERM's), whatever order they came in; the wakeup pipe
    holds the order they came in, and the first of it is what is raised.

    Both are made pending (blocked), then unblocked together: Linux takes SIGINT first but stacks
    SIGTERM's frame on top of it, so SIGTERM's C handler runs first, SIGINT's next, and only then
    does Python look (the old handler said SIGINT here)."""
    _in_main_thread()
    main = threading.main_thread().ident
    assert main is not None
    both = {signal.SIGINT, signal.SIGTERM}

    def deliver_both() -> None:
        signal.pthread_kill(main, signal.SIGTERM)
        signal.pthread_kill(main, signal.SIGINT)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, both)
        time.sleep(5)

    signal.pthread_sigmask(signal.SIG_BLOCK, both)
    try:
        with as_interrupts() as interrupts:
            with pytest.raises(Signalled) as caught:
                deliver_both()
            time.sleep(0.05)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, both)
    assert caught.value.signum == signal.SIGTERM
    assert interrupts.received == signal.SIGTERM
    assert interrupts.later == [signal.SIGINT]


def test_ending_leaves_the_signals_ignored_after_an_interruption() -> None:
    """The CLI's and pytest's block: once a signal was received, a later one cannot end the process
    while it prints the report and exits (a Python handler would be gone at finalization)."""
    _in_main_thread()
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        with pytest.raises(Signalled), as_interrupts(ending=True):
            _deliver(signal.SIGHUP)
        assert all(signal.getsignal(s) == signal.SIG_IGN for s in previous)
        with as_interrupts(ending=True):  # without a signal, what was there is put back
            pass
        assert all(signal.getsignal(s) == signal.SIG_IGN for s in previous)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    with as_interrupts(ending=True):
        pass
    assert {s: signal.getsignal(s) for s in previous} == previous


# -- the plugin in a milk-like repository (--strict-markers -W error -n 2), real signals ------------


def _milk_env() -> dict[str, str]:
    """This environment without this run's own pytest, xdist or hypothesis settings (a worker of
    this run has PYTEST_XDIST_WORKER set, which would make syrupy in the child think it is one)."""
    drop = ("PYTHONPATH", "MILK_CONTRACT_EMITTER", "HYPOTHESIS_PROFILE", "PYTEST_ADDOPTS")
    return {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("PYTEST_XDIST")}


def _signal_milk_repo(signum: int, *, group: bool, xdist: bool, marker: str,
                      tmp_path: Path) -> tuple[int, str, str]:
    """``pytest --pyargs contract`` in a milk-like repository on the hanging emitter; ``signum`` to
    pytest's process group (as CI runners and Ctrl-C send) or to pytest alone (``kill PID``) once
    a scenario's emitter runs. (exit status, output, token)."""
    import tools.milk_repo

    repo = tools.milk_repo.create(tmp_path / "milk")
    pidfile = tmp_path / "pid"
    emitter = shlex.join([PY, HANGS, marker, str(pidfile)])
    argv = [PY, "-m", "pytest", "--pyargs", "contract", "--contract-emitter", emitter, "-q",
            *([] if xdist else ["-n", "0"])]
    proc = subprocess.Popen(argv, cwd=repo, env=_milk_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        pid = _grandchild(pidfile, proc, seconds=120)
        token = _token_of(pid)
        time.sleep(0.5)  # the lines written before the grandchild started are judged by then
        if group:
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
        out, _ = proc.communicate(timeout=90)
        return proc.returncode, out.decode(), token
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _plugin_interrupted(code: int, out: str, signum: int, token: str) -> None:
    name = signal.Signals(signum).name
    assert code == 128 + signum, out
    assert f"milk-contract: interrupted ({name}) during tests/test_emitter.py::test_scenario[" in out
    assert "run.interrupted" in out
    assert f"found it interrupted ({name})" in out  # the run's report, in the summary
    assert "Warning" not in out  # syrupy's "received 0 of 2 xdist worker snapshot reports" was an error
    assert "--snapshot-update to delete" not in out  # the tests not run are not unused
    assert "syrupy's unused-snapshot detection was turned off for this run, which stopped early" in out
    assert "crashed" not in out  # an interrupted worker is not a crashed one (xdist would replace it)
    _no_process_left(token)


def test_sigterm_to_a_milk_repos_xdist_run(marker: str, tmp_path: Path) -> None:
    """CI cancels the job: SIGTERM to the process group of pytest, its xdist workers and the emitter."""
    code, out, token = _signal_milk_repo(signal.SIGTERM, group=True, xdist=True, marker=marker, tmp_path=tmp_path)
    _plugin_interrupted(code, out, signal.SIGTERM, token)


@pytest.mark.deep
@pytest.mark.parametrize(("signum", "group", "xdist"), [
    pytest.param(signal.SIGINT, True, True, id="ctrl-c-xdist"),
    pytest.param(signal.SIGTERM, False, True, id="kill-pid-xdist"),
    pytest.param(signal.SIGHUP, False, True, id="hup-pid-xdist"),
    pytest.param(signal.SIGINT, True, False, id="ctrl-c-one-process"),
    pytest.param(signal.SIGTERM, False, False, id="kill-pid-one-process"),
])
def test_a_signal_to_a_milk_repos_run(signum: int, group: bool, xdist: bool, marker: str, tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the group), ``kill PID`` (the controller alone: it passes the signal on), SIGHUP;
    with and without xdist (there syrupy said to re-run with --snapshot-update, which deletes)."""
    code, out, token = _signal_milk_repo(signum, group=group, xdist=xdist, marker=marker, tmp_path=tmp_path)
    _plugin_interrupted(code, out, signum, token)


def test_a_pytest_run_that_is_not_a_contract_run_keeps_pytests_signal_handling(tmp_path: Path) -> None:
    """The plugin is loaded wherever milk-contract is installed (milk's own test run): only a
    contract run (uses_the_suite) takes the signals; elsewhere SIGTERM still does Python's default."""
    (tmp_path / "test_own.py").write_text(
        "import signal\n\ndef test_own():\n    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL\n"
        "    assert signal.getsignal(signal.SIGINT) == signal.default_int_handler\n", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    done = subprocess.run([PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-n", "0",
                           "test_own.py"], cwd=tmp_path, env=_milk_env(), capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
