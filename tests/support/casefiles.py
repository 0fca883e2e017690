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

Each file is validated against ``SHAPE`` as it loads, and a file that does not hold to it stops the
collection with its path, the case and what is wrong (:class:`CaseFileError`): a misspelt key
(``"fire"``) or an ``at`` place without ``"pointer"`` would otherwise be read as something else
("any pointer" is not a meaning ``at`` has: a missing pointer would be taken for null, a finding
about the whole line) and fail, or pass, far from its cause.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from tests.support.paths import TESTS

CASES = TESTS / "cases"  # the rules every wire shares (line.*)


def wire_cases(wire: str) -> Path:
    """A wire's case folder: ``cases/`` in its own package (contract/wires/<package>/cases) when it has
    one, so a new wire's cases come with its folder; else tests/wires/<package>/cases (the bundled two
    wires' and the synthetic one's). The package name is the wire's, with _ for -."""
    import contract.wires

    package = wire.replace("-", "_")
    own = Path(contract.wires.__file__).resolve().parent / package / "cases"
    return own if own.is_dir() else TESTS / "wires" / package / "cases"


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


# What a case file holds; every key is required where the loader would otherwise guess.
_PLACE = {"type": "object", "required": ["line", "pointer"], "additionalProperties": False,
          "properties": {"line": {"type": ["integer", "null"], "minimum": 1},
                         "pointer": {"type": ["string", "null"]}}}
_CASE = {
    "type": "object", "required": ["description", "fires"], "additionalProperties": False,
    "properties": {
        "description": {"type": "string", "minLength": 1}, "fires": {"type": "boolean"},
        "lines": {"type": "array"}, "raw": {"type": "string"},
        "raw_hex": {"type": "string", "pattern": "^([0-9a-fA-F]{2})*$"},
        "at": {"type": "array", "items": _PLACE, "minItems": 1}, "strict": {"type": "boolean"},
        "exercised": {"type": "boolean"},
    },
    "oneOf": [{"required": ["lines"]}, {"required": ["raw"]}, {"required": ["raw_hex"]}],
    "allOf": [  # a quiet case has no place to be found at; a firing one judged something by firing
        {"if": {"properties": {"fires": {"const": False}}}, "then": {"not": {"required": ["at"]}}},
        {"if": {"properties": {"fires": {"const": True}}}, "then": {"not": {"required": ["exercised"]}}},
    ],
}
SHAPE: dict[str, Any] = {
    "type": "object", "required": ["rule", "wire", "cases"], "additionalProperties": False,
    "properties": {"rule": {"type": "string"}, "wire": {"type": "string"},
                   "cases": {"type": "array", "items": _CASE, "minItems": 1}},
}
_VALIDATOR = Draft202012Validator(SHAPE)


class CaseFileError(ValueError):
    """A case file that does not hold to ``SHAPE``: its path, where in it, and what is wrong."""


def _checked(path: Path) -> dict[str, Any]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise CaseFileError(f"{path}: not JSON: {exc}") from None
    error = next(iter(sorted(_VALIDATOR.iter_errors(document), key=lambda e: list(e.absolute_path))), None)
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path)
        raise CaseFileError(f"{path}: at /{where}: {error.message} (the shape: tests/support/casefiles.py)")
    return dict(document)


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
    document = _checked(path)
    return [
        Case(
            rule=document["rule"],
            wire=document["wire"],
            description=case["description"],
            data=_data(case),
            fires=case["fires"],
            at=tuple(Place(p["line"], p["pointer"]) for p in case.get("at", ())),
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
