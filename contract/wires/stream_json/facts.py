"""A block's facts: what ``StreamRules`` needs of a block of lines beyond what the lines alone decide.

The rule machine's work on a block splits in two. Most of it depends only on each line: its
run-wide members agree among themselves (seq one step per line, one session id, stamps of
one offset in time order), and its type's own members have the right form (an assistant line's
message is an object of the line's role, a system line has a subtype, a tool_result names a
tool_use id). The rest depends on the run so far: the block must continue the run's seq, session
and stamps, the capabilities advertised at init, the tool_use ids met before, the fragments
awaiting their tool_use.

``block_facts`` does the first part for a block of schema-valid objects, with no state, so it
can run in another process (``contract.checking.parallel``'s workers): it returns the block's **facts**,
or None when any line would have something to report on its own, or is of a kind the facts do not
cover (init, result). The facts are plain data (tuples, ints, strings: what ``marshal`` sends):

``(count, first_seq, session, first_ts, last_ts, flags, uses, ops, calls, use_bytes, use_entries,
frag_bytes, frag_entries)``

* ``flags``: the rules the lines judged with no finding (``FLAG_RULES``), the capabilities they
  need (``NEEDS``), and whether a reference met an id used earlier in the block (``KNOWN``) and a
  tool call was streamed and completed inside the block (``CALLS``);
* ``uses``: flat, three items per tool_use block, ``offset, index, ref``: the tool_use ids the
  block adds to the run's, none of them named by a step before it in the block (so the machine
  may add them all at once, before the steps);
* ``ops``: flat, four items per step, in line order: ``offset, code, ref, extra``, one for each
  step left that depends on the run: a ``parent_tool_use_id`` (``PARENT``) or a tool_result
  (``RESULT``, extra its index in the content) naming no id used earlier in the block, a
  tool_use named by such a step before it (``USE``, extra its index), and a tool_args_delta
  fragment (``FRAG``, extra the fragment) not of a call completed in the block;
* ``calls``: flat, ``ref, size`` per tool call whose fragments all came in the block before its
  tool_use, whose reassembly is one JSON text with unique members equal to the tool_use's input
  (what ``StreamRules._tool_use`` judges), so it has nothing to report when the call starts in
  the block; its fragments are not among the steps;
* ``use_bytes``, ``use_entries``; ``frag_bytes``, ``frag_entries``: what the block's distinct
  tool_use ids, and its fragments with their distinct call ids, cost at most against the
  machine's bounds (``StreamRules.MAX_TOOL_USE_BYTES``, ``MAX_PENDING_BYTES``).

``StreamRules.feed_facts`` does the second part, in order, with the machine's own methods, so
the findings are exactly those of ``feed`` on each line (tests/checking/test_parallel.py,
tests/checking/test_block_check.py and tests/wires/stream_json/test_stream_json_machine.py compare them).
"""

from __future__ import annotations

import json
from itertools import repeat
from typing import Any

import orjson

from contract.core.jsonline import Fault, parse
from contract.core.jsonvalue import same_value
from contract.wires.stream_json.stamps import STAMPS, in_order

# The block pattern of many stamps joined by LF (``stamps.STAMPS``: any real day once the months are
# checked, one offset, never a second 60), under the name the tests of issue 31 read it by.
UTC_STAMPS = STAMPS

# flags: rules judged with no finding on some line of the block
AGENT_FORM, MESSAGE_PRESENT, MESSAGE_FORM, ROLE_FORM, SUBTYPE = 1, 2, 4, 8, 16
FLAG_RULES = ((AGENT_FORM, "sj.agent-form"), (MESSAGE_PRESENT, "sj.message-present"),
              (MESSAGE_FORM, "sj.message-form"), (ROLE_FORM, "sj.role-form"), (SUBTYPE, "sj.subtype"))
# flags: capabilities some line of the block needs (sj.capabilities)
NEEDS_PARTIAL, NEEDS_TASKS = 32, 64
NEEDS = ((NEEDS_PARTIAL, "partial_messages_v1"), (NEEDS_TASKS, "tasks_v1"))
# flags: a parent_tool_use_id, a tool_result naming an id used earlier in the block; a call completed in it
PARENT_KNOWN, RESULT_KNOWN, CALLS = 128, 256, 512
KNOWN = ((PARENT_KNOWN, "sj.parent-ref"), (RESULT_KNOWN, "sj.tool-result-ref"))
CALL_RULES = ("sj.tool-args-reassembly", "sj.tool-args-duplicate-key")
# ops: the steps that depend on the run
PARENT, USE, RESULT, FRAG = 0, 1, 2, 3

TASK_SUBTYPES = frozenset({"task_started", "task_progress", "task_notification", "background_tasks_changed"})

Facts = tuple[int, int, str, str, str, int, list[Any], list[Any], list[Any], int, int, int, int]


def reassemble(pieces: list[str]) -> tuple[str, Any, tuple[Fault, ...]]:
    """A call's fragments concatenated, and read as a line is (``contract.core.jsonline.parse``: the
    same strict RFC 8259 numbers, nesting limit and duplicate-member detection, never last-wins)."""
    text = "".join(pieces)
    args, faults = parse(text.encode("utf-8", "surrogatepass"))
    return text, args, faults


def reassembles_to(pieces: list[str], value: Any) -> bool:
    """Whether a call's fragments reassemble (``reassemble``) to ``value`` with nothing to report.

    When their text, with no "e+" in it, is orjson's own text of ``value`` or Python's
    ``json.dumps`` of it (ASCII escapes, ", " and ": "), byte for byte, it is a serialisation of
    the value: each member named once, each number written as the parsed number (an integer in
    full, a float as its shortest text). The strict parse then reads it as ``value`` with no
    fault (``contract.core.jsonline.parse``; a float written with "e+" may be integral but not
    the number written, so such a text is parsed), and the reassembly is not parsed. ``value`` is
    a parsed JSON value (no NaN: orjson would write it as null; Python's encoder here refuses
    it). Any other text is parsed and compared."""
    text = "".join(pieces).encode("utf-8", "surrogatepass")
    if b"e+" not in text:
        try:
            if text == orjson.dumps(value) or text == _PYTHON(value).encode():
                return True
        except (orjson.JSONEncodeError, ValueError, TypeError, RecursionError):  # a Decimal, a long integer
            pass
    args, faults = parse(text)
    return not faults and same_value(args, value)


_PYTHON = json.JSONEncoder(check_circular=False, allow_nan=False).encode  # json.dumps(value), NaN refused


def block_facts(objs: list[dict[str, Any]], *, mixed: bool = False, settle: bool = True) -> Facts | None:
    """The facts of consecutive schema-valid object lines, or None (see the module's docstring).

    None is never a verdict: the machine then judges the block line by line. So is any exception
    here (a shape this function did not foresee).

    ``mixed``: stamps of several fraction lengths are taken too (``stamps.in_order``; without it
    the block's stamps are of one length, as ``tests/wires/stream_json/test_stream_json_facts.py`` holds
    the plain call to). ``settle``: a call streamed and completed in the block is judged here (``calls``);
    without it its fragments and tool_use stay steps, for a machine holding earlier fragments of
    the same call (``StreamRules.feed_batch``).
    """
    try:
        step = _in_step(objs, mixed)
        if step is None:
            return None
        steps = _Steps(settle)
        flags = _lines(objs, steps)
        if flags < 0:
            return None
        return (*step, flags | steps.flags, *steps.settled())
    except Exception:  # a shape not foreseen: the machine's own line-by-line path judges it
        return None


def _in_step(objs: list[dict[str, Any]], mixed: bool) -> tuple[int, int, str, str, str] | None:
    """``(count, first_seq, session, first_ts, last_ts)`` when the block is in step with itself:
    seq the consecutive integers (of type int: a 7.0 takes the line-by-line
    path) from the first, one session id, and ts all valid stamps of one offset, in time order
    (``stamps.in_order``). Whether it continues the run is the machine's to judge
    (``StreamRules.feed_facts``)."""
    count = len(objs)
    if not count:
        return None
    get = dict.get
    seqs = list(map(get, objs, repeat("seq")))
    first_seq = seqs[0]
    if type(first_seq) is not int or seqs != list(range(first_seq, first_seq + count)) or set(map(type, seqs)) != {int}:
        return None
    sessions = list(map(get, objs, repeat("session_id")))
    session = sessions[0]
    if type(session) is not str or sessions.count(session) != count:
        return None
    stamps: list[Any] = list(map(get, objs, repeat("ts")))  # str or not: join checks
    try:
        joined = "\n".join(stamps)
    except TypeError:  # a missing or mistyped ts: the schema's finding, judged line by line
        return None
    if not in_order(stamps, joined, mixed):
        return None
    return count, first_seq, session, stamps[0], stamps[-1]


def _lines(objs: list[dict[str, Any]], steps: _Steps) -> int:
    """The lines' flags, their run-dependent steps given to ``steps``; -1 when one has something to
    report on its own.

    Line by line what ``StreamRules`` does for each type (``_stream_event``, ``_actor`` and
    ``_blocks``, ``_system``), with every finding's condition turned into a -1; a result line
    (it ends the run) is a -1 too."""
    flags = 0
    for offset, obj in enumerate(objs):
        if "parent_tool_use_id" in obj:
            ref = obj["parent_tool_use_id"]
            if type(ref) is str:
                steps.ref(offset, PARENT, ref, 0)
        kind = obj.get("type")
        if kind == "stream_event":
            flags |= NEEDS_PARTIAL
            event = obj.get("event")
            if type(event) is dict and event.get("type") == "tool_args_delta":
                ref, fragment = event.get("tool_use_id"), event.get("partial_json")
                if type(ref) is str and type(fragment) is str:
                    steps.fragment(offset, ref, fragment)
        elif kind == "assistant" or kind == "user":
            found = _actor(obj, kind, offset, steps)
            if found < 0:
                return -1
            flags |= found
        elif kind == "system":
            found = _system(obj)
            if found < 0:
                return -1
            flags |= found
        elif kind == "result":  # it ends the run (sj.result-once, sj.result-last): line by line
            return -1
    return flags


def _actor(obj: dict[str, Any], kind: str, offset: int, steps: _Steps) -> int:
    """An assistant or user line's flags (its steps given to ``steps``), or -1 for a finding."""
    flags = MESSAGE_PRESENT | MESSAGE_FORM
    if "agent" in obj:
        if type(obj["agent"]) is not str:
            return -1
        flags |= AGENT_FORM
    message = obj.get("message")  # absent: None, not a dict
    if type(message) is not dict:
        return -1
    role = message.get("role")
    if type(role) is str:
        if role != kind:
            return -1
        flags |= ROLE_FORM
    content = message.get("content")
    if type(content) is not list:
        return flags
    for index, block in enumerate(content):
        if type(block) is not dict:
            continue
        what = block.get("type")
        if what == "tool_use":
            ref = block.get("id")
            if type(ref) is str:
                steps.use(offset, index, ref, block)
        elif what == "tool_result":
            if "tool_use_id" not in block:
                return -1
            ref = block["tool_use_id"]
            if type(ref) is str:
                steps.ref(offset, RESULT, ref, index)
    return flags


def _system(obj: dict[str, Any]) -> int:
    """A system line's flags, or -1 for a finding or an init (which changes the run's state)."""
    if "subtype" not in obj:
        return -1
    subtype = obj["subtype"]
    if type(subtype) is not str:
        return SUBTYPE
    if subtype == "init":
        return -1
    flags = SUBTYPE
    if subtype == "error" and "message" in obj:
        if type(obj["message"]) is not str:
            return -1
        flags |= MESSAGE_FORM
    if subtype in TASK_SUBTYPES:
        flags |= NEEDS_TASKS
    return flags


class _Steps:
    """A block's run-dependent steps, settled inside the block as far as they can be (the
    module's docstring: ``uses``, ``ops``, ``calls`` and the costs), as the lines give them."""

    __slots__ = ("calls", "flags", "frag_bytes", "frag_entries", "named", "ops", "pending", "settle", "started",
                 "use_bytes", "used", "uses")

    def __init__(self, settle: bool = True) -> None:
        self.settle = settle  # judge the calls completed in the block here
        self.flags = 0
        self.uses: list[Any] = []
        self.ops: list[Any] = []
        self.calls: list[Any] = []
        self.used: set[str] = set()  # the ids of the tool_use blocks so far
        self.named: set[str] = set()  # the ids named by the steps kept so far
        self.pending: dict[str, list[int]] = {}  # a call's fragments before any tool_use: where in ops
        self.started: set[str] = set()  # the ids of the calls the fragments start (each costs its id once)
        self.use_bytes = self.frag_bytes = self.frag_entries = 0

    def ref(self, offset: int, code: int, ref: str, index: int) -> None:
        """A parent_tool_use_id (``PARENT``) or a tool_result's id (``RESULT``)."""
        if ref in self.used:  # used earlier in the block: known by then (the machine checks no bound is near)
            self.flags |= PARENT_KNOWN if code == PARENT else RESULT_KNOWN
            return
        self.ops += (offset, code, ref, index)
        self.named.add(ref)

    def fragment(self, offset: int, ref: str, fragment: str) -> None:
        self.frag_bytes += len(fragment)
        self.frag_entries += 1
        if ref not in self.started:
            self.started.add(ref)
            self.frag_bytes += len(ref)
            self.frag_entries += 1
        if ref in self.used:  # after its tool_use: a step (sj.tool-args-reassembly judges it)
            self.named.add(ref)
        else:  # kept until its tool_use, if the block has it, judges the call
            self.pending.setdefault(ref, []).append(len(self.ops))
        self.ops += (offset, FRAG, ref, fragment)

    def use(self, offset: int, index: int, ref: str, block: dict[str, Any]) -> None:
        """A tool_use block (``block``, at ``index`` in the content of line ``offset``)."""
        if ref not in self.used:
            self.use_bytes += len(ref)
            at = self.pending.pop(ref, None)
            if at is not None and self.settle:
                self._complete(ref, at, block)
            elif at is not None:
                self.named.add(ref)  # judged by the machine, with the fragments, at the tool_use
        self.used.add(ref)
        if ref in self.named:
            self.ops += (offset, USE, ref, index)
        else:
            self.uses += (offset, index, ref)

    def _complete(self, ref: str, at: list[int], block: dict[str, Any]) -> None:
        """A call whose fragments (at ``at`` in ops) all came in the block before its tool_use: when
        they reassemble to its input with nothing to report, its fragments leave the steps."""
        ops = self.ops
        pieces = [ops[where + 3] for where in at]
        if not reassembles_to(pieces, block.get("input")):
            self.named.add(ref)  # judged by the machine, with the fragments, at the tool_use
            return
        for where in at:
            ops[where + 1] = _DROPPED
        self.calls += (ref, sum(map(len, pieces)))
        self.flags |= CALLS

    def settled(self) -> tuple[list[Any], list[Any], list[Any], int, int, int, int]:
        """``(uses, ops, calls, use_bytes, use_entries, frag_bytes, frag_entries)``."""
        ops = self.ops
        if self.calls:
            ops = [value for at in range(0, len(ops), 4) if ops[at + 1] != _DROPPED for value in ops[at : at + 4]]
        return self.uses, ops, self.calls, self.use_bytes, len(self.used), self.frag_bytes, self.frag_entries


_DROPPED = -1  # a fragment judged with its call: not a step
