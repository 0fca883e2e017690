"""Statements compared and joined: ``diff`` (what changed between two builds), ``merge`` (shards of
one build into one statement) and ``matrix`` (builds x requirements, by wire and level).

A merge refuses what would not be one build's one suite run: statements of another build, suite
version or shape, a shard given twice, a scenario in two shards, a shard missing (named), or a
statement whose checksum is not its content's. Its result is derived from the runs exactly as
one runner's is (``model.derive``), so it equals the unsharded statement but for the timestamp.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from contract.core.textsafe import counted
from contract.core.userfiles import read_whole
from contract.reporting.ci_reports import markdown_cell
from contract.rules.requirements import FAILED, NOT_APPLICABLE, NOT_EXERCISED, PASSED
from contract.statement import model
from contract.statement.render import badge, esc, page


class StatementError(Exception):
    """A statement that cannot be read, or statements that cannot be merged: misuse (exit 2)."""


def load(path: str) -> dict[str, Any]:
    """A statement file, checked for its shape and its checksum."""
    try:
        document = json.loads(read_whole(path))
    except OSError as exc:
        raise StatementError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:
        raise StatementError(f"{path}: not JSON ({exc})") from None
    problem = schema_problem(document)
    if problem is not None:
        raise StatementError(f"{path}: not a milk-contract statement: {problem}")
    if not model.sealed(document):
        raise StatementError(f"{path}: its sha256 is not its content's (edited after it was written?)")
    return cast("dict[str, Any]", document)  # an object: schema_problem found nothing wrong with its shape


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


@dataclass
class Diff:
    regressed: list[tuple[str, str, str, str, str]] = field(default_factory=list)  # wire, rule, level, was, now
    passing: list[tuple[str, str, str, str, str]] = field(default_factory=list)
    applicable: list[tuple[str, str, str, str, str]] = field(default_factory=list)
    revisions: list[tuple[str, str, str]] = field(default_factory=list)  # wire, was, now
    levels: tuple[str, str] = ("", "")

    @property
    def must_regressed(self) -> bool:
        return any(level == "MUST" for _, _, level, _, _ in self.regressed)

    def to_json(self) -> dict[str, Any]:
        def rows(entries: list[tuple[str, str, str, str, str]]) -> list[dict[str, str]]:
            return [{"wire": w, "rule": r, "level": lv, "was": a, "now": b} for w, r, lv, a, b in entries]

        return {"level": {"was": self.levels[0], "now": self.levels[1]}, "regressed": rows(self.regressed),
                "newly_passing": rows(self.passing), "newly_applicable": rows(self.applicable),
                "revisions": [{"wire": w, "was": a, "now": b} for w, a, b in self.revisions],
                "must_regressed": self.must_regressed}

    def text(self) -> str:
        out = [f"level: {self.levels[0]} -> {self.levels[1]}"]
        for title, entries in (("regressed", self.regressed), ("newly passing", self.passing),
                               ("newly applicable", self.applicable)):
            out += [f"{title}: {w} {r} [{lv}] {a} -> {b}" for w, r, lv, a, b in entries]
        out += [f"revision: {w} {a} -> {b}" for w, a, b in self.revisions]
        if len(out) == 1:
            out.append("no requirement changed")
        return "\n".join(esc_text(line) for line in out) + "\n"


def esc_text(line: str) -> str:
    from contract.core import textsafe

    return textsafe.text(line)


def _verdicts(document: dict[str, Any]) -> dict[tuple[str, str], tuple[str, str]]:
    return {(w["wire"], r["rule"]): (r["verdict"], r["level"]) for w in document["wires"] for r in w["requirements"]}


def diff(a: dict[str, Any], b: dict[str, Any]) -> Diff:
    """What changed from statement ``a`` to ``b``: per rule of a wire both judged."""
    out = Diff(levels=(a["level"]["achieved"], b["level"]["achieved"]))
    was, now = _verdicts(a), _verdicts(b)
    for key in [k for k in now if k in was]:
        (before, level), (after, _) = was[key], now[key]
        row = (key[0], key[1], level, before, after)
        if before == PASSED and after in (FAILED, NOT_EXERCISED):
            out.regressed.append(row)
        elif before in (FAILED, NOT_EXERCISED) and after == PASSED:
            out.passing.append(row)
        elif before == NOT_APPLICABLE and after != NOT_APPLICABLE:
            out.applicable.append(row)
        elif before == NOT_EXERCISED and after == FAILED:
            out.regressed.append(row)
    revisions_a = {w["wire"]: w["revision"] for w in a["wires"]}
    out.revisions = [(w["wire"], revisions_a[w["wire"]], w["revision"]) for w in b["wires"]
                     if w["wire"] in revisions_a and revisions_a[w["wire"]] != w["revision"]]
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
    runs = sorted((run for d in documents for run in d["runs"]), key=lambda r: (r["scenario"], r["environment"]))
    body = {key: first[key] for key in SAME}
    body.update(generated=max(d["generated"] for d in documents), shard=None, runs=runs)
    return model.seal(model.derive(body))


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


def _names(documents: list[dict[str, Any]]) -> list[str]:
    return [f"{d['build'].get('name')} ({d['build'].get('version') or 'unknown'})" for d in documents]


MARK = {PASSED: "pass", FAILED: "FAIL", NOT_EXERCISED: "not exercised", NOT_APPLICABLE: "n/a"}


def matrix_markdown(documents: list[dict[str, Any]]) -> str:
    verdicts = [_verdicts(d) for d in documents]
    names = _names(documents)
    columns = " | ".join(markdown_cell(n) for n in names)
    out = ["### milk-contract matrix", "", f"| Wire | Level | Rule | {columns} |",
           "| --- | --- | --- |" + " --- |" * len(names),
           "| | | **level** | " + " | ".join(f"**{d['level']['achieved']}**" for d in documents) + " |"]
    for wire, level, rule in _rows(documents):
        cells = [MARK.get(v.get((wire, rule), ("-", ""))[0], "-") for v in verdicts]
        out.append(f"| {markdown_cell(wire)} | {level} | {markdown_cell(rule)} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def matrix_html(documents: list[dict[str, Any]]) -> str:
    verdicts = [_verdicts(d) for d in documents]
    head = "".join(f"<th>{esc(n)}<br>{badge(d['level']['achieved'])}</th>" for n, d in zip(_names(documents), documents,
                                                                                          strict=True))
    body = [f'<h1>milk-contract matrix: {counted(len(documents), "build")}</h1>',
            f'<table class="matrix"><thead><tr><th>wire</th><th>level</th><th>rule</th>{head}</tr></thead><tbody>']
    for wire, level, rule in _rows(documents):
        cells = "".join(f'<td class="verdict">{esc(MARK.get(v.get((wire, rule), ("-", ""))[0], "-"))}</td>'
                        for v in verdicts)
        body.append(f'<tr data-rule="{esc(rule)}"><td>{esc(wire)}</td><td>{level}</td><td><code>{esc(rule)}</code>'
                    f"</td>{cells}</tr>")
    body.append("</tbody></table>")
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
