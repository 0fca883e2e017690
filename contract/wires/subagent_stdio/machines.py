"""The subagent-stdio rule machines: one small machine per related group of rules.

They live by what they read: ``conversation`` holds the rules across a conversation's lines
(``Correlation``, ``Revisions``, ``EventsCapability``), ``snapshots`` the rules within one host
line's snapshot (``Envelope``, ``UniqueKeys``, ``Consistency``), and ``lines`` what both share
(the line types, ``snapshot_of``). This module gathers them for the descriptor (``__init__.py``)
and holds ``Checks``, the machine of the checks declared beside their rules.

A recorded conversation holds both directions in order in one JSONL file: ``subagent_status``
commands (client to host), ``response`` lines and pushed ``subagent_event`` lines (host to
client); the three line types are disjoint by ``type``. A file with host output only is judged
on everything but correlation, and the report says so.

The subagent-stdio schema carries no ``description`` at all, so the MUST rules come from
its structure (what it repeats, what it scopes, what it names) and every machine's docstring says
which schema words it enforces; the SHOULD rules are inferred consistency and say why.
Machines see every parsed line, valid or not, and judge only the fields whose type they can
trust: a missing or mistyped field is the schema's finding (``sa.schema``), not reported twice.
Integers are read by exact value (``exact_int``): ``3.0`` and ``5e0`` are the integers 3 and 5,
as JSON Schema says, so a relay that writes integers as doubles is still judged;
``2.0000000000000001`` is no integer (the parser keeps it exact) and is left to the schema. A
boolean is never a number (``True`` is an int in Python). Only strings are used as dict keys.

Every bound on what a machine remembers is either reported when reached (``checker.limit``,
once, naming the check and the bound) or summarised in the finding it limits; none is silent.
"""

from __future__ import annotations

from contract.core.reader import Record
from contract.core.rule import Check
from contract.core.sink import Sink
from contract.wires.subagent_stdio.conversation import (
    HOST_OUTPUT_ONLY_NOTE,
    LIMIT,
    MAX_EARLY,
    MAX_EPOCHS,
    MAX_KEY_CHARS,
    MAX_PENDING,
    Correlation,
    EventsCapability,
    Revisions,
    obj_revision,
)
from contract.wires.subagent_stdio.lines import COMMAND, EVENT, LINE_TYPES, RESPONSE, snapshot_of
from contract.wires.subagent_stdio.snapshots import (
    FAILED,
    SUCCEEDED,
    TIMES,
    Consistency,
    Envelope,
    UniqueKeys,
    Walked,
)

# The public names of this module before it was split (issue 29), still read from here: by the
# descriptor (the machines, the line types), the strategies (the statuses) and the tests.
__all__ = [
    "COMMAND", "EVENT", "FAILED", "HOST_OUTPUT_ONLY_NOTE", "LIMIT", "LINE_TYPES", "MAX_EARLY", "MAX_EPOCHS",
    "MAX_KEY_CHARS", "MAX_PENDING", "RESPONSE", "SUCCEEDED", "TIMES", "Checks", "Consistency", "Correlation",
    "Envelope", "EventsCapability", "Revisions", "UniqueKeys", "Walked", "obj_revision", "snapshot_of",
]


class Checks:
    """The ``Check`` families of the registry (``Registry.family``), fed by line type.

    One machine for all of them, built only when there is one (``_machines``): each object line
    goes to the checks that name its type, in declaration order.
    """

    def __init__(self, checks: list[Check]) -> None:
        self.checks = checks
        self.rules = frozenset(rule for check in checks for rule in check.rules)
        self.by_kind: dict[str, list[Check]] = {}
        for check in checks:
            for kind in check.kinds:
                self.by_kind.setdefault(kind, []).append(check)

    def feed(self, record: Record, out: Sink) -> None:
        obj = record.obj
        if obj is None:
            for check in self.checks:
                check.opaque(record.line, out)
            return
        kind = obj.get("type")
        if type(kind) is not str:
            return
        for check in self.by_kind.get(kind, ()):
            check.line(obj, record.line, out)

    def finish(self, out: Sink) -> None:
        for check in self.checks:
            check.finish(out)
