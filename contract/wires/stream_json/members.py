"""Which top-level members a stream-json line kind carries, read from the schema in force and the goldens.

The stream-json schema models every line as one flat object: its top-level ``properties`` are the
union of every line type's members, and no keyword says which belong to result lines. The goldens
do: each shows the members its lines carry. So the code that needs "the members of a result line"
(the strategies that draw whole runs, the tests that pin what they reach) reads them here, from
the schema and the bundled goldens, rather than from a list of names that an ADR's rename or
removal would leave behind (issue 36). A member the schema models and no golden shows at all
(``total_cost_usd``, reserved) is placed on the result line, the one line every run has.

What stays code is :data:`RESULT_STRUCTURE`: the members the result rules read (sj.result-is-error,
sj.usage-sum) and that the strategies build with their meaning, not from the schema alone.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from contract.core.resources import data_dir

WIRE = "stream-json"
RESULT_STRUCTURE = frozenset({"type", "subtype", "is_error", "usage", "model_usage"})
MAX_GOLDEN_BYTES = 1 << 24  # a bundled golden is a few kilobytes; a bigger file is not read whole


@functools.cache
def load(wire: str) -> dict[str, Any]:
    """The wire's schema in force, read as JSON (this module stands below the checking layer)."""
    with open(data_dir("schemas") / f"{wire}.schema.json", "rb") as handle:
        schema: dict[str, Any] = json.load(handle)
    return schema


def _golden_lines() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    folder = data_dir("goldens") / WIRE
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else ():
        if path.stat().st_size > MAX_GOLDEN_BYTES:
            raise ValueError(f"{path}: larger than {MAX_GOLDEN_BYTES} bytes, not a golden this module reads")
        for text in path.read_text(encoding="utf-8").splitlines():
            try:
                value = json.loads(text)
            except ValueError:
                continue  # a broken line is the checker's finding, not a member
            if isinstance(value, dict):
                found.append(value)
    return found


@functools.cache
def shown_on(kind: str) -> frozenset[str]:
    """The members the bundled goldens show on lines of type ``kind``."""
    return frozenset(name for line in _golden_lines() if line.get("type") == kind for name in line)


@functools.cache
def unplaced() -> frozenset[str]:
    """The members the schema models that no golden line shows."""
    seen = {name for line in _golden_lines() for name in line}
    return frozenset(set(load(WIRE).get("properties", {})) - seen)


@functools.cache
def result_members() -> tuple[str, ...]:
    """The optional members a result line may carry beyond its structure and the envelope, sorted."""
    schema = load(WIRE)
    modelled = set(schema.get("properties", {}))
    envelope = set(schema.get("required", []))
    return tuple(sorted(((shown_on("result") | unplaced()) & modelled) - RESULT_STRUCTURE - envelope))


def member_schema(name: str) -> Any:
    """The schema of a top-level member in the schema in force."""
    return load(WIRE)["properties"][name]
