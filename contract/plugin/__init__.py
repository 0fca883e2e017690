"""The pytest plugin: ``--contract-…`` options, session state in ``config.stash``, summary lines.

Registered once, through the ``pytest11`` entry point (pyproject.toml). The hooks are a few
lines each and hand off to :class:`contract.plugin.session.ContractSession`, which does the work
and knows nothing of pytest's hook machinery.

A contract run (:func:`uses_the_suite`) takes SIGINT, SIGTERM and SIGHUP for its whole session
(``contract.core.interrupts``; in any other run, only a test that uses the ``contract_session``
fixture does): by default SIGTERM and SIGHUP would end pytest at once and leave the emitter
running. So the emitter is killed and reaped, pytest stops as on Ctrl-C, the summary names the
interrupted scenarios and prints their runs' reports, syrupy's unused-snapshot detection is off
for the run, and pytest exits 128 + the first signal. Under pytest-xdist the controller passes
the signal on to its workers and xdist ends the session in order (docs/live-runs.md, Signals).

The plugin registers the markers the shipped suite (``contract/tests``) uses: that suite runs in
milk's repository (``pytest --pyargs contract``), whose pytest configuration knows nothing of them,
and under ``--strict-markers`` or ``-W error`` an unknown marker stops the run with zero tests.
Its header line says what the run will do: which emitter the golden scenarios go through, and
whether fuzzing and provoking are on (both are opt-in: docs/milk-ci.md says what they ask). The
plugin is loaded in every pytest run where milk-contract is installed, so the line is shown only
when the run is a contract run (:func:`uses_the_suite`): a ``--contract-…`` option differs from
its default (or ``MILK_CONTRACT_EMITTER`` names an emitter), or the run's arguments reach the
shipped suite (``--pyargs contract``, ``contract.tests…``, or a path in or above ``contract/tests``
that pytest would recurse into). The header is written before collection, so the arguments are
what it can know.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from contract.core import textsafe
from contract.core.options import seconds_problem
from contract.plugin.failure import ContractFailed, shorten
from contract.plugin.session import LATE_GRACE, ContractSession, option_problem, startup_problem

if TYPE_CHECKING:  # loaded only in a contract run
    from contract.core.interrupts import as_interrupts

SESSION = pytest.StashKey[ContractSession]()
SIGNALLED = pytest.StashKey[int]()  # the first signal this session received
# each interrupted live test's id and its run's report (rendered: an xdist worker sends it on)
INTERRUPTED = pytest.StashKey[list[tuple[str, str]]]()
INTERRUPTED_PROPERTY = "milk-contract-interrupted"  # the same, in an xdist worker's test report
GUARD: pytest.StashKey[as_interrupts] = pytest.StashKey()  # a contract run's signal handlers
COLLECTED = pytest.StashKey[bool]()  # this process' collection is done
LIVE = pytest.StashKey[bool]()  # a live test (one that uses contract_session) is running
SNAPSHOTS_OFF = pytest.StashKey[bool]()  # syrupy's unused-snapshot detection was turned off
# --contract-record run inside another checkout than the one it writes (recording.other_checkout_warning)
RECORD_WARNING = pytest.StashKey[str]()
ENV_EMITTER = "MILK_CONTRACT_EMITTER"
# Every marker contract/tests uses (tests/plugin/test_installed.py derives the list from the sources and
# holds this to it).
MARKERS = {
    "process": "starts a process (an emitter, a host, a worker, pytester); -m 'not process' runs the fast half",
}
SUITE = Path(__file__).resolve().parents[1] / "tests"  # the shipped suite (contract.tests)
# Every --contract-* option but --contract-emitter (whose default is the environment's) with its
# default: one that differs makes the run a contract run (uses_the_suite).
DEFAULTS: dict[str, object] = {
    "--contract-timeout": 60.0, "--contract-late-grace": LATE_GRACE, "--contract-record": False,
    "--contract-strict": False, "--contract-basis": None, "--contract-fuzz": 0, "--contract-consumer": None,
    "--contract-consumer-examples": None, "--contract-provoke": False, "--contract-seed": None,
    "--contract-statement": None, "--contract-shard": None,
    # contract.live.timeline.DEFAULT_LIVENESS, without importing it at every pytest start
    # (tests/live/test_liveness.py holds them equal)
    "--contract-first-line-within": 10.0, "--contract-max-gap": 30.0, "--contract-exit-grace": 5.0,
    "--contract-response-within": 10.0,
}
LIVENESS_OPTIONS = ("--contract-first-line-within", "--contract-max-gap", "--contract-exit-grace",
                    "--contract-response-within")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("milk-contract", "milk wire contract suite")
    group.addoption("--contract-emitter", metavar="CMD", default=os.environ.get(ENV_EMITTER),
                    help=f"run every golden scenario through this emitter command (env {ENV_EMITTER}); "
                         "default: the bundled reference emitters")
    group.addoption("--contract-timeout", metavar="SECONDS", type=float, default=DEFAULTS["--contract-timeout"],
                    help="per-scenario timeout for the emitter (default 60)")
    group.addoption("--contract-late-grace", metavar="SECONDS", type=float,
                    default=DEFAULTS["--contract-late-grace"],
                    help="after the emitter exits, how long its descendants may still hold stdout open "
                         "(what they write is judged; one still holding it then is run.stdout-held; default 2)")
    group.addoption("--contract-record", action="store_true", default=DEFAULTS["--contract-record"],
                    help="re-record the goldens from the emitter's output and report each change "
                         "as additive or breaking")
    group.addoption("--contract-strict", action="store_true", default=DEFAULTS["--contract-strict"],
                    help="SHOULD findings fail emitter scenarios too")
    group.addoption("--contract-basis", metavar="BASIS", action="append", default=DEFAULTS["--contract-basis"],
                    help="judge only findings of rules of this basis: written, derived or policy (repeatable, "
                         "cumulative; default all); the others are listed, not failing; checker, run and "
                         "baseline findings, unreadable lines and runs not whole always fail (docs/rules.md)")
    group.addoption("--contract-fuzz", metavar="N", type=int, default=DEFAULTS["--contract-fuzz"],
                    help="also hold N generated conversations with the host of the conversation wire "
                         "(contract.live.fuzz); "
                         "off by default: it asks more than the replay contract (docs/milk-ci.md)")
    group.addoption("--contract-consumer", metavar="CMD", default=DEFAULTS["--contract-consumer"],
                    help="feed this consumer of a stream wire every golden and its future variants "
                         "(milk-contract feed --future); it must exit 0 on each")
    group.addoption("--contract-consumer-examples", metavar="N", type=int,
                    default=DEFAULTS["--contract-consumer-examples"],
                    help="future variants per golden for --contract-consumer (default 10)")
    for option, what in zip(LIVENESS_OPTIONS, ("run.first-line: the first line comes this soon after the start",
                                              "run.stall: no longer gap between lines before the result",
                                              "run.exit-after-result: the emitter exits this soon after its result",
                                              "run.response-late: a host answers each command this soon"),
                            strict=True):
        group.addoption(option, metavar="SECONDS", type=float, default=DEFAULTS[option],
                        help=f"{what} (default {DEFAULTS[option]:g}; docs/live-runs.md, Liveness)")
    group.addoption("--contract-seed", metavar="N", type=int, default=DEFAULTS["--contract-seed"],
                    help="the seed of --contract-fuzz and --contract-consumer's generated conversations and "
                         "variants (default: a new one each run); a failure names its seed and the commands, "
                         "pytest and milk-contract, that find it again")
    group.addoption("--contract-provoke", action="store_true", default=DEFAULTS["--contract-provoke"],
                    help="run each scenario of a stream wire again under a pty, with colour forced and under a "
                         "slow reader (contract.live.provoke)")
    _add_statement_options(group)


def _add_statement_options(group: pytest.OptionGroup) -> None:
    group.addoption("--contract-statement", metavar="FILE", default=DEFAULTS["--contract-statement"],
                    help="write the run's conformance statement (JSON, milk-contract statement's) to FILE")
    group.addoption("--contract-shard", metavar="I/N", default=DEFAULTS["--contract-shard"],
                    help="run only shard I of N of the golden scenarios (a stable partition by name); "
                         "join the shards' statements with milk-contract statement merge")


def pytest_configure(config: pytest.Config) -> None:
    for name, meaning in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {meaning}")
    # fail fast: an emitter that cannot start, or a recording with nowhere to go, is one usage
    # error (exit 4) now, not a failure per golden scenario later
    problem = (option_problem(config.getoption("--contract-fuzz"), config.getoption("--contract-timeout"),
                              config.getoption("--contract-late-grace"), config.getoption("--contract-seed"))
               or startup_problem(config.getoption("--contract-emitter"), config.getoption("--contract-record"),
                                  config.getoption("--contract-basis")))
    if problem:
        raise pytest.UsageError(problem)
    for option in LIVENESS_OPTIONS:  # the thresholds: seconds, as the CLI's options take them
        bad = seconds_problem(config.getoption(option), zero=option == "--contract-exit-grace")
        if bad is not None:
            raise pytest.UsageError(f"{option}: {bad}, found {config.getoption(option)}")
    from contract.plugin.statement import shard_problem

    problem = shard_problem(config.getoption("--contract-shard"))
    if problem:
        raise pytest.UsageError(problem)
    refused = _snapshot_update_problem(config)
    if refused:
        raise pytest.UsageError(refused)
    config.stash[SESSION] = session = ContractSession.from_options(
        emitter=config.getoption("--contract-emitter"),
        timeout=config.getoption("--contract-timeout"),
        record=config.getoption("--contract-record"),
        strict=config.getoption("--contract-strict"),
        late_grace=config.getoption("--contract-late-grace"),
        basis=config.getoption("--contract-basis"),
    )
    session.liveness = tuple(config.getoption(option) for option in LIVENESS_OPTIONS)
    config.pluginmanager.register(_Observer(session, config), "milk-contract-observer")
    statement, shard = config.getoption("--contract-statement"), config.getoption("--contract-shard")
    if statement is not None or shard is not None:
        from contract.plugin.statement import StatementPlugin, parse_shard

        session.statement = True
        config.pluginmanager.register(StatementPlugin(config, statement, parse_shard(shard), session.emitter,
                                                      bool(config.getoption("--contract-provoke"))),
                                      "milk-contract-statement")
    if session.record:  # the `record` verb's warning, in the header and again in the summary
        from contract.goldens import recording
        from contract.goldens.store import goldens_dir

        warning = recording.other_checkout_warning(goldens_dir(), "milk-contract record --goldens")
        if warning is not None:
            config.stash[RECORD_WARNING] = warning
    _install_signals(config)


class _Observer:
    """Counts scenario outcomes where the summary is written (the controller, under xdist)."""

    def __init__(self, session: ContractSession, config: pytest.Config) -> None:
        self.session = session
        self.config = config

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            self.session.observe(list(report.user_properties), report.passed)
            for key, value in report.user_properties:  # an xdist worker's interrupted live test
                if key == INTERRUPTED_PROPERTY and isinstance(value, (tuple, list)) and len(value) == 2:
                    self.config.stash.setdefault(INTERRUPTED, []).append((str(value[0]), str(value[1])))


def _snapshot_update_problem(config: pytest.Config) -> str | None:
    """``--snapshot-update`` in a contract run of an installed (non-editable) copy: refused.

    The shipped suite's snapshots are the contract's own (the wire surfaces): updating them from
    site-packages deleted or rewrote files inside the installed package (a second outside
    review: after ``-x``, syrupy advised it, and the next run failed until a reinstall). They
    are updated from a checkout (docs/adr-walk.md)."""
    if not getattr(config.option, "update_snapshots", False) or not uses_the_suite(config):
        return None
    from contract.core.resources import installed_copy

    if not installed_copy():
        return None
    import contract

    return (f"--snapshot-update would write into the installed milk-contract ({Path(contract.__file__).parent}): "
            "its snapshots are the contract's own, updated from a checkout (docs/adr-walk.md), never here")


def uses_the_suite(config: pytest.Config) -> bool:
    """Whether this pytest run is a contract run: a ``--contract-…`` option set, or the suite named.

    Cheap: option values and the run's arguments, a few path comparisons; nothing is imported.
    """
    if config.getoption("--contract-emitter") is not None:
        return True
    if any(config.getoption(name) != default for name, default in DEFAULTS.items()):
        return True
    pyargs = bool(config.getoption("pyargs"))
    here = config.invocation_params.dir

    def ignored(folder: Path) -> bool:  # pytest's own rule (venvs, norecursedirs, --ignore, collect_ignore)
        return config.hook.pytest_ignore_collect(collection_path=folder, config=config) is True

    return any(names_the_suite(str(arg), here, pyargs, ignored) for arg in config.args)


def names_the_suite(arg: str, here: Path, pyargs: bool, ignored: Callable[[Path], bool],
                    suite: Path = SUITE) -> bool:
    """Whether one pytest argument reaches ``suite``: its module (``--pyargs``) or a path in or above it."""
    target = arg.split("::", 1)[0]
    if pyargs and (target in ("contract", "contract.tests") or target.startswith("contract.tests.")):
        return True
    path = (here / target).resolve()
    if path == suite or suite in path.parents:
        return True
    if path not in suite.parents:
        return False
    folder = path  # above the suite: pytest reaches it unless it skips a folder on the way
    for part in suite.relative_to(path).parts:
        folder = folder / part
        if ignored(folder):
            return False
    return True


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    session = config.stash.get(SESSION, None)
    if session is None or not uses_the_suite(config):
        return None
    fuzz = config.getoption("--contract-fuzz")
    fuzzing = "off (--contract-fuzz N)"
    if fuzz > 0:  # only then is the registry worth loading at a pytest start: fuzzing runs
        from contract.wires import conversation

        fuzzing = f"{fuzz} generated conversations with the {conversation().name} host"
    provoke = "on" if config.getoption("--contract-provoke") else "off (--contract-provoke)"
    lines = [f"milk-contract: golden scenarios through {textsafe.text(session.emitter_name)}; "
             f"fuzzing: {fuzzing}; provoke: {provoke}"]
    warning = config.stash.get(RECORD_WARNING, None)
    return lines if warning is None else [*lines, warning]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    session = config.stash.get(SESSION, None)
    if session is None:
        return
    warning = config.stash.get(RECORD_WARNING, None)
    if warning is not None:  # again at the end: the header is not shown under -q
        terminalreporter.write_line(warning)
    for line in session.summary_lines():
        terminalreporter.write_line(line)
    signum = config.stash.get(SIGNALLED, None)
    interrupted = config.stash.get(INTERRUPTED, [])
    if signum is not None or interrupted:
        from contract.core.exitcodes import exit_interrupted
        from contract.core.interrupts import name

        signum = signum if signum is not None else int(signal.SIGINT)
        where = (f" during {', '.join(textsafe.text(nodeid) for nodeid, _ in interrupted)}" if interrupted
                 else " (no live run was under way)")
        terminalreporter.write_line(f"milk-contract: interrupted ({name(signum)}){where}: the run did not finish, "
                                    f"so it is not conformant; exit status {exit_interrupted(signum)}")
    for nodeid, text in interrupted:  # pytest shows only where it stopped: show what the run had seen
        terminalreporter.write_line(f"milk-contract: the interrupted live run's report ({textsafe.text(nodeid)}):")
        terminalreporter.write(text)
    if config.stash.get(SNAPSHOTS_OFF, False):
        terminalreporter.write_line(
            "milk-contract: syrupy's unused-snapshot detection was turned off for this run, which stopped "
            "early (a signal, -x or --maxfail): the snapshots of tests that did not run are not unused; do not "
            "run --snapshot-update on it")


# -- signals (docs/live-runs.md): the first of SIGINT, SIGTERM, SIGHUP ends the run with its report --


def _install_signals(config: pytest.Config) -> None:
    """A contract run takes the signals from its configuration to ``pytest_unconfigure``.

    Without distribution, and in an xdist worker during a live test, the first signal raises (the
    live run is reaped and reported, pytest stops as on Ctrl-C). An xdist worker outside a live
    test stops before its next test (``session.shouldstop``): a KeyboardInterrupt there would
    make xdist count the worker as crashed and start another. The xdist controller runs no test:
    it asks xdist to stop, passes the signal on to its workers (a signal to the controller alone,
    as ``kill PID`` sends, reaches them so) and lets xdist end the session in order, every
    worker's report (syrupy's too) collected. Other pytest runs keep pytest's own handling.
    """
    if not uses_the_suite(config):
        return
    from contract.core.interrupts import as_interrupts

    signals = _Signals(config)
    config.pluginmanager.register(signals, "milk-contract-signals")
    if not hasattr(config, "workerinput") and config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(signals.forwarder, "milk-contract-forwarder")  # xdist's hooks
    config.stash[GUARD] = as_interrupts(ending=True, first=signals.first).__enter__()


class _Signals:
    """What the first signal does, by where this process is (see :func:`_install_signals`)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.session: pytest.Session | None = None
        self.worker = hasattr(config, "workerinput")
        self.forwarder = _Forwarder()

    def first(self, signum: int) -> None:
        from contract.core.interrupts import Signalled

        config = self.config
        config.stash[SIGNALLED] = signum
        if self.worker:
            if config.stash.get(LIVE, False):
                raise Signalled(signum)
            if self.session is not None and config.stash.get(COLLECTED, False):
                self.session.shouldstop = _stop_reason(signum)
            return  # while collecting: pytest_collection_finish stops it (shouldstop now would
            # end the collection early, and xdist stop the session on the workers' differing ones)
        dsession = config.pluginmanager.getplugin("dsession")
        if getattr(dsession, "sched", None) is None:  # no xdist loop (yet): stop as on Ctrl-C
            raise Signalled(signum)
        # xdist's loop ends the session once every worker is down; a worker the signal reached
        # before its handlers were installed dies, and the one xdist starts in its place is told
        # to shut down at once
        dsession.shouldstop = _stop_reason(signum)
        for pid in list(self.forwarder.workers.values()):
            with contextlib.suppress(OSError):  # gone already
                os.kill(pid, signum)

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.session = session

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        config = session.config
        config.stash[COLLECTED] = True
        signum = config.stash.get(SIGNALLED, None)
        if signum is not None and self.worker:  # signalled while collecting
            session.shouldstop = _stop_reason(signum)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
        """A worker runs no test once signalled (xdist runs the one it holds before it looks at
        ``shouldstop``): it is left not run, as the tests after it."""
        return True if self.worker and SIGNALLED in item.config.stash else None


class _Forwarder:
    """The xdist controller's record of its workers' pids (pytest-xdist's hooks)."""

    def __init__(self) -> None:
        self.workers: dict[str, int] = {}

    def pytest_testnodeready(self, node: object) -> None:
        gateway: Any = getattr(node, "gateway", None)  # execnet's, untyped: any fault below is caught
        try:  # xdist caches the remote info at setup (WorkerController.setup), so no round trip
            pid = gateway._rinfo().pid
        except Exception:  # another xdist or execnet: that worker gets only what the kernel sends it
            return
        if isinstance(pid, int):
            self.workers[str(getattr(gateway, "id", pid))] = pid

    def pytest_testnodedown(self, node: object, error: object) -> None:
        self.workers.pop(str(getattr(getattr(node, "gateway", None), "id", "")), None)


def _stop_reason(signum: int) -> str:
    from contract.core.interrupts import name

    return f"milk-contract: interrupted ({name(signum)})"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, object, object]:
    if "contract_session" not in getattr(item, "fixturenames", ()):
        return (yield)
    config = item.config
    guard = None
    if GUARD not in config.stash:  # not a contract run (uses_the_suite): this test's own block
        from contract.core.interrupts import as_interrupts

        guard = as_interrupts(ending=True).__enter__()
    config.stash[LIVE] = True
    try:
        return (yield)
    except KeyboardInterrupt as exc:  # Ctrl-C too: the report of the run it stopped is worth showing
        _keep_interrupted(item, exc)
        raise
    finally:
        config.stash[LIVE] = False
        if guard is not None:
            if guard.received is not None:
                config.stash[SIGNALLED] = guard.received
            guard.__exit__(None, None, None)


def _keep_interrupted(item: pytest.Item, exc: BaseException) -> None:
    from contract.core.interrupts import signal_of
    from contract.live.harness import Interrupted  # loaded already if a live run raised it

    item.config.stash.setdefault(SIGNALLED, signal_of(exc))
    if isinstance(exc, Interrupted):
        from contract.reporting.reporters import render_text

        item.config.stash.setdefault(INTERRUPTED, []).append((item.nodeid, render_text(exc.report)))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, object, object]:
    """A contract failure's summary line is its headline, not its whole report again (plugin.failure)."""
    report = yield
    excinfo = call.excinfo
    if excinfo is not None and isinstance(excinfo.value, ContractFailed) and isinstance(report, pytest.TestReport):
        shorten(report, excinfo.value)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """In an xdist worker, an interrupted live test fails with the run's report and the worker stops.

    A KeyboardInterrupt out of a worker's test makes xdist report the worker crashed (a failure
    "worker crashed while running …") and start a new one; a failure carrying the report, with
    ``session.shouldstop`` set, ends the worker in order and brings the report to the controller.
    """
    if not hasattr(item.config, "workerinput"):
        return (yield)
    try:
        return (yield)
    except KeyboardInterrupt as exc:
        from contract.core.interrupts import name, signal_of

        _keep_interrupted(item, exc)
        signum = signal_of(exc)
        item.session.shouldstop = _stop_reason(signum)
        kept = [text for nodeid, text in item.config.stash.get(INTERRUPTED, []) if nodeid == item.nodeid]
        text = kept[-1] if kept else ""
        item.user_properties.append((INTERRUPTED_PROPERTY, (item.nodeid, text)))
        # a failure (an interrupted run is never conformant), shown without our frames
        pytest.fail(f"milk-contract: the live run was interrupted ({name(signum)}); what it had seen:\n{text}",
                    pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_sessionfinish(session: pytest.Session) -> Generator[None, object, object]:
    """Before the others: an interrupted run turns syrupy's unused-snapshot detection off (a test
    that did not run would count as unused, and ``--snapshot-update`` would delete its snapshot;
    under xdist a worker's missing report is a warning, an error under ``-W error``). After them:
    pytest says INTERRUPTED (2) for any KeyboardInterrupt; the status becomes 128 + the signal."""
    config = session.config
    interrupted = SIGNALLED in config.stash or (GUARD in config.stash and
                                                session.exitstatus == pytest.ExitCode.INTERRUPTED)
    # -x / --maxfail stop a run early too: the tests not run are not unused either
    stopped = interrupted or (GUARD in config.stash and bool(session.shouldfail))
    if stopped and SESSION in config.stash and hasattr(config.option, "disable_unused_snapshots"):
        config.option.disable_unused_snapshots = True
        config.stash[SNAPSHOTS_OFF] = True
    try:
        return (yield)
    finally:
        signum = config.stash.get(SIGNALLED, None)
        if signum is not None:
            from contract.core.exitcodes import exit_interrupted

            session.exitstatus = exit_interrupted(signum)


def pytest_unconfigure(config: pytest.Config) -> None:
    guard = config.stash.get(GUARD, None)
    if guard is None:
        return
    guard.__exit__(None, None, None)  # after an interruption the signals stay ignored to the exit (ending)
    signals = config.pluginmanager.get_plugin("milk-contract-signals")
    session = getattr(signals, "session", None)
    signum = config.stash.get(SIGNALLED, None)
    if signum is not None and session is not None:
        # interrupted before pytest_sessionfinish could run (during pytest_sessionstart, where
        # xdist starts its workers): pytest returns the session's status after this hook
        from contract.core.exitcodes import exit_interrupted

        session.exitstatus = exit_interrupted(signum)


@pytest.fixture(scope="session")
def contract_session(pytestconfig: pytest.Config) -> ContractSession:
    """The run's contract session: emitter, timeout, what was recorded."""
    return pytestconfig.stash[SESSION]
