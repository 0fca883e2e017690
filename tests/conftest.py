"""Hypothesis profiles for the suite.

* ``dev`` (the default): few examples and no deadline, so the whole suite stays near two
  minutes on two cores; the generated-data tests scale their own counts from it.
* ``ci``: ten times deeper. Select it with ``--hypothesis-profile=ci`` or ``HYPOTHESIS_PROFILE=ci``.

Both print the reproduction blob of a failing example, and both keep hypothesis' default
example database (``.hypothesis/``), so a failure found once is replayed first next time.
Deadlines are off: on a shared two-core machine a test's time varies with the load, and a
deadline would make the suite flaky rather than faster. (The public strategies themselves are
health-checked under hypothesis' default settings in tests/test_strategies_compose.py.)
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("dev", max_examples=10, deadline=None, print_blob=True)
settings.register_profile("ci", max_examples=100, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
