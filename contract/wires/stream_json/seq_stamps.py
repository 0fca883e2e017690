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
from contract.core.rule import Level, Rule
from contract.core.sink import Sink
from contract.wires.stream_json import leaps
from contract.wires.stream_json.registry import REGISTRY
from contract.wires.stream_json.registry import SJ as _SJ
from contract.wires.stream_json.registry import D as _D
from contract.wires.stream_json.registry import P as _P
from contract.wires.stream_json.registry import W as _W
from contract.wires.stream_json.stamps import RFC3339, leap_minute, leap_place, real_day
from contract.wires.stream_json.stamps import key as ts_key
from contract.wires.stream_json.state import RunState

# "milk session id (sess_...)": the sess_ prefix is written (sj.session); that an id follows it,
# one token with no white space, is the reading of the ellipsis (sj.session-suffix, derived).
SESSION_SUFFIX = re.compile(r"\S+")


@REGISTRY.family(
    Rule("sj.ts-format", Level.MUST, "stream-json",
         "ts is an RFC 3339 date-time: ASCII digits, a real date, second 60 only at 23:59:60 UTC on a month's "
         "last day",
         f'{_SJ}, properties.ts.description: "RFC 3339 timestamp" (written: the standard the seed names); '
         "RFC 3339 §5.6 for the grammar, §5.7 for the leap second: 'time-second may have the value 60 at the "
         "end of months in which a leap second occurs', and in other time zones the leap second point is "
         "shifted by the zone offset: read in UTC, 23:59:60 on a month's last day (which months had one is "
         "sj.ts-leap-second's)",
         basis=_W, breaker="ts_format"),
    Rule("sj.ts-leap-second", Level.MUST, "stream-json",
         "a second 60 at a month's end falls in a month in which a leap second occurred (the IERS table; "
         "months after it are noted, not judged)",
         f"{_SJ}, properties.ts.description: 'RFC 3339 timestamp'; RFC 3339 §5.7: second 60 only 'at the end "
         "of months in which a leap second occurs' (derived: which months those are is a fact neither the "
         "seed nor the RFC holds; the suite reads it from the IERS leap-second table, kept as data in "
         "contract/wires/stream_json/leap_seconds.json, known through its last month; a stamp after that "
         "passes with a note, since the table cannot tell)",
         basis=_D, breaker="ts_leap_second"),
    Rule("sj.seq", Level.MUST, "stream-json",
         "seq never goes back within a run (monotonic), judged by value",
         f'{_SJ}, description: "monotonic seq per run" (written: a seq below the one before is not monotonic; '
         "monotonic allows a repeat, which is sj.seq-contiguous's, and the word seq, a sequence number, "
         "counts up); the same sentence's properties.seq.description: \"gap-tolerant consumers can detect "
         "dropped lines on relays\" is the purpose sj.seq-contiguous (derived) stands on, not this rule. "
         "Numbers by value per JSON Schema (1.0 is 1; 2.0000000000000001 is no integer); a line rejected by "
         "framing stands for one step; a seq beyond 4300 digits is checker.limit for that line",
         basis=_W, breaker="seq"),
    Rule("sj.seq-contiguous", Level.MUST, "stream-json",
         "seq has no gap and no repeat: each line's seq is the previous line's plus one",
         f"{_SJ}, properties.seq.description: 'monotonic per run (gap-tolerant consumers can detect dropped "
         "lines on relays)' (derived from the stated purpose: the words write 'monotonic', not 'contiguous'; "
         "seq reveals drops only if every line takes the next number, so a gap is a dropped line and the run as "
         "captured is incomplete, and a repeat would hide a drop or a duplicated line). "
         "Judged by value, a framing-rejected line standing for one step, as "
         "sj.seq", basis=_D, breaker="seq_contiguous"),
    Rule("sj.session", Level.MUST, "stream-json",
         "every line's session_id starts sess_ (the milk session id form sess_...)",
         f'{_SJ}, properties.session_id.description: "milk session id (sess_...)" (written: the prefix), on '
         "every line's member (required on each), so each line's is judged; "
         "what follows it is sj.session-suffix's (derived), "
         'one "milk session id" for the whole run is sj.session-constant\'s (derived)', basis=_W, breaker="session"),
    Rule("sj.session-suffix", Level.MUST, "stream-json",
         "every line's session_id has an id after sess_: one or more characters, no white space",
         f"{_SJ}, properties.session_id.description: 'milk session id (sess_...)' (derived: the ellipsis "
         "stands for the characters of the id, so at least one follows the prefix, and an id is one token, "
         "so none of them is white space; the words write neither, and nothing about its alphabet or length)",
         basis=_D, breaker="session_suffix"),
    Rule("sj.session-constant", Level.MUST, "stream-json", "one session_id for the whole run",
         f"{_SJ}, properties.session_id.description: 'milk session id' on every line (required), and "
         "'monotonic seq per run': derived from the structure (seq and the stream are per run of one "
         "session, so a second id on one stream is a second session's line)", basis=_D, breaker="session_constant"),
    Rule("sj.ts-order", Level.SHOULD, "stream-json", "ts never goes back within a run (leap seconds included)",
         f"policy: {_SJ} orders lines by seq ('monotonic seq per run'), never by ts, and a wall clock may step "
         "back; timestamps that go back suggest a relay reordered lines, so the suite warns (SHOULD) on them "
         "(issue 31: an independent reading found no seed structure it follows from)",
         basis=_P, breaker="ts_order"),
)
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
