"""Reports on one or many files, for CI: ``github``, ``sarif`` and ``markdown``, and many-file text/JSON/JUnit.

Every renderer here takes a list of :class:`~contract.rules.report.Report` (one per file, in input
order). The single-file ``text``, ``json`` and ``junit`` reports stay in ``contract.reporting.reporters``;
``contract.reporting.formats.REPORTERS`` maps each ``--format`` name to its single-file and many-file
renderers.

Shapes, fixed here so tools can rely on them:

* ``json`` with many files: ``{"version": 1, "conformant", "files", "failed", "reports": [...]}``,
  each entry the single-file JSON report unchanged. One file named as a file keeps the
  single-file shape; a directory always gets the many-file shape, whatever it holds.
* ``junit`` with many files: ``<testsuites>`` holding each file's ``<testsuite>``.
* ``github``: one workflow command per kind of finding (``::error`` for MUST, and for SHOULD
  under ``--strict``; ``::warning`` for SHOULD), then one plain summary line per file.
* ``sarif``: SARIF 2.1.0, one run; the rules are the whole catalog, results carry their
  JSON pointer in ``properties.pointer``.
* ``markdown``: a table of files and verdicts, then each failing file's kinds of finding.

Per-file facts every format shows come from :func:`file_summary`, so a per-rule status list
(requirement verdicts) can be added there once and reach every format.

Limits are stated, never silent: github annotates at most ``MAX_ANNOTATIONS`` kinds of finding
per file, sarif lists at most ``MAX_SARIF_RESULTS`` findings per file, markdown at most
``MAX_MARKDOWN_GROUPS`` kinds per file; each says how many more there were and where to see
them (``--format json``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from contract.core import textsafe
from contract.core.textsafe import counted
from contract.reporting.reporters import group, render_junit, summary
from contract.reporting.terminal import PLAIN, Style
from contract.rules import requirements
from contract.rules.catalog import CATALOG, Level, Rule
from contract.rules.report import Report, Violation

MAX_ANNOTATIONS = 50  # GitHub shows 10 error annotations per step and 50 per job; more is noise
MAX_SARIF_RESULTS = 5_000  # code scanning keeps at most 25,000 results per run
MAX_MARKDOWN_GROUPS = 20  # a step summary is read by a person (and capped at 1 MiB)
MAX_MESSAGE_CHARS = 1_000  # a hostile member name can make a message as long as a line
TOOL = "milk-contract"

# -- per-format escaping --------------------------------------------------------------------------
# Each format's syntax layer, on top of the one shared escaping (contract.core.textsafe): which input
# characters are shown escaped, and how, is decided there; what follows only keeps each format's
# own syntax intact. Input-derived text goes through textsafe.text exactly once, where it is put
# into the output, bounded by MAX_MESSAGE_CHARS (the cut says how much was left out).


def shown(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """Input-derived text as these formats show it: :func:`contract.core.textsafe.text`, cut at ``limit``."""
    return textsafe.text(text, limit)


def github_data(text: str) -> str:
    """A workflow command's message from text already made safe (:func:`shown`): ``%``, CR and LF
    percent-encoded, as GitHub decodes them (the LF the reporter puts before a hint among them)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(text: str) -> str:
    """A workflow command's property value: as data, and ``:`` and ``,`` too (they end a property)."""
    return github_data(text).replace(":", "%3A").replace(",", "%2C")


# The characters that can start markup inside a GFM table cell (a cell never starts a line, so
# list, heading and ordered-list markers are inert there): the cell separator, code, emphasis,
# links and images, raw HTML and entities, strikethrough, and the escape character itself.
# Rule ids, paths and messages keep their dots, dashes and slashes readable.
_MARKDOWN_ACTIVE = re.compile(r"([\\|`*_\[\]<>~&])")


def markdown_cell(text: str) -> str:
    """Input-derived text for a GFM table cell: :func:`shown` (controls and line breaks as
    escapes), then markup characters backslash-escaped (``|`` and backticks included, and ``<``
    so no HTML gets through; the escapes' own backslashes too, so they render as written)."""
    return _MARKDOWN_ACTIVE.sub(r"\\\1", shown(text))


def sarif_uri(path: str) -> str:
    """A relative URI reference for a path (percent-encoded; an absolute path becomes file://)."""
    import urllib.parse  # only here: urllib costs start-up time on every other command

    # a file name that is not UTF-8 arrives with surrogate escapes (os.fsdecode): its bytes are
    # percent-encoded as they are; any other lone surrogate, as UTF-8 would write it
    path = path.replace("\\", "/")
    try:
        raw = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raw = path.encode("utf-8", "surrogatepass")
    uri = urllib.parse.quote(raw, safe="/")
    return "file://" + uri if uri.startswith("/") else uri


# -- what every format says about one file ------------------------------------------------------


@dataclass(frozen=True)
class FileSummary:
    """One file's verdict and counts, and how many catalogued rules the file exercised."""

    source: str
    wire: str
    lines: int
    conformant: bool
    must: int
    should: int
    rules: tuple[str, ...]
    dropped: int
    exercised: int = 0  # catalogued rules of the wire that passed or failed
    catalogued: int = 0  # catalogued rules of the wire that apply to the report (not-applicable left out)
    not_exercised: tuple[str, ...] = ()
    not_applicable: int = 0  # catalogued rules of the wire the report could never exercise


def file_summary(report: Report) -> FileSummary:
    must = sum(n for rule, n in report.counts.items() if CATALOG[rule].level is Level.MUST)
    found = requirements.verdicts(report)
    idle = tuple(v.rule.id for v in found if v.status == requirements.NOT_EXERCISED)
    exercised = sum(v.status in (requirements.PASSED, requirements.FAILED) for v in found)
    inapplicable = sum(not v.applicable for v in found)
    return FileSummary(report.source, report.wire, report.lines, report.conformant, must,
                       sum(report.counts.values()) - must, tuple(sorted(report.counts)), report.dropped,
                       exercised, len(found) - inapplicable, idle, inapplicable)


def _exercised(report: Report) -> str:
    s = file_summary(report)
    return f"{s.exercised} of {counted(s.catalogued, 'applicable rule')} exercised ({s.not_applicable} not applicable)"


def _failing(violation: Violation, report: Report) -> bool:
    return report.fails(violation.rule)  # level, --strict and --basis


def _totals(reports: list[Report]) -> str:
    failed = sum(not r.conformant for r in reports)
    files = counted(len(reports), "file")
    return f"{files}: {len(reports) - failed} conformant, {failed} NOT conformant" if failed else \
        f"{files}: all conformant"


# -- text, json and junit over many files --------------------------------------------------------


def render_text_many(reports: list[Report], style: Style = PLAIN) -> str:
    """One line per file (its verdict, counts and broken rules), then the totals (``style``: colour,
    and -q: the files' lines and the totals only)."""
    out: list[str] = []
    for r in reports:
        out.append(summary(r, style))  # summary() escapes the source itself
        if r.coverage is not None and not style.quiet:  # --coverage: the tally under the file's line
            out.append(f"  {textsafe.text(r.coverage.text_lines()[0])}")
        if r.timeline is not None and not style.quiet:  # a live run: when its lines came
            out.append(f"  {textsafe.text(r.timeline.summary())}")
    if style.quiet:
        out.append(_totals(reports))
        return "\n".join(out) + "\n"
    if any(not r.conformant for r in reports):
        out.append(f"# details: {TOOL} check FILE (one file) or --format json")
    # the wire note of pipeline.wire_hint, said once for the lot (a folder of mixed captures, say)
    other = [r for r in reports if any(note.startswith("wire: checked as ") for note in r.notes)]
    if other:
        out.append(f"# {counted(len(other), 'file')} (first: {textsafe.text(other[0].source)}) looked like another "
                   "wire than the one checked: pass --wire auto to pick the wire per file")
    out.append(_totals(reports))
    return "\n".join(out) + "\n"


def render_json_many(reports: list[Report]) -> str:
    failed = sum(not r.conformant for r in reports)
    payload = {"version": 1, "conformant": not failed, "files": len(reports), "failed": failed,
               "reports": [r.to_json() for r in reports]}
    return textsafe.json_safe(json.dumps(payload, ensure_ascii=False, indent=2)) + "\n"


def render_junit_many(reports: list[Report]) -> str:
    from xml.sax.saxutils import quoteattr

    suites = []
    for report in reports:
        xml = render_junit(report)
        suites.append((xml.split("\n", 1)[1] if xml.startswith("<?xml") else xml).rstrip("\n"))  # already safe
    failures = sum(not r.conformant for r in reports)
    header = f'<testsuites name={quoteattr(TOOL)} tests="{len(reports)}" failures="{failures}">'
    return '<?xml version="1.0" encoding="utf-8"?>\n' + "\n".join([header, *suites, "</testsuites>"]) + "\n"


# -- github workflow commands ------------------------------------------------------------------


def render_github(reports: list[Report]) -> str:
    out: list[str] = []
    for report in reports:
        file = github_property(shown(report.source))
        groups = group(report.violations)
        for entry in groups[:MAX_ANNOTATIONS]:
            v = entry.first
            command = "error" if _failing(v, report) else "warning"
            props = f"file={file}"
            if v.line is not None:
                props += f",line={v.line}"
            props += f",title={github_property(f'{v.rule} [{v.level}]')}"
            basis = f" [basis: {report.basis_of(v.rule).value}{'' if report.judged(v.rule) else ', outside --basis'}]"
            out.append(f"::{command} {props}::{github_data(_message(v, entry.count, entry.lines) + basis)}")
        unshown = len(groups) - min(len(groups), MAX_ANNOTATIONS)
        if unshown or report.dropped:
            more = f"{counted(unshown, 'more kind', 'more kinds')} of finding not annotated; " if unshown else ""
            kept = f"{counted(report.dropped, 'finding')} counted but not kept; " if report.dropped else ""
            out.append(f"::warning file={file},title={TOOL}::{github_data(more + kept + 'see --format json')}")
    # plain lines: prefixed, so that no file name can start a workflow command
    for r in reports:
        out.append(f"{TOOL}: {summary(r)}")  # summary() escapes the source itself
        out.append(f"{TOOL}: {shown(r.source)}: {_exercised(r)}")
        if r.timeline is not None:
            out.append(f"{TOOL}: {shown(r.source)}: {shown(r.timeline.summary())}")
    out.append(f"{TOOL}: {_totals(reports)}")
    return "\n".join(out) + "\n"


def _message(v: Violation, count: int, lines: list[int]) -> str:
    """The annotation's text, each input-derived part escaped (the LF before a hint is the reporter's)."""
    pointer = f" at {shown(v.pointer)}" if v.pointer else ""
    text = f"{shown(v.message)}{pointer}"
    if count > 1:
        more = ", …" if count > len(lines) else ""
        text += f" (×{count}, lines {', '.join(map(str, lines))}{more})"
    if v.hint:
        text += f"\nhint: {shown(v.hint)}"
    return text


# -- SARIF 2.1.0 -------------------------------------------------------------------------------

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _sarif_level(level: Level) -> str:
    return "error" if level is Level.MUST else "warning"


@cache
def _sarif_rules() -> tuple[list[dict[str, object]], dict[str, int]]:
    rules = list(CATALOG.values())
    return [_sarif_rule(r) for r in rules], {r.id: i for i, r in enumerate(rules)}


def _sarif_rule(rule: Rule) -> dict[str, object]:
    return {
        "id": rule.id,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": f"{rule.title} ({rule.level.value}). From: {rule.source}"},
        "help": {"text": f"{rule.level.value}: {rule.title}.\nFrom: {rule.source}\n"
                         f"Skip with --ignore {rule.id}; list all rules with `{TOOL} rules`."},
        "defaultConfiguration": {"level": _sarif_level(rule.level)},
        "properties": {"level": rule.level.value, "wire": rule.wire, "basis": rule.basis.value,
                       "basis_on": dict(rule.basis_on), "filterable": rule.filterable},
    }


def render_sarif(reports: list[Report]) -> str:
    rules, index = _sarif_rules()
    results: list[dict[str, object]] = []
    notifications: list[dict[str, object]] = []
    for report in reports:
        uri = sarif_uri(report.source)
        for v in report.violations[:MAX_SARIF_RESULTS]:
            results.append(_sarif_result(v, uri, index, report))
        unlisted = sum(report.counts.values()) - min(len(report.violations), MAX_SARIF_RESULTS)
        if unlisted:
            notifications.append({
                "level": "warning",
                "message": {"text": f"{shown(report.source)}: {counted(unlisted, 'further finding')} counted but not "
                                    "listed here (see --format json)"},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri}}}],
            })
    from importlib.metadata import PackageNotFoundError, version

    try:
        tool_version = version(TOOL)
    except PackageNotFoundError:
        tool_version = "0+unknown"
    run: dict[str, object] = {
        "tool": {"driver": {"name": TOOL, "version": tool_version, "rules": rules}},
        "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notifications}],
        "results": results,
        "properties": {"conformant": all(r.conformant for r in reports),
                       "files": [{"uri": sarif_uri(r.source), "wire": r.wire, "lines": r.lines,
                                  "conformant": r.conformant,
                                  # per catalogued rule: passed, failed, not-exercised or ignored
                                  "bases": [b.value for b in r.bases],
                                  "requirements": [{"rule": v.rule.id, "status": v.status,
                                                    "basis": v.basis.value, "findings": v.findings,
                                                    "reason": v.reason, "applicability": v.applicability}
                                                   for v in requirements.verdicts(r)],
                                  # a live run: when its lines came (contract.live.timeline)
                                  **({} if r.timeline is None else {"timeline": r.timeline.to_json()})}
                                 for r in reports]},
    }
    sarif = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(sarif, ensure_ascii=True, indent=2) + "\n"


def _sarif_result(v: Violation, uri: str, index: dict[str, int], report: Report) -> dict[str, object]:
    location: dict[str, object] = {"artifactLocation": {"uri": uri}}
    if v.line is not None and v.line >= 1:
        location["region"] = {"startLine": v.line}
    # SARIF viewers show these strings to people after decoding the JSON: escaped as for a
    # terminal (the JSON layer alone would hand a viewer the raw characters back)
    text = shown(v.message) + (f" (at {shown(v.pointer)})" if v.pointer else "")
    # properties are data for tools: the exact strings (ensure_ascii keeps the document ASCII)
    properties: dict[str, object] = {"pointer": v.pointer, "level": v.level.value,
                                     "basis": report.basis_of(v.rule).value, "judged": report.judged(v.rule)}
    if v.hint:
        properties["hint"] = v.hint
    return {
        "ruleId": v.rule,
        "ruleIndex": index[v.rule],
        "level": "error" if _failing(v, report) else "warning",
        "message": {"text": text},
        "locations": [{"physicalLocation": location}],
        "properties": properties,
    }


# -- markdown (a CI step summary) ---------------------------------------------------------------


def render_markdown(reports: list[Report]) -> str:
    failed = sum(not r.conformant for r in reports)
    title = "all conformant" if not failed else f"{failed} of {len(reports)} NOT conformant"
    out = [f"### {TOOL}: {counted(len(reports), 'file')}, {title}", "",
           "| File | Wire | Lines | Verdict | MUST | SHOULD | Rules | Exercised |",
           "| --- | --- | ---: | --- | ---: | ---: | --- | ---: |"]
    for report in reports:
        s = file_summary(report)
        verdict = "conformant" if s.conformant else "**NOT conformant**"
        rules = ", ".join(markdown_cell(rule) for rule in s.rules) or "none"
        out.append(f"| {markdown_cell(s.source)} | {markdown_cell(s.wire)} | {s.lines} | {verdict} | "
                   f"{s.must} | {s.should} | {rules} | {s.exercised} of {s.catalogued} |")
    idle = [(r, file_summary(r).not_exercised) for r in reports]
    if any(rules for _, rules in idle):
        out += ["", "Applicable rules not exercised (the capture held nothing they apply to):", ""]
        out += [f"- {markdown_cell(r.source)}: {', '.join(markdown_cell(rule) for rule in rules)}"
                for r, rules in idle if rules]
    timed = [r for r in reports if r.timeline is not None]
    if timed:  # live runs: when their lines came
        out += ["", "Timeline (live runs):", ""]
        out += [f"- {markdown_cell(r.source)}: {markdown_cell(r.timeline.summary())}" for r in timed
                if r.timeline is not None]
    out.extend(_markdown_not_applicable(reports))
    for report in reports:
        if report.violations or report.dropped:
            out.extend(_markdown_findings(report))
    return "\n".join(out) + "\n"


def _markdown_not_applicable(reports: list[Report]) -> Iterable[str]:
    """The rules no report could exercise, by reason (the verb, an undeclared capability, another wire)."""
    lines = []
    for report in reports:
        for why, rules in requirements.not_applicable(requirements.verdicts(report)).items():
            lines.append(f"- {markdown_cell(report.source)}: {markdown_cell(why)}: "
                         f"{', '.join(markdown_cell(rule) for rule in rules)}")
    if lines:
        yield from ["", "Rules not applicable (never counted as gaps):", "", *lines]


def _markdown_findings(report: Report) -> Iterable[str]:
    yield ""
    yield f"#### {markdown_cell(report.source)}"
    yield ""
    yield "| Rule | Level | Basis | Line | Pointer | Finding | Count |"
    yield "| --- | --- | --- | ---: | --- | --- | ---: |"
    groups = group(report.violations)
    for entry in groups[:MAX_MARKDOWN_GROUPS]:
        v = entry.first
        line = "" if v.line is None else str(v.line)
        basis = report.basis_of(v.rule).value + ("" if report.judged(v.rule) else " (outside --basis)")
        yield (f"| {markdown_cell(v.rule)} | {v.level.value} | {basis} | {line} | {markdown_cell(v.pointer or '')} | "
               f"{markdown_cell(v.message)} | {entry.count} |")
    rest = len(groups) - min(len(groups), MAX_MARKDOWN_GROUPS)
    if rest or report.dropped:
        yield ""
        notes = [f"{counted(rest, 'more kind', 'more kinds')} of finding"] if rest else []
        notes += [f"{counted(report.dropped, 'finding')} counted but not kept"] if report.dropped else []
        yield f"{'; '.join(notes)}: see `--format json`."
