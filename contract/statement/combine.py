"""Statements compared and joined: ``diff`` (what changed between two builds, and each regression:
a lower level, a rule no longer passed, a scenario or requirement dropped, another revision, a new
finding), ``merge`` (shards of one build into one statement) and ``matrix`` (builds x
requirements, by wire and level).

Every statement read (:func:`load`, :func:`checked`) is judged from its runs: its shape, its
checksum, and every summary field derived again (``model.disagreement``); the checksum says the
file is intact, not who wrote it, so a summary its runs do not give is refused however sealed.

A merge refuses what would not be one build's one suite run: statements of another build, suite
version or shape, a shard given twice, a scenario in two shards, a shard missing (named), or a
statement whose checksum is not its content's, and shards whose scenario runs are not exactly the
shipped scenarios each shard holds (``collect.in_shard``). Its result is derived from the runs
exactly as one runner's is (``model.derive``), so it equals the unsharded statement but for the
timestamp.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from contract.core.textsafe import counted
from contract.core.userfiles import read_whole
from contract.reporting.ci_reports import markdown_cell
from contract.rules import revisions
from contract.rules.requirements import FAILED, NOT_APPLICABLE, NOT_EXERCISED, PASSED
from contract.statement import model
from contract.statement.collect import in_shard
from contract.statement.render import VERDICT_HEX, badge, esc, page
from contract.wires import WIRES


class StatementError(Exception):
    """A statement that cannot be read, or statements that cannot be merged: misuse (exit 2)."""


def load(path: str) -> dict[str, Any]:
    """A statement file, read and :func:`checked`."""
    try:
        document = json.loads(read_whole(path))
    except OSError as exc:
        raise StatementError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:
        raise StatementError(f"{path}: not JSON ({exc})") from None
    return checked(document, path)


def checked(document: object, where: str) -> dict[str, Any]:
    """``document`` checked for its shape, its checksum and its summary: everything derived from its
    runs must be what they derive (``model.disagreement``), so no reader believes a summary its runs
    do not bear out. StatementError (naming ``where`` and what disagrees) otherwise."""
    version = document.get("statement_version") if isinstance(document, dict) else None
    if isinstance(version, int) and not isinstance(version, bool) and version != model.VERSION:
        raise StatementError(f"{where}: statement_version {version}: written by another milk-contract (this one "
                             f"reads version {model.VERSION}); make the statement again with this one")
    problem = schema_problem(document)
    if problem is not None:
        raise StatementError(f"{where}: not a milk-contract statement: {problem}")
    statement = cast("dict[str, Any]", document)  # an object: schema_problem found nothing wrong with its shape
    if not model.sealed(statement):
        raise StatementError(f"{where}: its sha256 is not its content's (edited after it was written?)")
    problem = model.disagreement(statement)
    if problem is not None:
        raise StatementError(f"{where}: {problem}")
    return statement


def schema_problem(document: object) -> str | None:
    """What is wrong with ``document`` by schemas/statement.schema.json (None when nothing is)."""
    import jsonschema

    from contract.core.resources import data_dir

    schema = json.loads((data_dir("schemas") / "statement.schema.json").read_text(encoding="utf-8"))
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(document))
    if error is None:
        return None
    where = "/" + "/".join(str(part) for part in error.absolute_path)
    return f"at {where}: {error.message[:200]}"


# -- diff ----------------------------------------------------------------------------------------

Row = tuple[str, str, str, str, str]  # wire, rule, level, was, now


@dataclass
class Diff:
    """What changed from statement A to B; :attr:`reasons` are the regressions (exit 1 when any)."""

    regressed: list[Row] = field(default_factory=list)  # passed -> anything else, or anything -> failed
    passing: list[Row] = field(default_factory=list)
    applicable: list[Row] = field(default_factory=list)
    revisions: list[tuple[str, str, str]] = field(default_factory=list)  # wire, was, now
    levels: tuple[str, str] = ("", "")
    lost_level: bool = False
    missing_scenarios: list[str] = field(default_factory=list)  # in A, not in B
    missing_requirements: list[tuple[str, str, str]] = field(default_factory=list)  # wire, rule, level: in A only
    new_findings: list[str] = field(default_factory=list)  # in B, not in A
    shards: list[str] = field(default_factory=list)  # "B is shard 1/2: ..."

    @property
    def must_regressed(self) -> bool:
        return any(level == "MUST" for _, _, level, _, _ in self.regressed)

    @property
    def reasons(self) -> list[str]:
        """Each regression in one line: a lower level, a requirement no longer passed, a scenario or
        requirement dropped, a different requirement-set revision, a new finding."""
        out = [f"level lowered: {self.levels[0]} -> {self.levels[1]}"] if self.lost_level else []
        out += [f"regressed: {w} {r} [{lv}] {a} -> {b}" for w, r, lv, a, b in self.regressed]
        out += [f"missing scenario: {name}" for name in self.missing_scenarios]
        out += [f"missing requirement: {w} {r} [{lv}]" for w, r, lv in self.missing_requirements]
        out += [f"revision: {w} {a} -> {b}" for w, a, b in self.revisions]
        out += [f"new finding: {message}" for message in self.new_findings]
        return out

    def to_json(self) -> dict[str, Any]:
        def rows(entries: list[Row]) -> list[dict[str, str]]:
            return [{"wire": w, "rule": r, "level": lv, "was": a, "now": b} for w, r, lv, a, b in entries]

        return {"level": {"was": self.levels[0], "now": self.levels[1], "lowered": self.lost_level},
                "regressed": rows(self.regressed), "newly_passing": rows(self.passing),
                "newly_applicable": rows(self.applicable),
                "revisions": [{"wire": w, "was": a, "now": b} for w, a, b in self.revisions],
                "missing_scenarios": self.missing_scenarios,
                "missing_requirements": [{"wire": w, "rule": r, "level": lv} for w, r, lv in self.missing_requirements],
                "new_findings": self.new_findings, "shards": self.shards,
                "reasons": self.reasons, "must_regressed": self.must_regressed}

    def text(self) -> str:
        reasons = self.reasons
        out = [f"level: {self.levels[0]} -> {self.levels[1]}", *reasons]
        out += [f"newly passing: {w} {r} [{lv}] {a} -> {b}" for w, r, lv, a, b in self.passing]
        out += [f"newly applicable: {w} {r} [{lv}] {a} -> {b}" for w, r, lv, a, b in self.applicable]
        out += [f"note: {note}" for note in self.shards]
        if len(out) == 1:
            out.append("no requirement changed")
        out.append(f"regressed: {counted(len(reasons), 'reason')} (exit 1)" if reasons else "no regression")
        return "\n".join(esc_text(line) for line in out) + "\n"


def esc_text(line: str) -> str:
    from contract.core import textsafe

    return textsafe.text(line)


def _verdicts(document: dict[str, Any]) -> dict[tuple[str, str], tuple[str, str]]:
    return {(w["wire"], r["rule"]): (r["verdict"], r["level"]) for w in document["wires"] for r in w["requirements"]}


def shard_of(document: dict[str, Any]) -> str | None:
    """``I/N`` when ``document`` is a shard's statement (None when it is a whole run's)."""
    shard = document.get("shard")
    return None if shard is None else f"{shard['index']}/{shard['total']}"


def diff(a: dict[str, Any], b: dict[str, Any]) -> Diff:
    """What changed from statement ``a`` to ``b``: the level, per rule of a wire both judged, the
    scenarios and requirements ``b`` dropped, revisions and new findings."""
    was_level, now_level = a["level"]["achieved"], b["level"]["achieved"]
    out = Diff(levels=(was_level, now_level),
               lost_level=model.LEVELS.index(now_level) < model.LEVELS.index(was_level))
    for name, document in (("A", a), ("B", b)):
        if shard_of(document) is not None:
            out.shards.append(f"{name} is shard {shard_of(document)}: a shard has no level of its own and holds part "
                              "of the suite (merge the shards to compare levels)")
    was, now = _verdicts(a), _verdicts(b)
    for key in [k for k in now if k in was]:
        (before, level), (after, _) = was[key], now[key]
        row = (key[0], key[1], level, before, after)
        if (before == PASSED and after != PASSED) or (after == FAILED and before != FAILED):
            out.regressed.append(row)
        elif before != PASSED and after == PASSED:
            out.passing.append(row)
        elif before == NOT_APPLICABLE and after != NOT_APPLICABLE:
            out.applicable.append(row)
    out.missing_requirements = [(w, r, level) for (w, r), (_, level) in was.items() if (w, r) not in now]
    later = set(b["scenarios"])
    out.missing_scenarios = [name for name in a["scenarios"] if name not in later]
    revisions_a = {w["wire"]: w["revision"] for w in a["wires"]}
    out.revisions = [(w["wire"], revisions_a[w["wire"]], w["revision"]) for w in b["wires"]
                     if w["wire"] in revisions_a and revisions_a[w["wire"]] != w["revision"]]
    known = {f["message"] for f in a["findings"]}
    out.new_findings = [f["message"] for f in b["findings"] if f["message"] not in known]
    return out


# -- merge ---------------------------------------------------------------------------------------

SAME = ("statement_version", "suite", "build", "source", "provoked")  # what every shard of one run shares


def merge(documents: list[dict[str, Any]]) -> dict[str, Any]:
    """One statement from the shards of one build's run (StatementError naming what does not fit)."""
    if not documents:
        raise StatementError("merge needs the shards' statements")
    first = documents[0]
    for key in SAME:
        other = next((d for d in documents if d.get(key) != first.get(key)), None)
        if other is not None:
            raise StatementError(f"the statements differ in {key}: they are not shards of one run")
    if any(d.get("shard") is None for d in documents):
        raise StatementError("a statement that is not a shard (made without --shard) cannot be merged")
    totals = {d["shard"]["total"] for d in documents}
    if len(totals) != 1:
        raise StatementError(f"the shards split the suite differently (into {', '.join(map(str, sorted(totals)))})")
    total = totals.pop()
    indexes = [d["shard"]["index"] for d in documents]
    twice = sorted({i for i in indexes if indexes.count(i) > 1})
    if twice:
        raise StatementError(f"shard {twice[0]}/{total} given more than once")
    missing = sorted(set(range(1, total + 1)) - set(indexes))
    if missing:
        raise StatementError(f"missing shard(s) {', '.join(f'{i}/{total}' for i in missing)}: the statement "
                             "would not cover the suite")
    seen: dict[tuple[str, str], int] = {}
    for d in documents:
        for run in d["runs"]:
            place = (run["scenario"], run["environment"])
            if place in seen:
                raise StatementError(f"{run['scenario']} is in shard {seen[place]} and shard {d['shard']['index']}: "
                                     "shards overlap")
            seen[place] = d["shard"]["index"]
    if first.get("source") == model.SCENARIO:
        _each_shard_whole(documents, total)
    runs = sorted((run for d in documents for run in d["runs"]), key=lambda r: (r["scenario"], r["environment"]))
    body = {key: first[key] for key in SAME}
    body.update(generated=max(d["generated"] for d in documents), shard=None, runs=runs)
    return model.seal(model.derive(body))


def _each_shard_whole(documents: list[dict[str, Any]], total: int) -> None:
    """StatementError unless each shard's scenario runs are exactly the shipped scenarios
    ``collect.in_shard`` puts in it, of every wire the shards judge (every wire when they hold no
    run): a shard cut short, or sealed with none of its runs, would give a level for part of the suite."""
    wires = {r["wire"] for d in documents for r in d["runs"]} or set(WIRES)  # no run at all: every wire is due
    suite = [name for wire in WIRES if wire in wires for name in model.shipped(wire, revisions.current(wire))]
    for d in sorted(documents, key=lambda d: int(d["shard"]["index"])):
        shard = (int(d["shard"]["index"]), total)
        held = {r["scenario"] for r in d["runs"] if r["environment"] == model.SCENARIO}
        wanted = [name for name in suite if in_shard(name, shard)]
        lacks = [name for name in wanted if name not in held]
        if lacks:
            raise StatementError(f"shard {shard[0]}/{shard[1]} lacks {len(lacks)} of its "
                                 f"{counted(len(wanted), 'scenario')} (first: {esc_text(lacks[0])}): the statement "
                                 "would not cover the suite")
        extra = sorted(held - set(wanted))
        if extra:
            raise StatementError(f"shard {shard[0]}/{shard[1]} holds {esc_text(extra[0])}, which is not one of the "
                                 "shipped scenarios the shard puts in it")


# -- matrix --------------------------------------------------------------------------------------


def _rows(documents: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(wire, level, rule) of every requirement any statement lists: by wire, MUST before SHOULD."""
    found: dict[tuple[str, str, str], None] = {}
    for d in documents:
        for w in d["wires"]:
            for r in w["requirements"]:
                found[(w["wire"], r["level"], r["rule"])] = None
    wires = list(dict.fromkeys(key[0] for key in found))
    return sorted(found, key=lambda k: (wires.index(k[0]), k[1] != "MUST"))


def label(document: dict[str, Any]) -> str:
    """A build as a column names it: its name with every path cut to its last part, and its version
    (``version unknown`` when it gave none); the full command is :func:`full_name`'s."""
    build = document["build"]
    words = str(build.get("name") or "unnamed build").split(" ")
    name = " ".join(Path(word.strip("'\"")).name or word if "/" in word else word for word in words)
    version = build.get("version")
    out = f"{name}, {version}" if version else f"{name}, version unknown"
    return out + (f" [shard {shard_of(document)}]" if shard_of(document) else "")


def full_name(document: dict[str, Any]) -> str:
    """The build's whole name (its command as run, paths and all): a column's hover text."""
    build = document["build"]
    return str(build.get("name") or "") + (f" ({build['version']})" if build.get("version") else "")


def level_text(document: dict[str, Any]) -> str:
    """A column's level: the level, or for a shard that it has none of its own."""
    return str(document["level"].get("note") or document["level"]["achieved"])


MARK = {PASSED: "pass", FAILED: "FAIL", NOT_EXERCISED: "not exercised", NOT_APPLICABLE: "n/a"}


def _mark(verdicts: dict[tuple[str, str], tuple[str, str]], wire: str, rule: str) -> tuple[str, str]:
    """(the cell's text, the verdict it shows: its colour) of ``rule`` in one build's column."""
    verdict = verdicts.get((wire, rule), ("-", ""))[0]
    return MARK.get(verdict, "-"), verdict


def matrix_markdown(documents: list[dict[str, Any]]) -> str:
    verdicts = [_verdicts(d) for d in documents]
    names = [label(d) for d in documents]
    columns = " | ".join(markdown_cell(n) for n in names)
    out = ["### milk-contract matrix", "", f"| Wire | Level | Rule | {columns} |",
           "| --- | --- | --- |" + " --- |" * len(names),
           "| | | **level** | " + " | ".join(f"**{markdown_cell(level_text(d))}**" for d in documents) + " |"]
    shown = ""
    for wire, level, rule in _rows(documents):
        cells = [_mark(v, wire, rule)[0] for v in verdicts]
        cells = [f"**{c}**" if c == "FAIL" else c for c in cells]
        first = markdown_cell(wire) if wire != shown else ""
        shown = wire
        out.append(f"| {first} | {level} | {markdown_cell(rule)} | " + " | ".join(cells) + " |")
    out += ["", *(f"{i}. {markdown_cell(label(d))}: {markdown_cell(full_name(d))}"
                  for i, d in enumerate(documents, start=1))]
    return "\n".join(out) + "\n"


def matrix_html(documents: list[dict[str, Any]]) -> str:
    verdicts = [_verdicts(d) for d in documents]
    head = "".join(f'<th class="build{" shard" if shard_of(d) else ""}" title="{esc(full_name(d))}">{esc(label(d))}'
                   f"<br>{badge(d['level']['achieved'], d['level'].get('note'))}</th>" for d in documents)
    body = [f'<h1>milk-contract matrix: {counted(len(documents), "build")}</h1>',
            f'<table class="matrix"><thead><tr><th>wire</th><th>level</th><th>rule</th>{head}</tr></thead><tbody>']
    rows = _rows(documents)
    for index, (wire, level, rule) in enumerate(rows):
        cells = ""
        for v in verdicts:
            text, verdict = _mark(v, wire, rule)
            shade = VERDICT_HEX.get(verdict, "#ffffff")
            cells += f'<td class="verdict" data-verdict="{esc(verdict)}" style="background:{shade}">{esc(text)}</td>'
        group = ""
        if index == 0 or rows[index - 1][0] != wire:  # the wire once per group of rows
            span = sum(1 for r in rows if r[0] == wire)
            group += f'<th class="wire" scope="rowgroup" rowspan="{span}">{esc(wire)}</th>'
        if index == 0 or rows[index - 1][:2] != (wire, level):
            span = sum(1 for r in rows if r[:2] == (wire, level))
            group += f'<td class="level" rowspan="{span}">{level}</td>'
        body.append(f'<tr data-rule="{esc(rule)}">{group}<td><code>{esc(rule)}</code></td>{cells}</tr>')
    body.append("</tbody></table>")
    body.append("<ol class=\"builds\">" + "".join(f"<li>{esc(label(d))}: <code>{esc(full_name(d))}</code></li>"
                                                  for d in documents) + "</ol>")
    return page("milk-contract matrix", body)


def read_all(paths: list[str]) -> list[dict[str, Any]]:
    return [load(path) for path in paths]


def write_to(path: str | None, text: str) -> None:
    """``text`` to ``path`` (stdout when None)."""
    import sys

    if path is None:
        sys.stdout.write(text)
        return
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise StatementError(f"--output: cannot write {path}: {exc.strerror or exc}") from None
