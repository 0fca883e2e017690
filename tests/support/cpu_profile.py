"""A pytest plugin that records each test's CPU: the measurement behind the default run's budget.

Enabled by ``bench/suite.py`` (``-p tests.support.cpu_profile`` with
``MILK_CONTRACT_CPU_PROFILE`` naming a folder). Each process of the run (the xdist controller or a
worker) writes ``<folder>/<worker>.json``: a list of ``[node id, CPU seconds, starts a process, marked
deep in its source]`` (from the ``process`` and ``deep`` markers; a ``deep`` marker the slow list
added says ``slow=True``), where CPU is user plus
system time of the test process and of the children it reaped while the test ran (setup, call and
teardown). A module or session fixture is charged to the first test that asks for it. Nothing is
timed against a limit here: the tool reads the files and says what the run cost.
"""

from __future__ import annotations

import json
import os
import resource
from collections.abc import Generator
from pathlib import Path

import pytest

PROFILE_ENV = "MILK_CONTRACT_CPU_PROFILE"
_ROWS: list[tuple[str, float, bool, bool]] = []


def cpu_seconds() -> float:
    """User plus system CPU of this process and of every child it has reaped so far."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    before = cpu_seconds()
    yield
    deep = item.get_closest_marker("deep")
    _ROWS.append((item.nodeid, round(cpu_seconds() - before, 4), item.get_closest_marker("process") is not None,
                  deep is not None and not deep.kwargs.get("slow")))


def pytest_sessionfinish(session: pytest.Session) -> None:
    folder = os.environ.get(PROFILE_ENV)
    if not folder or not _ROWS:
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    Path(folder, f"{worker}.json").write_text(json.dumps(_ROWS), encoding="utf-8")
