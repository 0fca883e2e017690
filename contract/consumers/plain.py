"""What a plain JSON Schema validator of the seed says of a vector (its ``plain_validator`` field).

The stream-json seed disagrees with itself on line types: its top-level ``oneOf`` of five
``const`` types rejects a line of any other type, while its descriptions say "open set: ignore
unknown values" and "open-set enums everywhere — this schema documents known values in
descriptions but does not constrain them". milk-contract follows the words (docs/rules.md,
docs/consumers.md), so a future-compatible vector with an unknown line type is conformant here,
and an SDK author who runs a stock Draft 2020-12 validator over the seed gets the opposite
answer. Every vector says which lines such a validator rejects, which the suite's schema rule
rejects, and why they differ where they do (issue 31), so no vector rests silently on the
suite's reading of that conflict.

"Plain" means: each line read by Python's standard ``json`` (last duplicate wins, as most
parsers do) and validated by ``jsonschema``'s ``Draft202012Validator`` against the seed as it is
(no open-set relaxation, no exact number reading, Python ``re`` patterns). A line that standard
``json`` cannot read (or nests deeper than its stack) is not validated: it is listed as such
(``not_validated``), a framing finding, not a schema one.
"""

from __future__ import annotations

import json
from typing import Any

from jsonschema import Draft202012Validator

from contract.wires import by_wire, get

VALIDATOR = ("JSON Schema Draft 2020-12 (jsonschema's Draft202012Validator), the seed schema as it is, each line "
             "read by a standard JSON parser (the last of repeated members wins)")
# Why a plain validator and the suite part where they do (docs/consumers.md, "Open sets").
OPEN_SET = ('its type {kind} is not one of the types the top-level oneOf names, so the seed\'s oneOf rejects it; '
            'the descriptions say "open set: ignore unknown values" and "open-set enums everywhere", and '
            "milk-contract follows them: the line is judged by the common envelope only")
EXACT = ("the suite reads the line more strictly than a plain validator: numbers by exact value, ECMA-262 "
         "patterns, a repeated member name (docs/rules.md)")
OTHER = "the suite and a plain validator read the seed differently here (docs/rules.md)"


@by_wire
def _validator(wire: str) -> tuple[Draft202012Validator, frozenset[str]]:
    """The plain validator of ``wire``'s seed, and the line types its top-level oneOf names."""
    with open(get(wire).schema_path, "rb") as handle:
        schema = json.load(handle)
    named = frozenset(branch.get("properties", {}).get("type", {}).get("const")
                      for branch in schema.get("oneOf", ()) if isinstance(branch, dict)) - {None}
    return Draft202012Validator(schema), named


def _plain_rejects(wire: str, data: bytes) -> tuple[list[int], list[int], dict[int, Any]]:
    """The 1-based lines a plain validator rejects, those it could not judge, and each rejected
    line's type member."""
    validator, _ = _validator(wire)
    rejected: list[int] = []
    unread: list[int] = []
    kinds: dict[int, Any] = {}
    for number, body in enumerate(data.split(b"\n"), 1):
        if not body.strip():
            continue
        try:
            value = json.loads(body)
            valid = validator.is_valid(value)
        except (ValueError, RecursionError):  # not JSON to a standard parser, or nested past its stack
            unread.append(number)
            continue
        if not valid:
            rejected.append(number)
            kinds[number] = value.get("type") if isinstance(value, dict) else None
    return rejected, unread, kinds


def verdict(wire: str, data: bytes, report: Any) -> dict[str, Any]:
    """The ``plain_validator`` field of a vector of ``wire`` holding ``data``, judged by ``report``."""
    rule = get(wire).schema_rule
    rejected, unread, kinds = _plain_rejects(wire, data)
    suite = sorted({v.line for v in report.violations if v.rule == rule and v.line is not None})
    field: dict[str, Any] = {"validator": VALIDATOR, "rejects": rejected, "suite_rejects": suite,
                             "not_validated": unread, "agrees": rejected == suite}
    if rejected != suite:
        _, named = _validator(wire)
        why = []
        for number in sorted(set(rejected) - set(suite)):
            kind = kinds.get(number)
            open_set = isinstance(kind, str) and kind not in named and bool(named)
            why.append(f"line {number}: " + (OPEN_SET.format(kind=json.dumps(kind)) if open_set else OTHER))
        why.extend(f"line {number}: {EXACT}" for number in sorted(set(suite) - set(rejected)))
        field["why"] = why
    return field


__all__ = ["VALIDATOR", "verdict"]
