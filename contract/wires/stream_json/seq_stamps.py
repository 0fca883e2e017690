"""sj.seq, sj.seq-contiguous, sj.session*, sj.ts-*: the members that place a line in its run.

``SeqStamps`` judges each line's ``seq`` (by its exact integer value: ``integral``),
``session_id`` and ``ts`` against the run's so far; ``stamps.py`` reads the stamps themselves
(RFC 3339, their order) and ``leaps.py`` knows the leap seconds. Part of ``StreamRules``
(``machines.py``), whose ``feed`` calls these on every line where the run does not simply step on.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from contract.core.jsonline import MAX_INT_DIGITS
from contract.core.jsonvalue import clip, quoted
from contract.core.sink import Sink
from contract.wires.stream_json import leaps
from contract.wires.stream_json.stamps import RFC3339, leap_minute, leap_place, real_day
from contract.wires.stream_json.stamps import key as ts_key
from contract.wires.stream_json.state import RunState

# "milk session id (sess_...)": the sess_ prefix is written (sj.session); that an id follows it,
# one token with no white space, is the reading of the ellipsis (sj.session-suffix, derived).
SESSION_SUFFIX = re.compile(r"\S+")


class SeqStamps(RunState):
    """The seq, session and stamp rules of ``StreamRules``, over the run's state (``RunState``)."""

    # -- sj.seq, sj.session ----------------------------------------------------------------

    def _seq(self, seq: Any, line: int, out: Sink) -> None:
        """Judge seq by its exact value: 7.0 and 5e0 are the integers 7 and 5 (JSON Schema)."""
        expected = self.next_seq
        value = integral(seq)
        if value is None:  # missing, mistyped or not integral: the schema's finding
            if expected is not None:
                self.next_seq = expected + 1
            return
        if value is TOO_LONG:
            out.emit("checker.limit", line, "/seq",
                     f"sj.seq stopped: a seq of more than {MAX_INT_DIGITS} digits is beyond what the checker "
                     "reads; seq is judged again from the next line on")
            self.next_seq = self.last_seq = None
            return
        last = self.last_seq
        if last is not None:
            out.exercised("sj.seq")
        if expected is not None:
            out.exercised("sj.seq-contiguous")
        # One finding, one basis: a step back below the last seq read breaks the written
        # "monotonic" (sj.seq; monotonic never goes back, but allows a repeat); any other mismatch
        # with one step per line (a gap, a repeat, or a line without a readable seq that took no
        # number) breaks only the contiguity derived from the purpose (sj.seq-contiguous).
        if last is not None and value < last:
            out.emit("sj.seq", line, "/seq",
                     f"expected seq {clip(str(last))} or above (monotonic), found {clip(_number_text(seq))}: "
                     "a step back")
        elif expected is not None and value != expected:
            what = ("a gap (a dropped line?)" if value > expected
                    else "a repeat (a duplicated line, or one that hides a drop?)" if value == last
                    else "one number per line, and a line before it without a readable seq took none")
            out.emit("sj.seq-contiguous", line, "/seq",
                     f"expected seq {clip(str(expected))}, found {clip(_number_text(seq))}: {what}")
        self.next_seq = value + 1
        self.last_seq = value

    def _session(self, session: Any, line: int, out: Sink) -> None:
        """Every line's session_id: its form (sj.session, sj.session-suffix: the description "milk
        session id (sess_...)" is on every line's member) and that it is the first line's
        (sj.session-constant). Called for a line whose id is not the run's, or while the run's
        id is itself not of the form (each line carrying it is judged, as each ts is)."""
        if type(session) is not str:
            return
        out.exercised("sj.session")
        formed = session.startswith("sess_")
        if not formed:
            out.emit("sj.session", line, "/session_id",
                     f"expected a milk session id of the form sess_..., found {quoted(clip(session))}")
        else:
            out.exercised("sj.session-suffix")
            formed = SESSION_SUFFIX.fullmatch(session, 5) is not None
            if not formed:
                out.emit("sj.session-suffix", line, "/session_id",
                         f"expected sess_ followed by an id (one or more characters, no white space), "
                         f"found {quoted(clip(session))}")
        if self.session is None:
            self.session, self.session_ok = session, formed
            return
        out.exercised("sj.session-constant")
        if session == self.session:
            return
        out.emit("sj.session-constant", line, "/session_id",
                 f"expected the run's session_id {quoted(clip(self.session))}, found {quoted(clip(session))}")

    # -- sj.ts-format (MUST), sj.ts-order (SHOULD) ------------------------------------------

    def _ts(self, ts: str, line: int, out: Sink) -> None:
        out.exercised("sj.ts-format")
        if not self._rfc3339(ts):
            out.emit("sj.ts-format", line, "/ts",
                     f"expected an RFC 3339 timestamp such as 2026-01-31T12:00:00Z, found {quoted(clip(ts))}",
                     "ASCII digits, a real calendar date, second 60 only as a leap second at 23:59:60 UTC on "
                     "the last day of a month")
            return
        if ts[17:19] == "60":  # a leap second in its place: was there one that month?
            self._leap_second(ts, line, out)
        last = self.last_ts
        self.last_ts = ts
        if last is not None:
            out.exercised("sj.ts-order")
        if last is None or (ts >= last and len(ts) == len(last) and ts[-1] == last[-1] == "Z" and ts[10] == last[10]):
            return  # same shape in UTC: text order is time order (a leap second included)
        if ts_key(ts) < ts_key(last):
            out.emit("sj.ts-order", line, "/ts",
                     f"expected ts at or after the previous line's {clip(last)}, found {clip(ts)}")

    def _leap_second(self, ts: str, line: int, out: Sink) -> None:
        """sj.ts-leap-second: a second 60 at a month's end, on a day the IERS table says ended
        without one (``leaps``); a day beyond the table passes, with a note once per run."""
        match = RFC3339.fullmatch(ts)
        assert match is not None  # it passed sj.ts-format
        day = leap_place(match).day
        out.exercised("sj.ts-leap-second")
        known = leaps.occurred(day)
        if known is None:
            if not self.leap_beyond_noted:
                self.leap_beyond_noted = True
                out.note(f"line {line}: ts {clip(ts)} is a leap second at the end of {day}, after the leap-second "
                         f"table's last known month ({leaps.KNOWN_THROUGH}): judged by RFC 3339's end of month "
                         "only (sj.ts-leap-second cannot tell; later such stamps are not noted again)")
        elif not known:
            out.emit("sj.ts-leap-second", line, "/ts",
                     f"expected second 60 only at the end of a month in which a leap second occurred "
                     f"(RFC 3339 §5.7), found {clip(ts)}: no leap second ended {day} UTC",
                     "the last leap second was 2016-12-31T23:59:60Z; a clock that never shows :60 is never wrong")

    def _rfc3339(self, ts: str) -> bool:
        """Whether ``ts`` is an RFC 3339 date-time (the schema: "ts (RFC 3339)").

        The pattern is a fixed 19-character date and time, then an optional fraction and the
        offset, each valid on its own. A run's stamps share the first part for a second at a
        time and repeat a few shapes of the second, so both are remembered once seen valid;
        a leap second's head is not, since its validity depends on the offset.
        """
        head, tail = ts[:19], ts[19:]
        if head == self.valid_head and tail in self.valid_tails:
            return True
        match = RFC3339.fullmatch(ts)
        if match is None or (match.group(3) > "28" and not real_day(*map(int, match.group(1, 2, 3)))):
            return False
        if match.group(6) == "60":
            return leap_minute(match)  # at a month's end (RFC 3339 §5.7), not only at 23:59 UTC
        self.valid_head = head
        if len(self.valid_tails) < self.MAX_REMEMBERED_TAILS and len(tail) <= self.MAX_REMEMBERED_TAIL_LENGTH:
            self.valid_tails.add(tail)
        return True


class _TooLong(int):
    """The marker ``integral`` returns for an integer longer than the checker reads."""


TOO_LONG = _TooLong(0)


def integral(value: Any) -> int | None:
    """The exact integer a JSON number stands for, or None when it is no integer.

    Per JSON Schema an integer is any integer-valued number: ``7.0``, ``5e0`` and ``70e-1``
    are 7, 5 and 7, whether the parser hands over an int, a float or a Decimal. A bool is not
    a number. A Decimal is read exactly (``2.0000000000000001`` is not 2); one whose integer
    would be longer than MAX_INT_DIGITS returns TOO_LONG instead of being built.
    """
    kind = type(value)
    if kind is int:
        return int(value)  # already an int: int() only tells the type checker so
    if kind is float:
        return int(value) if value.is_integer() else None
    if kind is Decimal:
        if not value.is_finite():
            return None
        if value.adjusted() >= MAX_INT_DIGITS:
            return TOO_LONG
        if value != value.to_integral_value():
            return None
        return int(value)
    return None


def _number_text(value: Any) -> str:
    return str(value) if type(value) is not float else repr(value)
