"""The subagent-stdio fields that differ on every run (``Wire.volatile``; see ``contract.goldens.normalize``)."""

from __future__ import annotations

from contract.wires.base import Treatment, Volatile

M, E, OFF = Treatment.MAP, Treatment.ERASE, Treatment.OFFSET

VOLATILE: tuple[Volatile, ...] = (
    Volatile("/id", "command", M, "string", "chosen by the client; echoed by the host"),
    Volatile("/sessionId", "session", M, "string", "the host's session (null stays null)"),
    Volatile("/*/sessionId", "session", M, "string", "the snapshot's session"),
    Volatile("/epoch", "epoch", M, "string", "new each time the host starts"),
    Volatile("/*/epoch", "epoch", M, "string", "the snapshot's epoch"),
    # Revisions count the host's internal updates, which a live host makes at its own pace;
    # mapping keeps "same revision" and "another revision", and sa.revision-order keeps order.
    Volatile("/revision", "revision", M, "integer", "the host's update counter"),
    Volatile("/*/revision", "revision", M, "integer", "the snapshot's update counter"),
    Volatile("/**/startedAt", "ms", E, "integer", "wall clock (epoch ms)"),
    Volatile("/**/updatedAt", "ms", E, "integer", "wall clock (epoch ms)"),
    Volatile("/**/endedAt", "ms", E, "integer", "wall clock (epoch ms)"),
    Volatile("/**/observedAt", "ms", E, "integer", "wall clock (epoch ms)"),
    Volatile("/**/runId", "run", M, "string", "generated run id"),
    Volatile("/**/workflowId", "workflow", M, "string", "generated workflow id"),
)
