"""What a stream-json producer may change without breaking a consumer: the wire's one table.

The ADR gate (``milk-contract diff``/``evolve``, ``contract.evolution.classify``) calls some changes of the
schema additive; ``feed --future`` (``contract.wires.stream_json.kit.future``) feeds the streams such a change
lets a producer write. Both readings of "what a producer may add" come from here: each additive
change code of the gate names the future change kinds that make it on a stream, or says why it
changes no line. ``future.KINDS`` is read from this table, and tests/consumers/test_may_change.py
fails when the gate has an additive code this table does not declare, or a declared kind is never
drawn.

Member names, object places and known values are never listed here: the future module reads them
from the schema in force (a rename ADR changes the schema, not this table).
"""

from __future__ import annotations

from contract.wires.base import NO_LINE_CHANGES, Allowance

# The gate's words for each code are its own (contract/evolution/classify.py, framing.py).
MAY_CHANGE: dict[str, Allowance] = {
    # "line kind added (consumers ignore unknown types ...)": additive here, the type being an open set
    "line-kind-added": Allowance(("line-type",), "type: 'open set: ignore unknown values'"),
    # "open-set value documented (consumers ignore unknown values)": a value of an open set no
    # golden shows, or no description lists yet
    "open-set-value-added": Allowance(("system-subtype", "block-type", "delta-type", "event-type", "open-value"),
                                      "'open-set enums everywhere ... consumers must ignore values they "
                                      "don't recognize'"),
    # "new optional field (consumers ignore fields they do not know)": a member at any object the
    # schema models (top level of every line kind, message, content blocks, usage, agent objects,
    # stream payloads and their deltas, ...), whether the schema names it already (optional-member)
    # or not yet (unknown-member: what the next additive revision may add), and members inside the
    # free-form payloads (payload-member)
    "optional-field-added": Allowance(("payload-member", "optional-member", "unknown-member"),
                                      "a new optional member at any object level: consumers ignore fields "
                                      "they do not know; the seed: 'Evolution is additive-only'"),
    "known-value-added": Allowance(("system-subtype", "block-type", "delta-type", "event-type", "open-value"),
                                   "a known value documented: the same open sets, read from the rules' words"),
    **NO_LINE_CHANGES,
}


def kinds() -> tuple[str, ...]:
    """Every future change kind the table names, in its order (``future.KINDS``)."""
    return tuple(dict.fromkeys(kind for allowance in MAY_CHANGE.values() for kind in allowance.kinds))


__all__ = ["MAY_CHANGE", "kinds"]
