"""Repo-level set-up only. The milk-contract plugin is registered by its pytest11 entry point.

Bytecode caching. The suite starts about 280 Python processes (emitters, hosts, the CLI, a few
pytest runs) and pytest-xdist starts its workers. Container images and CI machines often set
``PYTHONDONTWRITEBYTECODE=1``; under it every one of those processes compiles the package from
source again (about 60 ms each) and every pytest process re-rewrites the assertions of its plugins,
hypothesis among them (about a second each), because nothing is ever cached. The suite lets them
cache: it writes ``__pycache__`` folders (ignored by git) beside the package, the tests and the
plugins, as Python does by default. Measured on the two-core CI machine: the default run 53 s
with the variable set, 48 s with it cleared (BENCHMARKS.md, "The default test run").
"""

from __future__ import annotations

import functools
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # inherited by xdist's workers and every child
sys.dont_write_bytecode = False  # this process: the test modules pytest rewrites from here on


# optional: xdist's hook, unknown (and refused by pluggy) wherever xdist is not loaded
@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` starts two workers a core for the quick loop, not one, on an idle machine or a busy one.

    About half of the default run is spent waiting on child processes (emitters, hosts, consumers,
    the CLI, inner pytest runs), so a core with one worker sits idle while its test waits. Measured
    on the two-core machine, the default run: 129 s with 2 workers, 116 s with 3, 110 s with 4
    (BENCHMARKS.md, "The default test run"). The deep run (``--hypothesis-profile=ci``) keeps one
    worker a core: its sweeps time real processes under load and are run for depth, not speed.
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still wins, as pytest-xdist documents.

    On a machine already busy (a load average of at least one a core) it starts two a core too:
    the busy processes and the workers share the cores, so more workers take a larger share. Measured
    at load 2 on two cores (``python bench/suite.py --load 2``): 122 s with four workers, 149 s with
    two, though four cost about 18 s more CPU (each worker's start-up, collection and warm-up).
    """
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own hook reads it
    profile = getattr(config.option, "hypothesis_profile", None)
    if "ci" in (profile, os.environ.get("HYPOTHESIS_PROFILE")):
        return None
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return workers_for(cores)


def workers_for(cores: int) -> int:
    """Two workers a core, idle or busy: a busy machine shares its cores by process, so halving the
    workers there would halve their share."""
    return 2 * cores




# A module- or session-scoped fixture is made once per process, and several cost seconds (a copy of
# the project, an installed wheel, live runs, three statements). Under xdist a test module that
# defines one runs on one worker, found by its text (``scope="module"`` or ``"session"``), so that
# work is done once, not once on every worker that runs one of its tests. The modules below ask for
# a session fixture of a conftest (the vectors' draw, tests/consumers/conftest.py) and share its
# worker. Measured on two cores with four workers: the draw took 12-14 s and the statements 12 s on
# each such worker (BENCHMARKS.md, "The default test run"). tests/architecture/test_xdist_groups.py
# fails when a module asks for one of those session fixtures and is missing here.
SHARED_SESSION_FIXTURES = ("drawn_vectors", "exported_vectors")
SHARED_SETUP = {
    "tests/consumers/test_node_vectors.py": "vectors",
    "tests/consumers/test_vectors.py": "vectors",
    "tests/consumers/test_vector_kinds.py": "vectors",
}
_ONCE_PER_PROCESS = re.compile(r"""scope\s*=\s*["'](?:module|session)["']""")
_ROOT = Path(__file__).resolve().parent


@functools.cache
def work_unit(module: str) -> str | None:
    """The group a test module's tests are sent in, or None when each test may go anywhere."""
    if module in SHARED_SETUP:
        return SHARED_SETUP[module]
    try:
        text = (_ROOT / module).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return module if _ONCE_PER_PROCESS.search(text) else None


# optional: xdist's hook, unknown (and refused by pluggy) wherever xdist is not loaded
@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``-n``'s load scheduling, with each module of :func:`work_unit` kept to one worker.

    Not ``--dist loadgroup`` with ``xdist_group`` marks: pytest-xdist 3.8 groups by appending the
    group to ``item._nodeid``, which pytest 9 no longer reads (node ids come from ``item._id``), so
    the marks are silently ignored. The scheduler sees node ids only, hence modules, not fixtures.
    """
    if config.getoption("dist") != "load":
        return None  # a --dist the user chose
    from xdist.scheduler import LoadScopeScheduling

    class SharedSetupScheduling(LoadScopeScheduling):  # type: ignore[misc]  # xdist ships no types
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid.split("::", 1)[0]) or nodeid

    return SharedSetupScheduling(config, log)
