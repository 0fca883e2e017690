"""The checks of the numeric options the command line and the pytest plugin share.

``--timeout`` and ``--contract-timeout``, ``--late-grace`` and ``--contract-late-grace`` mean
the same and must refuse the same: a number of seconds that is negative, infinite or NaN could
only misbehave later (a NaN grace waits unboundedly, then fails inside threading). argparse
makes the number in both; each says what is wrong in its own way (an argparse type error, a
pytest usage error) from the one wording here.
"""

from __future__ import annotations

import math


def seconds_problem(value: float, *, zero: bool = False) -> str | None:
    """What is wrong with ``value`` as seconds (None when nothing is): finite, and above 0 (or,
    with ``zero``, 0 or more). NaN fails every comparison, so it is refused too."""
    if zero:
        return None if 0 <= value < math.inf else "expected zero or more seconds"
    return None if 0 < value < math.inf else "expected a positive number of seconds"
