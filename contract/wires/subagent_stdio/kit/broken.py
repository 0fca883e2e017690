"""Breaking strategies for the subagent-stdio rules: a conformant conversation, one rule broken.

Most breakers append to a conformant conversation (:func:`transcripts`) what a faulty host or
client would add: another exchange whose snapshot is a copy of the last one shown (a response
may repeat the current revision) with one thing wrong, or an event in a brand-new epoch (a new
epoch may start anywhere and advertise events afresh). Appending keeps every earlier judgement
intact, so only the intended rule breaks.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from contract.wires.base import Strategies
from contract.wires.subagent_stdio import rules as _rules  # noqa: F401  # every family declared
from contract.wires.subagent_stdio.kit.strategies import (
    Line,
    command,
    entry,
    event,
    field,
    node,
    response,
    snapshot,
    streams,
    transcripts,
    unseen_epoch,
)
from contract.wires.subagent_stdio.registry import REGISTRY

# Rules that necessarily fire with the one broken, and why. None on this wire: every breaker
# appends or edits so that the other rules keep holding.
ALSO: dict[str, frozenset[str]] = {}

Snapshot = dict[str, Any]


def shown(lines: list[Line]) -> list[Snapshot]:
    """Every snapshot the host showed, in order (response data and event snapshots)."""
    found = [line.get("data") or line.get("snapshot") for line in lines]
    return [snap for snap in found if isinstance(snap, dict)]


def exchange(draw: st.DrawFn, lines: list[Line], data: Snapshot, **response_fields: Any) -> list[Line]:
    """``lines`` with one more command and its response carrying ``data``."""
    cmd = command(draw)
    return [*lines, cmd, response(cmd, data) | response_fields]


def repeat_last(lines: list[Line], available: bool | None = None) -> Snapshot:
    """A copy of the last snapshot shown: the same epoch and revision, nothing changed yet."""
    snap = copy.deepcopy(shown(lines)[-1])
    if available is not None:
        snap["available"] = available
    return snap


def fresh_epoch(draw: st.DrawFn, lines: list[Line]) -> str:
    seen = {snap["epoch"] for snap in shown(lines)}
    return unseen_epoch(draw, seen)


def fresh_event(
    draw: st.DrawFn,
    lines: list[Line],
    events: bool = True,
    available: bool | None = None,
    epoch: str | None = None,
) -> Line:
    """An event opening a new epoch (a restarted host), so no earlier revision constrains it."""
    epoch = epoch or fresh_epoch(draw, lines)
    session = draw(field("snapshot", "sessionId"))
    return event(snapshot(draw, session, epoch, draw(st.integers(0, 9)), events, available))


def _one_node(draw: st.DrawFn, **fields: Any) -> dict[str, Any]:
    return node(draw, draw(field("node_0", "key")), 0) | fields


def sacrificial(draw: st.DrawFn, text: str) -> tuple[list[Line], int]:
    """A conversation ending in an event whose run node's progress is ``text``.

    The event opens a new epoch and nothing follows it, so losing it breaks no rule.
    """
    lines = draw(transcripts())
    last = fresh_event(draw, lines, available=True)
    last["snapshot"]["runs"] = [_one_node(draw, progress=text)]
    return [*lines, last], len(lines)


# -- MUST ----------------------------------------------------------------------------------------


def schema(draw: st.DrawFn) -> list[Line]:
    """A line the schema rejects and no cross-line rule minds."""
    lines = draw(transcripts())
    way = draw(
        st.sampled_from(
            [
                "id-newline",
                "version",
                "member",
                "success",
                "key",
                "status",
                "progress",
                "entries",
                "omitted",
            ]
        )
    )
    if way in ("id-newline", "version", "member"):
        # "id-newline": ECMA-262 `$` does not match before a final LF (docs/architecture.md, "Pitfalls": Python's does).
        cmd: Line = {"type": "subagent_status", "version": 1, "id": "q1"}
        bad: dict[str, Line] = {
            "id-newline": {"id": "q1\n"},
            "version": {"version": 2},
            "member": {"extra": True},
        }
        cmd |= bad[way]
        return [*lines, cmd, response(cmd, repeat_last(lines))]
    if way == "success":
        return exchange(draw, lines, repeat_last(lines), success=False)
    snap = repeat_last(lines, available=True)
    if way == "entries":  # maxItems 16
        keys = [f"agent{i}" for i in range(17)]
        snap["fleet"] |= {
            "entries": [entry(draw, key) for key in keys],
            "totalActive": 17,
            "omitted": 0,
        }
        return exchange(draw, lines, snap)
    if way == "omitted":
        snap["omitted"] = {"runs": 0, "children": -1}
        return exchange(draw, lines, snap)
    broken: dict[str, Any] = {
        "key": {"key": draw(st.sampled_from(["a/b", "k1\n", "back\\slash", ""]))},
        "status": {"status": draw(st.sampled_from(["done", "Running", ""]))},
        "progress": {"progress": ""},
    }[way]
    snap["runs"] = [_one_node(draw) | broken]
    if way == "status":
        snap["runs"][0].pop("outcome", None)  # an unknown status has no outcome to agree with
    return exchange(draw, lines, snap)


def response_correlation(draw: st.DrawFn) -> list[Line]:
    """A response dropped, repeated, or with its id not echoed; or one before any command."""
    lines = draw(transcripts())
    answers = [i for i, line in enumerate(lines) if line["type"] == "response"]
    index = draw(st.sampled_from(answers))
    answer = lines[index]
    way = draw(st.sampled_from(["dropped", "repeated", "other-id", "no-id", "unasked"]))
    if way == "dropped":
        return lines[:index] + lines[index + 1 :]
    if way == "repeated":
        return [*lines[: index + 1], answer, *lines[index + 1 :]]
    if way == "unasked":
        first = shown(lines)[0]
        return [response({}, copy.deepcopy(first)), *lines]
    if way == "no-id" and "id" in answer:
        lines[index] = {k: v for k, v in answer.items() if k != "id"}
    else:
        lines[index] = answer | {"id": f"{answer.get('id', '')}x"}
    return lines


def event_envelope(draw: st.DrawFn) -> list[Line]:
    """An event whose envelope disagrees with its snapshot on sessionId, epoch or revision."""
    lines = draw(transcripts())
    pushed = fresh_event(draw, lines)
    name = draw(st.sampled_from(["sessionId", "epoch", "revision"]))
    snap = pushed["snapshot"]
    if name == "sessionId":
        pushed["sessionId"] = (
            "other" if snap["sessionId"] is None else draw(st.sampled_from([None, snap["sessionId"] + "x"]))
        )
    elif name == "epoch":  # a fresh epoch of its own, so revision order still holds
        pushed["epoch"] = fresh_epoch(draw, [*lines, pushed])
    else:
        pushed["revision"] = snap["revision"] + draw(st.integers(1, 5))
    return [*lines, pushed]


def revision_order(draw: st.DrawFn) -> list[Line]:
    """Within an epoch: a snapshot below one already shown, or an event not above the last."""
    lines = draw(transcripts())
    if draw(st.booleans()):
        ahead = repeat_last(lines)
        ahead["revision"] += 2
        back = repeat_last(lines)
        back["revision"] += draw(st.integers(0, 1))
        return exchange(draw, exchange(draw, lines, ahead), back)
    first = fresh_event(draw, lines)
    second = copy.deepcopy(first["snapshot"])
    second["revision"] -= draw(st.integers(0, min(2, second["revision"])))
    return [*lines, first, event(second)]


def events_capability(draw: st.DrawFn) -> list[Line]:
    """An event from a host that said events false: in its own snapshot, or in the last one."""
    lines = draw(transcripts())
    if draw(st.booleans()):
        return [*lines, fresh_event(draw, lines, events=False)]
    epoch = fresh_epoch(draw, lines)
    quiet = fresh_event(draw, lines, events=False, epoch=epoch)["snapshot"]
    later = copy.deepcopy(quiet) | {"capabilities": {"snapshot": True, "events": True}}
    later["revision"] += draw(st.integers(0, 2))
    return [*exchange(draw, lines, quiet), event(later)]


def unique_keys(draw: st.DrawFn) -> list[Line]:
    """Two sibling runs, two children of one run, or two fleet entries with the same key."""
    lines = draw(transcripts())
    snap = repeat_last(lines, available=True)
    where = draw(st.sampled_from(["runs", "children", "fleet"]))
    twin = _one_node(draw)
    pair = [twin, _one_node(draw) | {"key": twin["key"]}]
    if where == "runs":
        snap["runs"] = pair
    elif where == "children":
        snap["runs"] = [_one_node(draw) | {"children": pair}]
    else:
        key = draw(field("entry", "key"))
        snap["fleet"] |= {
            "entries": [entry(draw, key), entry(draw, key)],
            "totalActive": 2,
            "omitted": 0,
        }
    return exchange(draw, lines, snap)


# -- SHOULD --------------------------------------------------------------------------------------


def fleet_counts(draw: st.DrawFn) -> list[Line]:
    """totalActive below the entries listed, or omitted not covering the rest."""
    lines = draw(transcripts())
    snap = repeat_last(lines, available=True)
    entries = [entry(draw, key) for key in draw(st.lists(field("entry", "key"), min_size=1, max_size=3, unique=True))]
    if draw(st.booleans()):
        total, omitted = len(entries) - 1, 0
    else:
        omitted = draw(st.integers(0, 5))
        total = len(entries) + omitted + draw(st.integers(-omitted, 3).filter(bool))
    snap["fleet"] |= {"entries": entries, "totalActive": total, "omitted": omitted}
    return exchange(draw, lines, snap)


def capacity(draw: st.DrawFn) -> list[Line]:
    """More top-level async runs in use than the limit."""
    lines = draw(transcripts())
    snap = repeat_last(lines)
    limit = draw(st.integers(0, 16))
    snap["fleet"]["topLevelAsyncCapacity"] = {
        "used": limit + draw(st.integers(1, 4)),
        "limit": limit,
    }
    return exchange(draw, lines, snap)


def tokens_total(draw: st.DrawFn) -> list[Line]:
    """A node's or a fleet entry's tokens.total that is not input + output."""
    lines = draw(transcripts())
    snap = repeat_last(lines, available=True)
    inp, out = draw(st.integers(0, 1000)), draw(st.integers(0, 1000))
    bad = {
        "input": inp,
        "output": out,
        "total": inp + out + draw(st.integers(-inp - out, 9).filter(bool)),
    }
    if draw(st.booleans()):
        snap["runs"] = [_one_node(draw, tokens=bad)]
    else:
        snap["fleet"] |= {
            "entries": [entry(draw, "e1") | {"tokens": bad}],
            "totalActive": 1,
            "omitted": 0,
        }
    return exchange(draw, lines, snap)


def node_times(draw: st.DrawFn) -> list[Line]:
    """updatedAt before startedAt, endedAt before updatedAt, or observedAt before startedAt."""
    lines = draw(transcripts())
    snap = repeat_last(lines, available=True)
    at = draw(st.integers(1000, 10**9))
    back = at - draw(st.integers(1, 1000))
    choices: list[dict[str, Any]] = [
        {"startedAt": at, "updatedAt": back},
        {"updatedAt": at, "endedAt": back},
        {"startedAt": at, "endedAt": back},
        {"startedAt": at, "processTerminal": {"state": "observed", "observedAt": back}},
    ]
    times = draw(st.sampled_from(choices))
    base = {
        k: v for k, v in _one_node(draw).items() if k not in ("startedAt", "updatedAt", "endedAt", "processTerminal")
    }
    snap["runs"] = [base | times]
    return exchange(draw, lines, snap)


def outcome(draw: st.DrawFn) -> list[Line]:
    """outcome.status that disagrees with the node, success against it, or a failing exit code."""
    lines = draw(transcripts())
    snap = repeat_last(lines, available=True)
    ways: list[tuple[str, dict[str, Any]]] = [
        ("running", {"status": "failed"}),
        ("completed", {"status": "paused"}),
        ("failed", {"status": "failed", "success": True}),
        ("completed", {"status": "complete", "success": False}),
        ("partial", {"status": "partial", "success": True, "exitCode": 1}),
    ]
    status, said = draw(st.sampled_from(ways))
    snap["runs"] = [_one_node(draw, status=status, outcome=said)]
    return exchange(draw, lines, snap)


def unavailable(draw: st.DrawFn) -> list[Line]:
    """available false, yet runs, omitted runs or fleet entries shown."""
    lines = draw(transcripts())
    snap = repeat_last(lines, available=False)
    way = draw(st.sampled_from(["runs", "omitted", "fleet"]))
    if way == "runs":
        snap["runs"] = [_one_node(draw)]
    elif way == "omitted":
        snap["omitted"] = {"runs": draw(st.integers(1, 5)), "children": 0}
    else:
        snap["fleet"] |= {"entries": [entry(draw, "e1")], "totalActive": 1, "omitted": 0}
    return exchange(draw, lines, snap)


# Each rule's breaker, as its declaration in the wire's registry names it (rules.py, ``breaker``).
BREAKERS: dict[str, Callable[[st.DrawFn], list[Line]]] = REGISTRY.breakers(globals())

# What the wire descriptor's ``strategies`` names: this wire's strategies in one object.
STRATEGIES = Strategies(streams=streams, transcripts=transcripts, sacrificial=sacrificial, breakers=BREAKERS,
                        also=ALSO)
