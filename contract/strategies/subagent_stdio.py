"""Whole subagent-stdio conversations: commands, correlated responses and pushed events.

A conversation is drawn as a list of line objects (:func:`transcripts`), both directions in
order, the way a recorded golden holds them. What makes it conformant is what
:mod:`contract.wires.subagent_stdio` checks: each command answered once, in order, its id echoed;
an event's envelope repeating its snapshot's sessionId, epoch and revision; revisions that never
go back within an epoch, events strictly rising; no events in an epoch whose host says
``events: false``; unique sibling keys; and the inferred consistency of the SHOULD rules (fleet
counts, capacity, token totals, node times, outcomes, an empty unavailable host).

Strings with a ``pattern`` or length bounds are composed from the seed schema's own property
definitions (:mod:`contract.strategies._compose`); the consistent structure comes from code.
"""

from __future__ import annotations

import functools
from typing import Any

from hypothesis import strategies as st

from contract.strategies import _compose
from contract.strategies._common import flags, render
from contract.strategies._schemas import DEFAULT_DEPTH
from contract.wires.subagent_stdio import FAILED, SUCCEEDED

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


def tokens(draw: st.DrawFn) -> dict[str, int]:
    inp, out = draw(st.integers(0, 10**6)), draw(st.integers(0, 10**6))
    result = {"input": inp, "output": out, "total": inp + out}
    if draw(st.booleans()):
        result["window"] = draw(st.integers(0, 10**6))
        result["windowPeak"] = draw(st.integers(result["window"], 10**6 + result["window"]))
    return result


def _times(draw: st.DrawFn, node: dict[str, Any]) -> None:
    """startedAt <= updatedAt <= endedAt, observedAt after startedAt (each present or not)."""
    started, updated, ended, terminated, observed, reason = flags(draw, 6)
    at = draw(st.integers(0, 2 * 10**12))
    for name, present in (("startedAt", started), ("updatedAt", updated), ("endedAt", ended)):
        if present:
            node[name] = at
            at += draw(st.integers(0, 10**6))
    if terminated:
        terminal: dict[str, Any] = {"state": draw(st.sampled_from(["pending", "observed", "unknown", "not-started"]))}
        if observed:
            terminal["observedAt"] = at
        if reason:
            terminal["reason"] = draw(_node_field("reason"))
        node["processTerminal"] = terminal


def _outcome(draw: st.DrawFn, status: str) -> dict[str, Any]:
    """An outcome that agrees with the node status (complete and completed are one)."""
    same = ["complete", "completed"] if status in SUCCEEDED else [status]
    outcome: dict[str, Any] = {"status": draw(st.sampled_from(same))}
    success = False if status in FAILED else True if status in SUCCEEDED else draw(st.booleans())
    with_success, with_exit = flags(draw, 2)
    if with_success:
        outcome["success"] = success
    if with_exit:
        outcome["exitCode"] = 0 if success else draw(st.integers(-255, 255))
    return outcome


OPTIONAL_NODE_FIELDS = ("runId", "workflowId", "agent", "activity", "progress", "currentTool", "error", "reason")


def node(draw: st.DrawFn, key: str, depth: int) -> dict[str, Any]:
    """One run node with up to ``depth`` levels of children below it."""
    status = draw(st.sampled_from(STATUSES))
    result: dict[str, Any] = {"key": key, "status": status}
    for name, present in zip(OPTIONAL_NODE_FIELDS, flags(draw, len(OPTIONAL_NODE_FIELDS), sparse=True), strict=True):
        if present:
            result[name] = draw(_node_field(name))
    _times(draw, result)
    with_tokens, with_outcome, with_children = flags(draw, 3)
    if with_tokens:
        result["tokens"] = tokens(draw)
    if with_outcome:
        result["outcome"] = _outcome(draw, status)
    result["children"] = nodes(draw, depth - 1) if depth > 0 and with_children else []
    result["omittedChildren"] = draw(st.integers(0, 3))
    return result


def nodes(draw: st.DrawFn, depth: int, max_size: int = 2) -> list[dict[str, Any]]:
    """Siblings with unique keys."""
    keys = draw(_unique_keys("node", max_size))
    return [node(draw, key, depth) for key in keys]


@functools.cache
def _unique_keys(kind: str, max_size: int, min_size: int = 0) -> st.SearchStrategy[list[str]]:
    """Lists of distinct sibling keys (built once: strategies are cheap to draw, not to build)."""
    keys = _node_field("key") if kind == "node" else field("entry", "key")
    return st.lists(keys, min_size=min_size, max_size=max_size, unique=True)


def entry(draw: st.DrawFn, key: str) -> dict[str, Any]:
    result: dict[str, Any] = {
        "key": key,
        "agent": draw(field("entry", "agent")),
        "startedAt": draw(st.integers(0, 2 * 10**12)),
        "tokens": tokens(draw),
    }
    for name in ("role", "model", "effort", "goal"):
        if draw(st.integers(0, 2)) == 0:
            result[name] = draw(field("entry", name))
    return result


def fleet(draw: st.DrawFn, available: bool) -> dict[str, Any]:
    keys = draw(_unique_keys("entry", 3)) if available else []
    entries = [entry(draw, key) for key in keys]
    omitted = draw(st.integers(0, 5)) if available else 0
    limit = draw(st.integers(0, 16))
    return {
        "version": 1,
        "entries": entries,
        "totalActive": len(entries) + omitted,
        "topLevelAsyncCapacity": {"used": draw(st.integers(0, limit)), "limit": limit},
        "omitted": omitted,
    }


def snapshot(
    draw: st.DrawFn,
    session: str | None,
    epoch: str,
    revision: int,
    events: bool,
    available: bool | None = None,
) -> dict[str, Any]:
    """A consistent snapshot; an unavailable host shows no runs and an empty fleet."""
    if available is None:
        available = draw(st.integers(0, 4)) > 0
    runs = nodes(draw, DEFAULT_DEPTH) if available else []
    return {
        "version": 1,
        "sessionId": session,
        "epoch": epoch,
        "revision": revision,
        "available": available,
        "capabilities": {"snapshot": True, "events": events},
        "fleet": fleet(draw, available),
        "runs": runs,
        "omitted": {
            "runs": draw(st.integers(0, 3)) if available else 0,
            "children": draw(st.integers(0, 3)) if available else 0,
        },
    }


# -- the conversation ----------------------------------------------------------------------------


def command(draw: st.DrawFn) -> Line:
    line: Line = {"type": "subagent_status", "version": 1}
    if draw(st.integers(0, 3)):
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
    """An epoch not in ``seen``: drawn from the schema, and on a collision prefixed with a
    counter (still 1 to 128 characters) instead of filtered, so no draw is thrown away."""
    epoch: str = draw(field("snapshot", "epoch"))
    counter = 0
    while epoch in seen:  # ends: each counter gives a different string, and seen is finite
        counter += 1
        epoch = f"{counter}.{epoch}"[:128]
    return epoch


class Host:
    """A host's state while a conversation is drawn: its epoch, revision and capabilities."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw
        self.epochs: set[str] = set()
        self.session: str | None = None
        self.epoch = ""
        self.revision = 0
        self.events = True
        self.new_epoch()

    def new_epoch(self) -> None:
        """A restarted host: a fresh epoch (never one seen before), revisions from anywhere."""
        draw = self.draw
        self.epoch = unseen_epoch(draw, self.epochs)
        self.epochs.add(self.epoch)
        way = draw(st.integers(0, 2))  # the same session, none, or another one
        if way:
            self.session = None if way == 1 else draw(field("snapshot", "sessionId"))
        self.revision = draw(st.integers(0, 5))
        self.events = draw(st.integers(0, 3)) > 0

    def snapshot(self, step: int, available: bool | None = None) -> dict[str, Any]:
        self.revision += step
        return snapshot(self.draw, self.session, self.epoch, self.revision, self.events, available)


@st.composite
def transcripts(draw: st.DrawFn) -> list[Line]:
    """A conformant conversation: at least one command and its response, in order."""
    host = Host(draw)
    lines: list[Line] = []
    pending: list[Line] = []
    for step in draw(st.lists(st.sampled_from(["ask", "answer", "event", "epoch"]), min_size=1, max_size=8)):
        if step == "ask" or (step == "answer" and not pending):
            pending.append(command(draw))
            lines.append(pending[-1])
        elif step == "answer":
            lines.append(response(pending.pop(0), host.snapshot(draw(st.integers(0, 2)))))
        elif step == "event" and host.events:
            lines.append(event(host.snapshot(draw(st.integers(1, 3)))))
        elif step == "epoch":
            host.new_epoch()
    if not pending and not any(line["type"] == "response" for line in lines):
        pending.append(command(draw))
        lines.append(pending[-1])
    lines.extend(response(cmd, host.snapshot(draw(st.integers(0, 2)))) for cmd in pending)
    return lines


def streams() -> st.SearchStrategy[bytes]:
    """Whole conformant subagent-stdio conversations, as the bytes of a recorded golden."""
    return transcripts().map(render)
