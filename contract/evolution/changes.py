"""The vocabulary of schema and surface changes: additive or breaking, with a code and a path.

``contract.evolution.classify`` finds the changes between two surfaces, ``contract.evolution.framing`` those
between the framing rules' words; both build them from here (so neither imports the other at
load time).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

ADDITIVE = "additive"
BREAKING = "breaking"

# Every code a breaking Change can carry; schemas/accepted-breaks.schema.json enumerates the same.
BREAKING_CODES: tuple[str, ...] = (
    "bound-added",
    "bound-changed",
    "bound-narrowed",
    "bound-removed",
    "bound-widened",
    "const-added",
    "const-changed",
    "const-removed",
    "constraint-added",
    "constraint-removed",
    "enum-added",
    "enum-removed",
    "enum-value-added",
    "enum-value-removed",
    "field-no-longer-seen",
    "field-removed",
    "field-renamed",
    "framing-rule-added",
    "framing-rule-edited",
    "framing-rule-removed",
    "framing-rule-tightened",
    "framing-rule-weakened",
    "kind-no-longer-seen",
    "known-value-removed",
    "line-kind-removed",
    "object-changed",
    "object-closed",
    "object-opened",
    "optional-made-required",
    "pattern-added",
    "pattern-changed",
    "pattern-removed",
    "required-field-added",
    "required-made-optional",
    "rule-sentence-edited",
    "rule-words-added",
    "rule-words-edited",
    "rule-words-removed",
    "rule-words-tightened",
    "rule-words-weakened",
    "structure-changed",
    "type-changed",
    "type-narrowed",
    "type-widened",
    "unclassified",
)



@dataclass(frozen=True, slots=True)
class Change:
    kind: str  # "additive" | "breaking"
    path: str
    reason: str
    breaks: str | None  # "consumers" | "emitters" | "both" | None
    code: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


Region = tuple[str, ...]
Found = Iterator[tuple[Region, Change | None]]
