"""The fast path judges every conformant shape, and never accepts what line by line would not.

``contract.checking.fastpath.measure`` counts the lines the block facts judged; on every shape of the
catalogue (tests/support/shapes.py: every golden's body, the strategies' transcripts, the real
transcripts' shapes; dates over a year; five spellings of a stamp) every line is judged by facts
but those judged line by line by design (the first block, the run's result line). The stamp
judgement of a block (``stamps.in_order``, ``follows``) is held to the line-by-line machine's on
random stamps near every boundary: it may decline a block the machine would pass, never pass one
the machine would not (a wrong accept is a missed finding).
"""

from __future__ import annotations

import copy
import io
from collections import Counter
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contract
from contract.checking.fastpath import measure
from contract.rules.report import Collector, Report
from contract.wires.stream_json import stamps
from contract.wires.stream_json.machines import StreamRules
from contract.wires.stream_json.meter import FACTS, FIRST_BLOCK
from tests.support import shapes
from tests.support.depth import deep, sample

LINES = 1200  # about eight blocks: the first is line by line by design, the rest must be facts


def _fully_covered(data: bytes) -> None:
    coverage, report = measure(data)
    assert report.conformant, report.violations[:3]
    assert coverage.declined(designed=False) == {}, coverage.lines_of_text()
    assert coverage.facts > coverage.lines // 2
    # the metered machine judges as the checker does
    checked = contract.check(data, "stream-json", strict=True, jobs=1)
    exercised = report.exercised | {"checker.input-changed"}  # a file's own rule: the meter reads bytes
    assert (report.violations, report.notes, exercised, report.lines) == (
        checked.violations, checked.notes, checked.exercised, checked.lines)
    assert checked.to_json() == _line_by_line(data)


def _line_by_line(data: bytes) -> dict[str, Any]:
    """The report of the line-by-line path (a readline-only source: a live pipe's)."""
    class ReadlineOnly:
        readline = io.BytesIO(data).readline

    return contract.check(ReadlineOnly(), "stream-json", strict=True, source="-").to_json()


@pytest.mark.parametrize("body", sample(sorted(shapes.bodies()), 2))  # every body in the deep run
def test_every_body_is_judged_by_facts(body: str) -> None:
    _fully_covered(shapes.stream(body, LINES, shapes.DATES["the 31st, to February"], first_seq=17))


@pytest.mark.parametrize("spelling", shapes.SPELLINGS)
def test_every_spelling_of_a_line_is_judged_by_facts(spelling: str) -> None:
    """Lines orjson does not write back byte for byte take the strict parse inside the block proof."""
    for body in ("goldens", "strategies 1"):
        _fully_covered(shapes.stream(body, LINES, shapes.DATES["the 30th"], spelling=spelling))


def _with_a_call_of_its_own(spelling: str) -> tuple[list[bytes], int]:
    """The goldens' run in ``spelling`` with one line of this test's own past the first block, and its
    index: a copy of a goldens' tool call (its one tool_use block, with object arguments that were
    not streamed) under an id nothing names. A fault put in this line is its only finding, wherever
    the goldens, however many, put their own calls (a fault test picks its line by what it is)."""
    objs = shapes.run("goldens", LINES, shapes.DATES["the 30th"])
    streamed = {(o.get("event") or {}).get("tool_use_id") for o in objs}
    source, block = next((index, b) for index, o in enumerate(objs) for b in _blocks(o, "tool_use")
                         if isinstance(b.get("input"), dict) and b["input"] and b.get("id") not in streamed)
    own = copy.deepcopy(objs[source])
    own["message"]["content"] = [{**block, "id": "toolu_this_tests_own"}]
    at = max(len(objs) * 2 // 3, source + 1)  # after the copied line (a parent it names stays earlier)
    objs.insert(at, own)
    data = shapes.text(shapes.restamped(objs, shapes.DATES["the 30th"]), spelling)
    assert contract.check(data, "stream-json", strict=True).conformant  # the fault is all that is wrong
    return data.split(b"\n"), at


def _blocks(line: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    message = line.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict) and b.get("type") == kind] if isinstance(content, list) else []


@pytest.mark.parametrize(("fault", "found"), [
    ('"a": 1, "a": 2, ', {"line.duplicate-key": 1}),  # a repeated member: the line is opaque
    ('"a": 1e+400, ', {}),  # no double holds it: a Decimal
    ('"a": 123456789012345678901234567890, ', {}),  # nor an int orjson reads
    ('"a": 1E+2, "b": -0.0, "c": 3.6845546438802145e+18, "d": 1.50, ', {}),  # spellings, exact or not
    ('"a": "\\u001b[31m", ', {"line.ansi": 1}), ('"a": "\\u0090", ', {"line.c1": 1}),
    ('"a": "\\u0010 line+=1 e+5", ', {}),
])
def test_a_line_read_by_the_strict_parse_is_judged_as_line_by_line(fault: str, found: dict[str, int]) -> None:
    """What the block proof's strict parse meets, in a tool's free-form input: the line path's report."""
    lines, at = _with_a_call_of_its_own("spaced")
    lines[at] = lines[at].replace(b'"input": {', b'"input": {' + fault.encode(), 1)
    data = b"\n".join(lines)
    report = contract.check(data, "stream-json", strict=True, jobs=1)
    assert Counter(v.rule for v in report.violations) == found  # the line is the test's own: nothing refers to it
    assert {v.line for v in report.violations} <= {at + 1}
    assert report.to_json() == _line_by_line(data)


# the default run: every date once and every style on two or three dates (a diagonal); the deep run every pair
DATE_STYLES = [pytest.param(date, style, id=f"{date}-{style}",
                            marks=[] if shapes.STYLES.index(style) == at % len(shapes.STYLES) else [pytest.mark.deep])
               for at, date in enumerate(sorted(shapes.DATES)) for style in shapes.STYLES]


@pytest.mark.parametrize(("date", "style"), DATE_STYLES)
def test_every_date_and_spelling_is_judged_by_facts(date: str, style: str) -> None:
    _fully_covered(shapes.stream("goldens", LINES, shapes.DATES[date], style))


def test_a_day_not_in_its_month_is_declined_and_reported() -> None:
    """The meter can fail: the 30th of February takes a block off the facts, with its finding."""
    objs = shapes.run("goldens", LINES, datetime(2026, 2, 28, 12, tzinfo=UTC))
    objs[600]["ts"] = "2026-02-30" + objs[600]["ts"][10:]
    coverage, report = measure(shapes.text(objs))
    assert report.counts == {"sj.ts-format": 1}
    assert coverage.declined(designed=False)
    assert coverage.ways[FIRST_BLOCK]
    assert coverage.ways[FACTS]


# -- stamps: the block's judgement against the machine's, line by line ----------------------------

_PARTS = st.tuples(
    st.sampled_from(["0000", "1900", "2000", "2016", "2026", "2028", "2100"]),
    st.integers(1, 12), st.integers(1, 31), st.sampled_from([0, 23]), st.sampled_from([0, 59]),
    st.sampled_from([0, 7, 59, 60]), st.sampled_from(["", ".5", ".50", ".05", ".123", ".1234567", ".999"]),
    st.sampled_from(["Z", "Z", "Z", "z", "+00:00", "+05:30", "-08:00"]), st.sampled_from(["T", "T", "T", "t"]),
)


def _spelt(parts: tuple[str, int, int, int, int, int, str, str, str]) -> str:
    year, month, day, hour, minute, second, fraction, zone, sep = parts
    return f"{year}-{month:02d}-{day:02d}{sep}{hour:02d}:{minute:02d}:{second:02d}{fraction}{zone}"


def _machine_passes(stamps_: list[str], before: str | None) -> bool:
    """What ``StreamRules`` says of the stamps line by line: no sj.ts-format or sj.ts-order finding."""
    machine, report = StreamRules(), Report("stream-json")
    out = Collector(report)
    for text in ([before] if before else []) + stamps_:
        machine._ts(text, 1, out)  # the machine's own stamp step is the oracle
    return not report.violations


@settings(max_examples=400 if deep() else 100, deadline=None)
@given(st.lists(_PARTS, min_size=1, max_size=6), st.booleans(), st.booleans())
def test_a_block_of_stamps_is_never_passed_when_a_line_would_fail(
        parts: list[tuple[str, int, int, int, int, int, str, str, str]], ordered: bool, share: bool) -> None:
    if share:  # mostly one spelling, as a run writes: the block's own paths are reached
        parts = [(*parts[0][:6], p[6], parts[0][7], parts[0][8]) for p in parts]
    texts = [_spelt(p) for p in parts]
    if ordered:
        texts.sort()
    if stamps.in_order(texts, "\n".join(texts)):
        assert _machine_passes(texts, None), texts
    before, first = texts[0], texts[-1]
    if _machine_passes([before], None) and _machine_passes([first], None) and stamps.follows(before, first):
        assert _machine_passes([first], before), (before, first)


def test_the_block_paths_pass_what_they_should() -> None:
    """The cases a run meets, each passed by the block's judgement (no decline on them)."""
    for block in (["2026-01-31T23:59:59.999Z", "2026-02-01T00:00:00.000Z"],
                  ["2028-02-29T10:00:00.1Z", "2028-02-29T10:00:00.12Z", "2028-02-29T10:00:01Z"],
                  ["2026-06-30T10:00:00.000+05:30", "2026-06-30T10:00:00.001+05:30"],
                  ["2026-12-31T23:59:59Z", "2027-01-01T00:00:00Z"]):
        assert stamps.in_order(block, "\n".join(block)), block
    # a second 60 is the line path's (sj.ts-format: a month's end; sj.ts-leap-second: the table), by design
    leap = ["2016-12-31T23:59:59.5Z", "2016-12-31T23:59:60.5Z", "2017-01-01T00:00:00Z"]
    assert not stamps.in_order(leap, "\n".join(leap))
    assert not stamps.in_order(["2026-02-28T00:00:00Z", "2026-02-30T00:00:00Z"], "x")
    leap = ["2016-12-31T23:59:59.5Z", "2016-12-31T23:59:60.5Z", "2017-01-01T00:00:00Z"]
    assert not stamps.in_order(leap, "\n".join(leap))  # sj.ts-leap-second's, line by line
    assert not stamps.in_order(*(lambda b: (b, "\n".join(b)))(["2026-02-28T00:00:00Z", "2026-02-29T00:00:00Z"]))
    assert not stamps.in_order(*(lambda b: (b, "\n".join(b)))(["2026-01-01T00:00:00.1Z", "2026-01-01T00:00:00.09Z"]))


def test_a_lower_case_t_out_of_order_is_reported() -> None:
    """Text order is time order only for stamps of one separator: "t09" sorts after "T10"."""
    lines = [{"type": "system", "subtype": "init", "session_id": "sess_1", "seq": 1, "ts": "2026-01-01T10:00:00Z",
              "capabilities": ["stream_v1"]},
             {"type": "system", "subtype": "notification", "session_id": "sess_1", "seq": 2,
              "ts": "2026-01-01t09:00:00Z"},
             {"type": "result", "subtype": "success", "is_error": False, "session_id": "sess_1", "seq": 3,
              "ts": "2026-01-01T10:00:01Z"}]
    report = contract.check(shapes.text(lines), "stream-json", strict=True)
    assert report.counts == {"sj.ts-order": 1}
    assert not stamps.follows("2026-01-01T10:00:00Z", "2026-01-01t09:00:00Z")


@pytest.mark.parametrize(("fault", "found"), [
    ('"a":"\\u003c","a":1,', {"line.duplicate-key": 1}),  # Go's escape beside a repeated member
    ('"a":"\\\\u003c x \\u0026",', {}),  # an escaped backslash before "u003c" is text, not an escape
    ('"a":"\\u003C\\u003e",', {}),  # another spelling of the escape: the strict parse
])
def test_go_escapes_are_read_as_the_line_path_reads_them(fault: str, found: dict[str, int]) -> None:
    lines, at = _with_a_call_of_its_own("go")
    lines[at] = lines[at].replace(b'"input":{', b'"input":{' + fault.encode(), 1)
    data = b"\n".join(lines)
    report = contract.check(data, "stream-json", strict=True, jobs=1)
    assert Counter(v.rule for v in report.violations) == found
    assert {v.line for v in report.violations} <= {at + 1}
    assert report.to_json() == _line_by_line(data)


def test_an_offset_stamp_between_z_stamps_is_not_passed_by_the_block() -> None:
    """Found by the hypothesis property above: a block of Z stamps with one +05:30 stamp inside (five
    and a half hours earlier) was taken in text order, a missed sj.ts-order. The block declines it,
    and a whole run reports it as the line path does."""
    block = ["2031-01-01T06:00:00Z", "2031-01-01T06:00:00+05:30", "2031-01-01T06:00:01Z"]
    assert not stamps.in_order(block, "\n".join(block))
    objs = shapes.run("goldens", LINES, datetime(2031, 1, 1, 6, tzinfo=UTC))
    at = next(i for i in range(700, len(objs)) if objs[i]["ts"].endswith("Z"))
    objs[at]["ts"] = objs[at]["ts"][:-1] + "+05:30"
    data = shapes.text(objs)
    report = contract.check(data, "stream-json", strict=True, jobs=1)
    assert "sj.ts-order" in report.counts
    assert report.to_json() == _line_by_line(data)
