"""How deep this run goes: the one switch behind the ``deep`` marker and every sampled sweep.

The default run (hypothesis' ``dev`` profile) is the developer's loop: every rule fires and is
held back by its cases, every live behaviour is exercised once, and exhaustive sweeps take a
sample. The deep run (``--hypothesis-profile=ci``, ``HYPOTHESIS_PROFILE=ci`` or ``tox -e deep``;
``.ci/run`` runs it after the default run) adds the tests marked ``deep`` and takes every item of
every sweep. A test asks :func:`deep` rather than reading the profile itself, so there is one
answer.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from hypothesis import settings

T = TypeVar("T")

DEEP_PROFILE = "ci"


def deep() -> bool:
    """True in the deep run (the ``ci`` hypothesis profile is loaded)."""
    return settings.get_current_profile_name() == DEEP_PROFILE


def sample(items: Sequence[T], every: int) -> list[T]:
    """All of ``items`` in the deep run; otherwise every ``every``-th, always the first and last.

    Deterministic (no randomness), so that a default run sweeps the same sample each time and
    xdist workers collect the same parametrization.
    """
    if deep() or every <= 1 or len(items) <= 2:
        return list(items)
    picked = list(items[::every])
    if picked[-1] is not items[-1]:
        picked.append(items[-1])
    return picked


# The tests that run the whole suite again inside a copy of the project (the ADR walks as written,
# the add-a-rule trial): tens of minutes each on two cores, so they run only when asked, with
# MILK_CONTRACT_WHOLE_COPIES=1 beside the deep run (CI's deep run would pass its 90-minute bound).
WHOLE_COPIES_ENV = "MILK_CONTRACT_WHOLE_COPIES"


def whole_copies() -> bool:
    return os.environ.get(WHOLE_COPIES_ENV) == "1"


# The default run's budget (issue 48: under two minutes on two cores at load 2). A test that starts
# processes and was measured above the file's threshold of CPU (setup included) runs in the deep run only: it is
# listed, with what it cost, in tests/support/slow.json, which `python bench/suite.py --update-slow`
# writes from a profile of the run. `keep` there names the slow tests the default run keeps anyway (the
# README's own commands). MILK_CONTRACT_SLOW=run runs the listed tests in a default run too.
SLOW_FILE = Path(__file__).with_name("slow.json")
SLOW_ENV = "MILK_CONTRACT_SLOW"


def slow_list() -> dict[str, Any]:
    """tests/support/slow.json: ``{"threshold": s, "keep": [node id or "path::"], "tests": {node id: CPU s}}``."""
    loaded: dict[str, Any] = json.loads(SLOW_FILE.read_text(encoding="utf-8"))
    return loaded


def slow_tests() -> dict[str, float]:
    """The listed slow tests and their measured CPU, or nothing when this run runs them anyway."""
    if deep() or os.environ.get(SLOW_ENV) == "run":
        return {}
    tests: dict[str, float] = slow_list()["tests"]
    return tests


def kept(node: str, keep: Sequence[str]) -> bool:
    """Whether slow.json's ``keep`` holds ``node``: its id, or its module's ``path::``."""
    return any(node == k or (k.endswith("::") and node.startswith(k)) for k in keep)
