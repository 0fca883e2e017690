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

# THE table of change codes: every code a Change can carry, classify's and framing's alike. A code is
# additive (breaks nobody), acceptable (breaking, and an ADR may accept it in accepted-breaks.json),
# or refused (breaking, and ``evolve`` refuses it up front: the reason is the one line it prints).
# ``line-kind-added`` is both additive and acceptable: additive where the schema calls its line types
# an open set (stream-json), breaking for consumers where it does not (subagent-stdio).
# schemas/accepted-breaks.schema.json enumerates BREAKING_CODES exactly (a test holds the two together),
# and tests/evolution/test_change_codes.py holds every code the classifier emits to this table.
ADDITIVE_CODES: tuple[str, ...] = (
    "corpus-size",
    "description-edited",
    "field-seen",
    "kind-seen",
    "known-value-added",
    "line-kind-added",
    "open-set-value-added",
    "optional-field-added",
    "policy-edited",
    "rule-cited",
    "rule-uncited",
    "rules-baseline",
    "schema-edited",
    "unreferenced-edited",
)

# Every code a breaking Change can carry that an ADR can accept.
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
    "line-kind-added",
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
    "unread-keyword-added",
    "unread-keyword-changed",
    "unread-keyword-removed",
)

# Breaking codes no ADR entry can accept: ``evolve`` refuses a schema that makes one, in one line.
REFUSED_CODES: dict[str, str] = {
    "dialect-changed": "the schema's $schema (its JSON Schema dialect) differs from the seeds' "
                       "(https://json-schema.org/draft/2020-12/schema): the gate judges schemas in the seeds' "
                       "dialect only, where the same keywords may mean other things or nothing",
}

CODES: tuple[str, ...] = tuple(sorted({*ADDITIVE_CODES, *BREAKING_CODES, *REFUSED_CODES}))
"""Every code the classifier (and framing) can emit."""


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
