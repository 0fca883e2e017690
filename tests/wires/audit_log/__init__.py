"""A synthetic third wire, ``audit-log``, for the tests only: a five-line schema, one seq machine.

It is what holds the claim that adding a wire is its package plus one registry line
(docs/architecture.md, "Adding a wire"): nothing outside this package names it, and the suite's
generic tests (tests/wires/test_wire_registry.py) run over it beside the bundled wires, registered
for the whole session (the session's registry, ``tests.support.wires.SESSION``; the ``any_wire`` fixture). Its
schema has no top-level ``oneOf`` and its lines carry ``seq``, as stream-json's do, so a
detection or a schema step that assumed either of those of every wire fails here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from contract.core.jsonline import exact_int
from contract.core.reader import Record
from contract.core.rule import Basis, Level, Rule
from contract.core.sink import Sink
from contract.wires.base import Coverage, Evidence, Live, Machine, Wire

HERE = Path(__file__).resolve().parent
NAME = "audit-log"
GOLDEN = HERE / "goldens" / NAME / "hello.jsonl"  # goldens/<name>/ under its data root, as every wire's
_SOURCE = "audit-log schema (synthetic, tests/wires/audit_log)"

RULES: tuple[Rule, ...] = (
    Rule("al.schema", Level.MUST, NAME, "each line validates against the audit-log schema", _SOURCE,
         basis=Basis.WRITTEN),
    Rule("al.seq", Level.MUST, NAME, "seq is 1 on the first line and one more on each line after",
         f'{_SOURCE}, description: "seq from 1"', basis=Basis.WRITTEN),
)


class SeqRules:
    """al.seq: seq counts the lines from 1 (a line that is not an object still takes its place)."""

    rules: ClassVar[frozenset[str]] = frozenset({"al.seq"})

    def __init__(self) -> None:
        self.next = 1

    def feed(self, record: Record, out: Sink) -> None:
        expected, self.next = self.next, self.next + 1
        # by exact value, as the schema reads it (2.0 is 2); no integer, or none, is the schema's
        seq = exact_int(record.obj.get("seq")) if record.obj is not None else None
        if seq is None:
            return
        out.exercised("al.seq")  # it judged this line: the requirement verdict can say "passed"
        if seq != expected:
            out.emit("al.seq", record.line, "/seq", f"expected seq {expected}, found {seq}")

    def finish(self, out: Sink) -> None:
        pass


def _machines() -> list[Machine]:
    return [SeqRules()]


def _detect(obj: dict[str, Any]) -> Evidence:
    return Evidence.TYPE if obj.get("type") == "audit" else Evidence.NONE


AUDIT_LOG = Wire(
    name=NAME, schema_file=str(HERE / "audit-log.schema.json"), schema_rule="al.schema", rules=RULES,
    machines=_machines, detect=_detect, volatile=(), coverage=Coverage(goldens=1), live=Live.STREAM,
    reference="tests.wires.audit_log.emitter", max_output_bytes=1024**2, batch=False,
    strategies="tests.wires.audit_log.strategies", ansi=True, data_root=str(HERE),
)
