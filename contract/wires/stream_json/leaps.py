"""The leap-second table (``leap_seconds.json``) and where a second 60 falls in UTC.

RFC 3339 §5.7, which the seed names for ``ts`` ("RFC 3339 timestamp"), allows second 60 only
"at the end of months in which a leap second occurs". Its words decide the end of the month
(``sj.ts-format``, written); which months had one is a fact the words do not hold, read from the
IERS table kept as data (``sj.ts-leap-second``, derived). A month end after the table's
``known_through`` day cannot be decided from it: such a stamp passes, and the report says so in
a note (no silent limit).
"""

from __future__ import annotations

import calendar
import json
from pathlib import Path
from typing import NamedTuple

_TABLE = json.loads((Path(__file__).parent / "leap_seconds.json").read_text(encoding="utf-8"))
LEAP_DAYS: frozenset[str] = frozenset(_TABLE["days"])
KNOWN_THROUGH: str = _TABLE["known_through"]
_DAY_MINUTES = 24 * 60


class Leap(NamedTuple):
    """Where a stamp's second 60 falls in UTC."""

    at_2359: bool  # the minute is 23:59 UTC once the offset is removed
    day: str  # the UTC day, YYYY-MM-DD
    month_end: bool  # that day is the last of its month


def place(year: int, month: int, day: int, local_minute: int, offset_minutes: int) -> Leap:
    """The UTC minute and day of a second-60 stamp written at ``local_minute`` of its local day."""
    utc = local_minute - offset_minutes
    shift, minute = divmod(utc, _DAY_MINUTES)  # -1, 0 or 1 day: offsets are under a day
    year, month, day = _add_days(year, month, day, shift)
    last = calendar.monthrange(year, month)[1]
    return Leap(minute == _DAY_MINUTES - 1, f"{year:04d}-{month:02d}-{day:02d}", day == last)


def _add_days(year: int, month: int, day: int, shift: int) -> tuple[int, int, int]:
    if shift > 0:
        if day < calendar.monthrange(year, month)[1]:
            return year, month, day + 1
        return (year + 1, 1, 1) if month == 12 else (year, month + 1, 1)
    if shift < 0:
        if day > 1:
            return year, month, day - 1
        if month == 1:
            return year - 1, 12, 31
        return year, month - 1, calendar.monthrange(year, month - 1)[1]
    return year, month, day


def occurred(day: str) -> bool | None:
    """Whether a leap second ended UTC ``day``: True or False from the table, None beyond it."""
    if day > KNOWN_THROUGH:
        return None
    return day in LEAP_DAYS
