"""The stream-json fields that differ on every run (``Wire.volatile``; see ``contract.goldens.normalize``).

Which members vary per run is the one fact about them the schema cannot say, so it is declared
here, once for the wire, and nowhere else: the normaliser, the reference emitter (which makes
fresh values by each declaration's name and type, never by a member's name) and the recorder read
it. An ADR that renames or removes a member declared here is told so by ``milk-contract evolve``,
which names this file and line ("rename it there").
"""

from __future__ import annotations

from contract.wires.base import Treatment, Volatile

M, E, OFF = Treatment.MAP, Treatment.ERASE, Treatment.OFFSET

VOLATILE: tuple[Volatile, ...] = (
    Volatile("/seq", "line", OFF, "integer", "counts lines: kept as its offset from the line"),
    Volatile("/session_id", "session", M, "string", "a new sess_ id per run"),
    Volatile("/ts", "ts", E, "string", "wall clock"),
    Volatile("/duration_ms", "ms", E, "integer", "measured time"),
    Volatile("/ttft_ms", "ms", E, "integer", "measured time to first token"),
    Volatile("/output_tokens_per_second", "rate", E, "number", "derived from measured time"),
    Volatile("/message/id", "message", M, "string", "provider-generated message id"),
    Volatile("/message/content/*/id", "tool", M, "string", "generated tool_use id"),
    Volatile("/message/content/*/tool_use_id", "tool", M, "string", "refers to a tool_use id"),
    Volatile("/parent_tool_use_id", "tool", M, "string", "refers to a tool_use id"),
    Volatile("/event/tool_use_id", "tool", M, "string", "refers to a tool_use id"),
    Volatile("/task_id", "task", M, "string", "generated task id"),
    Volatile("/running_ids/*", "task", M, "string", "refers to task ids"),
    Volatile("/finished_ids/*", "task", M, "string", "refers to task ids"),
    Volatile("/percept_id", "percept", M, "string", "generated memory id"),
    Volatile("/cwd", "cwd", E, "string", "where the emitter was started"),
    Volatile("/milk_version", "milk_version", E, "string", "the build under test"),
)
