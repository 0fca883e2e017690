"""The plugin's conformance statement (``--contract-statement FILE``) and scenario shards
(``--contract-shard I/N``), kept apart from the hooks of ``contract.plugin``.

Each scenario test (and, under ``--contract-provoke``, each provoked one) attaches its run's
verdicts to its test report (``RUN_PROPERTY``), so under pytest-xdist the controller, which writes
the statement, has every worker's runs. A shard deselects the scenario tests of other shards
(``contract.statement.collect.in_shard``: by scenario name, stable); the statement names its
shard, and ``milk-contract statement merge`` joins the shards' statements.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from contract.core import textsafe

RUN_PROPERTY = "milk_contract_run"


def shard_problem(text: str | None) -> str | None:
    """What is wrong with a ``--contract-shard`` value (None when nothing is, or none was given)."""
    if text is None:
        return None
    index, _, total = text.partition("/")
    if not (index.isdigit() and total.isdigit()) or not 1 <= int(index) <= int(total):
        return f"--contract-shard: expected I/N with 1 <= I <= N, found {text!r}"
    return None


def parse_shard(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    index, _, total = text.partition("/")
    return int(index), int(total)


def run_property(label: str, wire: str, environment: str, report: Any, matches: bool) -> tuple[str, dict[str, Any]]:
    """A run's verdicts as a test report's user property (plain data: xdist carries it)."""
    from contract.statement.model import Run

    return RUN_PROPERTY, Run(label, wire, environment, report, matches).to_json()


class StatementPlugin:
    """Deselects other shards' scenarios; gathers the runs; writes the statement at the session's end."""

    def __init__(self, config: pytest.Config, path: str | None, shard: tuple[int, int] | None,
                 emitter: list[str] | None, provoked: bool) -> None:
        self.config = config
        self.path = path
        self.shard = shard
        self.emitter = emitter
        self.provoked = provoked
        self.runs: list[dict[str, Any]] = []

    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        if self.shard is None:
            return
        from contract.statement.collect import in_shard

        kept: list[pytest.Item] = []
        dropped: list[pytest.Item] = []
        for item in items:
            golden = getattr(getattr(item, "callspec", None), "params", {}).get("golden")
            name = f"{golden.wire}/{golden.name}" if golden is not None and hasattr(golden, "wire") else None
            (kept if name is None or in_shard(name, self.shard) else dropped).append(item)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            self.runs.extend(value for key, value in report.user_properties
                             if key == RUN_PROPERTY and isinstance(value, dict))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.path is None or hasattr(self.config, "workerinput"):  # the controller writes it
            return
        from importlib.metadata import PackageNotFoundError, version

        from contract.statement import collect, model

        try:
            suite = version("milk-contract")
        except PackageNotFoundError:  # a checkout on sys.path that was never installed
            suite = "0+unknown (not installed)"
        now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        document = model.assemble(self.runs, collect.build_info(self.emitter, suite), suite=suite, generated=now,
                                  provoked=self.provoked, shard=self.shard)
        try:
            with open(self.path, "w", encoding="utf-8") as handle:
                handle.write(model.dumps(document))
        except OSError as exc:
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
            self.config.get_terminal_writer().line(f"milk-contract: --contract-statement: cannot write "
                                                   f"{self.path}: {exc.strerror or exc}")
            return
        self.config.get_terminal_writer().line(
            f"milk-contract: statement {self.path}: {textsafe.text(model.rests_on(document))} "
            f"({textsafe.counted(len(self.runs), 'run')})")
