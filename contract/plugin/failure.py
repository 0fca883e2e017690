"""A contract test's failure: the whole report in pytest's failures section, one line in its summary.

``pytest.fail(report)`` puts the same text in both places, and pytest prints a failure's whole
message in the short test summary when it runs on CI (``$CI`` or ``$BUILD_NUMBER`` set, where
logs are not truncated to the terminal's width): a thirty-line report appeared twice in exactly
the place milk maintainers read it. :func:`fail` raises :class:`ContractFailed`, which carries a
one-line headline beside the report; the plugin's ``pytest_runtest_makereport`` wrapper hands the
report to :func:`shorten`, which gives the failure the headline as its crash message (the short
summary and junit XML's ``message`` attribute read it) and keeps the report as its text.

Without the plugin's wrapper a ContractFailed is an ordinary ``pytest.fail`` (the report in both
places, as before): never a traceback, never a pass.
"""

from __future__ import annotations

from typing import NoReturn

import pytest

# pytest's own representation of a failure, the one ``--tb=native`` builds: it crosses pytest-xdist
# intact (a plain object with a toterminal() would reach the controller as str() of itself, and
# the summary would print it whole again). Private API, stable in these names since pytest 5.
from _pytest._code.code import ExceptionChainRepr, ReprEntryNative, ReprFileLocation, ReprTraceback
from _pytest.outcomes import Failed  # what pytest.fail raises (pytest.fail.Exception), named for the type checker

_HEADLINE_LIMIT = 300  # characters: the summary line stays one line a person can read


class ContractFailed(Failed):
    """pytest.fail(report, pytrace=False), with a one-line headline for the summary."""

    def __init__(self, report: str, headline: str) -> None:
        super().__init__(report, pytrace=False)
        self.headline = headline


def fail(report: str, headline: str) -> NoReturn:
    """Fail the running test with ``report`` shown once and ``headline`` as its summary line."""
    raise ContractFailed(report, headline)


def one_line(text: str) -> str:
    """``text``'s first line, bounded: what a summary line may hold."""
    first = text.strip().splitlines()[0] if text.strip() else "failed"
    return first if len(first) <= _HEADLINE_LIMIT else first[:_HEADLINE_LIMIT - 1] + "…"


def shorten(report: pytest.TestReport, failed: ContractFailed) -> None:
    """Give a failed call's report the headline as its crash message, keeping the text it shows."""
    headline = one_line(failed.headline)
    longrepr = report.longrepr
    if isinstance(longrepr, ExceptionChainRepr) and longrepr.chain:  # pytest 8 and later: style "value"
        *before, (traceback, crash, description) = longrepr.chain
        where = (crash.path, crash.lineno) if crash is not None else (report.location[0], (report.location[1] or 0) + 1)
        shortened = ExceptionChainRepr([*before, (traceback, ReprFileLocation(*where, headline), description)])
        for name, content, sep in longrepr.sections:
            shortened.addsection(name, content, sep)
        report.longrepr = shortened
    elif isinstance(longrepr, str):  # older pytest: the message itself
        shown = longrepr if longrepr.endswith("\n") else longrepr + "\n"
        traceback = ReprTraceback([ReprEntryNative([shown])], None, "native")
        path, lineno, _ = report.location
        report.longrepr = ExceptionChainRepr([(traceback, ReprFileLocation(path, (lineno or 0) + 1, headline), None)])
