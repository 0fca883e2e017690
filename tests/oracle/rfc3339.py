"""RFC 3339 section 5.6 ``date-time``, checked by hand with ASCII digits and a real calendar.

Why by hand: Python's ``\\d`` matches every Unicode decimal digit, and ``$`` matches before a
final newline; RFC 3339's DIGIT is ASCII (RFC 5234 core rules) and the value must end where it ends.
"""

from __future__ import annotations

import re

_DATE_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?"
    r"(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))"
)


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


def is_rfc3339_date_time(value: str) -> bool:
    """True when ``value`` is an RFC 3339 ``date-time`` (leap second only at 23:59:60 UTC on a month's last day)."""
    m = _DATE_TIME.fullmatch(value)
    if m is None:
        return False
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    if not 1 <= month <= 12 or not 1 <= day <= _days_in_month(year, month):
        return False
    if hour > 23 or minute > 59 or second > 60:
        return False
    off_minutes = 0
    if m.group(8) is None:
        off_h, off_m = int(m.group(10)), int(m.group(11))
        if off_h > 23 or off_m > 59:
            return False
        off_minutes = (off_h * 60 + off_m) * (1 if m.group(9) == "+" else -1)
    if second == 60:
        # RFC 3339 5.7: a leap second is 23:59:60 in UTC ("at the end of months"); local time = UTC + offset.
        utc_minutes = (hour * 60 + minute - off_minutes) % (24 * 60)
        if utc_minutes != 23 * 60 + 59:
            return False
        year, month, day = _utc_day(year, month, day, hour * 60 + minute - off_minutes)
        if day != _days_in_month(year, month):
            return False
    return True


# RFC 3339 5.7: "at the end of months in which a leap second occurs". The months, from the IERS
# record (Bulletin C; the tz database's leap-seconds.list, expiring 28 June 2026): every positive
# leap second so far, by the UTC day it ended. Typed here on its own, not read from the checker's
# table (a test compares the two). Days after KNOWN_THROUGH cannot be told.
LEAP_DAYS = frozenset({
    (1972, 6, 30), (1972, 12, 31), (1973, 12, 31), (1974, 12, 31), (1975, 12, 31), (1976, 12, 31),
    (1977, 12, 31), (1978, 12, 31), (1979, 12, 31), (1981, 6, 30), (1982, 6, 30), (1983, 6, 30),
    (1985, 6, 30), (1987, 12, 31), (1989, 12, 31), (1990, 12, 31), (1992, 6, 30), (1993, 6, 30),
    (1994, 6, 30), (1995, 12, 31), (1997, 6, 30), (1998, 12, 31), (2005, 12, 31), (2008, 12, 31),
    (2012, 6, 30), (2015, 6, 30), (2016, 12, 31),
})
KNOWN_THROUGH = (2025, 12, 31)


def _utc_day(year: int, month: int, day: int, utc_minute_of_local_day: int) -> tuple[int, int, int]:
    """The UTC day of a time ``utc_minute_of_local_day`` minutes into the local day (may be <0 or >=1440)."""
    if utc_minute_of_local_day < 0:
        if day > 1:
            return year, month, day - 1
        if month == 1:
            return year - 1, 12, 31
        return year, month - 1, _days_in_month(year, month - 1)
    if utc_minute_of_local_day >= 24 * 60:
        if day < _days_in_month(year, month):
            return year, month, day + 1
        return (year + 1, 1, 1) if month == 12 else (year, month + 1, 1)
    return year, month, day


def leap_second_occurred(value: str) -> bool | None:
    """For a valid date-time with second 60: whether a leap second ended that UTC day (None: after the table)."""
    m = _DATE_TIME.fullmatch(value)
    assert m is not None
    assert m.group(6) == "60"
    year, month, day, hour, minute = (int(m.group(i)) for i in range(1, 6))
    off_minutes = 0 if m.group(8) is not None else (int(m.group(10)) * 60 + int(m.group(11))) * (
        1 if m.group(9) == "+" else -1)
    utc_day = _utc_day(year, month, day, hour * 60 + minute - off_minutes)
    if utc_day > KNOWN_THROUGH:
        return None
    return utc_day in LEAP_DAYS
