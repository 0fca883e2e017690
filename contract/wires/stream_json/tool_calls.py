"""sj.tool-result-ref, sj.parent-ref, sj.tool-args-*: tool calls and the blocks that refer to them.

``ToolCalls`` remembers the run's tool_use ids (for the tool_result blocks and the nested actors'
``parent_tool_use_id`` that refer to them), and keeps each call's ``tool_args_delta`` fragments
until its tool_use completes them, when their reassembly is judged (docs/tool-args.md). What it
keeps is bounded (``RunState``'s ``MAX_*``): reaching a bound is a checker.limit finding. Part of
``StreamRules`` (``machines.py``); the block path (``block_feed``) takes the same steps.
"""

from __future__ import annotations

import json
from typing import Any

from contract.core.jsonvalue import clip, quoted, same_value, shown
from contract.core.rule import Level, Rule
from contract.core.sink import Sink
from contract.wires.stream_json import facts as batch
from contract.wires.stream_json.registry import REGISTRY
from contract.wires.stream_json.registry import SJ as _SJ
from contract.wires.stream_json.registry import D as _D
from contract.wires.stream_json.registry import P as _P
from contract.wires.stream_json.state import Call, RunState


@REGISTRY.family(
    Rule("sj.tool-result-ref", Level.MUST, "stream-json",
         "a tool_result block names an earlier tool_use block (both on assistant or user lines)",
         f'{_SJ}, oneOf[3].description: "tool_result blocks"; content_block.tool_use_id (structure-derived '
         "MUST: the member is named tool_use_id, and a value that names no earlier tool_use is not a "
         'tool_use id). Both kinds of block count where the wire carries content blocks, on assistant and '
         "user lines (oneOf[2], oneOf[3]), either of them, and on no other line: a line of a type not known "
         "is ignored whole (open set), its tool_use and its tool_result alike", basis=_D, breaker="tool_result_ref"),
    Rule("sj.parent-ref", Level.MUST, "stream-json", "parent_tool_use_id names an earlier tool_use",
         f'{_SJ}, properties.parent_tool_use_id.description: "present exactly when the actor is nested '
         '... makes F3/F4-style tree views reconstructable" (structure-derived MUST: the member is named '
         "parent_tool_use_id, and a tree is reconstructable only if the parent exists; "
         '"present exactly when the actor is nested" has no rule, since a stream does not say which '
         'actor is nested other than by this field)', basis=_D, breaker="parent_ref"),
    Rule("sj.tool-args-reassembly", Level.MUST, "stream-json",
         "concatenated tool_args_delta fragments are one JSON text, equal to the input of the tool_use "
         "that completes them; no fragment after it; none left without one in a run "
         "whose result does not say it failed",
         f'{_SJ}, $defs.stream_payload.partial_json.description: "progressive tool-argument fragment '
         '(AI SDK-style delta framing; consumers concatenate, no partial-JSON reassembly)" (written: '
         "concatenation; derived: the words say how consumers reassemble, not what the result must be; the "
         "concatenation is the tool's arguments, so it is one JSON text equal to the tool_use's input by JSON "
         "value; repeated member names are sj.tool-args-duplicate-key). "
         # Issue 20. The new seed words in single quotes, as sj.subtype's (contract/evolution/framing.py).
         "When: oneOf[2].description: 'completed assistant message blocks (text | thinking | tool_use)' "
         "(derived: the assistant line completes the call, so its fragments come before it, and a "
         "non-empty fragment after it contradicts a completed input; an empty one changes no "
         "concatenation); content_block.input.description: 'free-form tool arguments (tool_use)', so "
         "fragments that no tool_use completes are the arguments of no call, unless the run failed: "
         "properties.is_error.description: 'true when the run failed (execution error, max turns, "
         "interruption)' (a failed run may stop mid-call: not judged, a note says so; nor a run with no "
         "result, which sj.result-last reports; nor a call that only streamed empty fragments)",
         basis=_D, breaker="tool_args_reassembly"),
    Rule("sj.tool-args-duplicate-key", Level.MUST, "stream-json",
         "the concatenated tool_args_delta fragments repeat no member name",
         "policy, as line.duplicate-key: the seed is silent on member names in the reassembly; RFC 8259 §4 "
         "says names SHOULD be unique and parsers disagree on which duplicate wins, so a consumer's reading "
         "of the arguments would depend on its parser", basis=_P, breaker="tool_args_duplicate_key"),
)
class ToolCalls(RunState):
    """The tool-call rules of ``StreamRules``, over the run's state (``RunState``)."""

    # -- sj.tool-result-ref, sj.parent-ref, sj.tool-args-reassembly ----------------------------

    def _known(self, ref: str) -> bool | None:
        """Whether ``ref`` names an earlier tool_use; None when that can no longer be told."""
        if ref in self.tool_uses:
            return True
        return None if self.tool_uses_full else False

    def _tool_result(self, block: dict[str, Any], line: int, where: str, out: Sink) -> None:
        if "tool_use_id" not in block:
            out.exercised("sj.tool-result-ref")
            out.emit("sj.tool-result-ref", line, where, "expected the id of an earlier tool_use, found no tool_use_id")
            return
        ref = block["tool_use_id"]
        if type(ref) is str:  # a non-string id is the schema's finding
            self._result_ref(ref, line, where, out)

    def _result_ref(self, ref: str, line: int, where: str, out: Sink) -> None:
        known = self._known(ref)
        if known is not None:
            out.exercised("sj.tool-result-ref")
        if known is False:
            out.emit("sj.tool-result-ref", line, where,
                     f"expected the id of an earlier tool_use, found {quoted(clip(ref))}")

    def _parent(self, parent: Any, line: int, out: Sink) -> None:
        known = self._known(parent) if type(parent) is str else None
        if known is not None:
            out.exercised("sj.parent-ref")
        if known is False:
            out.emit("sj.parent-ref", line, "/parent_tool_use_id",
                     f"expected the id of an earlier tool_use, found {quoted(clip(parent))}, never used before",
                     "nested actors point at the tool_use that started them")

    def _remember(self, ref: str, line: int, out: Sink) -> None:
        if self.tool_uses_full or ref in self.tool_uses:
            return
        cost = len(ref) + self.ENTRY_OVERHEAD
        if self.tool_use_bytes + cost > self.MAX_TOOL_USE_BYTES:
            self.tool_uses_full = True
            out.emit("checker.limit", line, None,
                     f"sj.tool-result-ref and sj.parent-ref stopped: the tool_use ids remembered reached "
                     f"{self.MAX_TOOL_USE_BYTES} bytes; an id first used from line {line} on is not judged "
                     "(nor, by sj.tool-args-reassembly, a call's fragments after or without its tool_use)")
            return
        self.tool_use_bytes += cost
        self.tool_uses.add(ref)

    # The fragments of a call are judged when its tool_use completes it (_tool_use), and a call
    # that never meets its tool_use at the end (_unfinished_calls). A fragment for an id whose
    # tool_use came already contradicts that completed input (_fragment). What is kept per id
    # is bounded (MAX_CALL_BYTES), and all ids together (MAX_PENDING_BYTES): each is a
    # checker.limit when reached, and the check it feeds stops instead of guessing.

    def _fragment(self, event: dict[str, Any], line: int, out: Sink) -> None:
        ref, fragment = event.get("tool_use_id"), event.get("partial_json")
        if type(ref) is str and type(fragment) is str:
            self._piece(ref, fragment, line, out)

    def _piece(self, ref: str, fragment: str, line: int, out: Sink) -> None:
        """One tool_args_delta fragment of the call ``ref``."""
        if self.reassembly_stopped:
            return
        call = self.fragments.get(ref)
        if call is None and self._known(ref):
            self._after_tool_use(ref, fragment, line, out)
            return
        if call is not None and call.stopped:
            return  # its bound was reported; the rest of this call is not kept
        cost = len(fragment) + self.ENTRY_OVERHEAD + (0 if call is not None else len(ref) + self.ENTRY_OVERHEAD)
        if self.pending_bytes + cost > self.MAX_PENDING_BYTES:
            # Judging the calls whose fragments were partly dropped would be a false mismatch,
            # and remembering which were would be another bound: stop the check here.
            self.reassembly_stopped = True
            self.fragments.clear()
            self.pending_bytes = 0
            out.emit("checker.limit", line, "/event/partial_json",
                     f"sj.tool-args-reassembly stopped: pending tool_args_delta fragments reached "
                     f"{self.MAX_PENDING_BYTES} bytes; no reassembly is judged from line {line} on")
            return
        if call is None:
            call = self.fragments[ref] = Call(line)
            self.pending_bytes += len(ref) + self.ENTRY_OVERHEAD
        if call.size + len(fragment) > self.MAX_CALL_BYTES:
            # One call's arguments past the bound: that call alone is not judged (its id stays,
            # as a marker costing what the id does, so its tool_use and the end skip it).
            self.pending_bytes -= call.size + self.ENTRY_OVERHEAD * len(call.pieces)
            call.stop()
            out.emit("checker.limit", line, "/event/partial_json",
                     f"sj.tool-args-reassembly stopped for {shown(clip(ref))}: its tool_args_delta fragments "
                     f"reached {self.MAX_CALL_BYTES} bytes; that call's reassembly is not judged")
            return
        self.pending_bytes += len(fragment) + self.ENTRY_OVERHEAD
        call.add(fragment)

    def _after_tool_use(self, ref: str, fragment: str, line: int, out: Sink) -> None:
        """A fragment for a call its tool_use completed already: "progressive" is over by then."""
        out.exercised("sj.tool-args-reassembly")
        if not fragment:  # an empty piece changes no concatenation: it contradicts nothing
            return
        out.emit("sj.tool-args-reassembly", line, "/event/partial_json",
                 f"expected no tool_args_delta for {shown(clip(ref))} after its tool_use completed its input, "
                 f"found the fragment {shown(clip(fragment))}",
                 "fragments stream a call's arguments before the assistant line that completes it")

    def _unfinished_calls(self, out: Sink) -> None:
        """At the end: the calls whose fragments never met their tool_use."""
        # A call with an unreadable line after its first fragment may have met its tool_use there:
        # not judged (that line's line.* finding already fails the stream).
        waiting = [(ref, call) for ref, call in self.fragments.items()
                   if not call.stopped and call.size and call.first_line > self.unreadable_line]
        if not waiting or self.result_line is None:
            return  # no result: the run was cut short (sj.result-last), and that is its finding
        if self.tool_uses_full:
            return  # the ids' tool_uses may be among the ones forgotten (that checker.limit says so)
        if self.result_failed:
            # "is_error: true when the run failed (execution error, max turns, interruption)": a
            # failed run may stop in the middle of a call, so its fragments are not a finding.
            out.note(f"sj.tool-args-reassembly: {len(waiting)} tool call(s) streamed fragments but never "
                     "met their tool_use; the result says the run failed (is_error true), which explains "
                     "an unfinished call, so they are not judged")
            return
        out.exercised("sj.tool-args-reassembly")
        for ref, call in waiting:
            out.emit("sj.tool-args-reassembly", call.first_line, "/event/partial_json",
                     f"expected a tool_use with id {shown(clip(ref))} to complete the {len(call.pieces)} "
                     f"tool_args_delta fragment(s) from line {call.first_line} "
                     f"(concatenated: {shown(clip(''.join(call.pieces)))}), found the run ending without one, "
                     "and a result that does not say it failed",
                     "a call whose arguments were streamed completes in an assistant tool_use block, "
                     "unless the run failed (is_error true)")

    def _tool_use(self, block: dict[str, Any], line: int, where: str, out: Sink) -> None:
        ref = block.get("id")
        if type(ref) is not str:
            return
        self._remember(ref, line, out)
        call = self.fragments.pop(ref, None)
        if call is None:
            return
        self.pending_bytes -= call.size + self.ENTRY_OVERHEAD * len(call.pieces) + len(ref) + self.ENTRY_OVERHEAD
        if call.stopped:
            return
        pieces = call.pieces
        # The reassembly is read as a line is (contract.core.jsonline): the same strict RFC 8259
        # numbers, nesting limit and duplicate-member detection, never last-wins.
        text, args, faults = batch.reassemble(pieces)
        rules = {fault.rule for fault in faults}
        if "line.limit" in rules:
            why = next(f.message for f in faults if f.rule == "line.limit")
            out.emit("checker.limit", line, f"{where}/input",
                     f"sj.tool-args-reassembly stopped for {shown(clip(ref))}: its reassembled arguments are "
                     f"beyond the checker's limits ({clip(why, 120)})")
            return
        out.exercised("sj.tool-args-reassembly")
        out.exercised("sj.tool-args-duplicate-key")
        if "line.duplicate-key" in rules:  # policy, as line.duplicate-key (its own rule: one basis)
            fault = next(f for f in faults if f.rule == "line.duplicate-key")
            found = fault.message.removeprefix("expected unique member names, found ")
            out.emit("sj.tool-args-duplicate-key", line, f"{where}/input",
                     f"expected the {len(pieces)} tool_args_delta fragments of {shown(clip(ref))} to concatenate "
                     f"to JSON with unique member names, found {found} at {shown(clip(fault.pointer or '', 80))} "
                     "of the reassembly",
                     "parsers disagree on which duplicate wins; a consumer's reading would depend on its parser")
            return
        if faults:  # not one JSON text (parse gives a value only with no fault or a duplicate)
            why = f" ({clip(faults[0].message, 120)})"
            out.emit("sj.tool-args-reassembly", line, f"{where}/input",
                     f"expected the {len(pieces)} tool_args_delta fragments of {shown(clip(ref))} to "
                     f"concatenate to one JSON text with unique member names, found {shown(clip(text))}{why}")
            return
        if not same_value(args, block.get("input")):
            out.emit("sj.tool-args-reassembly", line, f"{where}/input",
                     f"expected input equal to its reassembled fragments {shown(clip(text))}, "
                     f"found {shown(clip(_dumps(block.get('input'))))}")


def _dumps(value: Any) -> str:
    """A short JSON-ish rendering of ``value`` for a message (Decimal and depth tolerated)."""
    try:
        return json.dumps(value, default=str)
    except (RecursionError, ValueError):  # deeper than json.dumps recurses: say what it is instead
        return f"a {type(value).__name__} nested too deep to show"
