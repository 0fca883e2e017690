"""What a subagent-stdio host may change without breaking a client: the wire's one table.

As stream-json's (``contract.wires.stream_json.may_change``): each change code the ADR gate
(``contract.evolution.classify``) calls additive names the future change kinds
(``contract.wires.subagent_stdio.kit.future``) that make it on the host's side of a conversation, or says
why it changes no line the host writes. tests/consumers/test_may_change.py holds it against the gate.

The subagent-stdio seed states no open set (no descriptions, a closed ``enum`` for a node's status),
so the gate's open-set codes never arise on this wire, and a new line kind is breaking here (the
gate calls it additive only where the schema says its types are an open set): those codes are
declared with no kind, and the test shows the gate's verdict on this wire.
"""

from __future__ import annotations

from contract.wires.base import NO_LINE_CHANGES, NO_SCHEMA_CHANGE, Allowance

NO_OPEN_SET = ("never additive on this wire: its schema states no open set (no descriptions), so there is no "
               "value to add")
MAY_CHANGE: dict[str, Allowance] = {
    # "new optional field (consumers ignore fields they do not know)": a member the schema names but
    # no golden shows at that object (optional-member), or one it does not name yet (unknown-member),
    # at any object the schema models: a snapshot, a node, a fleet entry, tokens, capabilities...
    "optional-field-added": Allowance(("optional-member", "unknown-member"),
                                      "a new optional member at any object level: consumers ignore fields they "
                                      "do not know"),
    "line-kind-added": Allowance((), "breaking on this wire, not additive: the gate opens line kinds only where "
                                     "the schema says its types are an open set, and this seed says nothing"),
    "open-set-value-added": Allowance((), NO_OPEN_SET),
    "known-value-added": Allowance((), NO_OPEN_SET),
    **NO_LINE_CHANGES,
    # no change of the schema: a host that advertises capabilities.events may push events between responses
    NO_SCHEMA_CHANGE: Allowance(("unasked-event",), "the schema in force: capabilities.events advertised, events "
                                                   "pushed between responses"),
}


def kinds() -> tuple[str, ...]:
    """Every future change kind the table names, in its order (``future.KINDS``)."""
    return tuple(dict.fromkeys(kind for allowance in MAY_CHANGE.values() for kind in allowance.kinds))


__all__ = ["MAY_CHANGE", "kinds"]
