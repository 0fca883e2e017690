"""Every ``--format`` by name: one table, ``REPORTERS``, as check-jsonschema keeps its reporters.

Each :class:`Reporter` renders one report (``one``) and many (``many``: a folder or several
files), and writes one to a stream (``write``: the JSON report violation by violation, so its
memory stays flat in the number of findings; the others rendered, then written). The text
renderers take the style (colour, ``-q``/``-v``, the width: contract.reporting.terminal); the
machine formats have none and ignore it.

The renderers live beside their kind: text, JSON and JUnit for one file in
``contract.reporting.reporters``, the CI formats and the many-file text, JSON and JUnit in
``contract.reporting.ci_reports``. ``contract.cli.common.FORMAT_NAMES`` lists the names (the
command line's choices, without loading this module) and a test holds the two equal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from contract.reporting import ci_reports, reporters
from contract.reporting.terminal import PLAIN, Style
from contract.rules.report import Report

One = Callable[[Report, Style], str]
Many = Callable[[list[Report], Style], str]


@dataclass(frozen=True)
class Reporter:
    """One ``--format``: how it renders one report, many, and (when it can) streams one."""

    render_one: One
    render_many: Many
    stream: Callable[[Report, TextIO], None] | None = None  # written as serialised: memory flat in the findings

    def one(self, report: Report, style: Style = PLAIN) -> str:
        return self.render_one(report, style)

    def many(self, reports: list[Report], style: Style = PLAIN) -> str:
        return self.render_many(reports, style)

    def write(self, report: Report, out: TextIO, style: Style = PLAIN) -> None:
        """One report written to ``out``: streamed when the format can be, else rendered whole."""
        if self.stream is not None:
            self.stream(report, out)
        else:
            out.write(self.one(report, style))


def _unstyled_one(render: Callable[[Report], str]) -> One:
    return lambda report, _style: render(report)


def _unstyled(render: Callable[[list[Report]], str]) -> Many:
    return lambda reports, _style: render(reports)


def _single(render: Callable[[list[Report]], str]) -> One:
    return lambda report, _style: render([report])


REPORTERS: dict[str, Reporter] = {
    "text": Reporter(reporters.render_text, ci_reports.render_text_many),
    "json": Reporter(_unstyled_one(reporters.render_json), _unstyled(ci_reports.render_json_many),
                     reporters.write_json),
    "junit": Reporter(_unstyled_one(reporters.render_junit), _unstyled(ci_reports.render_junit_many)),
    "github": Reporter(_single(ci_reports.render_github), _unstyled(ci_reports.render_github)),
    "sarif": Reporter(_single(ci_reports.render_sarif), _unstyled(ci_reports.render_sarif)),
    "markdown": Reporter(_single(ci_reports.render_markdown), _unstyled(ci_reports.render_markdown)),
}
