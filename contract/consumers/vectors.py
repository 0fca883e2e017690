"""The suite's knowledge as language-neutral test vectors (``milk-contract vectors export DIR``).

In the spirit of JSON-Schema-Test-Suite: each vector is one JSON file holding a stream (or a
subagent-stdio conversation, both directions in order), the verdict ``check`` gives it, the rule
ids of its findings with each rule's level, words and basis, and why it is in its group:

- ``conformant``: the goldens, as recorded;
- ``not-conformant``: for every rule a stream can break, a stream that breaks it
  (``contract.strategies.broken_streams``; the findings are exactly the rules listed);
- ``future-compatible``: goldens transformed the ways the seed lets a producer change them
  (each wire's ``Wire.future``, as ``feed --future`` draws them), one vector per kind of change
  per golden, each naming its ``kind``: conformant, and a consumer must accept them;
- ``must-not-succeed``: the broken streams of ``feed --broken`` (``contract.consumers.broken_feed``), each
  naming its ``kind``: not conformant, and a consumer must not report them as a success.

Vectors are drawn deterministically (a fixed seed per vector), so two exports of one version are
identical; the draw is not hypothesis' first (always its simplest) example but a later one, so
the seed matters (a rule with more than one way to break gets more than its minimal stream).
Every vector is checked as it is written: one whose ``check`` verdict or rules differ
from what it states is an internal error, never a file (fail closed). The files' format is
``schemas/vector.schema.json``, copied into DIR; a Go, TypeScript or Java parser test reads
``index.json`` and the files, and needs no Python. Each vector also says what a plain Draft
2020-12 validator of the seed says of its lines (``plain_validator``, ``contract.consumers.plain``):
where the seed's schema and its descriptions disagree (an unknown line type), the vector states
both readings and which one the verdict follows.
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

from contract.consumers import plain
from contract.core.resources import data_dir
from contract.rules.catalog import CATALOG

FORMAT = 1
SCHEMA_FILE = "vector.schema.json"
GROUPS = ("conformant", "not-conformant", "future-compatible", "must-not-succeed")
BROKEN_PER_RULE = 3  # draws per rule (the simplest stream and two seeded ones; repeats are dropped)
SKIP = 3  # draws passed over before one is taken: hypothesis' first is always its simplest
MAX_DRAWS = 1000


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
    kind: str | None = None  # of a future-compatible or must-not-succeed vector: the kind of change or break

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
            # what a stock Draft 2020-12 validator of the seed says, and why it differs (issue 31)
            "plain_validator": plain.verdict(self.wire, self.data, report),
        }
        if self.kind is not None:
            document["kind"] = self.kind
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


def _drawn(strategy: Any, seed: int, skip: int = SKIP) -> Any:
    """A value ``strategy`` draws from ``seed``, the same on every run (no shrinking, no database).

    ``skip`` draws are passed over first: hypothesis' first example is its simplest whatever the
    seed (an outside review found every future vector one change, repeated), so with ``skip`` 0 the
    value is the minimal one and with more it is a random one that the seed picks.
    """
    from hypothesis import HealthCheck, Phase, find, settings

    calls = [0]

    def taken(_: Any) -> bool:
        calls[0] += 1
        return calls[0] > skip

    shape = settings(max_examples=MAX_DRAWS, database=None, deadline=None, suppress_health_check=list(HealthCheck),
                     phases=(Phase.generate,))
    return find(strategy, taken, settings=shape, random=random.Random(seed))


def _broken() -> Iterator[Vector]:
    from contract.strategies import also_fires, breakable, broken_streams
    from contract.wires import NAMES

    for wire in NAMES:
        for rule in sorted(breakable(wire)):
            also = sorted(also_fires(wire, rule))
            extra = f" (breaking it also breaks {', '.join(also)})" if also else ""
            seen: set[bytes] = set()
            for number in range(BROKEN_PER_RULE):
                # the minimal stream first, then seeded ones: a rule broken more than one way shows more
                data = _drawn(broken_streams(wire, rule), seed=number, skip=0 if number == 0 else SKIP)
                if data in seen:
                    continue
                seen.add(data)
                yield Vector(wire, "not-conformant", f"{rule}-{len(seen)}",
                             f"breaks {rule}: {CATALOG[rule].title}{extra}", data)


def _future() -> Iterator[Vector]:
    from contract.goldens.store import scenarios
    from contract.wires import WIRES

    for wire in WIRES.values():
        future = wire.load_future()
        if future is None:
            continue  # a wire with no future variants has no future-compatible vectors
        if future.kinds is None or future.of_kind is None:
            raise VectorError(f"{wire.name}: its Wire.future draws no change of one kind (kinds, of_kind)")
        for number, golden in enumerate(scenarios(wire.name)):
            data = golden.data()
            for kind in future.kinds(data):  # a golden with no place for a kind has no vector of it
                changes, stream = _drawn(future.of_kind(golden.name, data, kind), seed=number)
                yield Vector(wire.name, "future-compatible", f"{golden.name}-{kind}",
                             f"{changes}; {future.obligation}", stream, kind=kind)


def _must_not_succeed() -> Iterator[Vector]:
    from contract.consumers.broken_feed import broken_streams
    from contract.wires import WIRES

    for broken in (broken for wire in WIRES.values() if wire.feeds is not None for broken in broken_streams(wire=wire)):
        yield Vector(broken.wire, "must-not-succeed", broken.name,
                     f"{broken.description}; a consumer must not report it as a success ({broken.source})",
                     broken.data, kind=broken.kind)


EXPECTED = {"conformant": "conformant", "future-compatible": "conformant", "not-conformant": "not-conformant",
            "must-not-succeed": "not-conformant"}


def vectors() -> Iterator[tuple[Vector, dict[str, Any]]]:
    """Every vector with its document, each checked: VectorError when a verdict differs from its group's."""
    from contract.checking.checker import check

    for vector in (*_goldens(), *_broken(), *_future(), *_must_not_succeed()):
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
        entry = {"id": document["id"], "file": path.relative_to(root).as_posix(), "wire": vector.wire,
                 "group": vector.group, "verdict": document["verdict"], "rules": [r["id"] for r in document["rules"]]}
        if "kind" in document:
            entry["kind"] = document["kind"]
        index.append(entry)
    (root / "index.json").write_text(json.dumps({"format": FORMAT, "schema": SCHEMA_FILE, "counts": counts,
                                                 "vectors": index}, indent=1) + "\n", encoding="utf-8")
    return counts


def stream_of(document: dict[str, Any]) -> bytes:
    """The stream bytes a vector document holds."""
    if "stream" in document:
        return str(document["stream"]).encode("utf-8")
    return base64.b64decode(document["stream_base64"], validate=True)


__all__ = ["GROUPS", "SCHEMA_FILE", "Vector", "VectorError", "export", "stream_of", "vectors"]
