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
    """True when ``value`` is an RFC 3339 ``date-time`` (leap second only at 23:59:60 UTC)."""
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
        # RFC 3339 5.7: a leap second is 23:59:60 in UTC; local time = UTC + offset.
        utc_minutes = (hour * 60 + minute - off_minutes) % (24 * 60)
        if utc_minutes != 23 * 60 + 59:
            return False
    return True
