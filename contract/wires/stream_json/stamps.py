"""The wire's stamps (``ts``, "RFC 3339"): one reading for a line and for a block of lines.

``StreamRules`` judges a line's stamp with ``RFC3339`` (the field ranges), ``real_day`` (the day
exists in its month, leap years included) and ``leap_minute`` (second 60 only at 23:59 UTC on a month's last day), and
orders two stamps by ``key`` (exact: any fraction length, any offset, a leap second). A block of
stamps is judged at once by ``in_order`` and joined to the run by ``follows``, with a few C-level
passes instead of a pattern and a key per line; both say True only when ``sj.ts-format`` and
``sj.ts-order`` have nothing to report on any of the block's lines, and False whenever they
cannot tell cheaply (a leap second, which sj.ts-leap-second judges line by line against its
table; a lower-case ``t`` or ``z``; offsets that change inside the block): False is never a
verdict, the machine then judges the lines one by one.
"""

from __future__ import annotations

import calendar
import re
from decimal import Decimal

from contract.wires.stream_json import leaps

# RFC 3339 §5.6 date-time, with the field ranges in the pattern; day-of-month and the leap
# second are checked after. Digits are [0-9], never \d: RFC 3339 digits are ASCII, and Python's
# \d also matches fullwidth, Arabic-Indic and mathematical-bold digits.
RFC3339 = re.compile(
    r"([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9]|60)"
    r"(?:\.([0-9]+))?([Zz]|([+-])([01][0-9]|2[0-3]):([0-5][0-9]))"
)
_DAY_MINUTES = 24 * 60

# One stamp as a block is judged: upper-case T and Z only (text order then compares like with
# like), any day 01-31 (the day's month is checked after: ``_days_exist``), and never second 60:
# a leap second is valid only at a month's end and only in a month that had one (sj.ts-format,
# sj.ts-leap-second: the IERS table), which the line path judges, so a block holding one declines.
_DATE = r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])T"
_CLOCK = r"(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"
_STAMP = (rf"{_DATE}(?:{_CLOCK}(?:\.[0-9]+)?Z"
          rf"|{_CLOCK}(?:\.[0-9]+)?[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])")
STAMPS = re.compile(rf"(?:{_STAMP}\n)*{_STAMP}")  # many stamps joined by LF: one C-level match
ONE_STAMP = re.compile(_STAMP)
_DIGITS = bytes.maketrans(b"0123456789", b"0000000000")  # every ASCII digit read as 0: a stamp's shape
# Stamps of one offset and any fraction length, as bytes that sort in time order: Z read as "!",
# below "." and every digit, as "+" and "-" already are (``in_order``).
_ORDER = bytes.maketrans(b"Z", b"!")


def real_day(year: int, month: int, day: int) -> bool:
    """Whether the day exists in its month (proleptic Gregorian calendar, leap years included)."""
    return day <= calendar.monthrange(year, month)[1]


def offset_minutes(match: re.Match[str]) -> int:
    """The offset of a stamp matched by ``RFC3339``, in minutes east of UTC."""
    if match.group(9) is None:  # Z
        return 0
    minutes = int(match.group(10)) * 60 + int(match.group(11))
    return minutes if match.group(9) == "+" else -minutes


def leap_place(match: re.Match[str]) -> leaps.Leap:
    """Where a second-60 stamp falls in UTC (its minute and day once the offset is removed)."""
    local = int(match.group(4)) * 60 + int(match.group(5))
    return leaps.place(int(match.group(1)), int(match.group(2)), int(match.group(3)), local, offset_minutes(match))


def leap_minute(match: re.Match[str]) -> bool:
    """Second 60 is a leap second, valid only at 23:59:60 UTC (after removing the offset) on the
    last day of a month: RFC 3339 §5.7, "at the end of months" (which months had one is
    sj.ts-leap-second's, from the table: ``leaps``)."""
    where = leap_place(match)
    return where.at_2359 and where.month_end


def key(ts: str) -> tuple[int, int, Decimal]:
    """An exact sort key for a valid RFC 3339 stamp: UTC minute, second (60 for a leap second), fraction.

    Computed from the digits, not through datetime: any fraction length, year 0000 and a leap
    second (the 61st second of 23:59 UTC, after 59.999... and before the next minute) all order.
    """
    match = RFC3339.fullmatch(ts)
    assert match is not None  # only stamps that passed the format check are ordered
    year, month, day = int(match.group(1)), int(match.group(2)), int(match.group(3))
    days = days_from_civil(year, month, day)
    minute = days * _DAY_MINUTES + int(match.group(4)) * 60 + int(match.group(5)) - offset_minutes(match)
    fraction = Decimal("0." + match.group(7)) if match.group(7) else Decimal(0)
    return minute, int(match.group(6)), fraction


def days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 0000-03-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm)."""
    if month <= 2:
        year -= 1
    era = year // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe


def in_order(stamps: list[str], joined: str, mixed: bool = True) -> bool:
    """Whether ``stamps`` (strings, ``joined`` by LF) are all valid stamps of one offset, each at or
    after the one before: then sj.ts-format and sj.ts-order have nothing to report inside them.

    Most blocks take a minute or less: when the first and last stamps are valid and share their
    date, hour and minute, and the stamps are in text order, every stamp between shares them too,
    and the digit after the minute's colon lies between theirs; so a stamp is valid when it has the
    first one's shape (each ASCII digit read as 0), which one C-level translate of the whole
    batch shows. Any other block takes the whole pattern (``STAMPS``). Stamps of one length and
    one offset are in time order when they are in text order; of several lengths (a fraction that
    drops its trailing zeros) only with ``mixed``, by the bytes of ``_ORDER``: read so, a shorter
    fraction sorts before every longer one it begins (0.1 before 0.12) and no fraction before any.
    """
    count = len(stamps)
    first, last = stamps[0], stamps[-1]
    if joined.count("\n") != count - 1:  # a stamp holding a line feed
        return False
    zone = "Z" if first[-1:] == "Z" else first[-6:]
    if not last.endswith(zone) or joined.count(zone + "\n") != count - 1:
        return False  # not one offset (Z too: a +05:30 stamp between Z ones): text order is not time order
    if first[:16] == last[:16] and ONE_STAMP.fullmatch(first) and ONE_STAMP.fullmatch(last):
        try:  # bytes: their translate is a table lookup a byte (a stamp not ASCII is no stamp)
            shapes = (joined + "\n").encode("ascii").translate(_DIGITS)
        except UnicodeEncodeError:
            return False
        if shapes == (first + "\n").encode("ascii").translate(_DIGITS) * count:
            return sorted(stamps) == stamps and _days_exist(stamps)
    if STAMPS.fullmatch(joined) is None:
        return False
    if len(set(map(len, stamps))) == 1:
        ordered = sorted(stamps) == stamps
    elif mixed:
        keys = joined.encode("ascii").translate(_ORDER).split(b"\n")
        ordered = sorted(keys) == keys
    else:
        return False
    return ordered and _days_exist(stamps)


def _days_exist(stamps: list[str]) -> bool:
    """Whether each stamp's day exists in its month, for valid stamps in time order: in one month
    the last stamp's day is the highest (a day 28 or less exists in every month)."""
    first, last = stamps[0], stamps[-1]
    if first[:7] == last[:7]:
        return last[8:10] <= "28" or real_day(int(last[:4]), int(last[5:7]), int(last[8:10]))
    dates = {stamp[:10] for stamp in stamps}  # the block crosses a month: once a month at most
    return all(date[8:10] <= "28" or real_day(int(date[:4]), int(date[5:7]), int(date[8:10])) for date in dates)


def follows(before: str, ts: str) -> bool:
    """Whether the valid stamp ``ts`` is at or after the valid stamp ``before`` (sj.ts-order with
    nothing to report). Of one length, one separator and one offset, text order is time order;
    any other pair is ordered by ``key``."""
    if len(before) == len(ts) and before[10] == ts[10] and (
            before[-1] == ts[-1] == "Z" or (before[-6] in "+-" and before[-6:] == ts[-6:])):
        return ts >= before
    return key(ts) >= key(before)
