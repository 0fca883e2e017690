"""Who speaks on each line type, and what a line type needs: the per-line-type handlers.

``Actors`` holds the handlers ``StreamRules`` dispatches to by line type (``by_kind``): system,
assistant, user and stream_event lines (result's is ``RunEnds._result``). They judge the actor
members (sj.agent-form, sj.role-form), the message an assistant or user line carries
(sj.message-present, sj.message-form) and the capability a line type needs (sj.capabilities:
tasks_v1 for the task subtypes, partial_messages_v1 for stream events), and hand the content
blocks and tool-argument fragments to ``ToolCalls``. Part of ``StreamRules`` (``machines.py``).
"""

from __future__ import annotations

from typing import Any

from contract.core.jsonvalue import clip, quoted
from contract.core.jsonvalue import kind as json_kind
from contract.core.rule import Level, Rule
from contract.core.sink import Sink
from contract.wires.stream_json.ends import RunEnds
from contract.wires.stream_json.facts import TASK_SUBTYPES
from contract.wires.stream_json.registry import REGISTRY
from contract.wires.stream_json.registry import SJ as _SJ
from contract.wires.stream_json.registry import D as _D
from contract.wires.stream_json.registry import W as _W
from contract.wires.stream_json.tool_calls import ToolCalls

# "a role label string (primary | escalation)": the known labels, not a closed set ("open-set
# enums everywhere — this schema documents known values in descriptions but does not constrain
# them"), so any string passes sj.agent-form; generators draw from these.
AGENT_LABELS = ("primary", "escalation")


@REGISTRY.family(
    Rule("sj.agent-form", Level.MUST, "stream-json",
         "agent, where present, is an object on system/init and a string on assistant/user (any label)",
         f'{_SJ}, properties.agent.description: "dual-form: the AgentInfo object on system/init lines; '
         'a role label string (primary | escalation) on assistant/user lines" (written: the form where '
         "present, the one reading of every dual-form sentence, as sj.message-form; a missing agent is no "
         "finding on any line type); "
         'description: "open-set enums everywhere — this schema documents known values in descriptions but '
         'does not constrain them", so primary | escalation are known labels, not the only ones',
         basis=_W, breaker="agent_form"),
    Rule("sj.message-form", Level.MUST, "stream-json",
         "message, where present, is a string on system/error and a Message object on assistant/user",
         f'{_SJ}, properties.message.description: "dual-form: a string on system/error lines; the '
         'Message object on assistant/user lines" (written: the form on each line type named. One reading '
         "for every dual-form sentence (agent too) and every line type it names: the sentence gives the "
         "form where the member is present; it does not make it present, which the seed says with "
         "'present' where it means it: is_error, 'present on every result line'. A missing message on "
         "assistant/user is sj.message-present's, derived from other words)", basis=_W, breaker="message_form"),
    Rule("sj.message-present", Level.MUST, "stream-json",
         "assistant and user lines carry a message",
         f"{_SJ}, oneOf[2].description 'completed assistant message blocks (text | thinking | tool_use)' and "
         "oneOf[3].description 'tool_result blocks + tool_use_result summary' (derived: those lines are "
         "described by the message blocks they carry, so one without a message carries nothing they are "
         "for; the dual-form sentence alone does not require it, and nothing requires agent on any line or "
         "message on system/error)", basis=_D, breaker="message_present"),
    Rule("sj.capabilities", Level.SHOULD, "stream-json",
         "stream_event lines need partial_messages_v1 advertised on init; task lines need tasks_v1",
         f'inferred from {_SJ}, oneOf[1].description: "partial deltas (partial_messages_v1)" and '
         'properties.capabilities.description (known: stream_v1, partial_messages_v1, tasks_v1)',
         basis=_D, breaker="capabilities"),
    Rule("sj.role-form", Level.SHOULD, "stream-json",
         "message.role matches the line type (assistant on assistant, user on user)",
         f'inferred from {_SJ}: oneOf[2] "completed assistant message blocks", oneOf[3] "tool_result blocks"',
         basis=_D, breaker="role_form"),
)
class Actors(RunEnds, ToolCalls):
    """The line-type handlers of ``StreamRules``: init and the result are ``RunEnds``', blocks ``ToolCalls``'."""

    # -- per line type -----------------------------------------------------------------------

    def _system(self, obj: dict[str, Any], line: int, out: Sink) -> None:
        subtype = self._subtype(obj, line, out)
        if type(subtype) is not str:  # missing (sj.subtype, above) or mistyped (the schema's finding)
            return
        if subtype == "init":
            self._init(obj, line, out)
            return
        if subtype == "error" and "message" in obj:
            out.exercised("sj.message-form")
        if subtype == "error" and "message" in obj and type(obj["message"]) is not str:
            out.emit("sj.message-form", line, "/message",
                     f"expected a string on system/error, found {json_kind(obj['message'])}")
        if subtype in TASK_SUBTYPES:
            self._need("tasks_v1", f"system/{subtype}", line, out)

    def _assistant(self, obj: dict[str, Any], line: int, out: Sink) -> None:
        content = self._actor(obj, "assistant", line, out)
        if content is not None:
            self._blocks(content, line, out)

    def _user(self, obj: dict[str, Any], line: int, out: Sink) -> None:
        content = self._actor(obj, "user", line, out)
        if content is not None:
            self._blocks(content, line, out)

    def _blocks(self, content: list[Any], line: int, out: Sink) -> None:
        """tool_use and tool_result blocks, in content order, on assistant and user lines alike."""
        for index, block in enumerate(content):
            if type(block) is not dict:
                continue
            kind = block.get("type")
            if kind == "tool_use":
                self._tool_use(block, line, f"/message/content/{index}", out)
            elif kind == "tool_result":
                self._tool_result(block, line, f"/message/content/{index}/tool_use_id", out)

    def _stream_event(self, obj: dict[str, Any], line: int, out: Sink) -> None:
        self._need("partial_messages_v1", "stream_event", line, out)
        event = obj.get("event")
        if type(event) is dict and event.get("type") == "tool_args_delta":
            self._fragment(event, line, out)

    # -- sj.agent-form, sj.message-form, sj.role-form ----------------------------------------

    @staticmethod
    def _actor(obj: dict[str, Any], kind: str, line: int, out: Sink) -> list[Any] | None:
        """Check an assistant/user line's dual-form fields; return its content blocks.

        Any label string passes sj.agent-form: "primary | escalation" are known values in a
        schema of "open-set enums everywhere"; the rule checks the form only.
        """
        if "agent" in obj:
            out.exercised("sj.agent-form")
        if "agent" in obj and type(obj["agent"]) is not str:
            out.emit("sj.agent-form", line, "/agent",
                     f"expected a role label string on {kind} lines, found {json_kind(obj['agent'])}")
        # The dual-form sentence is read one way for every line type it names: the form, where
        # the member is present (sj.agent-form, sj.message-form). Presence of message on
        # assistant/user lines is another sentence's (oneOf[2], oneOf[3]): sj.message-present.
        out.exercised("sj.message-present")
        if "message" not in obj:
            out.emit("sj.message-present", line, "/message",
                     f"expected a message on {kind} lines (they carry its blocks), found it missing")
            return None
        out.exercised("sj.message-form")
        message = obj["message"]
        if type(message) is not dict:
            out.emit("sj.message-form", line, "/message",
                     f"expected the Message object on {kind} lines, found {json_kind(message)}")
            return None
        role = message.get("role")
        if type(role) is str:
            out.exercised("sj.role-form")
        if role != kind and type(role) is str:
            out.emit("sj.role-form", line, "/message/role",
                     f"expected role {quoted(kind)} on a {kind} line, found {quoted(clip(role))}")
        content = message.get("content")
        return content if type(content) is list else None

    # -- sj.capabilities -----------------------------------------------------------------------

    def _need(self, capability: str, what: str, line: int, out: Sink) -> None:
        if self.advertised is not None:
            out.exercised("sj.capabilities")
        if self.advertised is not None and capability not in self.advertised:
            out.emit("sj.capabilities", line, "/type",
                     f"expected {capability} in system/init capabilities before {what} lines, "
                     f"found {clip(str(sorted(self.advertised)), 200)}")
