"""The shape catalogue: conformant stream-json runs of many shapes and dates (issue 34).

The block facts are the checker's fast path; ``contract.checking.fastpath.measure`` counts which lines they
judge. The catalogue is what that is measured on (tests/checking/test_fastpath_coverage.py asserts 100 %,
bench/regress.py times it against ``json.loads``):

* **bodies** (``bodies()``): the lines between init and result of each golden, and of all of
  them in turn (each golden's ids suffixed apart: whichever goldens there are, their ids may
  repeat); of the strategies' generated transcripts (``transcripts()``, drawn with fixed seeds);
  and of the real transcripts of other agent CLIs, their shapes kept as milk lines
  (tests/data/shapes/, written by tools/foreign_shapes.py from ../shared/corpus/foreign);
* **dates** (``DATES``): starts spread over a year, each just before a boundary (a minute, an
  hour, a day, the 29th to 31st, a leap day, a month's and a year's end, a leap second);
* **styles** (``STYLES``): how a stamp is spelt: milliseconds, microseconds or whole seconds in
  UTC, a fraction that drops its trailing zeros (as Go's RFC3339Nano), a fixed offset.

``stream(body, lines, start, style)`` repeats a body between one init advertising every
capability and one result, with fresh tool ids per repetition and one seq, session and stamp per
line (``STEP_US`` apart).
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

from tests.support.long_runs import body, edges, goldens, renamed

Line = dict[str, Any]
SHAPES = Path(__file__).parent.parent / "data" / "shapes"
STEP_US = 7_000  # between two lines: a block of about 150 lines spans a second

# Each start just before a boundary, so a run of a few thousand lines crosses it.
DATES: dict[str, datetime] = {
    "new year's day": datetime(2026, 1, 1, 9, 59, 58, tzinfo=UTC),
    "the 31st, to February": datetime(2026, 1, 31, 23, 59, 58, tzinfo=UTC),
    "February's end, to March": datetime(2026, 2, 28, 23, 59, 58, tzinfo=UTC),
    "to a leap day": datetime(2028, 2, 28, 23, 59, 58, tzinfo=UTC),
    "a leap day, to March": datetime(2028, 2, 29, 23, 59, 58, tzinfo=UTC),
    "the 29th": datetime(2026, 3, 29, 13, 59, 58, tzinfo=UTC),
    "the 30th, to May": datetime(2026, 4, 30, 23, 59, 58, tzinfo=UTC),
    "the 30th": datetime(2026, 6, 30, 10, 59, 58, tzinfo=UTC),
    "the 31st": datetime(2026, 8, 31, 12, 0, 0, tzinfo=UTC),
    "the year's end": datetime(2026, 12, 31, 23, 59, 58, tzinfo=UTC),
    "a leap second": datetime(2016, 12, 31, 23, 59, 58, tzinfo=UTC),
}
LEAP = datetime(2017, 1, 1, tzinfo=UTC)  # 2016-12-31T23:59:60Z came before it
STYLES = ("ms", "us", "s", "trimmed", "+05:30")


def stamp(at: datetime, style: str, leap: bool = False) -> str:
    """``at`` spelt in ``style``; with ``leap``, the second before ``LEAP`` is 23:59:60."""
    if style == "+05:30":
        local = at.astimezone(timezone_0530())
        return local.strftime("%Y-%m-%dT%H:%M:%S") + f".{local.microsecond // 1000:03d}+05:30"
    head = at.strftime("%Y-%m-%dT%H:%M:%S")
    if leap and LEAP - timedelta(seconds=1) <= at < LEAP:
        head = head[:17] + "60"  # the leap second, shifted into the minute before
    elif leap and at < LEAP - timedelta(seconds=1):
        head = (at + timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%S")
    fraction = {"ms": f".{at.microsecond // 1000:03d}", "us": f".{at.microsecond:06d}", "s": "",
                "trimmed": f".{at.microsecond:06d}".rstrip("0").rstrip(".")}[style]
    return head + fraction + "Z"


@cache
def timezone_0530() -> Any:
    from datetime import timezone

    return timezone(timedelta(hours=5, minutes=30))


def _drawn(seed: int, least: int = 80) -> list[Line]:
    """Bodies of the strategies' transcripts, drawn with ``seed``, until ``least`` lines."""
    from hypothesis.control import BuildContext
    from hypothesis.internal.conjecture.data import ConjectureData

    from contract.wires.stream_json.kit.strategies import transcripts

    out: list[Line] = []
    pick = random.Random(seed)
    while len(out) < least:
        data = ConjectureData(random=random.Random(pick.getrandbits(32)))
        with BuildContext(data, wrapped_test=lambda: None):  # strategies ask for a build context
            run = data.draw(transcripts())
        out += renamed(_body(run), f"_d{len(out)}")
    return out


def _body(run: list[Line]) -> list[Line]:
    """A run's body (``long_runs.body``) without the envelope each line gets anew (seq, session, ts)."""
    return [{k: v for k, v in o.items() if k not in ("seq", "session_id", "ts")} for o in body(run)]


@cache
def bodies() -> dict[str, tuple[str, ...]]:
    """Every body of the catalogue by name, as JSON texts (copied on use). In "goldens" (every
    golden's body in turn) each golden's ids get a suffix of their own: two goldens may share ids."""
    runs = goldens()
    named: dict[str, list[Line]] = {"goldens": [o for number, run in enumerate(runs.values())
                                                for o in renamed(_body(run), f"_g{number}")]}
    named |= {f"golden {name}": _body(run) for name, run in runs.items()}
    named |= {f"strategies {seed}": _drawn(seed) for seed in range(3)}
    named |= {f"foreign {path.stem}": [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines()]
              for path in sorted(SHAPES.glob("*.jsonl"))}
    return {name: tuple(json.dumps(o) for o in body) for name, body in named.items() if body}


@cache
def _edges() -> tuple[str, str, list[str]]:
    """The init (as JSON), the result (as JSON) and every capability the bodies may need."""
    init, result = edges(goldens())
    capabilities = sorted({*init["capabilities"], "partial_messages_v1", "tasks_v1", "stream_v1"})
    return json.dumps(init), json.dumps(result), capabilities


def run(body: str, lines: int, start: datetime, style: str = "ms", first_seq: int = 1) -> list[Line]:
    """A conformant run of about ``lines`` lines (at most, and at least one repetition): init, the
    body repeated whole (a cut one could leave a call unfinished), result."""
    init_text, result_text, capabilities = _edges()
    texts = bodies()[body]
    init = json.loads(init_text) | {"capabilities": capabilities}
    out = [init]
    repetition = 0
    while repetition == 0 or len(out) + len(texts) < lines:
        out += renamed([json.loads(t) for t in texts], f"_r{repetition}")
        repetition += 1
    out.append(json.loads(result_text))
    return restamped(out, start, style, first_seq)


def restamped(out: list[Line], start: datetime, style: str = "ms", first_seq: int = 1) -> list[Line]:
    """``out`` (changed in place) with one session (the first line's), and one seq and stamp per line
    (``STEP_US`` apart): a run a test inserted its own lines into is a run again."""
    leap = start.year == 2016
    session = out[0]["session_id"]
    for offset, obj in enumerate(out):
        at = start + timedelta(microseconds=STEP_US * offset)
        obj.update(session_id=session, seq=first_seq + offset, ts=stamp(at, style, leap))
    return out


# How an emitter may write a line: compact; as Go's encoding/json (<, > and & escaped); ASCII
# only (every other character escaped); with a space after each separator (Python's default).
SPELLINGS = ("compact", "go", "ascii", "spaced")


@cache
def _added_requirements() -> dict[str, tuple[tuple[str, Any], ...]]:
    """Per stream-json line type, the members the schema in force requires there and the seed did not
    (an ADR made them required), each with a value a golden shows: hand-built lines are seed-shaped."""
    from contract.checking.schema import load
    from tests.support.seeds import original

    def required(schema: dict[str, Any]) -> dict[str, set[str]]:
        return {b["properties"]["type"]["const"]: set(b.get("required", ())) for b in schema.get("oneOf", ())
                if isinstance(b.get("properties", {}).get("type", {}).get("const"), str)}

    now, then = required(load("stream-json")), required(original("stream-json"))
    shown = [line for lines in goldens().values() for line in lines]
    out: dict[str, tuple[tuple[str, Any], ...]] = {}
    for kind, names in now.items():
        added = sorted(names - then.get(kind, names))
        values = [(name, next(line[name] for line in shown if line.get("type") == kind and name in line))
                  for name in added]
        if values:
            out[kind] = tuple(values)
    return out


def text(objs: list[Line], spelling: str = "compact") -> bytes:
    """The run as a file, one object a line, spelt as ``spelling`` says (``SPELLINGS``). A line lacking a
    member an ADR made required of its type gets a golden's value for it (the tests' hand-built lines
    are written to the seed; the walk space in tests/evolution/test_adr_space.py makes members required)."""
    added = _added_requirements()

    def one(obj: Line) -> str:
        for name, value in added.get(str(obj.get("type")), ()) if isinstance(obj, dict) else ():
            obj = obj if name in obj else {**obj, name: value}
        if spelling == "spaced":
            return json.dumps(obj, ensure_ascii=False)
        line = json.dumps(obj, separators=(",", ":"), ensure_ascii=spelling == "ascii")
        if spelling == "go":  # these characters are found only inside strings
            line = line.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        return line

    return b"".join(one(o).encode() + b"\n" for o in objs)


def stream(body: str, lines: int, start: datetime, style: str = "ms", first_seq: int = 1,
           spelling: str = "compact") -> bytes:
    return text(run(body, lines, start, style, first_seq), spelling)
