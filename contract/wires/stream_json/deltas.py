"""sj.delta-reassembly: the text and thinking deltas of a block against the block that completes them.

A ``Check`` family (docs/architecture.md, "Adding a rule"): its logic needs no other family's state.
"""

from __future__ import annotations

from typing import Any

from contract.core.jsonvalue import clip, quoted, shown
from contract.core.rule import Check, Level, Rule
from contract.core.sink import Sink
from contract.wires.stream_json.registry import REGISTRY
from contract.wires.stream_json.registry import SJ as _SJ
from contract.wires.stream_json.registry import D as _D
from contract.wires.stream_json.seq_stamps import TOO_LONG, integral

# Issue 49: the partial text and thinking deltas of a block concatenate to that block in the
# assistant line that completes the message, as sj.tool-args-reassembly holds for tool arguments.
# What ends a message's deltas: the next assistant line (docs/tool-args.md, "Text and thinking
# deltas"). The deltas carry no message id, only the block's index, so order is the only link;
# the goldens stream each message's deltas just before its assistant line, nested actors included.

_DELTA_KINDS = {"text_delta": "text", "thinking_delta": "thinking"}  # the known delta types (an open set)


class _Pending:
    """The deltas of one block index since the last assistant line."""

    __slots__ = ("count", "first_line", "kinds", "pieces", "size")

    def __init__(self, first_line: int) -> None:
        self.first_line = first_line
        self.kinds: set[str] = set()
        self.pieces: list[str] = []
        self.count = 0
        self.size = 0


@REGISTRY.family(
    Rule("sj.delta-reassembly", Level.MUST, "stream-json",
         "the text_delta (thinking_delta) pieces of a block index concatenate to the text (thinking) of the "
         "block at that index in the next assistant line; none left without one in a run whose result does "
         "not say it failed",
         f'{_SJ}, oneOf[1].description: "partial deltas (partial_messages_v1): content_block_delta or '
         'tool_args_delta" and oneOf[2].description: "completed assistant message blocks (text | thinking | '
         'tool_use)"; $defs.delta.type: "text_delta | thinking_delta (open set)" (derived: a partial delta is a '
         "part of a block that the assistant line then carries completed, so a block's parts, in order, are "
         "its text, as the seed says of tool-argument fragments: 'consumers concatenate'). Which block: "
         "stream_payload.index, the block's index in the completed message's content (the seed gives no "
         "other link; the goldens hold it). When: the next assistant line completes the deltas before it "
         "(derived from 'completed': a message is streamed, then completed; whatever its actor, since the "
         "deltas name no message). Unknown delta and payload types are ignored (open sets); a failed run "
         "(is_error true) may stop mid-message, and a run with no result is sj.result-last's", basis=_D,
         breaker="delta_reassembly"),
)
class DeltaReassembly(Check):
    """sj.delta-reassembly: the text and thinking deltas against the blocks that complete them."""

    kinds = ("system", "stream_event", "assistant", "result")
    MAX_PENDING = 64 * 1024 * 1024  # characters of deltas kept while awaiting their assistant line

    def __init__(self) -> None:
        self.pending: dict[int, _Pending] = {}
        self.size = 0
        self.stopped = False  # MAX_PENDING reached: not judged from there on (a checker.limit said so)
        self.ended = False  # a result line was read
        self.failed = False  # ... and it says the run failed (is_error true)
        # Whether the run's init advertised partial_messages_v1 (True until an init says otherwise):
        # deltas a run did not declare are sj.capabilities' finding, and this rule not applicable.
        self.partial = True

    def line(self, obj: dict[str, Any], line: int, out: Sink) -> None:
        kind = obj.get("type")
        if kind == "system":
            if obj.get("subtype") == "init":
                caps = obj.get("capabilities")
                self.partial = type(caps) is list and "partial_messages_v1" in caps
        elif kind == "stream_event":
            if self.partial:
                self._delta(obj.get("event"), line, out)
        elif kind == "assistant":
            self._complete(obj.get("message"), line, out)
        elif not self.ended:  # the first result says how the run ended (a second is sj.result-once's)
            self.ended, self.failed = True, obj.get("is_error") is True

    def _delta(self, event: Any, line: int, out: Sink) -> None:
        if self.stopped or type(event) is not dict or event.get("type") != "content_block_delta":
            return
        delta, index = event.get("delta"), integral(event.get("index"))  # 1.0 is the integer 1
        if type(delta) is not dict or index is None or index is TOO_LONG:
            return
        dtype = delta.get("type")
        if type(dtype) is not str or dtype not in _DELTA_KINDS:  # an unknown delta type: the open set, ignored
            return
        piece = delta.get(_DELTA_KINDS[dtype])
        piece = piece if type(piece) is str else ""  # absent, it adds nothing to a concatenation
        if self.size + len(piece) > self.MAX_PENDING:
            self.stopped = True
            self.pending.clear()
            out.emit("checker.limit", line, "/event/delta",
                     f"sj.delta-reassembly stopped: pending text and thinking deltas reached {self.MAX_PENDING} "
                     f"characters; no reassembly is judged from line {line} on")
            return
        pending = self.pending.get(index)
        if pending is None:
            pending = self.pending[index] = _Pending(line)
        pending.kinds.add(dtype)
        pending.pieces.append(piece)
        pending.count += 1
        pending.size += len(piece)
        self.size += len(piece)

    def _complete(self, message: Any, line: int, out: Sink) -> None:
        if not self.pending:
            return
        pending, self.pending, self.size = self.pending, {}, 0
        content = message.get("content") if type(message) is dict else None
        blocks = content if type(content) is list else []
        out.exercised(self.rule)
        for index in sorted(pending):
            self._block(index, pending[index], blocks, line, out)

    def _block(self, index: int, pending: _Pending, blocks: list[Any], line: int, out: Sink) -> None:
        joined = "".join(pending.pieces)
        streamed = (f"the {pending.count} {' and '.join(sorted(pending.kinds))} piece(s) of index {index} from line "
                    f"{pending.first_line} (concatenated: {shown(clip(joined))})")
        if len(pending.kinds) > 1:
            out.emit(self.rule, line, f"/message/content/{index}",
                     f"expected the deltas of one block to be of one kind, found {streamed}",
                     "a block is text or thinking: its deltas are text_delta or thinking_delta pieces, not both")
            return
        want = _DELTA_KINDS[next(iter(pending.kinds))]
        block = blocks[index] if 0 <= index < len(blocks) else None
        if type(block) is not dict or block.get("type") != want:
            found = ("no such block" if block is None else
                     f"a {quoted(clip(str(block.get('type'))))} block" if type(block) is dict else "no block")
            out.emit(self.rule, line, f"/message/content/{index}" if block is not None else "/message/content",
                     f"expected a {want} block at index {index} completing {streamed}, found {found}",
                     "the index of a content_block_delta is its block's place in the completed message")
            return
        text = block.get(want)
        if type(text) is str and text != joined:
            out.emit(self.rule, line, f"/message/content/{index}/{want}",
                     f"expected the {want} its deltas concatenate to, {shown(clip(joined))}, found "
                     f"{shown(clip(text))} ({streamed})",
                     "consumers concatenate the deltas: the completed block must be what they assembled")

    def finish(self, out: Sink) -> None:
        if not self.pending or self.stopped:
            return
        if not self.ended:  # no result: the run was cut short (sj.result-last), and that is its finding
            return
        first = min(p.first_line for p in self.pending.values())
        if self.failed:
            out.note(f"sj.delta-reassembly: text or thinking deltas from line {first} never met an assistant line; "
                     "the result says the run failed (is_error true), which explains an unfinished message, so "
                     "they are not judged")
            return
        out.exercised(self.rule)
        out.emit(self.rule, first, "/event/delta",
                 f"expected an assistant line to complete the text and thinking deltas from line {first}, found "
                 "the run ending without one, and a result that does not say it failed",
                 "a streamed message completes in an assistant line, unless the run failed (is_error true)")
