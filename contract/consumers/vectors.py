"""The suite's knowledge as language-neutral test vectors (``milk-contract vectors export DIR``).

In the spirit of JSON-Schema-Test-Suite: each vector is one JSON file holding a stream (or a
subagent-stdio conversation, both directions in order), the verdict ``check`` gives it, the rule
ids of its findings with each rule's level, words and basis, and why it is in its group:

- ``conformant``: the goldens, as recorded;
- ``not-conformant``: for every rule a stream can break, a stream that breaks it
  (``contract.strategies.broken_streams``; the findings are exactly the rules listed);
- ``future-compatible``: goldens transformed the ways the seed lets a producer change them
  (each wire's ``Wire.future``, as ``feed --future`` draws them): conformant, and a consumer must accept them.

Vectors are drawn deterministically (a fixed seed per vector), so two exports of one version are
identical. Every vector is checked as it is written: one whose ``check`` verdict or rules differ
from what it states is an internal error, never a file (fail closed). The files' format is
``schemas/vector.schema.json``, copied into DIR; a Go, TypeScript or Java parser test reads
``index.json`` and the files, and needs no Python.
"""

from __future__ import annotations

import base64
import json
import random
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contract.core.resources import data_dir
from contract.rules.catalog import CATALOG

FORMAT = 1
SCHEMA_FILE = "vector.schema.json"
GROUPS = ("conformant", "not-conformant", "future-compatible")
FUTURE_PER_GOLDEN = 3
BROKEN_PER_RULE = 1


class VectorError(Exception):
    """A vector whose check verdict differs from what it would state (a bug: nothing is written)."""


@dataclass(frozen=True)
class Vector:
    wire: str
    group: str
    name: str
    description: str
    data: bytes
    strict: bool = True

    def document(self, report: Any) -> dict[str, Any]:
        rules = sorted(report.counts)
        document: dict[str, Any] = {
            "format": FORMAT,
            "id": f"{self.wire}/{self.group}/{self.name}",
            "wire": self.wire,
            "group": self.group,
            "description": self.description,
            "strict": self.strict,
            "verdict": "conformant" if report.conformant else "not-conformant",
            "rules": [_rule(rule) for rule in rules],
        }
        try:
            document["stream"] = self.data.decode("utf-8")
        except UnicodeDecodeError:  # a framing vector (line.utf8): JSON strings cannot hold its bytes
            document["stream_base64"] = base64.b64encode(self.data).decode("ascii")
        return document


def _rule(rule_id: str) -> dict[str, Any]:
    rule = CATALOG[rule_id]
    entry: dict[str, Any] = {"id": rule.id, "level": rule.level.value, "title": rule.title, "source": rule.source}
    basis = getattr(rule, "basis", None)  # basis: lands with the basis branch
    if basis is not None:
        entry["basis"] = str(getattr(basis, "value", basis))
    return entry


def _goldens() -> Iterator[Vector]:
    from contract.goldens.store import all_scenarios

    for golden in all_scenarios():
        yield Vector(golden.wire, "conformant", golden.name, f"the golden {golden.name}: {golden.description}",
                     golden.data())


def _first(strategy: Any, seed: int) -> Any:
    """The first value ``strategy`` draws from ``seed``, the same on every run (no shrinking, no database)."""
    from hypothesis import HealthCheck, Phase, find, settings

    shape = settings(max_examples=1, database=None, deadline=None, suppress_health_check=list(HealthCheck),
                     phases=(Phase.generate,))
    return find(strategy, lambda _: True, settings=shape, random=random.Random(seed))


def _broken() -> Iterator[Vector]:
    from contract.strategies import also_fires, breakable, broken_streams
    from contract.wires import NAMES

    for wire in NAMES:
        for rule in sorted(breakable(wire)):
            for number in range(BROKEN_PER_RULE):
                data = _first(broken_streams(wire, rule), seed=number)
                also = sorted(also_fires(wire, rule))
                extra = f" (breaking it also breaks {', '.join(also)})" if also else ""
                yield Vector(wire, "not-conformant", f"{rule}-{number + 1}",
                             f"breaks {rule}: {CATALOG[rule].title}{extra}", data)


def _future() -> Iterator[Vector]:
    from contract.goldens.store import scenarios
    from contract.wires import WIRES

    for wire in WIRES.values():
        future = wire.load_future()
        if future is None:
            continue  # a wire with no future variants has no future-compatible vectors
        for golden in scenarios(wire.name):
            try:
                strategy = future.vector(golden.name, golden.data())
            except ValueError:
                continue  # no place for a change (a host that is unavailable throughout, say)
            for number in range(FUTURE_PER_GOLDEN):
                changes, data = _first(strategy, seed=number)
                yield Vector(wire.name, "future-compatible", f"{golden.name}-{number + 1}",
                             f"{changes}; {future.obligation}", data)


EXPECTED = {"conformant": "conformant", "future-compatible": "conformant", "not-conformant": "not-conformant"}


def vectors() -> Iterator[tuple[Vector, dict[str, Any]]]:
    """Every vector with its document, each checked: VectorError when a verdict differs from its group's."""
    from contract.checking.checker import check

    for vector in (*_goldens(), *_broken(), *_future()):
        report = check(vector.data, vector.wire, strict=vector.strict)
        document = vector.document(report)
        if document["verdict"] != EXPECTED[vector.group]:
            raise VectorError(f"{document['id']}: check says {document['verdict']} "
                              f"({', '.join(sorted(report.counts)) or 'no findings'}), the group says "
                              f"{EXPECTED[vector.group]}")
        if vector.group == "not-conformant" and vector.name.rsplit("-", 1)[0] not in report.counts:
            raise VectorError(f"{document['id']}: the rule it breaks is not among its findings "
                              f"({', '.join(sorted(report.counts))})")
        yield vector, document


def export(folder: Path | str) -> dict[str, int]:
    """Write every vector under ``folder`` (``<wire>/<group>/<name>.json``), the schema and ``index.json``.

    Returns the count per group. The folder is created; files already in it are overwritten, others
    left alone.
    """
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(data_dir("schemas") / SCHEMA_FILE, root / SCHEMA_FILE)
    counts = dict.fromkeys(GROUPS, 0)
    index: list[dict[str, Any]] = []
    for vector, document in vectors():
        path = root / vector.wire / vector.group / f"{vector.name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        counts[vector.group] += 1
        index.append({"id": document["id"], "file": path.relative_to(root).as_posix(),
                      "verdict": document["verdict"], "rules": [r["id"] for r in document["rules"]]})
    (root / "index.json").write_text(json.dumps({"format": FORMAT, "schema": SCHEMA_FILE, "counts": counts,
                                                 "vectors": index}, indent=1) + "\n", encoding="utf-8")
    return counts


def stream_of(document: dict[str, Any]) -> bytes:
    """The stream bytes a vector document holds."""
    if "stream" in document:
        return str(document["stream"]).encode("utf-8")
    return base64.b64decode(document["stream_base64"], validate=True)


__all__ = ["GROUPS", "SCHEMA_FILE", "Vector", "VectorError", "export", "stream_of", "vectors"]
