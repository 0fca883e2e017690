"""Whole subagent-stdio conversations: commands, correlated responses and pushed events.

A conversation is drawn as a list of line objects (:func:`transcripts`), both directions in
order, the way a recorded golden holds them. What makes it conformant is what
:mod:`contract.wires.subagent_stdio` checks: each command answered once, in order, its id echoed;
an event's envelope repeating its snapshot's sessionId, epoch and revision; revisions that never
go back within an epoch, events strictly rising; no events in an epoch whose host says
``events: false``; unique sibling keys; and the inferred consistency of the SHOULD rules (fleet
counts, capacity, token totals, node times, outcomes, an empty unavailable host).

Strings with a ``pattern`` or length bounds are composed from the seed schema's own property
definitions (:mod:`contract.strategies._compose`); the consistent structure comes from code,
the shape of each part (a node's status and children, which optional members) a few fields to
a choice (:func:`contract.strategies._common.pick`), as hypothesis pays per choice. A snapshot
after the first may keep its host's previous runs, fleet or both unchanged (a host asked again
before anything changed; each way one time in four): the cross-line rules see one more
snapshot for the cost of its identity. tests/strategies/test_strategies_reach.py pins what the
conversations reach.
"""

from __future__ import annotations

import functools
from collections.abc import Collection
from typing import Any

from hypothesis import strategies as st

from contract.strategies import _compose
from contract.strategies._common import count, digits, flags, ints, pick, render
from contract.strategies._schemas import DEFAULT_DEPTH
from contract.wires.subagent_stdio.machines import FAILED, SUCCEEDED

Line = dict[str, Any]
WIRE = "subagent-stdio"
STATUSES = (
    "queued",
    "pending",
    "running",
    "complete",
    "completed",
    "failed",
    "partial",
    "paused",
    "stopped",
    "rejected",
    "detached",
)


@functools.cache
def field(definition: str, name: str) -> st.SearchStrategy[Any]:
    """Values of one property of ``$defs/definition`` (``entry``: a fleet entry), composed
    from the seed schema with no ESC in any string (ESC is line.ansi on this wire)."""
    defs = _compose.compiler(WIRE, ansi=False).defs
    if definition == "entry":
        props = defs["fleet"]["properties"]["entries"]["items"]["properties"]
    else:
        props = defs[definition]["properties"]
    # ESC in a string is allowed on this wire: line.ansi is a stream-json rule (only that seed
    # says "never any ANSI escapes"), so schema-drawn strings are used as drawn.
    return _compose.subschema(WIRE, props[name])


def _node_field(name: str) -> st.SearchStrategy[Any]:
    return field(f"node_{DEFAULT_DEPTH}", name)


# -- snapshots -----------------------------------------------------------------------------------
#
# Hypothesis pays per choice (about 0.1 ms each), and a snapshot is most of a conversation's
# choices: so the shape of each part (which optional members, how many children, the flags)
# is one choice (``pick``, ``flags``), and only the values that are free are drawn one by one.

TERMINAL_STATES = ("pending", "observed", "unknown", "not-started")


def tokens(draw: st.DrawFn, window: bool) -> dict[str, int]:
    """Token counts whose total is input + output; ``window``: with a window and its peak."""
    inp, out = draw(ints(0, 10**6)), draw(ints(0, 10**6))
    result = {"input": inp, "output": out, "total": inp + out}
    if window:
        result["window"] = draw(ints(0, 10**6))
        result["windowPeak"] = result["window"] + draw(ints(0, 10**6))
    return result


def _times(draw: st.DrawFn, node: dict[str, Any]) -> None:
    """startedAt <= updatedAt <= endedAt, observedAt after startedAt (each present or not).

    One choice for which are present and the terminal state (none half the time), one for
    the first instant and one for the gap between them (0 included: equal times are fine).
    """
    started, updated, ended, terminal = pick(draw, 2, 2, 2, 32)
    at = draw(ints(0, 2 * 10**12)) if started or updated or ended or terminal >= 16 else 0
    gap = draw(ints(0, 10**6)) if started + updated + ended + (terminal >= 16) > 1 else 0
    for name, present in (("startedAt", started), ("updatedAt", updated), ("endedAt", ended)):
        if present:
            node[name] = at
            at += gap
    if terminal >= 16:
        state, observed, reason = digits(terminal - 16, 4, 2, 2)
        end: dict[str, Any] = {"state": TERMINAL_STATES[state]}
        if observed:
            end["observedAt"] = at
        if reason:
            end["reason"] = draw(_node_field("reason"))
        node["processTerminal"] = end


def _outcome(draw: st.DrawFn, status: str) -> dict[str, Any]:
    """An outcome that agrees with the node status (complete and completed are one): one
    choice for its status spelling and which members it has, one for a failing exit code."""
    same = ["complete", "completed"] if status in SUCCEEDED else [status]
    spelling, coin, with_success, with_exit = pick(draw, len(same), 2, 2, 2)
    outcome: dict[str, Any] = {"status": same[spelling]}
    success = False if status in FAILED else True if status in SUCCEEDED else bool(coin)
    if with_success:
        outcome["success"] = success
    if with_exit:
        outcome["exitCode"] = 0 if success else draw(ints(-255, 255))
    return outcome


OPTIONAL_NODE_FIELDS = ("runId", "workflowId", "agent", "activity", "progress", "currentTool", "error", "reason")
CHILDREN = (0, 0, 0, 0, 1, 2)  # children of a node, by a digit: none two times in three


def node(draw: st.DrawFn, key: str, depth: int) -> dict[str, Any]:
    """One run node with up to ``depth`` levels of children below it.

    One choice for how many children (first, so that shrinking it by one deletes a child) and
    the status, one for tokens, outcome and omitted children, two for the optional members.
    """
    children, status = pick(draw, len(CHILDREN), len(STATUSES))
    with_tokens, with_outcome, omitted = pick(draw, 3, 2, 4)
    result: dict[str, Any] = {"key": key, "status": STATUSES[status]}
    for name, present in zip(OPTIONAL_NODE_FIELDS, flags(draw, len(OPTIONAL_NODE_FIELDS), sparse=True), strict=True):
        if present:
            result[name] = draw(_node_field(name))
    _times(draw, result)
    if with_tokens:
        result["tokens"] = tokens(draw, window=with_tokens == 2)
    if with_outcome:
        result["outcome"] = _outcome(draw, result["status"])
    result["children"] = nodes(draw, depth - 1, CHILDREN[children]) if depth > 0 else []
    result["omittedChildren"] = omitted
    return result


@functools.cache
def _keyed_node(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    """A node with its drawn key, as one strategy built once: its choices form one span, so
    that shrinking deletes a sibling whole."""
    return st.composite(lambda draw: node(draw, draw(_node_field("key")), depth))()


def nodes(draw: st.DrawFn, depth: int, size: int) -> list[dict[str, Any]]:
    """``size`` siblings with unique keys."""
    return _distinct([draw(_keyed_node(depth)) for _ in range(size)])


def unused(value: str, taken: Collection[str]) -> str:
    """``value``, or if it is ``taken``, prefixed with a counter until it is not (still at most
    128 characters, and digits and dots are allowed wherever keys and epochs are): a collision
    is made distinct instead of filtered, so no draw is thrown away."""
    counter = 0
    found = value
    while found in taken:  # ends: each counter gives another string, and taken is finite
        counter += 1
        found = f"{counter}.{value}"[:128]
    return found


def _distinct(siblings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Siblings (nodes or fleet entries) with their keys made unique, in order."""
    keys: list[str] = []
    for sibling in siblings:
        sibling["key"] = unused(sibling["key"], keys)
        keys.append(sibling["key"])
    return siblings


ENTRY_FIELDS = ("role", "model", "effort", "goal")


def entry(draw: st.DrawFn, key: str) -> dict[str, Any]:
    """A fleet entry: one choice for its optional members (each one time in three) and window."""
    *present, window = pick(draw, *[3] * len(ENTRY_FIELDS), 2)
    result: dict[str, Any] = {
        "key": key,
        "agent": draw(field("entry", "agent")),
        "startedAt": draw(ints(0, 2 * 10**12)),
        "tokens": tokens(draw, window=bool(window)),
    }
    for name, digit in zip(ENTRY_FIELDS, present, strict=True):
        if digit == 2:
            result[name] = draw(field("entry", name))
    return result


@functools.cache
def _keyed_entry() -> st.SearchStrategy[dict[str, Any]]:
    """A fleet entry with its drawn key, as one strategy built once (one span, as a node)."""
    return st.composite(lambda draw: entry(draw, draw(field("entry", "key"))))()


# What a snapshot keeps of the host's previous one, by a digit: everything but its identity (a
# host asked again before anything changed), its runs, its fleet, or nothing.
KEEP = (("runs", "fleet"), ("runs",), ("fleet",), ())


def snapshot(
    draw: st.DrawFn,
    session: str | None,
    epoch: str,
    revision: int,
    events: bool,
    available: bool | None = None,
    last: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A consistent snapshot; an unavailable host shows no runs and an empty fleet.

    Given ``last`` (the host's previous snapshot, and ``available`` left to the draw), one
    choice says which of its parts carry over unchanged (:data:`KEEP`): a host's state changes
    between snapshots or it does not, and a part kept costs no draws. Drawn afresh, the runs
    take one choice for whether the host is available and how many runs and omitted ones it
    shows (and then their nodes), the fleet one (:func:`fleet`, and then its entries).
    """
    keep = KEEP[draw(ints(0, len(KEEP) - 1))] if last is not None and available is None else ()
    if last is not None and keep:
        available = bool(last["available"])
    if last is not None and "runs" in keep:
        runs, omitted = last["runs"], last["omitted"]
    else:
        size, up, omitted_runs, omitted_children = pick(draw, 3, 5, 4, 4)
        available = up > 0 if available is None else available
        runs = nodes(draw, DEFAULT_DEPTH, size) if available else []
        omitted = {"runs": omitted_runs, "children": omitted_children} if available else {"runs": 0, "children": 0}
    return {
        "version": 1,
        "sessionId": session,
        "epoch": epoch,
        "revision": revision,
        "available": available,
        "capabilities": {"snapshot": True, "events": events},
        "fleet": last["fleet"] if last is not None and "fleet" in keep else fleet(draw, bool(available)),
        "runs": runs,
        "omitted": omitted,
    }


CAPACITY = 16  # the largest capacity limit drawn


def fleet(draw: st.DrawFn, available: bool) -> dict[str, Any]:
    """A fleet whose counts add up (empty when the host is unavailable) and in capacity: one
    choice for how many entries (up to two) and omitted ones, the limit and its use."""
    entries, omitted, limit, used = pick(draw, 3, 6, CAPACITY + 1, CAPACITY + 1)
    if not available:
        entries = omitted = 0
    listed = _distinct([draw(_keyed_entry()) for _ in range(entries)])
    return {
        "version": 1,
        "entries": listed,
        "totalActive": len(listed) + omitted,
        "topLevelAsyncCapacity": {"used": used % (limit + 1), "limit": limit},
        "omitted": omitted,
    }


# -- the conversation ----------------------------------------------------------------------------


def command(draw: st.DrawFn, with_id: bool | None = None) -> Line:
    """A subagent_status command, with an id three times in four (or as ``with_id`` says)."""
    line: Line = {"type": "subagent_status", "version": 1}
    if with_id is None:
        with_id = draw(ints(0, 3)) > 0
    if with_id:
        line["id"] = draw(field("command", "id"))
    return line


def response(cmd: Line, data: dict[str, Any]) -> Line:
    """The answer to ``cmd``: its id echoed, or none when it had none."""
    line: Line = {"type": "response", "command": "subagent_status", "success": True, "data": data}
    if "id" in cmd:
        line["id"] = cmd["id"]
    return line


def event(snap: dict[str, Any]) -> Line:
    """A pushed event whose envelope repeats its snapshot's identity."""
    return {
        "type": "subagent_event",
        "version": 1,
        "sessionId": snap["sessionId"],
        "epoch": snap["epoch"],
        "revision": snap["revision"],
        "snapshot": snap,
    }


def unseen_epoch(draw: st.DrawFn, seen: set[str]) -> str:
    """An epoch not in ``seen``: drawn from the schema, made :func:`unused` on a collision."""
    return unused(draw(field("snapshot", "epoch")), seen)


class Host:
    """A host's state while a conversation is drawn: its epoch, revision and capabilities."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw
        self.epochs: set[str] = set()
        self.session: str | None = None
        self.epoch = ""
        self.revision = 0
        self.events = True
        self.last: dict[str, Any] | None = None  # the snapshot shown last
        self.new_epoch()

    def new_epoch(self) -> None:
        """A restarted host: a fresh epoch (never one seen before), revisions from anywhere.

        One choice for its session (the same, none, or another), first revision and whether
        it pushes events (three times in four).
        """
        draw = self.draw
        self.epoch = unseen_epoch(draw, self.epochs)
        self.epochs.add(self.epoch)
        way, self.revision, quiet = pick(draw, 3, 6, 4)
        if way:
            self.session = None if way == 1 else draw(field("snapshot", "sessionId"))
        self.events = quiet > 0

    def snapshot(self, step: int) -> dict[str, Any]:
        """The next snapshot shown, ``step`` revisions on."""
        self.revision += step
        self.last = snapshot(self.draw, self.session, self.epoch, self.revision, self.events, last=self.last)
        return self.last


# A step's kind, by a digit: a restarted host (a new epoch, no line) one time in seven.
STEPS = ("ask", "answer", "event", "ask", "answer", "event", "epoch")


@st.composite
def _step(draw: st.DrawFn, host: Host, lines: list[Line], pending: list[Line]) -> None:
    """One step of a conversation, one choice: its kind, how far the revision moves (0 to 2
    for a response, 1 to 3 for an event) and whether a command has an id (three times in four).

    A strategy of its own (not a plain call) so that its choices form one span: shrinking
    lowers the step count and deletes a whole step with it.
    """
    kind, moves, with_id = pick(draw, len(STEPS), 3, 4)
    step = STEPS[kind]
    if step == "ask" or (step == "answer" and not pending):
        pending.append(command(draw, with_id > 0))
        lines.append(pending[-1])
    elif step == "answer":
        lines.append(response(pending.pop(0), host.snapshot(moves)))
    elif step == "event" and host.events:
        lines.append(event(host.snapshot(1 + moves)))
    elif step == "epoch":
        host.new_epoch()


@st.composite
def transcripts(draw: st.DrawFn) -> list[Line]:
    """A conformant conversation: at least one command and its response, in order, in one to
    eight steps; the commands still unanswered after them are answered at the end."""
    host = Host(draw)
    lines: list[Line] = []
    pending: list[Line] = []
    for _ in range(1 + count(draw, 7)):
        draw(_step(host, lines, pending))
    if not pending and not any(line["type"] == "response" for line in lines):
        pending.append(command(draw))
        lines.append(pending[-1])
    lines.extend(response(cmd, host.snapshot(draw(ints(0, 2)))) for cmd in pending)
    return lines


def streams() -> st.SearchStrategy[bytes]:
    """Whole conformant subagent-stdio conversations, as the bytes of a recorded golden."""
    return transcripts().map(render)
