"""The subagent-stdio rule machines: one small machine per related group of rules.

A recorded conversation holds both directions in order in one JSONL file: ``subagent_status``
commands (client to host), ``response`` lines and pushed ``subagent_event`` lines (host to
client); the three line types are disjoint by ``type``. A file with host output only is judged
on everything but correlation, and the report says so.

The subagent-stdio schema carries no ``description`` at all, so the MUST rules below come from
its structure (what it repeats, what it scopes, what it names) and every machine's docstring says
which schema words it enforces; the SHOULD rules are inferred consistency and say why.
Machines see every parsed line, valid or not, and judge only the fields whose type they can
trust: a missing or mistyped field is the schema's finding (``sa.schema``), not reported twice.
Integers are read by exact value (``exact_int``): ``3.0`` and ``5e0`` are the integers 3 and 5,
as JSON Schema says, so a relay that writes integers as doubles is still judged;
``2.0000000000000001`` is no integer (the parser keeps it exact) and is left to the schema. A
boolean is never a number (``True`` is an int in Python). Only strings are used as dict keys.

Every bound on what a machine remembers is either reported when reached (``checker.limit``,
once, naming the check and the bound) or summarised in the finding it limits; none is silent.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import deque
from collections.abc import Iterator
from decimal import Decimal
from typing import Any, ClassVar

from contract.core.jsonline import exact_int
from contract.core.jsonvalue import clip, quoted, same_value
from contract.core.reader import Record
from contract.core.rule import Check
from contract.core.sink import Sink
from contract.wires.subagent_stdio.rules import REGISTRY

COMMAND, RESPONSE, EVENT = "subagent_status", "response", "subagent_event"
LINE_TYPES = (COMMAND, RESPONSE, EVENT)

HOST_OUTPUT_ONLY_NOTE = (
    "sa.response-correlation not judged: the file holds no subagent_status commands "
    "(host output only), so responses cannot be matched to what was asked"
)

# Node statuses that name a finished run that worked, and one that did not (sa.outcome).
SUCCEEDED = frozenset({"complete", "completed"})
FAILED = frozenset({"failed", "rejected"})
TIMES = ("startedAt", "updatedAt", "endedAt")
MAX_EARLY = 64  # responses listed one by one before the first command; the rest are counted
MAX_EPOCHS = 4096  # epochs remembered by sa.revision-order; reaching it is a checker.limit
MAX_PENDING = 65536  # unanswered commands remembered by sa.response-correlation; ditto
MAX_KEY_CHARS = 256  # a longer epoch is remembered by its digest, so memory stays bounded


LIMIT = "checker.limit"  # the catalog's rule for a bound reached (contract.rules.catalog)


def _limit(out: Sink, line: int, check: str, bound: str) -> None:
    out.emit("checker.limit", line, None,
             f"expected the checker's bound of {bound} to suffice, found it reached: {check} is not "
             "judged from here on for what did not fit, so the stream cannot be declared conformant")


def _epoch_key(epoch: str) -> str:
    """What an epoch is remembered by: itself, or a digest when long (hostile lines are 64 MiB)."""
    if len(epoch) <= MAX_KEY_CHARS:
        return epoch
    digest = hashlib.blake2b(epoch.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    return f"\x00{len(epoch)}:{digest}"  # a NUL never starts a short key of the same meaning


def snapshot_of(obj: dict[str, Any] | None) -> tuple[str, dict[str, Any]] | None:
    """The snapshot a host line carries and its pointer: a response's data, an event's snapshot."""
    if obj is None:
        return None
    kind = obj.get("type")
    where = "/data" if kind == RESPONSE else "/snapshot" if kind == EVENT else None
    if where is None:
        return None
    snap = obj.get(where[1:])
    return (where, snap) if type(snap) is dict else None


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
                stack.append((f"{here}/children", node.get("children")))


def _show(value: Any) -> str:
    if type(value) is str:
        return quoted(clip(value))  # raw: the reporter escapes it (contract.core.textsafe)
    if value is None:
        return "null"
    if type(value) is bool:
        return "true" if value else "false"
    if type(value) is Decimal:
        return clip(str(value))
    return str(value) if type(value) in (int, float) else type(value).__name__


def obj_revision(obj: dict[str, Any], where: str) -> Any:
    """The revision as written at ``where`` (``/revision`` or ``/data/revision``...), for messages."""
    node: Any = obj
    for part in where.strip("/").split("/"):
        node = node.get(part) if type(node) is dict else None
    return node


class Correlation:
    """sa.response-correlation (MUST): exactly one response per command, id echoed, in order.

    Schema words: ``$defs.command.id`` and ``$defs.response.id`` (the only field the two share),
    ``$defs.response.command: const "subagent_status"`` and ``success: const true``: every
    command is answered, by a response that names the command and echoes its id. Responses are
    matched to outstanding commands first in, first out. A command without an id is answered
    by a response without one; a response whose id names a later outstanding command is out of
    order. Events are pushed at any time and never answer a command.
    """

    rules: ClassVar[frozenset[str]] = REGISTRY.emitted_by("Correlation") | {LIMIT}

    def __init__(self) -> None:
        self.pending: deque[tuple[int, Any, bool]] = deque()  # (line, id, has id)
        self.commands = 0
        self.early: list[int] = []  # responses before the first command (judged once one comes)
        self.early_count = 0
        self.host_lines = 0
        self.limited = False  # MAX_PENDING reached: later commands are not remembered

    def feed(self, record: Record, out: Sink) -> None:
        obj = record.obj
        if obj is None:
            return
        kind = obj.get("type")
        if kind == COMMAND:
            if self.commands == 0 and self.early_count:
                self._flush_early(out)
            self.commands += 1
            if len(self.pending) >= MAX_PENDING:
                if not self.limited:
                    self.limited = True
                    _limit(out, record.line, "sa.response-correlation",
                           f"{MAX_PENDING} unanswered commands")
                return
            self.pending.append((record.line, obj.get("id"), "id" in obj))
        elif kind == EVENT:
            self.host_lines += 1
        elif kind == RESPONSE:
            self.host_lines += 1
            if self.commands == 0:
                self.early_count += 1
                if len(self.early) < MAX_EARLY:
                    self.early.append(record.line)
                return
            if self.limited:  # commands past the bound were not kept: cannot match this one
                return
            self._answer(obj, record.line, out)

    def _flush_early(self, out: Sink) -> None:
        out.exercised("sa.response-correlation")
        for line in self.early:
            out.emit("sa.response-correlation", line, "/type",
                     "expected a response only after a subagent_status command, "
                     "found one before any command")
        unlisted = self.early_count - len(self.early)
        if unlisted > 0:  # counted, not listed: say how many so no finding is silently lost
            out.emit("sa.response-correlation", self.early[-1], None,
                     f"expected a response only after a subagent_status command, found "
                     f"{unlisted} more before any command after this line (the first "
                     f"{MAX_EARLY} are listed one by one)")
        self.early.clear()

    def _answer(self, obj: dict[str, Any], line: int, out: Sink) -> None:
        out.exercised("sa.response-correlation")
        if not self.pending:
            out.emit("sa.response-correlation", line, "/type",
                     "expected no response (every command is already answered), "
                     "found an extra response",
                     "each command gets exactly one response")
            return
        has_id, rid = "id" in obj, obj.get("id")
        first_line, want, want_has = self.pending[0]
        if has_id == want_has and (not has_id or same_value(rid, want)):
            self.pending.popleft()
            return
        later = next(
            (p for p in list(self.pending)[1:] if p[2] and has_id and same_value(p[1], rid)), None
        )
        if later is not None:
            self.pending.remove(later)
            expected = f"id {_show(want)}" if want_has else "no id"
            out.emit("sa.response-correlation", line, "/id",
                     f"expected responses in command order: {expected} (the command on line "
                     f"{first_line}), found id {_show(rid)} (the command on line {later[0]}) "
                     "answered first")
            return
        self.pending.popleft()
        if not want_has:
            message = (f"expected no id (the command on line {first_line} had none), "
                       f"found id {_show(rid)}")
        else:
            found = f"id {_show(rid)}" if has_id else "no id"
            message = (f"expected id {_show(want)} echoed from the command on line {first_line}, "
                       f"found {found}")
        out.emit("sa.response-correlation", line, "/id" if has_id else "", message,
                 "echo the command's id verbatim, and omit id when the command had none")

    def finish(self, out: Sink) -> None:
        if self.commands == 0:
            if self.host_lines:
                out.note(HOST_OUTPUT_ONLY_NOTE)
            return
        if self.limited:  # which remembered command went unanswered is unknown past the bound
            return
        out.exercised("sa.response-correlation")  # every command was answered, or is reported
        for line, want, has in self.pending:
            what = f"id {_show(want)}" if has else "no id"
            out.emit("sa.response-correlation", line, None,
                     f"expected one response to the command on line {line} ({what}), "
                     "found the conversation ending without it")


class Envelope:
    """sa.event-envelope (MUST): an event's sessionId, epoch and revision equal its snapshot's.

    Schema words: ``$defs.event`` requires ``sessionId``, ``epoch`` and ``revision`` beside
    ``snapshot``, and ``$defs.snapshot`` requires the same three with the same types: the
    envelope repeats the snapshot's identity so a client can route an event without opening it,
    which is only sound when the two agree.
    """

    rules: ClassVar[frozenset[str]] = REGISTRY.emitted_by("Envelope")

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
                         f"{_show(snap[name])}, found {_show(obj[name])}")

    def finish(self, out: Sink) -> None:
        pass


class Revisions:
    """sa.revision-order (MUST): within an epoch revisions never go back; events strictly increase.

    Schema words: ``snapshot.epoch`` (a non-empty string) beside ``snapshot.revision`` (an
    integer from 0): a revision counter scoped by an epoch, so a new epoch (a restarted host)
    may start again from any revision. Within one epoch every snapshot a host shows (response
    data or event) is at or after the highest revision shown so far; an event announces a change,
    so each event's revision is above the previous event's in its epoch. A response may repeat
    the current revision (nothing changed between two questions). An event is placed by its
    envelope's epoch and revision (the snapshot's, when the envelope's are unusable).
    """

    rules: ClassVar[frozenset[str]] = REGISTRY.emitted_by("Revisions") | {LIMIT}

    def __init__(self) -> None:
        self.highest: dict[str, tuple[int, int]] = {}  # epoch key -> (revision, line)
        self.last_event: dict[str, tuple[int, int]] = {}
        self.limited = False

    def feed(self, record: Record, out: Sink) -> None:
        obj = record.obj
        if obj is None:
            return
        placed = self._place(obj)
        if placed is None:
            return
        where, shown, revision = placed
        epoch = _epoch_key(shown)
        line = record.line
        if len(self.highest) >= MAX_EPOCHS and epoch not in self.highest:
            if not self.limited:
                self.limited = True
                _limit(out, line, "sa.revision-order", f"{MAX_EPOCHS} epochs remembered")
            return
        top = self.highest.get(epoch)
        if top is not None or (obj.get("type") == EVENT and epoch in self.last_event):
            out.exercised("sa.revision-order")  # a revision compared with an earlier one
        if top is not None and revision < top[0]:
            out.emit("sa.revision-order", line, where,
                     f"expected revision at least {top[0]} (shown on line {top[1]}) in epoch "
                     f"{_show(shown)}, found {_show(obj_revision(obj, where))}: a revision went back",
                     "revisions may only restart with a new epoch")
        elif obj.get("type") == EVENT:
            last = self.last_event.get(epoch)
            if last is not None and revision <= last[0]:
                out.emit("sa.revision-order", line, where,
                         f"expected an event revision above {last[0]} (the event on line "
                         f"{last[1]}) in epoch {_show(shown)}, found {_show(obj_revision(obj, where))}: "
                         "events must strictly increase")
        if top is None or revision > top[0]:
            self.highest[epoch] = (revision, line)
        if obj.get("type") == EVENT:
            self.last_event[epoch] = (revision, line)

    @staticmethod
    def _place(obj: dict[str, Any]) -> tuple[str, str, int] | None:
        epoch, revision = obj.get("epoch"), exact_int(obj.get("revision"))
        if obj.get("type") == EVENT and type(epoch) is str and revision is not None:
            return "/revision", epoch, revision
        found = snapshot_of(obj)
        if found is None:
            return None
        where, snap = found
        epoch, revision = snap.get("epoch"), exact_int(snap.get("revision"))
        if type(epoch) is str and revision is not None:
            return f"{where}/revision", epoch, revision
        return None

    def finish(self, out: Sink) -> None:
        pass


class EventsCapability:
    """sa.events-capability (MUST): no subagent_event while capabilities.events is false.

    Schema words: ``snapshot.capabilities.events`` (a boolean beside ``snapshot: const true``):
    a host says whether it pushes events. An event fires the rule when its own snapshot says
    ``events: false``, or when the latest snapshot shown before it in the same epoch said so (the
    client was told no events would come). A snapshot saying ``true`` later, or a new epoch,
    lifts it.
    """

    rules: ClassVar[frozenset[str]] = REGISTRY.emitted_by("EventsCapability")

    def __init__(self) -> None:
        self.epoch: Any = None
        self.events_off_at: int | None = None  # line of the latest snapshot saying events false

    def feed(self, record: Record, out: Sink) -> None:
        obj = record.obj
        if obj is None:
            return
        found = snapshot_of(obj)
        if obj.get("type") == EVENT:
            self._judge(found[1] if found else None, record.line, out)
        if found is None:
            return
        snap = found[1]
        caps = snap.get("capabilities")
        events = caps.get("events") if type(caps) is dict else None
        if type(events) is bool:
            self.epoch = snap.get("epoch")
            self.events_off_at = None if events else record.line

    def _judge(self, snap: dict[str, Any] | None, line: int, out: Sink) -> None:
        out.exercised("sa.events-capability")
        caps = snap.get("capabilities") if snap is not None else None
        own = caps.get("events") if type(caps) is dict else None
        if own is False:
            out.emit("sa.events-capability", line, "/snapshot/capabilities/events",
                     "expected no subagent_event from a host whose snapshot says "
                     "capabilities.events false, found an event saying so itself",
                     "advertise events: true, or do not push events")
            return
        same_epoch = snap is None or same_value(snap.get("epoch"), self.epoch)
        if self.events_off_at is not None and same_epoch:
            out.emit("sa.events-capability", line, "/type",
                     "expected no subagent_event while capabilities.events is false "
                     f"(line {self.events_off_at}), found an event",
                     "a snapshot must advertise events: true before events are pushed")

    def finish(self, out: Sink) -> None:
        pass


class UniqueKeys:
    """sa.unique-keys (MUST): sibling node keys and fleet entry keys are unique.

    Schema words: ``node.key`` and ``fleet.entries[].key`` are required identifiers with the
    path-segment pattern ``^[^/\\\\\\r\\n]+$`` (no slash, no backslash): keys are meant to be
    joined into paths through the recursive ``runs``/``children`` tree, which only names one node
    when siblings differ. Checked at every level of the tree and across fleet entries.
    """

    rules: ClassVar[frozenset[str]] = REGISTRY.emitted_by("UniqueKeys")

    def feed(self, record: Record, out: Sink) -> None:
        found = snapshot_of(record.obj)
        if found is None:
            return
        where, snap = found
        self._siblings(f"{where}/runs", snap.get("runs"), "run", record.line, out)
        for at, node in _nodes(where, snap):
            self._siblings(f"{at}/children", node.get("children"), "child", record.line, out)
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
                         f"expected a {what} key unique among its siblings, found {_show(key)} "
                         f"again (first at {at}/{seen[key]})")
            else:
                seen[key] = index

    def finish(self, out: Sink) -> None:
        pass


class Consistency:
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

    rules: ClassVar[frozenset[str]] = REGISTRY.emitted_by("Consistency")

    def feed(self, record: Record, out: Sink) -> None:
        found = snapshot_of(record.obj)
        if found is None:
            return
        where, snap = found
        line = record.line
        fleet = snap.get("fleet")
        if type(fleet) is dict:
            self._fleet(f"{where}/fleet", fleet, line, out)
        for at, node in _nodes(where, snap):
            self._node(at, node, line, out)
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
                    _tokens(f"{at}/entries/{index}/tokens", entry.get("tokens"), line, out)

    @staticmethod
    def _node(at: str, node: dict[str, Any], line: int, out: Sink) -> None:
        _tokens(f"{at}/tokens", node.get("tokens"), line, out)
        _times(at, node, line, out)
        _outcome(at, node, line, out)

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


class Checks:
    """The checks declared beside their rules (``rules.py``, ``REGISTRY.check``), fed by line type.

    One machine for all of them, built only when there is one (``_machines``): each object line
    goes to the checks that name its type, in declaration order.
    """

    def __init__(self, checks: list[Check]) -> None:
        self.checks = checks
        self.rules = frozenset(rule for check in checks for rule in check.rules)
        self.by_kind: dict[str, list[Check]] = {}
        for check in checks:
            for kind in check.kinds:
                self.by_kind.setdefault(kind, []).append(check)

    def feed(self, record: Record, out: Sink) -> None:
        obj = record.obj
        kind = obj.get("type") if obj is not None else None
        if type(kind) is not str or obj is None:
            return
        for check in self.by_kind.get(kind, ()):
            check.line(obj, record.line, out)

    def finish(self, out: Sink) -> None:
        for check in self.checks:
            check.finish(out)


def _tokens(at: str, tokens: Any, line: int, out: Sink) -> None:
    if type(tokens) is not dict:
        return
    inp, outp, total = tokens.get("input"), tokens.get("output"), tokens.get("total")
    if not (type(inp) is int and type(outp) is int and type(total) is int):  # rare: 1e1, 5.0, junk
        inp, outp, total = exact_int(inp), exact_int(outp), exact_int(total)
        if inp is None or outp is None or total is None:
            return
    out.exercised("sa.tokens-total")
    if total != inp + outp:
        out.emit("sa.tokens-total", line, f"{at}/total",
                 f"expected total = input + output = {inp} + {outp} = {inp + outp}, found {total}")


def _times(at: str, node: dict[str, Any], line: int, out: Sink) -> None:
    # type(v) is int first: exact_int is only called for the rare other forms (per node, hot)
    stamps = [(name, v if type(v := node.get(name)) is int or v is None else exact_int(v)) for name in TIMES]
    present = [(name, value) for name, value in stamps if value is not None]
    if len(present) > 1:
        out.exercised("sa.node-times")
    for (early, a), (late, b) in itertools.pairwise(present):
        if b < a:
            out.emit("sa.node-times", line, f"{at}/{late}",
                     f"expected {late} at or after {early} {a}, found {b}")
    terminal, started = node.get("processTerminal"), exact_int(node.get("startedAt"))
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
