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
# message that completes it, as sj.tool-args-reassembly holds for tool arguments. The deltas carry
# no message id, only the block's index, so order and actor are the link (docs/tool-args.md, "Text
# and thinking deltas"): a delta belongs to the next assistant line of its actor (the same
# parent_tool_use_id, or none); the assistant lines of one message.id are one message, its
# frames, and a delta's index is the block's place in the whole message, numbered across frames.
# A message ends at an assistant line of the same actor with another id (or with no id), or at
# the end of the run.

_DELTA_KINDS = {"text_delta": "text", "thinking_delta": "thinking"}  # the known delta types (an open set)
_ODD = ("a parent_tool_use_id that is no string",)  # one actor for every mistyped parent (sj.schema's)


class _Pending:
    """The deltas of one block index of one actor, awaiting the frame that completes them."""

    __slots__ = ("count", "first_line", "kinds", "pieces", "size")

    def __init__(self, first_line: int) -> None:
        self.first_line = first_line
        self.kinds: set[str] = set()
        self.pieces: list[str] = []
        self.count = 0
        self.size = 0


# An actor's message: (its id, or None: no id; the index its next frame starts at, or None: not
# known, an opaque line since; the line of its last frame). A tuple: the state is copied per block.
_Message = tuple[str | None, int | None, int]


def _actor(obj: dict[str, Any]) -> Any:
    parent = obj.get("parent_tool_use_id")
    return parent if parent is None or type(parent) is str else _ODD


@REGISTRY.family(
    Rule("sj.delta-reassembly", Level.MUST, "stream-json",
         "the text_delta (thinking_delta) pieces of a block index concatenate to the text (thinking) of the "
         "block at that index in the message the actor's next assistant line completes (frames of one "
         "message.id numbered across); none left without one in a run whose result does not say it failed",
         f'{_SJ}, oneOf[1].description: "partial deltas (partial_messages_v1): content_block_delta or '
         'tool_args_delta" and oneOf[2].description: "completed assistant message blocks (text | thinking | '
         'tool_use)"; $defs.delta.type: "text_delta | thinking_delta (open set)"; parent_tool_use_id: '
         '"present exactly when the actor is nested" (derived: a partial delta is a '
         "part of a block that the assistant line then carries completed, so a block's parts, in order, are "
         "its text, as the seed says of tool-argument fragments: 'consumers concatenate'). Which block: "
         "stream_payload.index, the block's place in the completed message's content (the seed gives no "
         "other link; the goldens hold it), counted across the assistant lines of one message.id, which "
         "are one message's completed blocks. Which message: the next assistant line of the delta's actor "
         "(the same parent_tool_use_id, or none: the deltas name no message, the actor is on every line). "
         "Unknown delta and payload types are ignored (open sets); no block is judged past an opaque line "
         "after its first delta (the line may hold a piece); a failed run (is_error true) may stop "
         "mid-message, and a run with no result is sj.result-last's", basis=_D,
         breaker="delta_reassembly"),
)
class DeltaReassembly(Check):
    """sj.delta-reassembly: the text and thinking deltas against the blocks that complete them."""

    kinds = ("system", "stream_event", "assistant", "result")
    MAX_PENDING = 64 * 1024 * 1024  # characters of deltas kept while awaiting their assistant line
    MAX_ACTORS = 4096  # actors whose current message is remembered (each nested actor is one)

    def __init__(self) -> None:
        self.messages: dict[Any, _Message] = {}  # each actor's current message
        self.fresh: dict[Any, dict[int, _Pending]] = {}  # deltas since the actor's last assistant line
        self.carried: dict[Any, dict[int, _Pending]] = {}  # of its current message, past its frames so far
        self.size = 0
        self.last_opaque = 0  # the last opaque line: a block whose first delta came before it is not judged
        self.stopped = False  # a bound reached: not judged from there on (a checker.limit said so)
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
                self._delta(obj.get("event"), _actor(obj), line, out)
        elif kind == "assistant":
            if self.partial and not self.stopped:
                self._frame(obj, line, out)
        elif not self.ended:  # the first result says how the run ended (a second is sj.result-once's)
            self.ended, self.failed = True, obj.get("is_error") is True

    def opaque(self, line: int, out: Sink) -> None:
        """An opaque line may be a delta or a frame of any actor: what it may touch is not judged (the
        blocks awaiting it, the place of the next frame of each message: ``_blind``, ``_frame``)."""
        self.last_opaque = line

    def _blind(self, pending: _Pending) -> bool:
        """Whether an opaque line came after the block's first delta (it may hold a piece of it)."""
        return pending.first_line < self.last_opaque

    def _stop(self, line: int, pointer: str, why: str, out: Sink) -> None:
        self.stopped = True
        self.messages, self.fresh, self.carried = {}, {}, {}
        out.emit("checker.limit", line, pointer,
                 f"sj.delta-reassembly stopped: {why}; no reassembly is judged from line {line} on")

    def _delta(self, event: Any, key: Any, line: int, out: Sink) -> None:
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
            self._stop(line, "/event/delta", f"pending text and thinking deltas reached {self.MAX_PENDING} characters",
                       out)
            return
        group = self.fresh.get(key)
        if group is None:
            group = self.fresh[key] = {}
        pending = group.get(index)
        if pending is None:
            pending = group[index] = _Pending(line)
        pending.kinds.add(dtype)
        pending.pieces.append(piece)
        pending.count += 1
        pending.size += len(piece)
        self.size += len(piece)

    def _frame(self, obj: dict[str, Any], line: int, out: Sink) -> None:
        """An assistant line: a frame of its actor's message, completing the deltas it holds."""
        key = _actor(obj)
        message = obj.get("message")
        if type(message) is dict:
            mid, content = message.get("id"), message.get("content")
            mid = mid if type(mid) is str else None
        else:
            mid = content = None
        blocks: list[Any] = content if type(content) is list else []
        was = self.messages.get(key)
        if not self.fresh and not self.carried:  # the common path: nothing awaits a block, the place is kept
            if was is not None and mid is not None and mid == was[0]:
                at = was[1]  # None: not known; an opaque line since its last frame: not known either
                self.messages[key] = (mid, at + len(blocks) if at is not None and self.last_opaque < was[2] else None,
                                      line)
            elif was is not None or len(self.messages) < self.MAX_ACTORS:
                self.messages[key] = (mid, len(blocks), line)
            else:
                self._stop(line, "/parent_tool_use_id", f"the messages of {self.MAX_ACTORS} actors are remembered",
                           out)
            return
        if was is None or mid is None or mid != was[0]:  # another message: the one before has ended
            if was is not None and key in self.carried:
                self._ended_message(key, was, f"at line {line} (an assistant line of another message)", out)
            start: int | None = 0
        else:
            start = was[1] if self.last_opaque < was[2] else None  # an opaque line since: may be a frame
        if was is None and len(self.messages) >= self.MAX_ACTORS:
            self._stop(line, "/parent_tool_use_id", f"the messages of {self.MAX_ACTORS} actors are remembered", out)
            return
        self.messages[key] = (mid, None if start is None else start + len(blocks), line)
        pending = self._awaiting(key)
        if not pending:
            return
        judged = False
        carried: dict[int, _Pending] = {}
        for index in sorted(pending):
            block = pending[index]
            if start is None or self._blind(block):  # an opaque line may hold a piece or a frame: not judged
                self.size -= block.size
                continue
            if mid is not None and start + len(blocks) <= index:  # a later frame of the message may hold it
                carried[index] = block
                continue
            self.size -= block.size
            judged = True
            self._block(index, start, block, blocks, mid, line, out)
        if carried:
            self.carried[key] = carried
        if judged:
            out.exercised(self.rule)

    def _awaiting(self, key: Any) -> dict[int, _Pending]:
        """The actor's deltas awaiting its line: those carried for its message, then the fresh ones."""
        pending = self.carried.pop(key, {})
        for index, more in self.fresh.pop(key, {}).items():
            before = pending.get(index)
            if before is None:
                pending[index] = more
            else:  # the pieces carried came first: one block's deltas, in order
                before.kinds |= more.kinds
                before.pieces += more.pieces
                before.count += more.count
                before.size += more.size
        return pending

    def _ended_message(self, key: Any, message: _Message, how: str, out: Sink) -> None:
        """The actor's message ended with deltas at indexes none of its frames reached."""
        carried = self.carried.pop(key, {})
        waiting = [(index, block) for index, block in sorted(carried.items()) if not self._blind(block)]
        for block in carried.values():
            self.size -= block.size
        if not waiting:
            return
        mid, _, frame_line = message
        out.exercised(self.rule)
        for index, block in waiting:
            out.emit(self.rule, frame_line, "/message/content",
                     f"expected a block at index {index} of message {shown(clip(str(mid)))} completing "
                     f"{_streamed(index, block)}, found the message ending {how} without one",
                     "the index of a content_block_delta is its block's place in the whole message, "
                     "frames numbered across")

    def _block(self, index: int, start: int, pending: _Pending, blocks: list[Any], mid: str | None, line: int,
               out: Sink) -> None:
        joined = "".join(pending.pieces)
        streamed = _streamed(index, pending, joined)
        at = index - start  # the block's place in this frame
        if len(pending.kinds) > 1:
            out.emit(self.rule, line, f"/message/content/{at}" if 0 <= at < len(blocks) else "/message/content",
                     f"expected the deltas of one block to be of one kind, found {streamed}",
                     "a block is text or thinking: its deltas are text_delta or thinking_delta pieces, not both")
            return
        want = _DELTA_KINDS[next(iter(pending.kinds))]
        if 0 <= index < start:
            out.emit(self.rule, line, "/message/id",
                     f"expected no delta for index {index} of message {shown(clip(str(mid)))} after an earlier "
                     f"frame completed it, found {streamed}",
                     "a message's frames number its blocks across: index 0 is the first frame's first block")
            return
        block = blocks[at] if 0 <= at < len(blocks) else None  # a negative index names no block
        if type(block) is not dict or block.get("type") != want:
            found = ("no such block" if block is None else
                     f"a {quoted(clip(str(block.get('type'))))} block" if type(block) is dict else "no block")
            out.emit(self.rule, line, f"/message/content/{at}" if block is not None else "/message/content",
                     f"expected a {want} block at index {index} completing {streamed}, found {found}",
                     "the index of a content_block_delta is its block's place in the completed message")
            return
        text = block.get(want)
        if type(text) is str and text != joined:
            out.emit(self.rule, line, f"/message/content/{at}/{want}",
                     f"expected the {want} its deltas concatenate to, {shown(clip(joined))}, found "
                     f"{shown(clip(text))} ({streamed})",
                     "consumers concatenate the deltas: the completed block must be what they assembled")

    def finish(self, out: Sink) -> None:
        if self.stopped or not self.ended:  # no result: the run was cut short (sj.result-last), its finding
            return
        fresh = [block for group in self.fresh.values() for block in group.values() if not self._blind(block)]
        carried = [key for key, group in self.carried.items()
                   if any(not self._blind(block) for block in group.values())]
        if not fresh and not carried:
            return
        if self.failed:
            first = min([block.first_line for block in fresh] + [self.messages[key][2] for key in carried])
            out.note(f"sj.delta-reassembly: text or thinking deltas from line {first} never met the block that "
                     "completes them; the result says the run failed (is_error true), which explains an "
                     "unfinished message, so they are not judged")
            return
        for key in sorted(carried, key=lambda key: self.messages[key][2]):
            self._ended_message(key, self.messages[key], "at the end of the run", out)
        if fresh:
            first = min(block.first_line for block in fresh)
            out.exercised(self.rule)
            out.emit(self.rule, first, "/event/delta",
                     f"expected an assistant line to complete the text and thinking deltas from line {first}, "
                     "found the run ending without one, and a result that does not say it failed",
                     "a streamed message completes in an assistant line of its actor, unless the run failed "
                     "(is_error true)")


def _streamed(index: int, pending: _Pending, joined: str | None = None) -> str:
    """The deltas of a block, said in a finding."""
    joined = "".join(pending.pieces) if joined is None else joined
    return (f"the {pending.count} {' and '.join(sorted(pending.kinds))} piece(s) of index {index} from line "
            f"{pending.first_line} (concatenated: {shown(clip(joined))})")
