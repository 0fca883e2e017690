"""The pytest plugin: ``--contract-…`` options, session state in ``config.stash``, summary lines.

Registered once, through the ``pytest11`` entry point (pyproject.toml). The hooks are a few
lines each and hand off to :class:`contract.session.ContractSession`, which does the work
and knows nothing of pytest's hook machinery.
"""

from __future__ import annotations

import os

import pytest

from contract.session import ContractSession, startup_problem

SESSION = pytest.StashKey[ContractSession]()
ENV_EMITTER = "MILK_CONTRACT_EMITTER"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("milk-contract", "milk wire contract suite")
    group.addoption("--contract-emitter", metavar="CMD", default=os.environ.get(ENV_EMITTER),
                    help=f"run every golden scenario through this emitter command (env {ENV_EMITTER}); "
                         "default: the bundled reference emitters")
    group.addoption("--contract-timeout", metavar="SECONDS", type=float, default=60.0,
                    help="per-scenario timeout for the emitter (default 60)")
    group.addoption("--contract-record", action="store_true", default=False,
                    help="re-record the goldens from the emitter's output and report each change "
                         "as additive or breaking")
    group.addoption("--contract-strict", action="store_true", default=False,
                    help="SHOULD findings fail emitter scenarios too")
    group.addoption("--contract-basis", metavar="BASIS", action="append", default=None,
                    help="judge only findings of rules of this basis: written, derived or policy (repeatable, "
                         "cumulative; default all); the others are listed, not failing, and checker, run, "
                         "baseline and line.limit findings always fail (docs/rules.md)")
    group.addoption("--contract-fuzz", metavar="N", type=int, default=None,
                    help="hold N generated conversations with the subagent-stdio host (contract.fuzz); "
                         "default: 30 when --contract-emitter is given, none otherwise; 0 turns it off")
    group.addoption("--contract-provoke", action="store_true", default=False,
                    help="run each stream-json scenario again under a pty, with colour forced and under a "
                         "slow reader (contract.provoke)")


def pytest_configure(config: pytest.Config) -> None:
    # fail fast: an emitter that cannot start, or a recording with nowhere to go, is one usage
    # error (exit 4) now, not a failure per golden scenario later
    problem = startup_problem(config.getoption("--contract-emitter"), config.getoption("--contract-record"),
                              config.getoption("--contract-basis"))
    if problem:
        raise pytest.UsageError(problem)
    config.stash[SESSION] = session = ContractSession.from_options(
        emitter=config.getoption("--contract-emitter"),
        timeout=config.getoption("--contract-timeout"),
        record=config.getoption("--contract-record"),
        strict=config.getoption("--contract-strict"),
        basis=config.getoption("--contract-basis"),
    )
    config.pluginmanager.register(_Observer(session), "milk-contract-observer")


class _Observer:
    """Counts scenario outcomes where the summary is written (the controller, under xdist)."""

    def __init__(self, session: ContractSession) -> None:
        self.session = session

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            self.session.observe(list(report.user_properties), report.passed)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    session = config.stash.get(SESSION, None)
    if session is None:
        return
    for line in session.summary_lines():
        terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def contract_session(pytestconfig: pytest.Config) -> ContractSession:
    """The run's contract session: emitter, timeout, what was recorded."""
    return pytestconfig.stash[SESSION]
