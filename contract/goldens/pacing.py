"""A golden's pace: the gaps between its lines as recorded, kept in its meta, and replayed on request.

``record`` (and ``scenario`` from an emitter) keep, beside each golden, when its lines came
(``timing.gaps_ms`` in ``<scenario>.meta.json``, an optional member of
``schemas/golden-meta.schema.json``): per line, the milliseconds since the line before it (0 for
the first). Normalised so that re-recording an unchanged build changes nothing: a gap under
``QUANTUM_MS`` (100 ms) is 0 (lines written together), the others are rounded to two significant digits,
and a stored timing is kept as it is while every gap of the new one is within ``TOLERANCE``
of it (``settle``). The reference emitter (``--pace recorded``), ``examples/replay_build.py``
(``--pace recorded``) and ``feed --pace recorded|N|0`` replay it (``delays``), so a consumer sees
a stream as slow and as bursty as the real one.

Light on purpose (the standard library alone): the reference emitter loads it when asked to pace.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

QUANTUM_MS = 100  # gaps shorter than this are lines written together (or our reader's lag on a loaded machine): 0
TOLERANCE = 0.25  # a new gap within 25 % (or QUANTUM_MS) of the stored one leaves the timing as stored
RECORDED = "recorded"


def normalised(gaps_seconds: Sequence[float]) -> list[int]:
    """Gaps in seconds as the meta keeps them: whole milliseconds, 0 under QUANTUM_MS, two significant digits."""
    out = []
    for gap in gaps_seconds:
        ms = gap * 1000.0
        if not math.isfinite(ms) or ms < QUANTUM_MS:
            out.append(0)
            continue
        digits = 10 ** max(math.floor(math.log10(ms)) - 1, 0)
        out.append(round(ms / digits) * digits)
    return out


def gaps_of(arrivals: Sequence[tuple[float, int]]) -> list[float]:
    """Per line, the seconds since the line before it (0 for the first), from a timeline's arrivals."""
    return [0.0, *(b[0] - a[0] for a, b in pairwise(arrivals))] if arrivals else []


def settle(stored: Sequence[int] | None, fresh: Sequence[int]) -> list[int]:
    """The timing to keep: the stored one while the fresh one is within tolerance of it, else the fresh."""
    if stored is None or len(stored) != len(fresh):
        return list(fresh)
    close = all(abs(a - b) <= max(QUANTUM_MS, TOLERANCE * max(a, b)) for a, b in zip(stored, fresh, strict=True))
    return list(stored) if close else list(fresh)


def meta_path(golden: Path) -> Path:
    """``<scenario>.meta.json`` beside ``<scenario>.jsonl``."""
    return golden.with_name(golden.name.removesuffix(".jsonl") + ".meta.json")


def recorded_gaps(golden: Path) -> list[int] | None:
    """The golden's stored gaps in milliseconds, or None when its meta keeps none (or cannot be read)."""
    try:
        timing = json.loads(meta_path(golden).read_text(encoding="utf-8")).get("timing")
    except (OSError, ValueError, AttributeError):
        return None
    gaps = timing.get("gaps_ms") if isinstance(timing, dict) else None
    if not isinstance(gaps, list) or not all(type(gap) is int and gap >= 0 for gap in gaps):
        return None
    return gaps


def with_timing(meta: dict[str, Any], arrivals: Sequence[tuple[float, int]], lines: int) -> dict[str, Any]:
    """``meta`` with its ``timing`` from a run's arrivals (settled against what it stored); unchanged when
    the arrivals do not cover every line (a timeline summarised past its listed count keeps the old)."""
    if len(arrivals) != lines or not lines:
        return meta
    stored = meta.get("timing", {}).get("gaps_ms") if isinstance(meta.get("timing"), dict) else None
    gaps = settle(stored, normalised(gaps_of(arrivals)))
    return {**meta, "timing": {"gaps_ms": gaps}}


def keep_timing(golden: Path, arrivals: Sequence[tuple[float, int]], lines: int) -> bool:
    """Write the run's timing into ``golden``'s meta when it differs from what it keeps; whether it wrote.

    The meta is replaced whole (written beside it, then renamed), so it is old or new, never cut.
    """
    path = meta_path(golden)
    meta = json.loads(path.read_text(encoding="utf-8"))
    updated = with_timing(meta, arrivals, lines)
    if updated == meta:
        return False
    temporary = path.with_name(f".{path.name}.timing.partial")
    temporary.write_text(json.dumps(updated, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(temporary, path)
    return True


def delays(pace: str | float, golden: Path | None, lines: int) -> list[float]:
    """Seconds to wait before each of ``lines`` lines: ``recorded`` (the golden's gaps; none stored: 0),
    a number (that between lines), 0 (none)."""
    if pace == RECORDED:
        gaps = recorded_gaps(golden) if golden is not None else None
        if gaps is None or len(gaps) != lines:
            return [0.0] * lines
        return [gap / 1000.0 for gap in gaps]
    seconds = float(pace)
    return [0.0, *([seconds] * max(lines - 1, 0))] if lines else []


def duration(gaps_ms: Sequence[int]) -> float:
    """A recorded golden's duration in seconds, first line to last."""
    return sum(gaps_ms) / 1000.0


def pace_option(text: str) -> str | float:
    """``--pace``'s value: ``recorded`` or seconds (ValueError otherwise)."""
    if text == RECORDED:
        return RECORDED
    seconds = float(text)
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"expected recorded or seconds (0 or more), found {text!r}")
    return seconds
