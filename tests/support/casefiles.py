"""Rule cases as data files, JSON-Schema-Test-Suite style, loaded into frozen dataclasses.

``tests/wires/<wire>/cases/<rule-id>.json`` (a wire's rules, its package name: ``stream_json``) and
``tests/cases/line/<rule-id>.json`` (the framing rules every wire shares) hold::

    {"rule": "sj.seq", "wire": "stream-json", "cases": [
        {"description": "a gap of one", "lines": [{...}, {...}], "fires": true,
         "at": [{"line": 3, "pointer": "/seq"}]},
        {"description": "contiguous from 7", "lines": [...], "fires": false}]}

A case gives its input as ``lines`` (JSON values, written compactly one per line with LF),
``raw`` (text, encoded as UTF-8 as is) or ``raw_hex`` (bytes). ``fires`` says whether the
file's rule must appear in the report; ``at`` optionally pins where (every listed place must
be among the rule's findings); ``strict`` runs the check with --strict. ``exercised`` (quiet
cases only, default true) says whether the rule judged something: its requirement verdict is
then passed, or not-exercised when false (a stream that holds nothing the rule applies to).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.paths import TESTS

CASES = TESTS / "cases"  # the rules every wire shares (line.*)


def wire_cases(wire: str) -> Path:
    """A wire's case folder: tests/wires/<its package>/cases (the package name is the wire's, with _)."""
    return TESTS / "wires" / wire.replace("-", "_") / "cases"


@dataclass(frozen=True)
class Place:
    line: int | None
    pointer: str | None


@dataclass(frozen=True)
class Case:
    rule: str
    wire: str
    description: str
    data: bytes
    fires: bool
    at: tuple[Place, ...] = ()
    strict: bool = False
    exercised: bool = True

    @property
    def id(self) -> str:
        verdict = "fires" if self.fires else "quiet" if self.exercised else "idle"
        return f"{self.rule}[{verdict}]: {self.description}"


def _data(raw_case: dict[str, Any]) -> bytes:
    if "lines" in raw_case:
        return b"".join(
            json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
            for value in raw_case["lines"]
        )
    if "raw" in raw_case:
        return str(raw_case["raw"]).encode("utf-8", "surrogatepass")
    return bytes.fromhex(raw_case["raw_hex"])


def load(path: Path) -> list[Case]:
    document = json.loads(path.read_text(encoding="utf-8"))
    return [
        Case(
            rule=document["rule"],
            wire=document["wire"],
            description=case["description"],
            data=_data(case),
            fires=case["fires"],
            at=tuple(Place(p.get("line"), p.get("pointer")) for p in case.get("at", ())),
            strict=case.get("strict", False),
            exercised=case.get("exercised", True),
        )
        for case in document["cases"]
    ]


def all_cases(wire: str | None = None) -> list[Case]:
    from contract.wires import BUNDLED  # the shipped wires' (the synthetic wire's: tests/rules/test_rule_cases.py)

    if wire is not None:
        folders = [CASES / wire if (CASES / wire).is_dir() else wire_cases(wire)]
    else:
        folders = [*sorted(p for p in CASES.iterdir() if p.is_dir()), *(wire_cases(name) for name in BUNDLED)]
    return [case for folder in folders for path in sorted(folder.glob("*.json")) for case in load(path)]
