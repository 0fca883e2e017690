"""Findings recorded before a speed-up, to compare with after it: the checker's verdicts must not move.

``observe(wire)`` checks, with ``--jobs 1`` and in this process, every case file of the wire
(tests/wires/<wire>/cases, ``tests.support.casefiles``), every golden of the wire, and
``MUTANTS`` seeded mutants of each golden (one to three edits of random places of random lines:
a number nudged by one, a value of another JSON kind, a string of the same line, a list item
repeated or dropped, a member removed; ``random.Random`` with a fixed seed, so the same mutants
every run), and returns, per input, every finding (rule, level, line, pointer, message, hint),
the counts, the rules exercised, the notes and the verdict.

``python -m tests.support.recorded_findings WIRE`` writes the record to
tests/wires/<wire>/recorded_findings.json; record it from the code BEFORE a change, commit it on
its own, then change the code: tests/wires/<wire>/test_recorded_findings.py compares. A change of
the goldens, the cases or this mutator changes the inputs: record again from the code before the
change you are testing.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from contract import check
from contract.core.resources import data_dir
from tests.support.casefiles import all_cases, wire_cases

MUTANTS = 120  # per golden
SEED = 50  # issue 50
ODD: tuple[Any, ...] = (0, -1, 1, 5.0, 1e3, 2**70, "x", "", None, True, False, [], {}, [{"key": "a"}],
       {"input": 1, "output": 2, "total": 4})
STATUSES = ("running", "completed", "complete", "failed", "rejected", "stopped", "queued")
KINDS = ("nudge", "same-name", "flip", "repeat", "drop", "remove", "odd")
WEIGHTS = (8, 3, 2, 2, 1, 1, 3)


def record_path(wire: str) -> Path:
    return wire_cases(wire).parent / "recorded_findings.json"


def outcome(data: bytes, wire: str, strict: bool) -> dict[str, Any]:
    report = check(data, wire=wire, strict=strict, jobs=1)
    return {
        "conformant": report.conformant,
        "lines": report.lines,
        "findings": [[v.rule, v.level.value, v.line, v.pointer, v.message, v.hint] for v in report.violations],
        "counts": dict(sorted(report.counts.items())),
        "exercised": sorted(report.exercised),
        "notes": report.notes,
    }


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place below the top of a line (the top's own members too)."""
    found: list[tuple[Any, ...]] = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        found.append((*path, key))
        found.extend(_places(child, (*path, key)))
    return found


def edit(line: Any, rng: random.Random) -> None:
    """One edit, most of them ones the schema lets through (so the rules behind it judge them)."""
    places = _places(line)
    kind = rng.choices(KINDS, weights=WEIGHTS)[0]
    chosen = [place for place in places if _fits(kind, _at(line, place))]
    if not chosen:
        return
    *parent_path, key = rng.choice(chosen)
    parent = _at(line, tuple(parent_path))
    value = parent[key]
    if kind == "nudge":
        parent[key] = value + rng.choice((-1, 1, -1000, 1000))
    elif kind == "same-name":  # a string another place of the same name holds: a status, a key, an epoch
        names = [place for place in places if place[-1] == key and type(_at(line, place)) is str]
        parent[key] = _at(line, rng.choice(names))
        if parent[key] == value:
            parent[key] = rng.choice(STATUSES)
    elif kind == "flip":
        parent[key] = not value
    elif kind == "repeat":
        value.insert(rng.randrange(len(value) + 1), copy.deepcopy(rng.choice(value)))
    elif kind == "drop":
        del value[rng.randrange(len(value))]
    elif kind == "remove" and isinstance(parent, dict):
        del parent[key]
    else:
        parent[key] = copy.deepcopy(rng.choice(ODD))


def _fits(kind: str, value: Any) -> bool:
    if kind == "nudge":
        return type(value) is int
    if kind == "same-name":
        return type(value) is str
    if kind == "flip":
        return type(value) is bool
    if kind in ("repeat", "drop"):
        return type(value) is list and bool(value)
    return True


def _at(line: Any, place: tuple[Any, ...]) -> Any:
    for step in place:
        line = line[step]
    return line


def mutants(lines: list[Any], rng: random.Random) -> list[bytes]:
    out = []
    for _ in range(MUTANTS):
        edited = copy.deepcopy(lines)
        for _ in range(rng.randint(1, 3)):
            edit(edited[rng.randrange(len(edited))], rng)
        out.append(b"".join(json.dumps(line, separators=(",", ":")).encode() + b"\n" for line in edited))
    return out


def inputs(wire: str) -> list[tuple[str, bytes, bool]]:
    """(name, bytes, strict) of every input observed."""
    found = [(case.id, case.data, case.strict) for case in all_cases(wire)]
    for path in sorted((data_dir("goldens") / wire).glob("*.jsonl")):
        data = path.read_bytes()
        # named by the golden's bytes, its mutants drawn from them alone: a golden added, changed or
        # removed moves no other golden's inputs (the tests hold for any set of goldens)
        name = f"golden {path.name}@{hashlib.sha256(data).hexdigest()[:12]}"
        rng = random.Random(f"{SEED}:{name}")
        found.append((name, data, True))
        lines = [json.loads(text) for text in data.split(b"\n") if text]
        found.extend((f"{name} mutant {n}", mutant, True) for n, mutant in enumerate(mutants(lines, rng)))
    return found


def observe(wire: str) -> dict[str, dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for name, data, strict in inputs(wire):
        key = name
        while key in seen:  # two cases of one description
            key += " (again)"
        seen[key] = outcome(data, wire, strict)
    return seen


def unmatched_after_holding(wire: str) -> str | None:
    """Hold today's checker to ``wire``'s record: every case file's input strictly (AssertionError on a
    difference); a golden's inputs (named by its bytes) where that golden is as recorded. What cannot be
    compared (a golden added, changed or removed since: an ADR's) is returned as the reason to skip,
    after the rest held; None when every input was compared."""
    recorded = json.loads(record_path(wire).read_text(encoding="utf-8"))
    seen = observe(wire)
    cases = sorted(k for k in seen if not k.startswith("golden "))
    assert cases == sorted(k for k in recorded if not k.startswith("golden ")), \
        "the case files changed: record again from the code before the change"
    both = sorted(set(seen) & set(recorded))
    moved = [name for name in both if seen[name] != recorded[name]]
    assert not moved, (f"{len(moved)} of {len(both)} inputs judged otherwise, first {moved[0]!r}:\n"
                       f"recorded {recorded[moved[0]]}\nseen     {seen[moved[0]]}")
    unmatched = len(set(recorded) - set(seen)) + len(set(seen) - set(recorded))
    if not unmatched:
        return None
    return (f"{len(both)} inputs judged as recorded; {unmatched} belong to goldens added, changed or removed "
            "since the record: record again from the code before your change to compare them")


def fired_on_fewer(wire: str, rules: tuple[str, ...], least: int = 5) -> dict[str, int]:
    """The rules of ``rules`` that fire on fewer than ``least`` recorded inputs (a record worth comparing
    has the rules it guards firing), with how many; also asserts the record holds every case input."""
    recorded = json.loads(record_path(wire).read_text(encoding="utf-8"))
    fired: dict[str, int] = {}
    for found in recorded.values():
        for rule in {finding[0] for finding in found["findings"]}:
            fired[rule] = fired.get(rule, 0) + 1
    assert len(recorded) >= len([i for i in inputs(wire) if not i[0].startswith("golden ")])
    return {rule: fired.get(rule, 0) for rule in rules if fired.get(rule, 0) < least}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tests.support.recorded_findings WIRE", file=sys.stderr)
        return 2
    path = record_path(argv[0])
    record = observe(argv[0])
    rows = (f"{json.dumps(name, ensure_ascii=False)}: {json.dumps(found, ensure_ascii=False, sort_keys=True)}"
            for name, found in sorted(record.items()))
    path.write_text("{\n" + ",\n".join(rows) + "\n}\n", encoding="utf-8")  # an input a line: diffs read
    fired = sum(bool(found["findings"]) for found in record.values())
    print(f"{path}: {len(record)} inputs, {fired} with findings")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
