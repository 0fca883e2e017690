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
scenario matched its golden, no suite finding, at least one run; a rule no scenario exercised is a
gap of the suite, listed in ``suite_gaps``, while for captures it lowers the level), ``MUST+SHOULD``
(the SHOULD rules too),
``full`` (that, with the provoked environments run as well), else ``none``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from contract.rules import requirements, revisions
from contract.rules.catalog import CATALOG, rules_for
from contract.rules.report import Report
from contract.wires import WIRES

VERSION = 1  # of the statement's shape (schemas/statement.schema.json)
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


def derive(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with everything derived from its runs (wires, findings, level) recomputed."""
    runs: list[dict[str, Any]] = body["runs"]
    wires = [_wire(name, [r for r in runs if r["wire"] == name]) for name in _wires_of(runs)]
    findings = [f for w in wires for f in w.pop("_findings")]
    findings += [{"kind": "golden-mismatch", "wire": r["wire"], "scenario": r["scenario"],
                  "message": f"{r['scenario']} did not match its golden (a breaking difference)"}
                 for r in runs if not r["matches_golden"]]
    body = {**body, "scenarios": sorted({r["scenario"] for r in runs}), "wires": wires, "findings": findings}
    body["level"] = _level(wires, findings, bool(body.get("provoked")), bool(runs), body.get("source") == CAPTURE)
    return body


def _wires_of(runs: Sequence[dict[str, Any]]) -> list[str]:
    seen = {r["wire"] for r in runs}
    return [name for name in WIRES if name in seen] + sorted(seen - set(WIRES))


def _wire(name: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
    rules = [rule for rule in rules_for(name)] if name in WIRES else []
    entries = [_requirement(rule.id, name, runs) for rule in rules]
    frozen = _frozen(name)
    return {"wire": name, "revision": frozen.get("revision", "unfrozen"),
            "schema_sha256": frozen.get("schema_sha256"), "requirements": entries,
            "capabilities": (caps := _capabilities(name, runs, entries)),
            "_findings": [{"kind": "capability-never-shown", "wire": name, "capability": c["capability"],
                           "message": f"{c['capability']} was declared by {c['declared_by']} run(s), and no run "
                                      f"exercised a rule it gates ({', '.join(c['rules'])}): declared but never shown"}
                          for c in caps if c["shown"] is False]}


def _frozen(wire: str) -> dict[str, Any]:
    try:
        return revisions.load(wire, revisions.current(wire))
    except (OSError, ValueError):
        return {}


def _requirement(rule: str, wire: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
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
    return {"rule": rule, "level": entry.level.value if entry else "MUST",
            "basis": entry.basis_for(wire).value if entry else None, "text": entry.title if entry else "",
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
           captures: bool) -> dict[str, Any]:
    """The level, and the rules that kept it lower.

    A rule no scenario run exercised is a gap of the suite, not of the build: a build whose every
    scenario matched its golden (a ``golden-mismatch`` finding otherwise) wrote what the goldens
    hold, so what they never exercise it could not show; such rules are listed (``suite_gaps``)
    and do not lower the level. Captures have no golden to stand for them: there a rule not
    exercised lowers it.
    """
    blocking = (requirements.FAILED, requirements.NOT_EXERCISED) if captures else (requirements.FAILED,)
    short = {level: [r["rule"] for w in wires for r in w["requirements"]
                     if r["level"] == level and r["verdict"] in blocking] for level in ("MUST", "SHOULD")}
    # fail closed: a statement of no run, or with a suite finding, is complete at no level
    must = ran and not findings and not short["MUST"]
    should = ran and not findings and not short["SHOULD"]
    achieved = FULL if must and should and provoked else MUST_SHOULD if must and should else MUST if must else NONE
    gaps = [r["rule"] for w in wires for r in w["requirements"] if r["verdict"] == requirements.NOT_EXERCISED]
    return {"achieved": achieved, "must_complete": must, "should_complete": should, "provoked": provoked,
            "short_of_must": short["MUST"], "short_of_should": short["SHOULD"], "suite_gaps": [] if captures else gaps}


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
