"""The subagent-stdio rules across a conversation's lines: what a line may do given the lines before it.

``Correlation`` (sa.response-correlation: every command answered once, in order), ``Revisions``
(sa.revision-order: within an epoch, revisions never go back) and ``EventsCapability``
(sa.events-capability: no event while a snapshot says events are off). Each remembers what it
needs of the conversation so far, within a bound that is a ``checker.limit`` finding when
reached (``MAX_*``). The rules judged within one host line are ``snapshots``'.
"""

from __future__ import annotations

import hashlib
from collections import deque
from typing import Any, ClassVar

from contract.core.jsonline import exact_int
from contract.core.jsonvalue import same_value
from contract.core.reader import Record
from contract.core.rule import Family, Level, Rule
from contract.core.sink import Sink
from contract.wires.subagent_stdio.lines import COMMAND, EVENT, RESPONSE, show, snapshot_of
from contract.wires.subagent_stdio.registry import REGISTRY
from contract.wires.subagent_stdio.registry import SA as _SA
from contract.wires.subagent_stdio.registry import D as _D

HOST_OUTPUT_ONLY_NOTE = (
    "sa.response-correlation not judged: the file holds no subagent_status commands "
    "(host output only), so responses cannot be matched to what was asked"
)

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


def obj_revision(obj: dict[str, Any], where: str) -> Any:
    """The revision as written at ``where`` (``/revision`` or ``/data/revision``...), for messages."""
    node: Any = obj
    for part in where.strip("/").split("/"):
        node = node.get(part) if type(node) is dict else None
    return node


@REGISTRY.family(
    Rule("sa.response-correlation", Level.MUST, "subagent-stdio",
         "exactly one response per command, id echoed, in order",
         f"{_SA}: $defs.command.id and $defs.response.id: command and response both carry id (structure-"
         "derived MUST: a read-only request/response protocol)", basis=_D, breaker="response_correlation"),
)
class Correlation(Family):
    """sa.response-correlation (MUST): exactly one response per command, id echoed, in order.

    Schema words: ``$defs.command.id`` and ``$defs.response.id`` (the only field the two share),
    ``$defs.response.command: const "subagent_status"`` and ``success: const true``: every
    command is answered, by a response that names the command and echoes its id. Responses are
    matched to outstanding commands first in, first out. A command without an id is answered
    by a response without one; a response whose id names a later outstanding command is out of
    order. Events are pushed at any time and never answer a command.
    """

    also: ClassVar[frozenset[str]] = frozenset({LIMIT})  # a bound it reached

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
            expected = f"id {show(want)}" if want_has else "no id"
            out.emit("sa.response-correlation", line, "/id",
                     f"expected responses in command order: {expected} (the command on line "
                     f"{first_line}), found id {show(rid)} (the command on line {later[0]}) "
                     "answered first")
            return
        self.pending.popleft()
        if not want_has:
            message = (f"expected no id (the command on line {first_line} had none), "
                       f"found id {show(rid)}")
        else:
            found = f"id {show(rid)}" if has_id else "no id"
            message = (f"expected id {show(want)} echoed from the command on line {first_line}, "
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
            what = f"id {show(want)}" if has else "no id"
            out.emit("sa.response-correlation", line, None,
                     f"expected one response to the command on line {line} ({what}), "
                     "found the conversation ending without it")


@REGISTRY.family(
    Rule("sa.revision-order", Level.MUST, "subagent-stdio",
         "within an epoch revisions never go back; events strictly increase",
         f"{_SA}: snapshot.epoch and snapshot.revision (structure-derived MUST: a revision counter scoped by "
         "epoch; revisions judged by value, 3.0 is 3)", basis=_D, breaker="revision_order"),
)
class Revisions(Family):
    """sa.revision-order (MUST): within an epoch revisions never go back; events strictly increase.

    Schema words: ``snapshot.epoch`` (a non-empty string) beside ``snapshot.revision`` (an
    integer from 0): a revision counter scoped by an epoch, so a new epoch (a restarted host)
    may start again from any revision. Within one epoch every snapshot a host shows (response
    data or event) is at or after the highest revision shown so far; an event announces a change,
    so each event's revision is above the previous event's in its epoch. A response may repeat
    the current revision (nothing changed between two questions). An event is placed by its
    envelope's epoch and revision (the snapshot's, when the envelope's are unusable).
    """

    also: ClassVar[frozenset[str]] = frozenset({LIMIT})  # a bound it reached

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
                     f"{show(shown)}, found {show(obj_revision(obj, where))}: a revision went back",
                     "revisions may only restart with a new epoch")
        elif obj.get("type") == EVENT:
            last = self.last_event.get(epoch)
            if last is not None and revision <= last[0]:
                out.emit("sa.revision-order", line, where,
                         f"expected an event revision above {last[0]} (the event on line "
                         f"{last[1]}) in epoch {show(shown)}, found {show(obj_revision(obj, where))}: "
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


@REGISTRY.family(
    Rule("sa.events-capability", Level.MUST, "subagent-stdio",
         "no subagent_event while capabilities.events is false",
         f"{_SA}: snapshot.capabilities.events (structure-derived MUST: the host's own declaration)",
         basis=_D, breaker="events_capability"),
)
class EventsCapability(Family):
    """sa.events-capability (MUST): no subagent_event while capabilities.events is false.

    Schema words: ``snapshot.capabilities.events`` (a boolean beside ``snapshot: const true``):
    a host says whether it pushes events. An event fires the rule when its own snapshot says
    ``events: false``, or when the latest snapshot shown before it in the same epoch said so (the
    client was told no events would come). A snapshot saying ``true`` later, or a new epoch,
    lifts it.
    """


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
