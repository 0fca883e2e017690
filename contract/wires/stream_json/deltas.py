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

    __slots__ = ("blind", "count", "first_line", "kinds", "pieces", "size")

    def __init__(self, first_line: int) -> None:
        self.first_line = first_line
        self.kinds: set[str] = set()
        self.pieces: list[str] = []
        self.count = 0
        self.size = 0
        self.blind = False  # an opaque line came after its first delta: not judged (it may hold a piece)


class _Actor:
    """One actor's (one ``parent_tool_use_id``'s) deltas and the message its assistant lines are on."""

    __slots__ = ("carried", "frame_line", "fresh", "message", "next")

    def __init__(self) -> None:
        self.fresh: dict[int, _Pending] = {}  # since the actor's last assistant line: the next line's
        self.carried: dict[int, _Pending] = {}  # of ``message``, at indexes past its frames so far
        self.message: str | None = None  # the id of the actor's current message (None: no id)
        self.next: int | None = 0  # the index its next frame starts at (None: unknown, an opaque line since)
        self.frame_line = 0  # the line of its last frame


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

    def __init__(self) -> None:
        self.actors: dict[Any, _Actor] = {}
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
                self._delta(obj.get("event"), _actor(obj), line, out)
        elif kind == "assistant":
            self._frame(obj, line, out)
        elif not self.ended:  # the first result says how the run ended (a second is sj.result-once's)
            self.ended, self.failed = True, obj.get("is_error") is True

    def opaque(self, line: int, out: Sink) -> None:
        """An opaque line may be a delta or a frame of any actor: what it may touch is not judged."""
        for actor in self.actors.values():
            for pending in (*actor.fresh.values(), *actor.carried.values()):
                pending.blind = True
            actor.next = None

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
            self.stopped = True
            self.actors.clear()
            out.emit("checker.limit", line, "/event/delta",
                     f"sj.delta-reassembly stopped: pending text and thinking deltas reached {self.MAX_PENDING} "
                     f"characters; no reassembly is judged from line {line} on")
            return
        actor = self.actors.get(key)
        if actor is None:
            actor = self.actors[key] = _Actor()
        pending = actor.fresh.get(index)
        if pending is None:
            pending = actor.fresh[index] = _Pending(line)
        pending.kinds.add(dtype)
        pending.pieces.append(piece)
        pending.count += 1
        pending.size += len(piece)
        self.size += len(piece)

    def _frame(self, obj: dict[str, Any], line: int, out: Sink) -> None:
        """An assistant line: a frame of its actor's message, completing the deltas it holds."""
        key = _actor(obj)
        actor = self.actors.get(key)
        if actor is None:
            actor = self.actors[key] = _Actor()
        message = obj.get("message")
        mid = message.get("id") if type(message) is dict else None
        mid = mid if type(mid) is str else None
        content = message.get("content") if type(message) is dict else None
        blocks = content if type(content) is list else []
        if mid is None or mid != actor.message:  # another message: the one before has ended
            self._ended_message(actor, f"at line {line} (an assistant line of another message)", out)
            start: int | None = 0
        else:
            start = actor.next
        pending = actor.carried
        for index, more in actor.fresh.items():
            was = pending.get(index)
            if was is None:
                pending[index] = more
            else:  # the pieces carried came first: one block's deltas, in order
                was.kinds |= more.kinds
                was.pieces += more.pieces
                was.count += more.count
                was.size += more.size
                was.blind = was.blind or more.blind
        actor.fresh, actor.carried = {}, {}
        actor.message, actor.frame_line = mid, line
        actor.next = None if start is None else start + len(blocks)
        if not pending:
            return
        judged = False
        for index in sorted(pending):
            block = pending[index]
            if start is None or block.blind:  # an opaque line may hold a piece or a frame: not judged
                self.size -= block.size
                continue
            if mid is not None and start + len(blocks) <= index:  # a later frame of the message may hold it
                actor.carried[index] = block
                continue
            self.size -= block.size
            judged = True
            self._block(index, start, block, blocks, mid, line, out)
        if judged:
            out.exercised(self.rule)

    def _ended_message(self, actor: _Actor, how: str, out: Sink) -> None:
        """The actor's message ended with deltas at indexes none of its frames reached."""
        carried, actor.carried = actor.carried, {}
        waiting = [(index, block) for index, block in sorted(carried.items()) if not block.blind]
        for _, block in carried.items():
            self.size -= block.size
        if not waiting:
            return
        out.exercised(self.rule)
        for index, block in waiting:
            out.emit(self.rule, actor.frame_line, "/message/content",
                     f"expected a block at index {index} of message {shown(clip(str(actor.message)))} completing "
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
        fresh = [block for actor in self.actors.values() for block in actor.fresh.values() if not block.blind]
        carried = [actor for actor in self.actors.values()
                   if any(not block.blind for block in actor.carried.values())]
        if not fresh and not carried:
            return
        if self.failed:
            first = min([block.first_line for block in fresh] + [actor.frame_line for actor in carried])
            out.note(f"sj.delta-reassembly: text or thinking deltas from line {first} never met the block that "
                     "completes them; the result says the run failed (is_error true), which explains an "
                     "unfinished message, so they are not judged")
            return
        for actor in sorted(carried, key=lambda actor: actor.frame_line):
            self._ended_message(actor, "at the end of the run", out)
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
