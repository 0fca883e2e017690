"""The stream-json rule machine, ``StreamRules``: every cross-line rule of the wire.

Each rule the machine emits is declared by the family that judges it (``Registry.family``), in
that family's module, beside its logic and the schema words it enforces:

* ``ends``: init and result, where they stand and what they say (``RunEnds``);
* ``seq_stamps``: seq, session_id and ts, what places a line in its run (``SeqStamps``);
* ``actors``: the per-line-type handlers, actor and message forms, capabilities (``Actors``);
* ``tool_calls``: tool_use ids, the blocks referring to them, argument fragments (``ToolCalls``);

and ``block_feed`` is the block path over them, ``feed_batch`` and ``feed_facts`` (``BlockFeed``),

over one state, the run's (``state.RunState``). This module holds the machine itself: its
declared rules, its dispatch by line type and ``feed``, the per-line path. The machine sees
every parsed line, valid or not, and judges only the fields whose type it can trust: a missing
or mistyped field is the schema's finding (``sj.schema``), not reported twice.
"""

from __future__ import annotations

from typing import Any, ClassVar

from contract.core.reader import Record
from contract.core.sink import Sink
from contract.wires.stream_json import rules as _rules  # noqa: F401  # every family declared, Checks too
from contract.wires.stream_json.actors import AGENT_LABELS, Actors
from contract.wires.stream_json.block_feed import BlockFeed
from contract.wires.stream_json.ends import RESULT_IS_ERROR, USAGE_KEYS, RunEnds
from contract.wires.stream_json.registry import REGISTRY
from contract.wires.stream_json.seq_stamps import SESSION_SUFFIX, TOO_LONG, SeqStamps
from contract.wires.stream_json.state import Handler
from contract.wires.stream_json.tool_calls import ToolCalls

# The public names of this module before it was split (issue 29), still read from here: the
# machine, and the known values its rules read (the strategies and breakers draw from them).
__all__ = ["AGENT_LABELS", "RESULT_IS_ERROR", "SESSION_SUFFIX", "TOO_LONG", "USAGE_KEYS", "Handler", "StreamRules"]


class StreamRules(BlockFeed, Actors, SeqStamps):
    """Every stream-json rule, as one incremental state machine over the run.

    One dispatcher on purpose: checking must cost no more than parsing (BENCHMARKS.md), so the
    common path per line is a handful of dict lookups, and each rule lives in its own small
    method that runs only when its line type, or a mismatch, calls for it.

    Any member may hold any JSON value (the machine also sees lines that failed the schema):
    values from the input are used as dict keys or set members only once known to be strings,
    and integer fields are judged by their exact value whatever number type the parser gives
    (``integral``).
    """

    # Derived from the wire's registry: the rules of the families it is put together from, those of
    # the Check families (run from the dispatch below), and the checker's bound rule.
    rules: ClassVar[frozenset[str]] = frozenset({
        *(rule for family in (RunEnds, SeqStamps, Actors, ToolCalls) for rule in family.rules),
        *(rule for check in REGISTRY.checks() for rule in check.rules), "checker.limit",
    })

    def __init__(self) -> None:
        super().__init__()
        self.by_kind = {
            "assistant": self._assistant,
            "user": self._user,
            "stream_event": self._stream_event,
            "system": self._system,
            "result": self._result,
        }
        # The Check families (REGISTRY.checks()) join the dispatch: with none (every shipped rule is
        # a family's above) it is the table above, unchanged.
        self.checks = [check() for check in REGISTRY.checks()]
        for check in self.checks:
            for kind in check.kinds:
                self.by_kind[kind] = _chained(self.by_kind.get(kind), check.line)

    def feed(self, record: Record, out: Sink) -> None:
        obj = record.obj
        line = record.line
        self.last_line = line
        self.last_unreadable = obj is None
        if obj is None:
            self._opaque(record, out)
            for check in self.checks:
                check.opaque(line, out)
            return
        if self.result_line is not None:
            self._after_result(obj, line, out)
        kind = obj.get("type")
        if self.first:
            self._first(obj, line, out)
        seq = obj.get("seq")
        if seq != self.next_seq or type(seq) is not int:
            self._seq(seq, line, out)
        else:
            out.exercised("sj.seq")
            out.exercised("sj.seq-contiguous")
            self.next_seq = seq + 1
            self.last_seq = seq
        if obj.get("session_id") != self.session or not self.session_ok:
            self._session(obj.get("session_id"), line, out)
        elif self.session is not None:
            out.exercised("sj.session-constant")
        ts = obj.get("ts")
        if type(ts) is str:
            self._ts(ts, line, out)
        if "parent_tool_use_id" in obj:
            self._parent(obj["parent_tool_use_id"], line, out)
        handler = self.by_kind.get(kind) if type(kind) is str else None
        if handler is not None:
            handler(obj, line, out)

    def finish(self, out: Sink) -> None:
        self._ended(out)
        self._unfinished_calls(out)
        for check in self.checks:
            check.finish(out)


def _chained(first: Handler | None, then: Handler) -> Handler:
    """A line type's handler followed by a declared check's (built once per stream, not per line)."""
    if first is None:
        return then
    return _Both(first, then)


class _Both:
    """Two handlers in turn. An object, not a closure: ``copy.deepcopy`` of the machine (the other
    readings of a line with a repeated member, contract.checking.readings) copies the bound
    methods it holds with it, where a closure would go on calling the original machine's (an
    outside trial found the copy feeding the real machine: findings lost)."""

    __slots__ = ("first", "then")

    def __init__(self, first: Handler, then: Handler) -> None:
        self.first, self.then = first, then

    def __call__(self, obj: dict[str, Any], line: int, out: Sink) -> None:
        self.first(obj, line, out)
        self.then(obj, line, out)
