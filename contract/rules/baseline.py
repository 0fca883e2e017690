"""Baselines: the findings an emitter on its way to conformance may keep for now, and no more.

A baseline file (schema: ``schemas/baseline.schema.json``) lists entries ``{rule, pointer,
count}``. An entry matches findings of that rule at that JSON pointer *inside* a line, whatever
the line number, so inserting or removing lines elsewhere does not invalidate it; ``count``
says how many such findings are accepted (absent: any number, at least one).

Applied to a report (``--baseline FILE``):

* a finding the baseline lists is accepted (dropped from the verdict, counted in a note);
* any other finding, and any occurrence beyond an entry's count, stays: new findings fail;
* an entry that occurs fewer times than it says is reported as ``baseline.stale`` (MUST), so
  a fixed finding must leave the file: a baseline only ever shrinks, honestly;
* a finding that says the check or run was not judged to the end (``checker.*``, ``run.timeout``,
  a killed run's ``run.exit-status``...: ``catalog.not_judged_to_the_end``, docs/unjudged.md),
  or that the stream does not show a whole run (``sj.init-first``, ``sj.result-last``:
  ``Rule.silenceable``), is never accepted: a file naming one of those rules is refused
  (BaselineError, so misuse: ``catalog.silence_refusal``), and ``--baseline-write`` never writes one.

``--baseline-write FILE`` writes one from the current findings. Together with ``--baseline OLD``
it writes only what OLD listed and still occurs (counts lowered to what occurs): rewriting can
shrink a baseline but never grow it, and new findings still fail.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contract.core.jsonvalue import shown
from contract.core.resources import data_dir
from contract.core.rule import Observed
from contract.core.textsafe import counted
from contract.core.userfiles import read_whole
from contract.rules.catalog import CATALOG, never_silenced, silence_refusal
from contract.rules.report import Collector, Report, Violation, ignore_problem

VERSION = 1
RULES = frozenset({"baseline.stale"})  # the one catalog rule this module emits
Key = tuple[str, str | None]  # (rule, pointer)


class BaselineError(ValueError):
    """A baseline file that cannot be used (missing, not JSON, not a baseline, wrong wire)."""


@dataclass(frozen=True)
class Entry:
    rule: str
    pointer: str | None
    count: int | None = None  # None: any number of occurrences, at least one
    first_line: int | None = None
    message: str | None = None

    @property
    def key(self) -> Key:
        return (self.rule, self.pointer)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rule": self.rule, "pointer": self.pointer}
        if self.count is not None:
            out["count"] = self.count
        if self.first_line is not None:
            out["first_line"] = self.first_line
        if self.message is not None:
            out["message"] = self.message
        return out


@dataclass(frozen=True)
class Baseline:
    entries: tuple[Entry, ...]
    wire: str | None = None
    source: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"version": VERSION}
        if self.wire is not None:
            out["wire"] = self.wire
        if self.source is not None:
            out["source"] = self.source
        out["entries"] = [entry.to_json() for entry in self.entries]
        return out


# -- files -----------------------------------------------------------------------------------


@functools.cache
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    schema = json.loads((data_dir("schemas") / "baseline.schema.json").read_text("utf-8"))
    return Draft202012Validator(schema)


def parse(data: Any, where: str = "baseline") -> Baseline:
    """A baseline from its JSON value; BaselineError says what is wrong with it."""
    error = next(iter(sorted(_validator().iter_errors(data), key=lambda e: list(e.path))), None)
    if error is not None:
        at = "/".join(str(part) for part in error.absolute_path)
        raise BaselineError(f"{where}: not a baseline file{f' at /{at}' if at else ''}: {error.message}")
    entries = tuple(Entry(e["rule"], e["pointer"], e.get("count"), e.get("first_line"), e.get("message"))
                    for e in data["entries"])
    unknown = [e.rule for e in entries if e.rule not in CATALOG]
    if unknown:
        raise BaselineError(f"{where}: unknown rule {shown(unknown[0])} (see `milk-contract rules`)")
    _refuse_unjudged(entries, where)
    seen: set[Key] = set()
    for entry in entries:
        if entry.key in seen:
            raise BaselineError(f"{where}: {entry.rule} at {shown(entry.pointer)} is listed twice")
        seen.add(entry.key)
    return Baseline(entries, data.get("wire"), data.get("source"))


def _refuse_unjudged(entries: Iterable[Entry], where: str) -> None:
    """A baseline naming a rule whose findings say "not judged to the end", or that the stream
    does not show a whole run, is misuse, however it was made."""
    refused = next((entry.rule for entry in entries if silence_refusal(entry.rule) is not None), None)
    if refused is not None:
        raise BaselineError(f"{where}: {refused} cannot be baselined: {silence_refusal(refused)} (remove the entry)")


def load(path: str | Path) -> Baseline:
    try:
        text = read_whole(path).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BaselineError(f"cannot read baseline {path}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise BaselineError(f"baseline {path}: not JSON: {exc}") from None
    return parse(data, str(path))


def write(baseline: Baseline, path: str | Path) -> None:
    text = json.dumps(baseline.to_json(), ensure_ascii=False, indent=2) + "\n"
    try:
        Path(path).write_text(text, "utf-8")
    except OSError as exc:
        raise BaselineError(f"cannot write baseline {path}: {exc.strerror or exc}") from None


# -- from a report, onto a report ------------------------------------------------------------


def from_report(report: Report, only: Baseline | None = None) -> Baseline:
    """The baseline accepting exactly this report's findings (with ``only``: no more than it did)."""
    groups: dict[Key, list[Violation]] = {}
    for violation in report.violations:
        if CATALOG[violation.rule].observed is Observed.BASELINE:  # a baseline never lists its own findings
            continue
        if never_silenced(violation.rule, report.exit_status):  # nor one it could never accept
            continue
        groups.setdefault((violation.rule, violation.pointer), []).append(violation)
    allowed = {entry.key: entry for entry in only.entries} if only is not None else None
    entries = []
    for key, found in groups.items():
        count: int | None = len(found)
        if allowed is not None:
            if key not in allowed:
                continue  # a new finding: rewriting never adds it
            old = allowed[key].count
            count = None if old is None else min(old, len(found))
        entries.append(Entry(key[0], key[1], count, found[0].line, found[0].message))
    return Baseline(tuple(entries), report.wire, report.source)


def apply(report: Report, baseline: Baseline, name: str = "baseline") -> Report:
    """``report`` without the findings ``baseline`` accepts, plus ``baseline.stale`` findings."""
    if baseline.wire is not None and baseline.wire != report.wire:
        raise BaselineError(f"{name} is for {baseline.wire}, this report is {report.wire}")
    _refuse_unjudged(baseline.entries, name)  # a Baseline made in code, not read by parse()
    limits = {entry.key: entry.count for entry in baseline.entries}
    used: Counter[Key] = Counter()
    refused: Counter[Key] = Counter()  # listed, but not judged to the end (a killed run's exit status)
    kept: list[Violation] = []
    for violation in report.violations:
        key = (violation.rule, violation.pointer)
        limit = limits.get(key, 0)  # absent: accepts nothing; None: accepts any number
        if key in limits and never_silenced(violation.rule, report.exit_status):
            refused[key] += 1
            kept.append(violation)
        elif key in limits and (limit is None or used[key] < limit):
            used[key] += 1
        else:
            kept.append(violation)
    counts = Counter(report.counts)
    counts.subtract(Counter(rule for rule, _ in used.elements()))
    result = dataclasses.replace(report, violations=kept, counts=+counts, notes=list(report.notes),
                                 kept=Counter(v.rule for v in kept))
    result.exercised = set(report.exercised)
    stale = Collector(result)
    stale.exercised("baseline.stale")  # the baseline was compared with the findings
    _stale(stale, (entry for entry in baseline.entries if not refused[entry.key]), used)
    accepted = sum(used.values())
    entries = counted(len(baseline.entries), "entry", "entries")
    result.notes.append(f"baseline {name}: {counted(accepted, 'finding')} accepted by {entries}")
    for rule, _ in sorted(refused, key=str):
        result.notes.append(f"baseline {name}: {rule} not accepted: the emitter was ended by a signal "
                            f"(exit status {report.exit_status}), so the run was not judged to the end")
    if report.dropped:
        result.notes.append(f"baseline {name}: {counted(report.dropped, 'finding')} past the memory cap could not be "
                            "matched and count as new")
    return result


def _stale(out: Collector, entries: Iterable[Entry], used: Counter[Key]) -> None:
    for entry in entries:
        found = used[entry.key]
        if entry.count is None and found == 0:
            expected = "at least once"
        elif entry.count is not None and found < entry.count:
            expected = counted(entry.count, "time")
        else:
            continue
        where = f" at {entry.pointer}" if entry.pointer else ""
        out.emit("baseline.stale", None, entry.pointer,
                 f"expected {entry.rule}{where} {expected} as the baseline lists, found it {counted(found, 'time')}",
                 "it was fixed: remove the entry or lower its count (--baseline-write rewrites the file)")


# -- --baseline and --baseline-write ---------------------------------------------------------


def settle(report: Report, *, baseline: str | None, write_to: str | None, ignore: Iterable[str] = ()) -> Report:
    """What ``--baseline FILE`` and ``--baseline-write FILE`` make of a report (BaselineError on a bad file)."""
    problem = ignore_problem(ignore := tuple(ignore))
    if problem is not None:
        raise ValueError(f"ignore: {problem}")
    old = load(baseline) if baseline else None
    ignored = set(ignore)
    if old is not None and ignored:  # an --ignore'd rule is not checked: its entries cannot go stale
        old = dataclasses.replace(old, entries=tuple(e for e in old.entries if e.rule not in ignored))
    if write_to:
        new = from_report(report, only=old)
        write(new, write_to)
        unwritten = sorted({v.rule for v in report.violations if never_silenced(v.rule, report.exit_status)})
        if unwritten:
            report = dataclasses.replace(report, notes=[*report.notes, (
                f"baseline: {', '.join(unwritten)} not written to {write_to}: a finding that says the check or "
                "the run was not judged to the end, or that the stream does not show a whole run, cannot be "
                "baselined")])
        if old is None:  # writing records the findings; only --baseline accepts them
            result = dataclasses.replace(report, notes=list(report.notes))
            wrote = counted(len(new.entries), "entry", "entries")
            result.notes.append(f"baseline: wrote {wrote} to {write_to}; the findings are "
                                "still reported (pass --baseline to accept them)")
            return result
        result = apply(report, new, str(write_to))
        wrote = counted(len(new.entries), "entry", "entries")
        result.notes.append(f"baseline: wrote {wrote} to {write_to} (only what the old "
                            "baseline listed and still occurs)")
        return result
    if old is not None:
        return apply(report, old, str(baseline))
    return report
