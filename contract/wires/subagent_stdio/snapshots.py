"""The subagent-stdio rules within one host line: what its snapshot says of itself.

``Envelope`` (sa.event-envelope: an event's envelope repeats its snapshot's identity),
``UniqueKeys`` (sa.unique-keys: sibling keys differ) and ``Consistency`` (the SHOULD set: fleet
counts, capacity, token totals, node times, outcomes, an unavailable host showing nothing). None
remembers anything between lines. The last two walk the snapshot's runs tree (``_nodes``), the
costly part of checking this wire (BENCHMARKS.md, "subagent-stdio"), only where one quick pass
shared by both (``Walked``) did not prove there is nothing to report. The rules across lines are
``conversation``'s.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from contract.core.jsonline import exact_int
from contract.core.jsonvalue import clip, quoted, same_value
from contract.core.reader import Record
from contract.core.rule import Family, Level, Rule
from contract.core.sink import Sink
from contract.wires.subagent_stdio.lines import EVENT, show, snapshot_of
from contract.wires.subagent_stdio.registry import REGISTRY
from contract.wires.subagent_stdio.registry import SA as _SA
from contract.wires.subagent_stdio.registry import D as _D

# Node statuses that name a finished run that worked, and one that did not (sa.outcome).
SUCCEEDED = frozenset({"complete", "completed"})
FAILED = frozenset({"failed", "rejected"})
TIMES = ("startedAt", "updatedAt", "endedAt")


def _nodes(where: str, snap: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every node of the recursive runs tree with its pointer (iterative: no recursion limit)."""
    stack: list[tuple[str, Any]] = [(f"{where}/runs", snap.get("runs"))]
    while stack:
        at, siblings = stack.pop()
        if type(siblings) is not list:
            continue
        for index, node in enumerate(siblings):
            if type(node) is dict:
                here = f"{at}/{index}"
                yield here, node
                children = node.get("children")
                if children:  # most nodes are leaves: no pointer built, nothing pushed
                    stack.append((f"{here}/children", children))


class Walked:
    """What one quick pass over a snapshot proved for ``UniqueKeys`` and ``Consistency``, shared by the two.

    ``of(snap)`` walks the runs tree and the fleet once, with no pointer built and no call per
    node, and returns ``(unique, rules)``: nothing for either machine to report, ``unique`` whether
    UniqueKeys judged a list of siblings and ``rules`` the rules Consistency judged, exactly the
    ``exercised`` calls their walks make; or None wherever a finding may be there or a value is
    in a rarer form (a number written as 5.0, a string where a number goes, ``available`` false):
    the machines then walk the snapshot as before, so every finding and message is theirs
    (tests/wires/subagent_stdio/test_recorded_findings.py holds them to the findings recorded
    before this pass existed). The last snapshot's answer is kept (the two machines are fed the
    same line one after the other); it holds that one object alive, never more. Issue 50: the two
    walks were the bulk of checking this wire.
    """

    __slots__ = ("_found", "_snap")

    def __init__(self) -> None:
        self._snap: Any = None
        self._found: tuple[bool, tuple[str, ...]] | None = None

    def of(self, snap: dict[str, Any]) -> tuple[bool, tuple[str, ...]] | None:
        if snap is not self._snap:
            self._snap, self._found = snap, _quick(snap)
        return self._found


def _quick(snap: dict[str, Any]) -> tuple[bool, tuple[str, ...]] | None:
    if snap.get("available") is False:
        return None
    fleet = snap.get("fleet")
    counts = capacity = fleet_unique = fleet_tokens = False
    if type(fleet) is dict:
        held = _quick_fleet(fleet)
        if held is None:
            return None
        counts, capacity, fleet_unique, fleet_tokens = held
    runs = snap.get("runs")
    walked = _quick_runs(runs) if type(runs) is list else (False, False, False, False)
    if walked is None:
        return None
    unique, tokens, times, outcome = walked
    rules = tuple(rule for rule, judged in (("sa.fleet-counts", counts), ("sa.capacity", capacity),
                                            ("sa.tokens-total", tokens or fleet_tokens), ("sa.node-times", times),
                                            ("sa.outcome", outcome)) if judged)
    return unique or fleet_unique, rules


def _quick_fleet(fleet: dict[str, Any]) -> tuple[bool, bool, bool, bool] | None:
    """(fleet-counts judged, capacity judged, entries' keys judged, a total judged), or None."""
    counts = capacity = unique = tokens = False
    entries, total, omitted = fleet.get("entries"), fleet.get("totalActive"), fleet.get("omitted")
    if (total is not None and type(total) is not int) or (omitted is not None and type(omitted) is not int):
        return None
    if type(entries) is list:
        listed = len(entries)
        if total is not None:
            counts = True
            if total < listed or (omitted is not None and omitted != total - listed):
                return None
        if listed > 1:
            unique = True
            keys = [key for entry in entries if type(entry) is dict and type(key := entry.get("key")) is str]
            if len(set(keys)) != len(keys):
                return None
        for entry in entries:
            judged = _total_holds(entry.get("tokens")) if type(entry) is dict else 0
            if judged < 0:
                return None
            tokens = tokens or judged > 0
    held = fleet.get("topLevelAsyncCapacity")
    if type(held) is dict:
        used, limit = held.get("used"), held.get("limit")
        if (used is not None and type(used) is not int) or (limit is not None and type(limit) is not int):
            return None
        if used is not None and limit is not None:
            capacity = True
            if used > limit:
                return None
    return counts, capacity, unique, tokens


def _quick_runs(runs: list[Any]) -> tuple[bool, bool, bool, bool] | None:
    """(sibling keys judged, a total judged, node times judged, an outcome judged) over the runs
    tree, or None: the per-node hot loop of the wire, locals only, every rare form sent back."""
    unique = tokens = times = outcome = False
    stack = [runs]
    while stack:
        siblings = stack.pop()
        many = len(siblings) > 1
        if many:
            unique = True
            seen: set[str] = set()
        for node in siblings:
            if type(node) is not dict:
                continue
            get = node.get
            if many:
                key = get("key")
                if type(key) is str:
                    if key in seen:
                        return None
                    seen.add(key)
            found = get("tokens")
            if type(found) is dict:
                inp, outp, total = found.get("input"), found.get("output"), found.get("total")
                if type(inp) is int and type(outp) is int and type(total) is int:
                    if total != inp + outp:
                        return None
                    tokens = True
                elif not (inp is None or outp is None or total is None):
                    return None
            judged = _times_hold(node)
            if judged < 0:
                return None
            times = times or judged > 0
            if "outcome" in node:
                said = get("outcome")
                if type(said) is dict:
                    outcome = True
                    if not _outcome_holds(get("status"), said):
                        return None
            children = get("children")
            if children and type(children) is list:
                stack.append(children)
    return unique, tokens, times, outcome


def _total_holds(tokens: Any) -> int:
    """What ``_tokens`` does with these tokens: 0 nothing, 1 judges them and finds nothing, -1 may find
    something or meets a rarer form (the machine's walk then judges)."""
    if type(tokens) is not dict:
        return 0
    inp, outp, total = tokens.get("input"), tokens.get("output"), tokens.get("total")
    if type(inp) is int and type(outp) is int and type(total) is int:
        return 1 if total == inp + outp else -1
    return 0 if inp is None or outp is None or total is None else -1


def _times_hold(node: dict[str, Any]) -> int:
    """What ``_times`` does with this node, as ``_total_holds`` says it."""
    started, updated, ended = node.get("startedAt"), node.get("updatedAt"), node.get("endedAt")
    judged = 0
    last = started
    if started is not None and type(started) is not int:
        return -1
    if updated is not None:
        if type(updated) is not int:
            return -1
        if last is not None:
            judged = 1
            if updated < last:
                return -1
        last = updated
    if ended is not None:
        if type(ended) is not int:
            return -1
        if last is not None:
            judged = 1
            if ended < last:
                return -1
    terminal = node.get("processTerminal")
    if type(terminal) is dict and started is not None:
        observed = terminal.get("observedAt")
        if observed is not None:
            if type(observed) is not int or observed < started:
                return -1
            judged = 1
    return judged


def _outcome_holds(status: Any, outcome: dict[str, Any]) -> bool:
    """Whether ``_outcome`` has nothing to say of this outcome (its rarer forms: False, said there)."""
    said = outcome.get("status")
    if type(status) is str and type(said) is str and said != status and not (said in SUCCEEDED and status in SUCCEEDED):
        return False
    success = outcome.get("success")
    if type(success) is not bool:
        return True
    final = said if type(said) is str else status
    if type(final) is str and (final in FAILED if success else final in SUCCEEDED):
        return False
    code = outcome.get("exitCode") if success else None
    return code is None or (type(code) is int and code == 0)


@REGISTRY.family(
    Rule("sa.event-envelope", Level.MUST, "subagent-stdio",
         "an event's sessionId, epoch and revision equal its snapshot's",
         f"{_SA}: $defs.event repeats sessionId, epoch and revision beside $defs.event.snapshot "
         "(structure-derived MUST: the envelope restates its snapshot)", basis=_D, breaker="event_envelope"),
)
class Envelope(Family):
    """sa.event-envelope (MUST): an event's sessionId, epoch and revision equal its snapshot's.

    Schema words: ``$defs.event`` requires ``sessionId``, ``epoch`` and ``revision`` beside
    ``snapshot``, and ``$defs.snapshot`` requires the same three with the same types: the
    envelope repeats the snapshot's identity so a client can route an event without opening it,
    which is only sound when the two agree.
    """


    FIELDS = ("sessionId", "epoch", "revision")

    def feed(self, record: Record, out: Sink) -> None:
        obj = record.obj
        if obj is None or obj.get("type") != EVENT:
            return
        snap = obj.get("snapshot")
        if type(snap) is not dict:
            return
        for name in self.FIELDS:
            if name in obj and name in snap:
                out.exercised("sa.event-envelope")
            if name in obj and name in snap and not same_value(obj[name], snap[name]):
                out.emit("sa.event-envelope", record.line, f"/{name}",
                         f"expected the event's {name} to equal its snapshot's "
                         f"{show(snap[name])}, found {show(obj[name])}")

    def finish(self, out: Sink) -> None:
        pass


@REGISTRY.family(
    Rule("sa.unique-keys", Level.MUST, "subagent-stdio", "sibling node keys and fleet entry keys are unique",
         f"{_SA}: node.key and fleet.entries[].key are identifiers (pattern ^[^/\\\\\\r\\n]+$; structure-derived "
         "MUST: key, runId and workflowId patterns forbid / and \\\\, so keys are path segments and "
         "siblings must be unique)", basis=_D, breaker="unique_keys"),
)
class UniqueKeys(Family):
    """sa.unique-keys (MUST): sibling node keys and fleet entry keys are unique.

    Schema words: ``node.key`` and ``fleet.entries[].key`` are required identifiers with the
    path-segment pattern ``^[^/\\\\\\r\\n]+$`` (no slash, no backslash): keys are meant to be
    joined into paths through the recursive ``runs``/``children`` tree, which only names one node
    when siblings differ. Checked at every level of the tree and across fleet entries.
    """


    def __init__(self, walked: Walked | None = None) -> None:
        self.walked = walked or Walked()  # shared with Consistency by the descriptor (_machines)

    def feed(self, record: Record, out: Sink) -> None:
        found = snapshot_of(record.obj)
        if found is None:
            return
        where, snap = found
        quick = self.walked.of(snap)
        if quick is not None:  # nothing to report: only what the walk below would have judged
            if quick[0]:
                out.exercised("sa.unique-keys")
            return
        self._siblings(f"{where}/runs", snap.get("runs"), "run", record.line, out)
        for at, node in _nodes(where, snap):
            children = node.get("children")
            if type(children) is list and len(children) > 1:  # per node: no pointer built for a leaf
                self._siblings(f"{at}/children", children, "child", record.line, out)
        fleet = snap.get("fleet")
        if type(fleet) is dict:
            entries = fleet.get("entries")
            self._siblings(f"{where}/fleet/entries", entries, "fleet entry", record.line, out)

    @staticmethod
    def _siblings(at: str, items: Any, what: str, line: int, out: Sink) -> None:
        if type(items) is not list or len(items) < 2:
            return
        out.exercised("sa.unique-keys")
        seen: dict[str, int] = {}
        for index, item in enumerate(items):
            key = item.get("key") if type(item) is dict else None
            if type(key) is not str:
                continue
            if key in seen:
                out.emit("sa.unique-keys", line, f"{at}/{index}/key",
                         f"expected a {what} key unique among its siblings, found {show(key)} "
                         f"again (first at {at}/{seen[key]})")
            else:
                seen[key] = index

    def finish(self, out: Sink) -> None:
        pass


@REGISTRY.family(
    Rule("sa.fleet-counts", Level.SHOULD, "subagent-stdio",
         "fleet.totalActive is at least the entries listed, and omitted covers the rest",
         f"inferred from {_SA}: fleet.entries (maxItems 16), fleet.totalActive, fleet.omitted",
         basis=_D, breaker="fleet_counts"),
    Rule("sa.capacity", Level.SHOULD, "subagent-stdio", "topLevelAsyncCapacity.used does not exceed limit",
         f"inferred from {_SA}: fleet.topLevelAsyncCapacity.used / limit", basis=_D, breaker="capacity"),
    Rule("sa.tokens-total", Level.SHOULD, "subagent-stdio", "tokens.total equals input + output",
         f"inferred from {_SA}: $defs.tokens input, output, total", basis=_D, breaker="tokens_total"),
    Rule("sa.node-times", Level.SHOULD, "subagent-stdio",
         "startedAt <= updatedAt <= endedAt, and observedAt not before startedAt",
         f"inferred from {_SA}: node.startedAt, updatedAt, endedAt, processTerminal.observedAt",
         basis=_D, breaker="node_times"),
    Rule("sa.outcome", Level.SHOULD, "subagent-stdio",
         "outcome.status agrees with the node status; success agrees with the status and exitCode",
         f"inferred from {_SA}: node.outcome.status repeats the node status enum", basis=_D, breaker="outcome"),
    Rule("sa.unavailable", Level.SHOULD, "subagent-stdio",
         "available false comes with an empty fleet and no runs (none omitted either)",
         f"inferred from {_SA}: snapshot.available", basis=_D, breaker="unavailable"),
)
class Consistency(Family):
    """The SHOULD set, each inferred from the schema's structure (it has no descriptions).

    * sa.fleet-counts: ``fleet.entries`` is capped (``maxItems: 16``) and ``fleet.omitted`` sits
      beside ``totalActive``: inferred that the entries listed plus those omitted are the active
      ones, so ``totalActive >= len(entries)`` and ``omitted == totalActive - len(entries)``.
    * sa.capacity: ``topLevelAsyncCapacity`` has ``used`` and ``limit``: inferred ``used <= limit``.
    * sa.tokens-total: ``$defs.tokens`` has ``input``, ``output`` and ``total``: inferred
      ``total == input + output`` (wherever tokens appear: fleet entries and nodes).
    * sa.node-times: ``node.startedAt``, ``updatedAt``, ``endedAt`` and
      ``processTerminal.observedAt`` are timestamps of one run: inferred
      ``startedAt <= updatedAt <= endedAt`` (those present) and ``observedAt >= startedAt``.
    * sa.outcome: ``node.outcome.status`` repeats the node status enum: inferred that it agrees
      with the node's status (``complete`` and ``completed`` are taken as one), that
      ``success: true`` does not come with a failed or rejected status nor ``success: false`` with
      a completed one, and that ``success: true`` does not come with a non-zero ``exitCode``.
    * sa.unavailable: ``snapshot.available`` is a boolean beside the fleet and the runs: inferred
      that a host without subagent data shows none: no runs, none omitted, an empty fleet with
      ``totalActive`` and ``omitted`` 0.
    """


    def __init__(self, walked: Walked | None = None) -> None:
        self.walked = walked or Walked()  # shared with UniqueKeys by the descriptor (_machines)

    def feed(self, record: Record, out: Sink) -> None:
        found = snapshot_of(record.obj)
        if found is None:
            return
        where, snap = found
        quick = self.walked.of(snap)
        if quick is not None:  # nothing to report: only what the walk below would have judged
            for rule in quick[1]:
                out.exercised(rule)
            return
        line = record.line
        fleet = snap.get("fleet")
        if type(fleet) is dict:
            self._fleet(f"{where}/fleet", fleet, line, out)
        for at, node in _nodes(where, snap):  # per node, the hot loop: no call a node does not need
            tokens = node.get("tokens")
            if tokens is not None:
                _tokens(at, "/tokens", tokens, line, out)
            _times(at, node, line, out)
            if "outcome" in node:
                _outcome(at, node, line, out)
        if snap.get("available") is False:
            self._unavailable(where, snap, line, out)

    @staticmethod
    def _fleet(at: str, fleet: dict[str, Any], line: int, out: Sink) -> None:
        entries, total = fleet.get("entries"), exact_int(fleet.get("totalActive"))
        omitted = exact_int(fleet.get("omitted"))
        if type(entries) is list and total is not None:
            out.exercised("sa.fleet-counts")
            listed = len(entries)
            if total < listed:
                out.emit("sa.fleet-counts", line, f"{at}/totalActive",
                         f"expected totalActive at least the {_count(listed, 'entry', 'entries')} "
                         f"listed, found {total}")
            elif omitted is not None and omitted != total - listed:
                out.emit("sa.fleet-counts", line, f"{at}/omitted",
                         f"expected omitted to cover the active entries not listed "
                         f"(totalActive {total} - {listed} listed = {total - listed}), "
                         f"found {omitted}")
        capacity = fleet.get("topLevelAsyncCapacity")
        if type(capacity) is dict:
            used, limit = exact_int(capacity.get("used")), exact_int(capacity.get("limit"))
            if used is not None and limit is not None:
                out.exercised("sa.capacity")
            if used is not None and limit is not None and used > limit:
                out.emit("sa.capacity", line, f"{at}/topLevelAsyncCapacity/used",
                         f"expected used at most the limit {limit}, found {used}")
        if type(entries) is list:
            for index, entry in enumerate(entries):
                if type(entry) is dict:
                    _tokens(f"{at}/entries/{index}", "/tokens", entry.get("tokens"), line, out)

    @staticmethod
    def _unavailable(where: str, snap: dict[str, Any], line: int, out: Sink) -> None:
        shown: list[tuple[str, str]] = []
        runs = snap.get("runs")
        if type(runs) is list and runs:
            shown.append(("/runs", _count(len(runs), "run")))
        omitted = snap.get("omitted")
        omitted_runs = exact_int(omitted.get("runs")) if type(omitted) is dict else None
        if omitted_runs is not None and omitted_runs > 0:
            shown.append(("/omitted/runs", f"omitted.runs {omitted_runs}"))
        fleet = snap.get("fleet")
        if type(fleet) is dict:
            entries = fleet.get("entries")
            if type(entries) is list and entries:
                listed = _count(len(entries), "fleet entry", "fleet entries")
                shown.append(("/fleet/entries", listed))
            for name in ("totalActive", "omitted"):
                value = exact_int(fleet.get(name))
                if value is not None and value > 0:
                    shown.append((f"/fleet/{name}", f"fleet.{name} {value}"))
        out.exercised("sa.unavailable")
        for pointer, what in shown:
            out.emit("sa.unavailable", line, f"{where}{pointer}",
                     f"expected no runs and an empty fleet while available is false, found {what}")

    def finish(self, out: Sink) -> None:
        pass


def _tokens(at: str, tail: str, tokens: Any, line: int, out: Sink) -> None:
    # the pointer is at + tail, joined only for a finding (this runs for every node)
    if type(tokens) is not dict:
        return
    inp, outp, total = tokens.get("input"), tokens.get("output"), tokens.get("total")
    if not (type(inp) is int and type(outp) is int and type(total) is int):  # rare: 1e1, 5.0, junk
        inp, outp, total = exact_int(inp), exact_int(outp), exact_int(total)
        if inp is None or outp is None or total is None:
            return
    out.exercised("sa.tokens-total")
    if total != inp + outp:
        out.emit("sa.tokens-total", line, f"{at}{tail}/total",
                 f"expected total = input + output = {inp} + {outp} = {inp + outp}, found {total}")


def _times(at: str, node: dict[str, Any], line: int, out: Sink) -> None:
    # per node, hot: exact_int only for the rare forms that are not a plain int (1e3, 5.0, junk)
    started, updated, ended = node.get("startedAt"), node.get("updatedAt"), node.get("endedAt")
    if started is not None and type(started) is not int:
        started = exact_int(started)
    if updated is not None and type(updated) is not int:
        updated = exact_int(updated)
    if ended is not None and type(ended) is not int:
        ended = exact_int(ended)
    before, last = "", None  # the stamp present before this one, in TIMES order
    for name, value in (("startedAt", started), ("updatedAt", updated), ("endedAt", ended)):
        if value is None:
            continue
        if last is not None:
            out.exercised("sa.node-times")
            if value < last:
                out.emit("sa.node-times", line, f"{at}/{name}",
                         f"expected {name} at or after {before} {last}, found {value}")
        before, last = name, value
    terminal = node.get("processTerminal")
    if type(terminal) is dict and started is not None:
        observed = exact_int(terminal.get("observedAt"))
        if observed is not None:
            out.exercised("sa.node-times")
        if observed is not None and observed < started:
            out.emit("sa.node-times", line, f"{at}/processTerminal/observedAt",
                     f"expected observedAt at or after startedAt {started}, found {observed}")


def _outcome(at: str, node: dict[str, Any], line: int, out: Sink) -> None:
    outcome = node.get("outcome")
    if type(outcome) is not dict:
        return
    status, said = node.get("status"), outcome.get("status")
    out.exercised("sa.outcome")
    if type(status) is str and type(said) is str and _status_class(said) != _status_class(status):
        out.emit("sa.outcome", line, f"{at}/outcome/status",
                 f"expected outcome.status to agree with the node status {quoted(clip(status))}, "
                 f"found {quoted(clip(said))}")
    success = outcome.get("success")
    if type(success) is not bool:
        return
    final = said if type(said) is str else status
    if type(final) is str and (final in FAILED if success else final in SUCCEEDED):
        out.emit("sa.outcome", line, f"{at}/outcome/success",
                 f"expected success {str(not success).lower()} with status {quoted(clip(final))}, "
                 f"found {str(success).lower()}")
    code = exact_int(outcome.get("exitCode")) if success else None
    if code is not None and code != 0:
        out.emit("sa.outcome", line, f"{at}/outcome/exitCode",
                 f"expected exitCode 0 with success true, found {code}")


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def _status_class(status: str) -> str:
    return "completed" if status in SUCCEEDED else status
