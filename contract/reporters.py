"""Reporters, chosen by name: ``text`` for people, ``json`` for tools, ``junit`` for CI.

Reporters only read a :class:`~contract.report.Report`. The text reporter groups a finding
that repeats on many lines (a missing ``seq`` on every line) into one entry with a count and
its first lines, so the report on a badly broken stream fits on a screen; the JSON report
keeps every occurrence.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from contract.catalog import CATALOG, Level, rules_for
from contract.report import Report, Violation

MAX_TEXT_GROUPS = 40  # beyond this the text report points at --format json
MAX_TEXT_FINDING_LINES = 45  # with notes, stderr and summary, a report fits on one screen
SHOWN_LINES = 5

# What varies between occurrences of one finding: quoted text, numbers, and the bytes quoted
# by line.utf8 ("invalid bytes e5 4f d3 at byte 4"), which differ on every line of binary input.
_VARIABLE = re.compile(r"'[^']*'|\"[^\"]*\"|(?<=bytes )[0-9a-f]{2}(?: [0-9a-f]{2})*|\d+")
_INDEX = re.compile(r"/\d+(?=/|$)")  # array indices in a pointer: /content/0/text ~ /content/3/text


@dataclass
class Group:
    first: Violation
    lines: list[int] = field(default_factory=list)
    count: int = 0


def group(violations: list[Violation]) -> list[Group]:
    """Findings that differ only in line and in quoted or numeric detail, together."""
    groups: dict[tuple[str, str | None, str], Group] = {}
    for violation in violations:
        pointer = _INDEX.sub("/…", violation.pointer) if violation.pointer else violation.pointer
        key = (violation.rule, pointer, _VARIABLE.sub("…", violation.message))
        entry = groups.get(key)
        if entry is None:
            entry = groups[key] = Group(violation)
        entry.count += 1
        if violation.line is not None and len(entry.lines) < SHOWN_LINES:
            entry.lines.append(violation.line)
    return sorted(groups.values(), key=lambda g: (g.first.line or 0, g.first.rule))


def render_text(report: Report) -> str:
    out: list[str] = [f"# {note}" for note in report.notes]
    groups = group(report.violations)
    shown, hints, budget = 0, set[str](), MAX_TEXT_FINDING_LINES
    for entry in groups[:MAX_TEXT_GROUPS]:
        lines = _text_group(report.source, entry, hints)
        if len(lines) > budget:
            break
        out.extend(lines)
        budget -= len(lines)
        shown += 1
    if len(groups) > shown:
        out.append(f"… {len(groups) - shown} more kinds of finding (--format json lists all)")
    if report.dropped:
        out.append(f"… {report.dropped} further findings counted but not kept (memory cap)")
    if report.stderr.strip():
        tail = report.stderr.strip().splitlines()[-5:]
        out.append("emitter stderr (last lines):")
        out.extend(f"  | {line[:200]}" for line in tail)
    out.append(summary(report))
    return "\n".join(out) + "\n"


def _text_group(source: str, entry: Group, hints: set[str]) -> list[str]:
    """One finding with its count and first lines; a hint only the first time it is given."""
    v = entry.first
    where = f"{source}:{v.line}" if v.line is not None else source
    pointer = f" at {v.pointer}" if v.pointer else ""
    lines = [f"{where} {v.rule} [{v.level}]{pointer}: {v.message}"]
    if entry.count > 1:
        shown = ", ".join(str(n) for n in entry.lines)
        more = ", …" if entry.count > len(entry.lines) else ""
        lines.append(f"    ×{entry.count} on lines {shown}{more}")
    if v.hint and v.hint not in hints:
        hints.add(v.hint)
        lines.append(f"    hint: {v.hint}")
    return lines


def summary(report: Report) -> str:
    total = sum(report.counts.values())
    verdict = "conformant" if report.conformant else "NOT conformant"
    if not total:
        return f"{report.source}: {verdict} ({report.wire}, {report.lines} lines, no findings)"
    must = sum(n for r, n in report.counts.items() if CATALOG[r].level is Level.MUST)
    should = total - must
    rules = ", ".join(sorted(report.counts))
    strict = "" if report.strict or not should else " (SHOULD findings fail only with --strict)"
    return (
        f"{report.source}: {verdict} ({report.wire}, {report.lines} lines): {total} findings "
        f"(MUST {must}, SHOULD {should}) of {len(report.counts)} rules: {rules}{strict}"
    )


def render_json(report: Report) -> str:
    return json.dumps(report.to_json(), ensure_ascii=False, indent=2) + "\n"


def render_junit(report: Report) -> str:
    """One test case per catalogued rule of the wire; a failure per broken rule."""
    from xml.sax.saxutils import escape, quoteattr  # only here: it imports urllib (26 ms at startup)

    by_rule: dict[str, list[Violation]] = {}
    for violation in report.violations:
        by_rule.setdefault(violation.rule, []).append(violation)
    cases: list[str] = []
    failures = 0
    for rule in rules_for(report.wire):
        found = by_rule.get(rule.id, [])
        name = quoteattr(f"{rule.id}: {rule.title}")
        if not report.counts.get(rule.id):
            cases.append(f'  <testcase classname="milk-contract.{report.wire}" name={name}/>')
            continue
        count = report.counts[rule.id]
        body = escape("\n".join(_junit_line(report.source, v) for v in found[:200]))
        fails = rule.level is Level.MUST or report.strict
        tag = "failure" if fails else "skipped"
        failures += fails
        message = quoteattr(f"{count} finding(s); first: {found[0].message if found else ''}")
        cases.append(
            f'  <testcase classname="milk-contract.{report.wire}" name={name}>'
            f"<{tag} message={message}>{body}</{tag}></testcase>"
        )
    header = (
        f'<testsuite name={quoteattr("milk-contract " + report.source)} tests="{len(cases)}" '
        f'failures="{failures}" errors="0">'
    )
    return '<?xml version="1.0" encoding="utf-8"?>\n' + "\n".join([header, *cases, "</testsuite>"]) + "\n"


def _junit_line(source: str, v: Violation) -> str:
    return f"{source}:{v.line} {v.rule} {v.pointer or ''} {v.message}"


REPORTERS: dict[str, Callable[[Report], str]] = {
    "text": render_text,
    "json": render_json,
    "junit": render_junit,
}
