"""A conformance statement: per requirement of each wire revision, the verdict across every scenario run.

A statement is data (a JSON object, ``schemas/statement.schema.json``). Its ground truth is
``runs``: one entry per scenario run (its label, wire, environment, whether it conformed and
matched its golden, the capabilities its init declared, and every rule's requirement verdict
with the reason of a not-applicable one). Everything else (``wires``: per rule the verdict
across runs; ``findings``: what only the whole suite shows; ``level``) is derived from the runs by
:func:`derive`, so a merge of shards (``contract.statement.combine``) derives the very same
statement as one runner did. ``sha256`` is over the canonical content (:func:`canonical`: sorted
keys, compact, ASCII), without ``generated`` (the timestamp) and ``sha256`` itself.

The verdict of a rule across runs: ``failed`` if any run failed it; else ``passed`` if any run
exercised it; else ``not-exercised`` if it applied to some run; else ``not-applicable`` (the
reasons said). Levels: ``MUST`` (MUST-complete: no applicable MUST rule of any wire failed, every
scenario matched its golden, no suite finding, at least one run and one MUST rule exercised),
``MUST+SHOULD`` (the SHOULD rules too), ``full`` (that, with the provoked environments run as
well), else ``none``. A level rests on the rules the runs exercised: one nothing exercised is
named (``level.not_exercised``; ``suite_gaps`` for scenario runs) and does not lower it. A shard
has no level of its own (``none``, with ``level.note`` saying to merge the shards), nor has a
statement whose scenario runs leave out a scenario the suite ships for a wire it judges
(:func:`not_run`; ``level.note`` says how many, and the first).

A statement read back is judged from its runs alone (:func:`disagreement`): every summary field
is derived again, and one that differs is named, so a summary edited and resealed is refused.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from contract.core.textsafe import counted
from contract.rules import requirements, revisions
from contract.rules.catalog import CATALOG, rules_for
from contract.rules.report import Report
from contract.wires import WIRES, Live

if TYPE_CHECKING:
    from contract.goldens.store import Golden

VERSION = 2  # of the statement's shape (schemas/statement.schema.json)
NONE, MUST, MUST_SHOULD, FULL = "none", "MUST", "MUST+SHOULD", "full"
LEVELS = (NONE, MUST, MUST_SHOULD, FULL)
SCENARIO, PROVOKED, CAPTURE = "scenario", "provoked", "capture"  # how a run was made
UNSEALED = ("generated", "sha256")  # what the checksum leaves out


@dataclass(frozen=True)
class Run:
    """One scenario run (or one capture) as a statement keeps it."""

    label: str  # wire/scenario (a capture: its path)
    wire: str
    environment: str  # SCENARIO, PROVOKED or CAPTURE
    report: Report
    matches: bool = True  # no breaking difference from the golden (captures: not compared)

    def to_json(self) -> dict[str, Any]:
        verdicts = requirements.verdicts(self.report)
        return {
            "scenario": self.label,
            "wire": self.wire,
            "environment": self.environment,
            "conformant": self.report.conformant,
            "matches_golden": self.matches,
            "capabilities": None if self.report.declared is None else sorted(self.report.declared),
            "statuses": {v.rule.id: v.status for v in verdicts},
            "not_applicable": {v.rule.id: v.inapplicable[1] for v in verdicts if v.inapplicable is not None},
        }


def statement(runs: Iterable[Run], build: dict[str, Any], *, suite: str, generated: str,
              provoked: bool, shard: tuple[int, int] | None = None, source: str = SCENARIO) -> dict[str, Any]:
    """The sealed statement of ``runs`` of ``build`` (its command and --version output)."""
    return assemble([run.to_json() for run in runs], build, suite=suite, generated=generated, provoked=provoked,
                    shard=shard, source=source)


def assemble(runs: Iterable[dict[str, Any]], build: dict[str, Any], *, suite: str, generated: str,
             provoked: bool, shard: tuple[int, int] | None = None, source: str = SCENARIO) -> dict[str, Any]:
    """As :func:`statement`, from runs already in their JSON form (``Run.to_json``: the plugin's, from
    its workers)."""
    ordered = sorted(runs, key=lambda r: (r["scenario"], r["environment"]))
    body = {"statement_version": VERSION, "suite": {"name": "milk-contract", "version": suite}, "build": build,
            "source": source, "provoked": provoked, "generated": generated,
            "shard": None if shard is None else {"index": shard[0], "total": shard[1]}, "runs": ordered}
    return seal(derive(body))


DERIVED = ("scenarios", "wires", "findings", "level")  # what derive computes from the runs


class UnknownRevision(ValueError):
    """A statement judged by a wire revision this suite has no frozen requirement set for."""


def derive(body: dict[str, Any], revisions_of: dict[str, str] | None = None) -> dict[str, Any]:
    """``body`` with everything derived from its runs (wires, findings, level) recomputed.

    ``revisions_of``: the revision each wire is judged by (a statement read back: the one it
    names); None, or a wire not in it: the current one. :class:`UnknownRevision` for a revision
    this suite has no set for."""
    runs: list[dict[str, Any]] = body["runs"]
    chosen = revisions_of or {}
    wires = [_wire(name, [r for r in runs if r["wire"] == name], chosen.get(name)) for name in _wires_of(runs)]
    findings = [f for w in wires for f in w.pop("_findings")]
    findings += [{"kind": "golden-mismatch", "wire": r["wire"], "scenario": r["scenario"],
                  "message": f"{r['scenario']} did not match its golden (a breaking difference)"}
                 for r in runs if not r["matches_golden"]]
    body = {**body, "scenarios": sorted({r["scenario"] for r in runs}), "wires": wires, "findings": findings}
    shard = body.get("shard")
    captures = body.get("source") == CAPTURE
    unrun = None if captures or shard is not None else not_run(runs, wires)
    body["level"] = _level(wires, findings, bool(body.get("provoked")) and _provoked_twins(runs), bool(runs),
                           captures, None if shard is None else (shard["index"], shard["total"]), unrun)
    return body


def label(golden: Golden) -> str:
    """A scenario as runs and statements name it: ``wire/name``."""
    return f"{golden.wire}/{golden.name}"


def shipped(wire: str, revision: str) -> list[str]:
    """The scenarios (``wire/name``) this suite ships for ``wire`` judged by ``revision``: every
    golden of the wire when it is the revision in force; for an earlier one, the goldens written
    under that revision's schema (those it shipped then too). Empty for a wire this suite lacks."""
    from contract.goldens import store

    if wire not in WIRES:
        return []
    goldens = store.scenarios(wire)
    if revision != revisions.current(wire):
        schema = _frozen(wire, revision).get("schema_sha256")
        goldens = [g for g in goldens if schema is not None and store.recorded_under(g) == schema]
    return [label(g) for g in goldens]


def not_run(runs: Sequence[dict[str, Any]], wires: Sequence[dict[str, Any]]) -> tuple[list[str], int]:
    """(the shipped scenarios with no scenario run, in suite order; how many are shipped) of the
    wires ``wires`` judges, each by its revision: a statement of part of the suite (``pytest -k``, a
    run cut short) reaches no level."""
    ran = {r["scenario"] for r in runs if r["environment"] == SCENARIO}
    expected = [name for w in wires for name in shipped(w["wire"], w["revision"])]
    return [name for name in expected if name not in ran], len(expected)


def _provoked_twins(runs: list[dict[str, Any]]) -> bool:
    """Whether the runs show the provoked environments: a provoked run of every stream scenario run
    (a ``provoked`` flag with no provoked run behind it reaches no ``full``)."""

    twins = {r["scenario"] for r in runs if r["environment"] == PROVOKED}
    streams = [r["scenario"] for r in runs if r["environment"] == SCENARIO and r["wire"] in WIRES
               and WIRES[r["wire"]].live is Live.STREAM]
    return bool(twins) and all(name in twins for name in streams)


def disagreement(document: dict[str, Any]) -> str | None:
    """What in ``document``'s summary (scenarios, wires, findings, level) is not what its runs derive,
    as one clause naming the first difference (None when everything agrees)."""
    revisions_of = {str(w["wire"]): str(w["revision"]) for w in document["wires"]}
    try:
        derived = derive({k: v for k, v in document.items() if k not in DERIVED}, revisions_of)
    except UnknownRevision as exc:
        return str(exc)
    for key in DERIVED:
        found = _first_difference(document.get(key), derived[key], key)
        if found is not None:
            where, says, gives = found
            return f"its summary disagrees with its runs at {where}: it says {says}, its runs give {gives}"
    return None


def _label(item: object, index: int) -> str:
    """How a list entry is named in a difference: by its wire, rule, capability or kind (else its index)."""
    if isinstance(item, dict):
        for key in ("rule", "capability", "scenario", "wire", "kind"):
            if isinstance(item.get(key), str):
                return f"[{item[key]}]"
    if isinstance(item, str):
        return f"[{item}]"
    return f"[{index}]"


def _named(key: str, item: object) -> str:
    """An entry one side lacks: by its name, or its JSON when it has none but its index."""
    return _brief(item) if key[1:-1].isdigit() else key


def _brief(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=True)[:120]


FIRST = ("achieved", "verdict")  # what a difference names first when a summary entry differs in several places


def _first_difference(stored: object, derived: object, where: str) -> tuple[str, str, str] | None:
    """(where, stored, derived) of the first place the two differ, depth first; None when equal."""
    if stored == derived:
        return None
    if isinstance(stored, dict) and isinstance(derived, dict):
        keys = sorted(set(stored) | set(derived), key=lambda k: (k not in FIRST, FIRST.index(k) if k in FIRST else 0,
                                                                  k))
        for key in keys:
            if key not in stored or key not in derived:
                return (f"{where}.{key}", "nothing" if key not in stored else _brief(stored[key]),
                        "nothing" if key not in derived else _brief(derived[key]))
            found = _first_difference(stored[key], derived[key], f"{where}.{key}")
            if found is not None:
                return found
    if isinstance(stored, list) and isinstance(derived, list):
        if len(stored) != len(derived):
            names = {_label(item, i): item for i, item in enumerate(stored)}
            given = {_label(item, i): item for i, item in enumerate(derived)}
            lacks = [_named(k, given[k]) for k in given if k not in names]
            adds = [_named(k, names[k]) for k in names if k not in given]
            says = counted(len(stored), "entry", "entries")
            says += f" ({', '.join(adds)[:200]} not derived)" if adds else ""
            gives = f"{len(derived)}" + (f" ({', '.join(lacks)[:200]} missing from it)" if lacks else "")
            return where, says, gives
        for index, (a, b) in enumerate(zip(stored, derived, strict=True)):
            found = _first_difference(a, b, where + _label(b, index))
            if found is not None:
                return found
    return where, _brief(stored), _brief(derived)


def _wires_of(runs: Sequence[dict[str, Any]]) -> list[str]:
    seen = {r["wire"] for r in runs}
    return [name for name in WIRES if name in seen] + sorted(seen - set(WIRES))


def _wire(name: str, runs: list[dict[str, Any]], revision: str | None = None) -> dict[str, Any]:
    frozen = _frozen(name)
    if revision is not None and revision != frozen.get("revision", "unfrozen"):
        try:  # an earlier revision: judged by exactly what it asked (its frozen set)
            frozen = revisions.load(name, revision)
        except (OSError, ValueError):
            raise UnknownRevision(f"it is judged by {name} {revision}, which this milk-contract has no requirement "
                                  "set for") from None
        entries = [_requirement(r["id"], name, runs, (r["level"], r["basis"], r["text"])) for r in frozen["rules"]]
    else:
        entries = [_requirement(rule.id, name, runs) for rule in (rules_for(name) if name in WIRES else [])]
    return {"wire": name, "revision": frozen.get("revision", "unfrozen"),
            "schema_sha256": frozen.get("schema_sha256"), "requirements": entries,
            "capabilities": (caps := _capabilities(name, runs, entries)),
            "_findings": [{"kind": "capability-never-shown", "wire": name, "capability": c["capability"],
                           "message": f"{c['capability']} was declared by {c['declared_by']} run(s), and no run "
                                      f"exercised a rule it gates ({', '.join(c['rules'])}): declared but never shown"}
                          for c in caps if c["shown"] is False]}


def _frozen(wire: str, revision: str | None = None) -> dict[str, Any]:
    """``wire``'s frozen set of ``revision`` (None: the one in force); empty when there is none."""
    try:
        return revisions.load(wire, revision or revisions.current(wire))
    except (OSError, ValueError):
        return {}


def _requirement(rule: str, wire: str, runs: list[dict[str, Any]],
                 frozen: tuple[str, str | None, str] | None = None) -> dict[str, Any]:
    """The verdict of ``rule`` across ``runs``; its level, basis and text from the catalog, or from
    ``frozen`` (an earlier revision's set)."""
    statuses = [r["statuses"].get(rule, requirements.NOT_APPLICABLE) for r in runs]
    counts = {status: statuses.count(status) for status in requirements.STATUSES if status in statuses}
    failed_in = [r["scenario"] + ("" if r["environment"] != PROVOKED else " (provoked)")
                 for r, s in zip(runs, statuses, strict=True) if s == requirements.FAILED]
    if failed_in:
        verdict = requirements.FAILED
    elif counts.get(requirements.PASSED):
        verdict = requirements.PASSED
    elif any(s != requirements.NOT_APPLICABLE for s in statuses):
        verdict = requirements.NOT_EXERCISED
    else:
        verdict = requirements.NOT_APPLICABLE
    reasons = sorted({r["not_applicable"][rule] for r in runs if rule in r["not_applicable"]})
    entry = CATALOG.get(rule)
    level, basis, text = frozen or ((entry.level.value, entry.basis_for(wire).value, entry.title) if entry
                                    else ("MUST", None, ""))
    return {"rule": rule, "level": level, "basis": basis, "text": text,
            "verdict": verdict, "runs": counts, "failed_in": failed_in,
            "reason": "; ".join(reasons) if verdict == requirements.NOT_APPLICABLE else ""}


def _capabilities(wire: str, runs: list[dict[str, Any]], entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each capability some run declared: how many did, the rules it gates and whether one was shown."""
    descriptor = WIRES.get(wire)
    gates = descriptor.capabilities.gates if descriptor is not None and descriptor.capabilities else {}
    declared = sorted({c for r in runs for c in (r["capabilities"] or ())})
    out = []
    for capability in declared:
        by = [r for r in runs if capability in (r["capabilities"] or ())]
        rules = sorted(gates.get(capability, ()))
        shown = None if not rules else any(r["statuses"].get(rule) in (requirements.PASSED, requirements.FAILED)
                                           for r in by for rule in rules)
        out.append({"capability": capability, "declared_by": len(by), "rules": rules, "shown": shown})
    return out


def _level(wires: list[dict[str, Any]], findings: list[dict[str, Any]], provoked: bool, ran: bool,
           captures: bool, shard: tuple[int, int] | None = None,
           unrun: tuple[list[str], int] | None = None) -> dict[str, Any]:
    """The level, what it rests on and the rules that kept it lower.

    A level rests on the rules the runs exercised (``exercised``: passed or failed). A rule that
    applied and that no run exercised is named (``not_exercised``) and does not lower the level: a
    build whose every scenario matched its golden wrote what the goldens hold, so what they never
    exercise it could not show (for scenario runs, such rules are the suite's gaps, ``suite_gaps``);
    captures that never hold a leap second say nothing about leap seconds. Fail closed: no run, a
    suite finding, a failed MUST rule or no MUST rule exercised at all is ``none``. A shard has no
    level of its own (``none``, ``note`` saying so); its ``must_complete`` and ``should_complete``
    say what its own runs show (``statement --shard``'s exit status). A statement whose runs leave
    out shipped scenarios of a wire it judges (``unrun``: those, and how many are shipped) is
    ``none`` and not MUST-complete, ``note`` naming how many were not run and the first.
    """
    judged = [r for w in wires for r in w["requirements"]]
    short = {level: [r["rule"] for r in judged if r["level"] == level and r["verdict"] == requirements.FAILED]
             for level in ("MUST", "SHOULD")}
    exercised = [r for r in judged if r["verdict"] in (requirements.PASSED, requirements.FAILED)]
    must_shown = any(r["level"] == "MUST" for r in exercised)
    partial = unrun is not None and bool(unrun[0])
    must = ran and must_shown and not findings and not short["MUST"] and not partial
    should = ran and must_shown and not findings and not short["SHOULD"] and not partial
    achieved = FULL if must and should and provoked else MUST_SHOULD if must and should else MUST if must else NONE
    gaps = [r["rule"] for r in judged if r["verdict"] == requirements.NOT_EXERCISED]
    return {"achieved": NONE if shard is not None else achieved, "must_complete": must, "should_complete": should,
            "provoked": provoked, "short_of_must": short["MUST"], "short_of_should": short["SHOULD"],
            "suite_gaps": [] if captures else gaps, "exercised": len(exercised), "not_exercised": gaps,
            "note": _note(shard, unrun)}


def _note(shard: tuple[int, int] | None, unrun: tuple[list[str], int] | None) -> str | None:
    """Why a statement has no level whatever its verdicts: a shard, or scenarios not run (None: neither)."""
    if shard is not None:
        return f"shard {shard[0]}/{shard[1]}: merge the shards for a level"
    if unrun is not None and unrun[0]:
        missing, shipped_count = unrun
        return (f"{len(missing)} of {counted(shipped_count, 'shipped scenario')} not run (first: {missing[0]}): "
                "a statement of part of the suite has no level")
    return None


def rests_on(document: dict[str, Any]) -> str:
    """The level and what it rests on, in one line: ``MUST+SHOULD, resting on 40 exercised
    requirements; not exercised: sj.ts-leap-second``."""
    level = document["level"]
    head = level["note"] if level.get("note") else level["achieved"]
    out = f"{head}, resting on {counted(level['exercised'], 'exercised requirement')}"
    short = level["short_of_must"] + level["short_of_should"]
    if short:
        out += f"; short: {', '.join(short)}"
    if document["findings"]:
        out += f"; {counted(len(document['findings']), 'finding')}"
    if level["not_exercised"]:
        out += f"; not exercised: {', '.join(level['not_exercised'])}"
    return out


def canonical(document: dict[str, Any]) -> bytes:
    """The statement's canonical content: without its timestamp and checksum, sorted keys, compact, ASCII."""
    kept = {k: v for k, v in document.items() if k not in UNSEALED}
    return json.dumps(kept, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def seal(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with ``sha256`` over its canonical content."""
    return {**document, "sha256": hashlib.sha256(canonical(document)).hexdigest()}


def sealed(document: dict[str, Any]) -> bool:
    """Whether ``document``'s checksum is its content's (a statement edited by hand is not)."""
    return document.get("sha256") == hashlib.sha256(canonical(document)).hexdigest()


def dumps(document: dict[str, Any]) -> str:
    """A statement as written (sorted keys, two-space indent, ASCII, one LF at the end)."""
    return json.dumps(document, sort_keys=True, indent=2, ensure_ascii=True) + "\n"
