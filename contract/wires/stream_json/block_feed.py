"""The block path of the stream-json machine: ``feed_batch`` and ``feed_facts``.

A block of clean lines is judged at once (docs/architecture.md, "Pipeline"): by its facts
(``facts.block_facts``) when no line has anything to report alone, else by whole-block checks
of the run-wide rules (``_batch_in_step``) and the type handlers, else line by line (``feed``).
Every way, the findings and their order are those of ``feed`` on each line. ``BlockFeed`` is
part of ``StreamRules`` (``machines.py``); the tool-call steps a block leaves are taken by
``ToolCalls``' methods. This is the hot path: its loops bind what they call once and call the
families' methods directly, with no layer between.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import partial
from itertools import repeat
from typing import TYPE_CHECKING, Any, cast

from contract.core.reader import Record
from contract.core.sink import Sink
from contract.wires.stream_json import facts as batch
from contract.wires.stream_json.stamps import follows, in_order
from contract.wires.stream_json.tool_calls import ToolCalls


class BlockFeed(ToolCalls):
    """``StreamRules``' block path: a block of lines judged as ``feed`` judges each of them."""

    # The rules _batch_in_step judges for a whole batch, as feed would on its lines
    # (sj.init-first was judged on line 1; sj.result-last is judged by finish in any case).
    IN_STEP = ("sj.seq", "sj.seq-contiguous", "sj.session-constant", "sj.ts-format", "sj.ts-order")

    # What each line of a block decides alone (no state: the parallel checker's worker runs it),
    # stamps of several fraction lengths included
    block_facts = staticmethod(partial(batch.block_facts, mixed=True))

    if TYPE_CHECKING:  # StreamRules.feed (machines.py), which a block falls back to line by line
        def feed(self, record: Record, out: Sink) -> None: ...

    def feed_batch(self, first: int, objs: list[dict[str, Any]], out: Sink) -> None:
        """Feed consecutive object lines ``first``, ``first + 1``, ...: the same as ``feed`` on each.

        First the block's facts (``facts.block_facts``) are tried: when no line has anything to
        report on its own and the block continues the run, ``feed_facts`` takes only the steps
        that depend on the run. A block holding the run's first line (init) or ending with its
        result has that line fed alone and the rest by facts (``_by_facts_within``). Otherwise,
        when the whole batch passes the run-wide checks at once (``_batch_in_step``), only the
        checks that depend on each line's type run line by line; else every line takes ``feed``.
        Every way, the findings and their order are those of ``feed``.
        """
        if self._by_facts(first, objs, out) or self._by_facts_within(first, objs, out):
            return
        self._by_lines(first, objs, out)

    def _by_facts(self, first: int, objs: list[dict[str, Any]], out: Sink) -> bool:
        """The block fed by its facts, or False with nothing done. A block completing a call whose
        fragments began in an earlier block is fed by facts that leave the call's judgement to
        the machine (``block_facts``' ``settle``), which holds those fragments."""
        facts = self.block_facts(objs)
        if facts is None:
            return False
        if self.feed_facts(first, facts, out, objs.__getitem__):
            return True
        calls, fragments = facts[8], self.fragments
        if not any(calls[at] in fragments for at in range(0, len(calls), 2)):
            return False
        facts = batch.block_facts(objs, mixed=True, settle=False)
        return facts is not None and self.feed_facts(first, facts, out, objs.__getitem__)

    def _by_facts_within(self, first: int, objs: list[dict[str, Any]], out: Sink) -> bool:
        """A block holding the run's first line, or ending with a result: that line fed alone
        (``feed``: it changes the run's state, init, or ends it, result), the lines between by
        their facts; False, with nothing done, when those lines have none."""
        head = 1 if self.first else 0
        tail = 1 if objs[-1].get("type") == "result" else 0
        if not head + tail or len(objs) <= head + tail:
            return False
        middle = objs[head : len(objs) - tail]
        facts = self.block_facts(middle)
        if facts is None:
            return False
        if head:
            self.feed(Record(first, b"", objs[0]), out)
        if not self.feed_facts(first + head, facts, out, middle.__getitem__):
            self._by_lines(first + head, middle, out)
        if tail:
            self.feed(Record(first + len(objs) - 1, b"", objs[-1]), out)
        return True

    def _by_lines(self, first: int, objs: list[dict[str, Any]], out: Sink) -> None:
        """The block fed by ``_batch_in_step`` and the type handlers, or by ``feed`` line by line."""
        if not self._batch_in_step(objs):
            for line, obj in enumerate(objs, first):
                self.feed(Record(line, b"", obj), out)
            return
        for rule in self.IN_STEP:  # judged for the whole batch at once, each with no finding
            out.exercised(rule)
        by_kind = self.by_kind
        parent = self._parent
        for line, obj in enumerate(objs, first):
            if "parent_tool_use_id" in obj:
                parent(obj["parent_tool_use_id"], line, out)
            kind = obj.get("type")
            handler = by_kind.get(kind) if type(kind) is str else None
            if handler is not None:
                handler(obj, line, out)
        self.last_line = first + len(objs) - 1
        self.last_unreadable = False

    def feed_facts(self, first: int, facts: batch.Facts, out: Sink, load: Callable[[int], dict[str, Any]]) -> bool:
        """Feed the block of lines ``first``, ``first + 1``, ... by its facts (``facts.block_facts``):
        the same as ``feed`` on each line, or False, with nothing done, when the block does not
        continue the run as the facts need (then ``feed_batch`` judges it).

        The facts vouch that no line has anything to report on its own; what is left depends on
        the run, judged here: the block continues the run's seq, session and stamps, after init
        and before any result; the capabilities its lines need were advertised; no bound is
        reached in it; the calls it completes start in it; then its tool_use ids join the run's
        and its steps left (``facts.PARENT``, ``USE``, ``RESULT``, ``FRAG``) are taken in line
        order by the methods ``feed`` calls for them. ``load(offset)``: the object of the block's
        line at ``offset``, for the rare step that needs the whole line (a tool_use completing
        fragments streamed in an earlier block).
        """
        (count, first_seq, session, first_ts, last_ts, flags, uses, ops, calls,
         use_bytes, use_entries, frag_bytes, frag_entries) = facts
        if not self._continues(first_seq, session, first_ts, flags):
            return False
        if (self.tool_uses_full or self.tool_use_bytes + use_bytes + self.ENTRY_OVERHEAD * use_entries
                > self.MAX_TOOL_USE_BYTES
                or self.pending_bytes + frag_bytes + self.ENTRY_OVERHEAD * frag_entries > self.MAX_PENDING_BYTES):
            return False  # a bound may be reached in the block: line by line, where it is reported
        fragments, tool_uses = self.fragments, self.tool_uses
        for at in range(0, len(calls), 2):
            ref = calls[at]
            if ref in fragments or ref in tool_uses or calls[at + 1] > self.MAX_CALL_BYTES:
                return False  # the call began earlier, or is a repeat: judged line by line
        if self.checks and not self._checks_quiet(first, count, load, out):
            return False  # a declared check found something: line by line, in feed's order
        refs = uses[2::3]
        merge = bool(fragments) and not fragments.keys().isdisjoint(refs)  # one completes an earlier call
        self.next_seq = first_seq + count
        self.last_seq = first_seq + count - 1
        self.last_ts = last_ts
        self._exercise(flags, out)
        if merge:
            steps = [*ops, *(value for at in range(0, len(uses), 3)
                             for value in (uses[at], batch.USE, uses[at + 2], uses[at + 1]))]
            self._steps(first, _in_line_order(steps), out, load)
        else:
            fresh = [ref for ref in dict.fromkeys(refs) if ref not in tool_uses]
            tool_uses.update(fresh)  # what _remember does for each, no bound being reached
            self.tool_use_bytes += sum(map(len, fresh)) + self.ENTRY_OVERHEAD * len(fresh)
            if ops:
                self._steps(first, ops, out, load)
        self.last_line = first + count - 1
        self.last_unreadable = False
        return True

    def _checks_quiet(self, first: int, count: int, load: Callable[[int], dict[str, Any]], out: Sink) -> bool:
        """The ``Check`` families (``REGISTRY.checks()``) on the block's lines of their kinds, as
        ``feed`` runs them: True when none emitted or noted anything (what they judged is marked
        exercised), False with every check's state put back as it was, so that the line-by-line
        path judges the block again and reports in ``feed``'s order. So registering a check never
        turns the fast path off for a run: only a block in which one finds something goes line by
        line (issue 29). The cost, a copy of the checks' state per block, is paid only when a
        check is declared."""
        saved = [copy.deepcopy(vars(check)) for check in self.checks]
        probe = _Probe()
        for offset in range(count):
            obj = load(offset)
            kind = obj.get("type")
            for check in self.checks:
                if kind in check.kinds:
                    check.line(obj, first + offset, probe)
            if probe.spoke:
                for check, state in zip(self.checks, saved, strict=True):
                    vars(check).clear()
                    vars(check).update(state)
                return False
        for rule in probe.judged:
            out.exercised(rule)
        return True

    def _continues(self, first_seq: int, session: str, first_ts: str, flags: int) -> bool:
        """Whether a block in step with itself continues the run with nothing to report: after
        init and before any result, seq, session and stamps follow on, and the capabilities its
        lines need were advertised (or no init said any)."""
        before = self.last_ts
        if (self.first or self.result_line is not None or first_seq != self.next_seq
                or session != self.session or not self.session_ok or before is None or not follows(before, first_ts)):
            return False
        advertised = self.advertised
        return advertised is None or all(capability in advertised for bit, capability in batch.NEEDS if flags & bit)

    def _exercise(self, flags: int, out: Sink) -> None:
        """The rules a block fed by its facts judged, each with no finding."""
        exercised = out.exercised
        for rule in self.IN_STEP:
            exercised(rule)
        for bit, rule in (*batch.FLAG_RULES, *batch.KNOWN):
            if flags & bit:
                exercised(rule)
        if self.advertised is not None and any(flags & bit for bit, _ in batch.NEEDS):
            exercised("sj.capabilities")
        if flags & batch.CALLS and not self.reassembly_stopped:
            for rule in batch.CALL_RULES:
                exercised(rule)

    def _steps(self, first: int, ops: list[Any], out: Sink, load: Callable[[int], dict[str, Any]]) -> None:
        """A block's run-dependent steps, in order, as ``feed`` takes them (``feed_facts``)."""
        tool_uses, fragments = self.tool_uses, self.fragments
        parents = results = False  # a reference to a known id: only its rule is exercised
        items = iter(ops)
        for offset, code, ref, extra in zip(items, items, items, items, strict=True):
            if code == batch.PARENT:
                if ref in tool_uses:
                    parents = True
                else:
                    self._parent(ref, first + offset, out)
            elif code == batch.RESULT:
                if ref in tool_uses:
                    results = True
                else:
                    self._result_ref(ref, first + offset, f"/message/content/{extra}/tool_use_id", out)
            elif code == batch.USE:
                if ref in fragments:  # it completes streamed fragments: judged on the whole line
                    self._tool_use(load(offset)["message"]["content"][extra], first + offset,
                                   f"/message/content/{extra}", out)
                elif ref not in tool_uses:
                    self._remember(ref, first + offset, out)
            else:
                self._piece(ref, extra, first + offset, out)
        if parents:
            out.exercised("sj.parent-ref")
        if results:
            out.exercised("sj.tool-result-ref")

    def _batch_in_step(self, objs: list[dict[str, Any]]) -> bool:
        """Whether every line of the batch passes sj.init-first, sj.result-last, sj.seq,
        sj.session, sj.ts-format and sj.ts-order with nothing to report, judged with a few
        C-level operations; if so the run's state moves past the batch.

        The batch must continue a run already under way (init seen, seq, session and a ts
        known), hold no result line, and have: seq exactly the next integers (of type int: a
        7.0 takes the line-by-line path), every session_id the run's, and ts all valid stamps
        of one offset in time order from the previous stamp on (``stamps.in_order``, ``follows``).
        """
        expected, last_ts = self.next_seq, self.last_ts
        if self.first or self.result_line is not None or expected is None or not self.session_ok or last_ts is None:
            return False
        get, count = dict.get, len(objs)
        if "result" in map(get, objs, repeat("type")):
            return False
        seqs = list(map(get, objs, repeat("seq")))
        if seqs != list(range(expected, expected + count)) or set(map(type, seqs)) != {int}:
            return False
        if list(map(get, objs, repeat("session_id"))).count(self.session) != count:
            return False
        stamps = cast("list[str]", list(map(get, objs, repeat("ts"))))  # any value: join checks they are str
        try:
            joined = "\n".join(stamps)
        except TypeError:  # a missing or mistyped ts: the schema's finding, judged line by line
            return False
        if not in_order(stamps, joined) or not follows(last_ts, stamps[0]):
            return False
        self.next_seq = expected + count
        self.last_seq = expected + count - 1
        self.last_ts = stamps[-1]
        return True


def _in_line_order(steps: list[Any]) -> list[Any]:
    """Flat steps (``facts``' ops, four items each) in the order ``feed`` takes them: by line, a
    line's parent reference first, then its content blocks by index."""
    items = [steps[at : at + 4] for at in range(0, len(steps), 4)]
    items.sort(key=lambda item: (item[0], -1 if item[1] == batch.PARENT else 0 if item[1] == batch.FRAG else item[3]))
    return [value for item in items for value in item]


class _Probe:
    """A sink that records whether a declared check spoke (an emit or a note) and what it judged."""

    def __init__(self) -> None:
        self.spoke = False
        self.judged: set[str] = set()

    def emit(self, rule: str, line: int | None, pointer: str | None, message: str,
             hint: str | None = None) -> None:
        self.spoke = True

    def note(self, text: str) -> None:
        self.spoke = True

    def exercised(self, rule: str) -> None:
        self.judged.add(rule)
