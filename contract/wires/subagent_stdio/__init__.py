"""The subagent-stdio wire, completely: ``SUBAGENT_STDIO``, its one descriptor.

Read-only subagent stdio observability v1: ``subagent_status`` commands in, ``response`` and
``subagent_event`` lines out, judged as one conversation. Its rules are declared by the machines
holding their logic (``rules.py`` gathers them, each with the schema structure it stands on),
gathered for the descriptor by ``machines.py``; what its goldens must show ``coverage.py``, its per-run fields
``volatile.py``; this module holds the descriptor. Its hypothesis strategies (``strategies.py``,
``broken.py``) and future-compatible host variants (``future.py``) load only when asked
(``Wire.load_strategies``, ``Wire.load_future``); its reference programs are ``host.py`` and
``client.py`` (run by the paths ``contract/reference/`` gives them).
"""

from __future__ import annotations

from typing import Any

from contract.wires.base import Coverage, Evidence, Line, Live, Machine, Wire
from contract.wires.subagent_stdio import coverage, dialogue
from contract.wires.subagent_stdio.machines import (
    COMMAND,
    LINE_TYPES,
    RESPONSE,
    Checks,
    Consistency,
    Correlation,
    Envelope,
    EventsCapability,
    Revisions,
    UniqueKeys,
    Walked,
)
from contract.wires.subagent_stdio.registry import REGISTRY
from contract.wires.subagent_stdio.rules import CITES, RULES
from contract.wires.subagent_stdio.volatile import VOLATILE

# -- the descriptor ---------------------------------------------------------------------------

def _machines() -> list[Machine]:
    walked = Walked()  # one quick pass over each snapshot for both walks (snapshots.Walked)
    machines: list[Machine] = [Correlation(), Envelope(), Revisions(), EventsCapability(), UniqueKeys(walked),
                               Consistency(walked)]
    checks = [check() for check in REGISTRY.checks()]  # the Check families (Registry.family)
    return [*machines, Checks(checks)] if checks else machines


def _detect(obj: dict[str, Any]) -> Evidence:
    return Evidence.TYPE if obj.get("type") in LINE_TYPES else Evidence.NONE


def _canonical(values: list[Line | None]) -> list[int]:
    """Each command moved to just before the response that answers it (line indexes, in order).

    Where a command falls among the host's pushed events depends on timing (the client writes
    while the host pushes), and pipelining is the client's choice: neither is the host's
    behaviour. The host's own order (responses and events) is kept; the n-th response answers
    the n-th command (sa.response-correlation checks that).
    """
    waiting: list[int] = []
    ordered: list[int] = []
    for index, value in enumerate(values):
        kind = value.get("type") if value is not None else None
        if kind == COMMAND:
            waiting.append(index)
            continue
        if kind == RESPONSE and waiting:
            ordered.append(waiting.pop(0))
        ordered.append(index)
    return ordered + waiting


# The surface's note on this seed's line kinds (``Wire.surface_policy``).
SURFACE_POLICY = (
    ("line-kinds", (
        "The subagent-stdio top-level oneOf names its line kinds by $def (command, response, event), "
        "and no words in the seed open that set: the checker holds every line to one of them. Removing "
        "a kind is breaking for both sides; adding one is breaking for consumers, which were never "
        "told to ignore a type they do not know.")),
)

SUBAGENT_STDIO = Wire(
    name="subagent-stdio",
    schema_file="subagent-stdio.schema.json",
    schema_rule="sa.schema",
    rules=RULES,
    cites=CITES,  # its words on the framing, line.ansi, harness and consumer rules
    machines=_machines,
    detect=_detect,  # its own line types, or nothing
    volatile=VOLATILE,
    coverage=Coverage(exempt_enums=coverage.EXEMPT_ENUMS, edges=coverage.EDGES, goldens=5),
    live=Live.CONVERSATION,
    reference="contract.reference.subagent_host",
    max_output_bytes=64 * 1024**2,  # the conversation is kept to be judged whole
    batch=False,  # its rules cost more than the line work a worker takes over (BENCHMARKS.md)
    blocks=True,  # a clean block skips the reader and the schema step (issue 50)
    surface_policy=SURFACE_POLICY,
    strategies="contract.wires.subagent_stdio.kit.broken",
    canonical=_canonical,
    future="contract.wires.subagent_stdio.kit.future",  # what a host may send unasked: feed --future, the vectors
    dialogue=dialogue.DIALOGUE,
)
