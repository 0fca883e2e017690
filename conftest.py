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

import os
import sys
from typing import Any

import pytest

os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # inherited by xdist's workers and every child
sys.dont_write_bytecode = False  # this process: the test modules pytest rewrites from here on


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` starts two workers a core for the quick loop, not one.

    About half of the default run is spent waiting on child processes (emitters, hosts, consumers,
    the CLI, inner pytest runs), so a core with one worker sits idle while its test waits. Measured
    on the two-core machine, the default run: 129 s with 2 workers, 116 s with 3, 110 s with 4
    (BENCHMARKS.md, "The default test run"). The deep run (``--hypothesis-profile=ci``) keeps one
    worker a core: its sweeps time real processes under load and are run for depth, not speed.
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still wins, as pytest-xdist documents.
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
    return 2 * cores



# A module- or session-scoped fixture is made once per process, and several cost seconds (a copy of
# the project, an installed wheel, live runs, the vectors' draw, three statements). Under xdist each
# module below runs on one worker (the vector modules together: they share a session fixture), so
# that work is done once, not once on every worker that runs one of its tests. Measured on two cores
# with four workers: the vectors' draw took 12-14 s and the statements 12 s on each such worker
# (BENCHMARKS.md, "The default test run"). tests/architecture/test_xdist_groups.py fails on a module
# with such a fixture that is missing here, and on a name here that is no test module.
SHARED_SETUP = {
    "tests/consumers/test_node_vectors.py": "vectors",
    "tests/consumers/test_vectors.py": "vectors",
    "tests/consumers/test_vector_kinds.py": "vectors",
    "tests/evolution/test_adr_consequences.py": "adr-consequences",
    "tests/evolution/test_adr_walk.py": "adr-walk",
    "tests/evolution/test_migrate.py": "migrate",
    "tests/goldens/test_recording.py": "recording",
    "tests/live/test_liveness.py": "liveness",
    "tests/plugin/test_plugin.py": "plugin",
    "tests/reporting/test_report_hygiene.py": "report-hygiene",
    "tests/statement/test_statement.py": "statements",
}


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``-n``'s load scheduling, with each module of :data:`SHARED_SETUP` kept to its group's worker.

    Not ``--dist loadgroup`` with ``xdist_group`` marks: pytest-xdist 3.8 groups by appending the
    group to ``item._nodeid``, which pytest 9 no longer reads (node ids come from ``item._id``), so
    the marks are silently ignored. The scheduler sees node ids only, hence modules, not fixtures.
    """
    if config.getoption("dist") != "load":
        return None  # a --dist the user chose
    from xdist.scheduler import LoadScopeScheduling

    class SharedSetupScheduling(LoadScopeScheduling):  # type: ignore[misc]  # xdist ships no types
        def _split_scope(self, nodeid: str) -> str:
            return SHARED_SETUP.get(nodeid.split("::", 1)[0], nodeid)

    return SharedSetupScheduling(config, log)
