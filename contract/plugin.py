"""The pytest plugin: ``--contract-…`` options, session state in ``config.stash``, summary lines.

Registered once, through the ``pytest11`` entry point (pyproject.toml). The hooks are a few
lines each and hand off to :class:`contract.session.ContractSession`, which does the work
and knows nothing of pytest's hook machinery.

A test that runs the emitter (one that uses the ``contract_session`` fixture) runs with SIGTERM
and SIGHUP taking Ctrl-C's path (``contract.interrupts``): by default they would end pytest at
once and leave the emitter running. So the emitter is killed and reaped, pytest stops as on
Ctrl-C, the interrupted run's report is printed in the summary and pytest exits 128 + the
signal (docs/live-runs.md). Other tests keep pytest's own signal handling.

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

import os
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from contract import textsafe
from contract.session import LATE_GRACE, ContractSession, option_problem, startup_problem

if TYPE_CHECKING:  # loaded only once a live run was interrupted
    from contract.report import Report

SESSION = pytest.StashKey[ContractSession]()
SIGNALLED = pytest.StashKey[int]()  # the SIGTERM or SIGHUP that stopped a live test
INTERRUPTED: pytest.StashKey[Report] = pytest.StashKey()  # the report of the live run an interruption stopped
# --contract-record run inside another checkout than the one it writes (recording.other_checkout_warning)
RECORD_WARNING = pytest.StashKey[str]()
ENV_EMITTER = "MILK_CONTRACT_EMITTER"
# Every marker contract/tests uses (tests/test_installed.py derives the list from the sources and
# holds this to it).
MARKERS = {
    "process": "starts a process (an emitter, a host, a worker, pytester); -m 'not process' runs the fast half",
}
SUITE = Path(__file__).resolve().parent / "tests"  # the shipped suite (contract.tests)
# Every --contract-* option but --contract-emitter (whose default is the environment's) with its
# default: one that differs makes the run a contract run (uses_the_suite).
DEFAULTS: dict[str, object] = {
    "--contract-timeout": 60.0, "--contract-late-grace": LATE_GRACE, "--contract-record": False,
    "--contract-strict": False, "--contract-basis": None, "--contract-fuzz": 0, "--contract-consumer": None,
    "--contract-consumer-examples": None, "--contract-provoke": False,
}


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
                    help="also hold N generated conversations with the host of the conversation wire (contract.fuzz); "
                         "off by default: it asks more than the replay contract (docs/milk-ci.md)")
    group.addoption("--contract-consumer", metavar="CMD", default=DEFAULTS["--contract-consumer"],
                    help="feed this consumer of a stream wire every golden and its future variants "
                         "(milk-contract feed --future); it must exit 0 on each")
    group.addoption("--contract-consumer-examples", metavar="N", type=int,
                    default=DEFAULTS["--contract-consumer-examples"],
                    help="future variants per golden for --contract-consumer (default 10)")
    group.addoption("--contract-provoke", action="store_true", default=DEFAULTS["--contract-provoke"],
                    help="run each scenario of a stream wire again under a pty, with colour forced and under a "
                         "slow reader (contract.provoke)")


def pytest_configure(config: pytest.Config) -> None:
    for name, meaning in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {meaning}")
    # fail fast: an emitter that cannot start, or a recording with nowhere to go, is one usage
    # error (exit 4) now, not a failure per golden scenario later
    problem = (option_problem(config.getoption("--contract-fuzz"), config.getoption("--contract-timeout"),
                              config.getoption("--contract-late-grace"))
               or startup_problem(config.getoption("--contract-emitter"), config.getoption("--contract-record"),
                                  config.getoption("--contract-basis")))
    if problem:
        raise pytest.UsageError(problem)
    config.stash[SESSION] = session = ContractSession.from_options(
        emitter=config.getoption("--contract-emitter"),
        timeout=config.getoption("--contract-timeout"),
        record=config.getoption("--contract-record"),
        strict=config.getoption("--contract-strict"),
        late_grace=config.getoption("--contract-late-grace"),
        basis=config.getoption("--contract-basis"),
    )
    config.pluginmanager.register(_Observer(session), "milk-contract-observer")
    if session.record:  # the `record` verb's warning, in the header and again in the summary
        from contract import recording
        from contract.goldens import goldens_dir

        warning = recording.other_checkout_warning(goldens_dir(), "milk-contract record --goldens")
        if warning is not None:
            config.stash[RECORD_WARNING] = warning


class _Observer:
    """Counts scenario outcomes where the summary is written (the controller, under xdist)."""

    def __init__(self, session: ContractSession) -> None:
        self.session = session

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            self.session.observe(list(report.user_properties), report.passed)


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
    interrupted = config.stash.get(INTERRUPTED, None)
    if interrupted is not None:  # pytest shows only where it stopped: show what the run had seen
        from contract.reporters import render_text

        terminalreporter.write_line("milk-contract: the interrupted live run's report:")
        terminalreporter.write(render_text(interrupted))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, object, object]:
    if "contract_session" not in getattr(item, "fixturenames", ()):
        return (yield)
    from contract.interrupts import as_interrupts

    with as_interrupts() as caught:
        try:
            return (yield)
        except KeyboardInterrupt as exc:  # Ctrl-C too: the report of the run it stopped is worth showing
            from contract.harness import Interrupted  # loaded already if a live run raised it

            if isinstance(exc, Interrupted):
                item.config.stash[INTERRUPTED] = exc.report
            raise
        finally:
            if caught.received is not None:
                item.config.stash[SIGNALLED] = caught.received


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    signum = session.config.stash.get(SIGNALLED, None)
    if signum is not None:  # pytest says INTERRUPTED (2) for any KeyboardInterrupt: name the signal
        from contract.exitcodes import exit_interrupted

        session.exitstatus = exit_interrupted(signum)


@pytest.fixture(scope="session")
def contract_session(pytestconfig: pytest.Config) -> ContractSession:
    """The run's contract session: emitter, timeout, what was recorded."""
    return pytestconfig.stash[SESSION]
