"""Hypothesis profiles for the suite, and the deep run's marker.

* ``dev`` (the default run): few examples and no deadline, so the default run keeps its budget on
  two cores (docs/development.md, "The default run's budget"); the generated-data tests scale
  their own counts from it.
* ``ci`` (the deep run): ten times deeper, every sweep whole and the tests marked ``deep``
  (tests/support/depth.py). Select it with ``--hypothesis-profile=ci``, ``HYPOTHESIS_PROFILE=ci`` or
  ``tox -e deep``.

Both print the reproduction blob of a failing example, and both keep hypothesis' default
example database (``.hypothesis/``), so a failure found once is replayed first next time.
Deadlines are off: on a shared two-core machine a test's time varies with the load, and a
deadline would make the suite flaky rather than faster. (The public strategies themselves are
health-checked under hypothesis' default settings in tests/strategies/test_strategies_compose.py.)
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from contract.wires import NAMES, Wire, get, using
from tests.support.depth import deep, slow_tests
from tests.support.wires import SESSION

# The session's registry (the bundled wires and the synthetic one) is current for the whole run, before
# any test module is collected: every module-level table (parametrizations over NAMES, the catalog, the
# schema step's rules) sees three wires, so a test or a module that assumes the two bundled ones fails
# at once (issue 29). tests/support/wires.py lets a test make a variant of it current for its duration.
_SESSION_REGISTRY = using(SESSION)
_SESSION_REGISTRY.__enter__()


def pytest_unconfigure(config: pytest.Config) -> None:
    """The bundled registry current again as the session ends."""
    _SESSION_REGISTRY.__exit__(None, None, None)

settings.register_profile("dev", max_examples=10, deadline=None, print_blob=True)
settings.register_profile("ci", max_examples=100, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Outside the deep run, tests marked ``deep`` and the slow process tests listed in
    tests/support/slow.json are skipped, with the reason in the summary.

    Skipped rather than deselected: under xdist pytest's summary line does not count deselected
    tests, and a run should say what it left out (``-ra`` lists each).
    """
    if deep():
        return
    skip = pytest.mark.skip(reason="deep: runs in the deep run only (tox -e deep; tests/support/depth.py)")
    slow = slow_tests()
    for item in items:
        if item.get_closest_marker("deep") is not None:
            item.add_marker(skip)
        elif item.nodeid in slow:
            item.add_marker(pytest.mark.deep(slow=True))
            item.add_marker(pytest.mark.skip(reason=f"deep: a slow process test ({slow[item.nodeid]:.2f} s of CPU when "
                                                    "measured; tests/support/slow.json)"))


def pytest_report_header(config: pytest.Config) -> str:
    if deep():
        return "milk-contract suite: deep run (every sweep whole, tests marked deep included)"
    return "milk-contract suite: default run (sweeps sampled; tests marked deep skipped: tox -e deep runs them)"


# The wires a generic test runs over: every registered one, the synthetic audit-log wire included.
ANY_WIRE = tuple(NAMES)


@pytest.fixture(params=ANY_WIRE)
def any_wire(request: pytest.FixtureRequest) -> Wire:
    """Each registered wire in turn, the synthetic one included."""
    return get(request.param)
