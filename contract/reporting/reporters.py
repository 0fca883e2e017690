"""The single-file reporters: ``text`` for people, ``json`` for tools, ``junit`` for CI (chosen by
name in the one table of every format, ``contract.reporting.formats.REPORTERS``).

Reporters only read a :class:`~contract.rules.report.Report`. The text reporter groups a finding
that repeats on many lines (a missing ``seq`` on every line) into one entry with a count and
its first lines, so the report on a badly broken stream fits on a screen; the JSON report
lists every occurrence the report kept (``contract.rules.report`` says which are kept past its
memory cap) and the exact count of every rule. Every report says how many findings it
counted and how many it kept.

Input-derived text (pointers, messages, source names, stderr) is printed through
``contract.core.textsafe``, so no control character from the input reaches a terminal or an XML
parser raw. The JSON format can be written to a stream violation by violation (``write_json``),
so its memory does not grow with the number of findings.
"""

from __future__ import annotations

import io
import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from contract.core import textsafe
from contract.core.textsafe import counted
from contract.reporting.terminal import BOLD, GREEN, PLAIN, RED, YELLOW, Style
from contract.rules import requirements
from contract.rules.catalog import CATALOG, Level, Rule, always_judged
from contract.rules.report import Report, Violation

if TYPE_CHECKING:  # only for the record and diff reports' types: scenarios load the live harness
    from contract.evolution.classify import Change
    from contract.evolution.consequences import Rejections
    from contract.evolution.witness import Witness
    from contract.goldens.compare import Comparison
    from contract.goldens.scenarios import ScenarioRun
    from contract.goldens.store import Golden

MAX_TEXT_GROUPS = 40  # beyond this the text report points at --format json
MAX_TEXT_LINES = 40  # the default and -q reports: the findings take what the other lines leave of this
MIN_TEXT_FINDING_LINES = 12  # ...but never fewer (a long stderr excerpt or many notes still leave findings)
MAX_TEXT_FINDING_LINES = 45  # -v: the findings' lines, beside every requirement's verdict
SHOWN_LINES = 5
STDERR_LINE_CHARS = 200  # per stderr line shown; a longer one says how much was cut

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


def render_text(report: Report, style: Style = PLAIN) -> str:
    """The report for people; ``style`` (contract.reporting.terminal) adds colour, -q or -v and wrapping.

    The default report is as short as its news: the notes, the findings, one requirement line of
    counts (:func:`requirement_line`), then the verdict line; at most :data:`MAX_TEXT_LINES` lines
    while the lines other than findings leave :data:`MIN_TEXT_FINDING_LINES` to the findings. ``-q``
    drops the notes and the requirement line; ``-v`` lists every requirement by status and reason,
    then each rule's verdict.
    """
    safe = textsafe.text
    head = [] if style.quiet else _note_lines(report.notes, style)
    tail = [*(style.wrapped(kept_line(report)) if report.dropped else []),
            *([] if style.quiet else _detail_lines(report, style)), summary(report, style)]
    budget = MAX_TEXT_FINDING_LINES if style.verbose else \
        max(MIN_TEXT_FINDING_LINES, MAX_TEXT_LINES - len(head) - len(tail) - 1)  # 1: the "… more kinds" line
    groups = group(report.violations)
    findings: list[str] = []
    shown, hints = 0, set[str]()
    for entry in groups[:MAX_TEXT_GROUPS]:
        lines = _text_group(safe(report.source), entry, hints, _basis_tag(report, entry.first.rule), style)
        if len(lines) > budget:
            break
        findings.extend(lines)
        budget -= len(lines)
        shown += 1
    if len(groups) > shown:
        findings.append(f"… {counted(len(groups) - shown, 'more kind', 'more kinds')} of finding "
                        "(--format json lists all)")
    return "\n".join([*head, *findings, *tail]) + "\n"


SHOWN_LIKE_NOTES = 5  # notes of one shape named by what differs; the rest counted


def _note_lines(notes: list[str], style: Style) -> list[str]:
    """The notes, ``# `` each. -v: every one in full. The default: notes that differ only in quoted
    or numeric detail (one per unlisted line type, say) once in full, then one line naming what
    the others differ in ("line 5 'control_response'")."""
    safe = textsafe.text
    if style.verbose:
        return [w for note in notes for w in style.wrapped(f"# {safe(note)}")]
    shapes: dict[str, list[str]] = {}
    for note in notes:
        shapes.setdefault(_VARIABLE.sub("…", note), []).append(note)
    out: list[str] = []
    for alike in shapes.values():
        first = alike[0]
        out.extend(style.wrapped(f"# {safe(first)}"))
        if len(alike) == 1:
            continue
        base = _VARIABLE.findall(first)
        differ = [_differing(note, base) for note in alike[1:SHOWN_LIKE_NOTES + 1]]
        more = "; …" if len(alike) - 1 > SHOWN_LIKE_NOTES else ""
        out.extend(style.wrapped(f"# {counted(len(alike) - 1, 'more note')} like it: {safe('; '.join(differ))}{more} "
                                 "(-v shows each)"))
    return out


def _differing(note: str, base: list[str]) -> str:
    """The stretch of ``note`` from the word before its first detail that differs from ``base``'s
    (its first note's details, in order) to the end of its last one: "line 5 has type 'x'"."""
    spans = [m.span() for m, was in zip(_VARIABLE.finditer(note), base, strict=False) if m.group() != was]
    if not spans:
        return note
    start = note.rfind(" ", 0, max(spans[0][0] - 1, 0)) + 1
    return note[start:spans[-1][1]]


def _detail_lines(report: Report, style: Style) -> list[str]:
    """What the default and -v reports show between the findings and the verdict: the stderr
    excerpt, the requirements (one line of counts; -v: each by status, then each rule's verdict),
    the coverage (--coverage) and a live run's timeline."""
    from contract.core.stderr_tail import excerpt_lines

    out: list[str] = []
    if report.stderr.strip():
        out.append("emitter stderr (the first error, then the last lines):" if _has_block(report.stderr)
                   else "emitter stderr (last lines):")
        out.extend(f"  | {textsafe.text(line, STDERR_LINE_CHARS)}" for line in excerpt_lines(report.stderr))
    if style.verbose:
        out.extend(w for line in requirements.summary_lines(report) for w in style.wrapped(line))
        paints = {requirements.PASSED: (GREEN,), requirements.FAILED: (RED, BOLD)}
        out.extend(f"  {verdict.rule.id}: {style.paint(verdict.status, *paints.get(verdict.status, ()))}"
                   for verdict in requirements.verdicts(report))
    else:
        out.append(requirement_line(report))
    if report.coverage is not None:
        out.extend(w for line in report.coverage.text_lines() for w in style.wrapped(textsafe.text(line)))
    if report.timeline is not None:  # a live run: when its lines came (contract.live.timeline)
        out.extend(style.wrapped(textsafe.text(report.timeline.summary())))
    return out


def requirement_line(report: Report) -> str:
    """The default text report's requirement line: how many rules passed, failed, were not
    exercised (and were ignored or left outside --basis, when any were), and how many could
    not apply to what made the report (a file is not a live run, nor a feed); counted, never
    listed: ``-v`` names each. One line, never wrapped."""
    counts = requirements.tally(report)
    parts = [f"{counts[requirements.PASSED]} passed", f"{counts[requirements.FAILED]} failed",
             f"{counts[requirements.NOT_EXERCISED]} not exercised"]
    if counts[requirements.IGNORED]:
        parts.append(f"{counts[requirements.IGNORED]} ignored")
    if report.narrowed:
        parts.append(f"{counts[requirements.OUTSIDE_BASIS]} outside --basis")
    return f"requirements: {', '.join(parts)}; {counts[requirements.NOT_APPLICABLE]} not applicable (-v lists each)"


def _has_block(stderr: str) -> bool:
    from contract.core.stderr_tail import first_block

    return bool(first_block(stderr.splitlines()))


def kept_line(report: Report) -> str:
    """How many findings were counted and kept, overall and for each rule that lost some."""
    counts, kept = report.counts, report.kept_counts()
    short = ", ".join(f"{rule} {kept.get(rule, 0)} of {n}" for rule, n in sorted(counts.items())
                      if kept.get(rule, 0) < n)
    return (f"… {counted(sum(counts.values()), 'finding')} counted, {len(report.violations)} kept "
            f"({report.dropped} past the memory cap are counted only; kept of counted: {short})")


def _basis_tag(report: Report, rule: str) -> str:
    """`` [basis: derived]``, and whether --basis left the finding out of the verdict."""
    outside = "" if report.judged(rule) else ", outside --basis: listed, not failing"
    return f" [basis: {report.basis_of(rule).value}{outside}]"


def _text_group(source: str, entry: Group, hints: set[str], basis: str = "", style: Style = PLAIN) -> list[str]:
    """One finding with its count and first lines; a hint only the first time it is given."""
    safe = textsafe.text
    v = entry.first
    where = f"{source}:{v.line}" if v.line is not None else source
    pointer = f" at {safe(v.pointer)}" if v.pointer else ""
    rule = style.paint(v.rule, RED if v.level is Level.MUST else YELLOW, BOLD)
    lines = [f"{where} {rule} [{style.level(v.level.value)}]{pointer}: {safe(v.message)}{basis}"]
    if entry.count > 1:
        shown = ", ".join(str(n) for n in entry.lines)
        more = ", …" if entry.count > len(entry.lines) else ""
        # a finding of no line (a consumer's, say) has none to show: only how many
        lines.append(f"    ×{entry.count} on lines {shown}{more}" if shown else f"    ×{entry.count}")
    if v.hint and v.hint not in hints:
        hints.add(v.hint)
        lines.append(f"    hint: {safe(v.hint)}")
    return lines


def summary(report: Report, style: Style = PLAIN) -> str:
    total = sum(report.counts.values())
    verdict = style.paint("conformant", GREEN) if report.conformant else style.paint("NOT conformant", RED, BOLD)
    source = textsafe.text(report.source)
    if not total:
        lines = counted(report.lines, "line")
        return f"{source}: {verdict} ({report.wire}, {lines}, no findings){basis_clause(report)}"
    must = sum(n for r, n in report.counts.items() if CATALOG[r].level is Level.MUST)
    should = total - must
    rules = ", ".join(sorted(report.counts))
    strict = "" if report.strict or not should else " (SHOULD findings fail only with --strict)"
    return (
        f"{source}: {verdict} ({report.wire}, {counted(report.lines, 'line')}): {counted(total, 'finding')} "
        f"(MUST {must}, SHOULD {should}) of {counted(len(report.counts), 'rule')}: {rules}{strict}"
        f"{basis_clause(report)}"
    )


def basis_clause(report: Report) -> str:
    """What --basis judged, for the summary line (empty when every basis was judged)."""
    if not report.narrowed:
        return ""
    judged = ", ".join(b.value for b in report.bases)
    left = report.unjudged()
    listed = (f"{counted(sum(left.values()), 'finding')} of {', '.join(left)} listed, not failing" if left
              else "no finding of the others")
    return f"; judged: --basis {judged} only ({listed}; {always_judged(report.wire)})"


def render_json(report: Report) -> str:
    buffer = io.StringIO()
    write_json(report, buffer)
    return buffer.getvalue()


def write_json(report: Report, stream: TextIO) -> None:
    """The JSON report, written as it is serialised: one violation at a time (memory stays flat).

    The document is what ``json.dumps(report.to_json(), indent=2)`` would give, except that
    unsafe characters are escaped (``textsafe.json_safe``).
    """
    # the header alone: to_json() would build every violation's dict only for it to be dropped
    body = json.dumps(report.header_json(), ensure_ascii=False, indent=2)
    stream.write(textsafe.json_safe(body[:-2]))  # without the closing "\n}"
    if not report.violations:
        stream.write(',\n  "violations": []\n}\n')
        return
    stream.write(',\n  "violations": [')
    separator = "\n"
    for violation in report.violations:
        item = json.dumps(report.violation_json(violation), ensure_ascii=False, indent=2)
        stream.write(separator + textsafe.json_safe(item.replace("\n", "\n    ")).join(("    ", "")))
        separator = ",\n"
    stream.write("\n  ]\n}\n")


def render_junit(report: Report) -> str:
    """One test case per catalogued rule of the wire; a failure per broken rule.

    A rule the capture did not exercise, or that --ignore switched off, is skipped with the
    reason (``contract.rules.requirements``), never shown as passed.

    Every input-derived string goes through ``textsafe.xml``: the document is well-formed
    XML 1.0 whatever the input held (a U+0001 in a member name is shown as ``\\u0001``).
    """
    attr, xml = textsafe.xml_attr, textsafe.xml
    by_rule: dict[str, list[Violation]] = {}
    for violation in report.violations:
        by_rule.setdefault(violation.rule, []).append(violation)
    cases: list[str] = []
    failures = 0
    classname = attr(f"milk-contract.{report.wire}")
    skipped = 0
    for verdict in requirements.verdicts(report):
        rule = verdict.rule
        found = by_rule.get(rule.id, [])
        name = attr(f"{rule.id}: {rule.title}")
        if verdict.status in (requirements.NOT_EXERCISED, requirements.NOT_APPLICABLE, requirements.IGNORED) or (
                verdict.status == requirements.OUTSIDE_BASIS and not verdict.findings):
            skipped += 1  # never shown as passed: the capture did not test it
            cases.append(f"  <testcase classname={classname} name={name}>"
                         f"<skipped message={attr(verdict.reason)}/></testcase>")
            continue
        if not report.counts.get(rule.id):
            cases.append(f"  <testcase classname={classname} name={name}/>")
            continue
        count = report.counts[rule.id]
        body = "\n".join(xml(_junit_line(report.source, v)) for v in found[:JUNIT_SHOWN])
        fails = report.fails(rule.id)
        tag = "failure" if fails else "skipped"
        failures += fails
        skipped += not fails
        first = found[0].message if found else ""
        message = attr(f"{counted(count, 'finding')} counted, {len(found)} kept, {min(len(found), JUNIT_SHOWN)} "
                       f"shown; first: {first}")
        cases.append(
            f"  <testcase classname={classname} name={name}>"
            f"<{tag} message={message}>{body}</{tag}></testcase>"
        )
    header = (
        f'<testsuite name={attr("milk-contract " + report.source)} tests="{len(cases)}" '
        f'failures="{failures}" errors="0" skipped="{skipped}">'
    )
    if report.timeline is not None:  # a live run: when its lines came, as the suite's property
        cases.insert(0, f'  <properties><property name="timeline" value={attr(report.timeline.summary())}/>'
                        "</properties>")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + "\n".join([header, *cases, "</testsuite>"]) + "\n"


JUNIT_SHOWN = 200  # occurrences listed per rule; the failure message gives counted and kept


def _junit_line(source: str, v: Violation) -> str:
    return f"{source}:{v.line} {v.rule} {v.pointer or ''} {v.message}"


# -- the other verbs: rules, record, diff, surface --------------------------------------------
# Every verb's output is rendered here, so the CLI only parses, dispatches and picks exit codes.


def render_rules(rules: list[Rule], fmt: str) -> str:
    """``milk-contract rules``: the catalog as a table (text) or a list of objects (json)."""
    if fmt == "json":
        payload = [{"id": r.id, "level": r.level.value, "wire": r.wire, "basis": r.basis.value,
                    "basis_on": dict(r.basis_on), "filterable": r.filterable, "silenceable": r.silenceable,
                    "title": r.title, "source": r.source}
                   for r in rules]
        return json.dumps(payload, ensure_ascii=False, indent=2) + "\n"
    width = max(len(r.id) for r in rules)
    basis_width = max(len(_basis_cell(r)) for r in rules)
    return "".join(f"{r.id:<{width}}  {r.level.value:<6}  {_basis_cell(r):<{basis_width}}  {r.title}\n"
                   f"{'':<{width}}          from: {r.source}\n"
                   for r in rules)


def rules_table(rules: list[Rule]) -> str:
    """The rules as a Markdown table (rule, level, basis, title): docs/rules.md's, which
    tools/rules_doc.py writes from the catalog, so a rule's row comes from its declaration."""
    rows = ["| rule | level | basis | title |", "| --- | --- | --- | --- |"]
    for rule in rules:
        others = "".join(f" ({basis.value} on {wire})" for wire, basis in rule.basis_on)
        always = ", always judged" if not rule.filterable else ""
        title = rule.title.replace("|", "\\|")  # a pipe in a title would end its cell
        rows.append(f"| `{rule.id}` | {rule.level.value} | {rule.basis.value}{others}{always} | {title} |")
    return "\n".join(rows) + "\n"


def _basis_cell(rule: Rule) -> str:
    """The basis column of ``rules``: one word, with the per-wire override and --basis exemption said."""
    others = "".join(f" ({basis.value} on {wire})" for wire, basis in rule.basis_on)
    always = " (always judged)" if not rule.filterable else ""
    return f"{rule.basis.value}{others}{always}"


def render_record(results: list[tuple[Golden, ScenarioRun, Comparison | None, bool]], fmt: str,
                  dry_run: bool, folder: Path | None = None, stopped: str | None = None) -> str:
    """``milk-contract record``: per scenario, whether it was re-recorded and what changed.

    Each result is (golden, run, comparison or None when the run was not conformant, written);
    ``folder`` is the goldens folder written, named in the total with the command to review it.
    A record with any breaking change or finding writes nothing (cmd_record): its scenarios
    say "would change", as under ``--dry-run``. A breaking change an accepted-breaks entry names
    is counted as accepted, not breaking (contract.evolution.accepting). ``stopped`` names the
    scenario a record stopped at (interrupted, or no run): the total then says the record is
    incomplete and nothing was rewritten, never what a finished one would advise.
    """
    if fmt == "json":
        return textsafe.json_safe(json.dumps([
            {"scenario": f"{g.wire}/{g.name}", "conformant": r.report.conformant,
             "rewritten": written, "changes": c.to_json() if c is not None else None,
             "findings": [v.to_json() for v in r.report.failing()]}
            for g, r, c, written in results], ensure_ascii=False, indent=2)) + "\n"
    if not results:
        return ""
    breaking = sum(1 for _, _, c, _ in results if c is None or c.breaking)
    lines = []
    for golden, run_, comparison, written in results:
        label = f"{golden.wire}/{golden.name}"
        if comparison is None:
            lines.append(f"{label}: NOT conformant, golden kept\n" + run_.explain())
            continue
        unwritten = dry_run or breaking or stopped is not None  # nothing was written: say what would be
        if unwritten and comparison.equal:
            lines.append(f"{label}: nothing would change")
            continue
        verb = "would change" if unwritten else ("re-recorded" if written else "unchanged")
        lines.append(f"{label}: {verb}: {comparison.summary()}")
        changed = comparison.changed_stream()
        if changed is not None:
            lines.append(f"  {changed}")
    accepted = sum(1 for _, _, c, _ in results if c is not None and c.accepted)
    total = f"{counted(len(results), 'scenario')}, {breaking} with breaking changes or findings"
    if accepted:
        total += f", {accepted} with breaks accepted by ADR"
    if stopped is not None:  # an incomplete record: what ran is reported, and nothing was written
        lines.append(f"stopped at {textsafe.text(stopped)}: {total} before it; the record is incomplete and "
                     "nothing was rewritten (every golden kept)")
        return "\n".join(lines) + "\n"
    if folder is not None:
        total += f"; goldens: {textsafe.text(str(folder.resolve()))}"
    if breaking:
        total += "; " + _record_advice(results)
    elif not dry_run:
        total += f"; review with {_review(folder)}, then run the suite"
    lines.append(total)
    return "\n".join(lines) + "\n"


def _record_advice(results: list[tuple[Golden, ScenarioRun, Comparison | None, bool]]) -> str:
    """What to do about a record that found breaks: ``evolve --accept`` only for a scenario whose golden
    was written under another schema than the one in force (a wire change an ADR may have decided);
    otherwise the build changed the stream under an unchanged schema, and the build is what to fix."""
    advice = []
    if any(c is None for _, _, c, _ in results):
        advice.append("a scenario not conformant is the build's to fix")
    broken = [run_ for _, run_, c, _ in results if c is not None and c.breaking]
    changed = [run_ for run_ in broken if run_.wire_change_possible()]
    if changed:
        names = ", ".join(f"{r.golden.wire}/{r.golden.name}" for r in changed)
        advice.append(f"the schema in force is not the one {textsafe.text(names)} was recorded under, and the "
                      "build writes a kind of line the golden does not show: if an ADR added it, record again (a "
                      "break the ADR decided is accepted first: milk-contract evolve --accept)")
    if len(changed) < len(broken):
        advice.append("the build changed the stream under the schema its goldens were recorded under: a regression "
                      "to fix in the build, not a wire change to accept")
    return "; ".join(advice)


def _review(folder: Path | None) -> str:
    """The git command that shows what was written to ``folder``, from the working directory."""
    if folder is None:
        return "git diff goldens/"
    try:
        inside = folder.resolve().relative_to(Path.cwd().resolve())
    except ValueError:  # elsewhere (another checkout, --goldens DIR): git -C reaches it from here
        return f"git -C {textsafe.text(shlex.quote(str(folder.resolve())))} diff -- ."
    return f"git diff -- {textsafe.text(shlex.quote(inside.as_posix() + '/'))}" if inside.parts else "git diff -- ."


REJECTIONS_SHOWN = 10  # goldens a new schema rejects, named in diff's report at most


def render_diff(old: str, new: str, changes: list[Change], fmt: str, witness: Witness | None = None,
                rejections: Rejections | None = None) -> str:
    """``milk-contract diff``: each change between two schemas or surfaces, and the verdict (with, for
    two schemas a change breaks by structure, the witness search's outcome: contract.evolution.witness).
    A golden of the wire the new schema does not accept (``rejections``) makes the verdict breaking,
    whatever the changes are called: milk's lines of today would fail the new schema."""
    from contract.evolution.classify import BREAKING  # only the diff verb needs the differ

    breaking = sum(c.kind == BREAKING for c in changes)
    rejected = rejections.rejected if rejections is not None else []
    if fmt == "json":
        return textsafe.json_safe(json.dumps({
            "old": old,
            "new": new,
            "breaking": breaking > 0 or bool(rejected),
            "counts": {"breaking": breaking, "additive": len(changes) - breaking},
            "changes": [c.to_json() for c in changes],
            **({"witness": witness.to_json()} if witness is not None else {}),
            **({"goldens_rejected": {"wire": rejections.wire, "goldens": rejections.total,
                                     "rejected": [{"golden": name[:120], "finding": finding[:300]}
                                                  for name, finding in rejected[:REJECTIONS_SHOWN]],
                                     "count": len(rejected)}}
               if rejections is not None and rejected else {}),
        }, indent=2, ensure_ascii=False)) + "\n"
    safe = textsafe.text  # paths and reasons hold the schemas' member names; the file names are input too
    old, new = safe(old), safe(new)
    lines = [f"{c.kind:<9} {safe(c.path)}: {safe(c.reason)} [{c.code}"
             + (f"; breaks {c.breaks}]" if c.breaks else "]") for c in changes]
    if rejections is not None and rejected:
        lines += [f"rejected  golden {safe(rejections.wire)}/{safe(name, 120)}: {safe(finding, 300)}"
                  for name, finding in rejected[:REJECTIONS_SHOWN]]
        if len(rejected) > REJECTIONS_SHOWN:
            lines.append(f"          … and {len(rejected) - REJECTIONS_SHOWN} more")
        said = (f"{len(rejected)} of {rejections.total} {safe(rejections.wire)} goldens not valid under the new "
                "schema (BREAKING)")
        lines.append(f"{old} → {new}: " + (f"no change to the surface, but {said}" if not changes else
                                           f"{counted(len(changes), 'change')}, {breaking} breaking, "
                                           f"{len(changes) - breaking} additive; {said}"))
    elif not changes:
        lines.append(f"{old} → {new}: no change")
    else:
        verdict = "BREAKING" if breaking else "additive only"
        lines.append(f"{old} → {new}: {counted(len(changes), 'change')}, {breaking} breaking, "
                     f"{len(changes) - breaking} additive ({verdict})")
    if witness is not None:
        lines.append(safe(witness.text()))
    return "\n".join(lines) + "\n"


def render_surface(surface: dict[str, object]) -> str:
    """``milk-contract surface``: the surface as sorted, indented JSON."""
    return textsafe.json_safe(json.dumps(surface, indent=2, sort_keys=True, ensure_ascii=False)) + "\n"
