"""Fuzzing the reader and both checkers: whatever the bytes, a report, never an exception.

Three sources of input: raw bytes; token soup (JSON punctuation, keywords, numbers at the
limits, escapes, BOMs, CR, NUL), which reaches the parser's corners faster than raw bytes; and
goldens of both wires mutated (bytes flipped, inserted or deleted, lines spliced in from other
goldens, duplicated, swapped, cut). Every input is checked as stream-json, subagent-stdio and
auto, sometimes with a tiny ``max_line_bytes``; the report must render as text and JSON, and
feeding the same bytes in arbitrary chunks must give the same findings.

For long runs outside the suite, see fuzz/atheris_check.py.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contract import check
from contract.core.resources import data_dir
from contract.reporting.reporters import render_json, render_text

WIRES = ("stream-json", "subagent-stdio", "auto")
GOLDENS = tuple(sorted(data_dir("goldens").glob("*/*.jsonl")))
GOLDEN_LINES = tuple(line for path in GOLDENS for line in path.read_bytes().splitlines(keepends=True))
SCALE = max(settings().max_examples, 10)  # the profile's count: 10 in dev, 100 in ci

TOKENS = (
    b"{", b"}", b"[", b"]", b'"', b":", b",", b" ", b"\n", b"\n", b"\r", b"\r\n", b"\t", b"\x00",
    b"\xff", b"\xc3", b"\xef\xbb\xbf", b"\x1b[31m", b"\\", b"\\u", b"\\ud800", b"\\udc00", b"\\u001b",
    b"0", b"1", b"-1", b"1.5", b"1e999", b"-1e999", b"1e-400", b"9" * 30, b"NaN", b"Infinity",
    b"true", b"false", b"null", b'"type"', b'"system"', b'"init"', b'"result"', b'"response"',
    b'"subagent_status"', b'"seq"', b'"id"', b'"session_id"', b'"sess_x"', b'"version"', b'"data"',
    b'"subtype"', b'"is_error"', b'"children"', b'"tool_use"', b'"input"', b'"x"', b"[" * 40, b"]" * 40,
)

token_soup = st.lists(st.sampled_from(TOKENS), max_size=200).map(b"".join)


@st.composite
def mutated_golden(draw: st.DrawFn) -> bytes:
    """A golden transcript with a few byte- and line-level mutations."""
    data = bytearray(draw(st.sampled_from(GOLDENS)).read_bytes())
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(("flip", "insert", "delete", "splice", "duplicate", "swap", "cut")))
        _mutate(draw, data, kind)
    return bytes(data)


def _mutate(draw: st.DrawFn, data: bytearray, kind: str) -> None:
    at = draw(st.integers(0, max(len(data) - 1, 0)))
    if kind == "flip" and data:
        data[at] ^= 1 << draw(st.integers(0, 7))
    elif kind == "insert":
        data[at:at] = draw(st.sampled_from(TOKENS) | st.binary(min_size=1, max_size=8))
    elif kind == "delete":
        del data[at : at + draw(st.integers(1, 64))]
    elif kind == "cut":
        del data[at:]
    else:
        lines = bytes(data).splitlines(keepends=True) or [b""]
        i = draw(st.integers(0, len(lines) - 1))
        if kind == "splice":
            lines.insert(i, draw(st.sampled_from(GOLDEN_LINES)))
        elif kind == "duplicate":
            lines.insert(i, lines[i])
        else:  # swap
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        data[:] = b"".join(lines)


def _chunks(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


def _never_raises(data: bytes, wire: str, max_line_bytes: int, cuts: list[int]) -> None:
    report = check(data, wire=wire, max_line_bytes=max_line_bytes)
    assert isinstance(report.conformant, bool)
    json.loads(render_json(report))
    render_text(report)
    assert sum(report.counts.values()) == len(report.violations) + report.dropped
    chunked = check(iter(_chunks(data, cuts)), wire=wire, max_line_bytes=max_line_bytes)
    assert Counter(chunked.counts) == Counter(report.counts)


line_limits = st.sampled_from((64 * 1024 * 1024, 64 * 1024 * 1024, 1, 16, 200))
cut_points = st.lists(st.integers(0, 1 << 16), max_size=6)
fuzz_settings = settings(max_examples=SCALE * 5, suppress_health_check=[HealthCheck.too_slow])


@fuzz_settings
@given(data=st.binary(max_size=4096), wire=st.sampled_from(WIRES), limit=line_limits, cuts=cut_points)
def test_raw_bytes_get_a_report(data: bytes, wire: str, limit: int, cuts: list[int]) -> None:
    _never_raises(data, wire, limit, cuts)


@fuzz_settings
@given(data=token_soup, wire=st.sampled_from(WIRES), limit=line_limits, cuts=cut_points)
def test_token_soup_gets_a_report(data: bytes, wire: str, limit: int, cuts: list[int]) -> None:
    _never_raises(data, wire, limit, cuts)


@fuzz_settings
@given(data=mutated_golden(), wire=st.sampled_from(WIRES), limit=line_limits, cuts=cut_points)
def test_mutated_goldens_get_a_report(data: bytes, wire: str, limit: int, cuts: list[int]) -> None:
    _never_raises(data, wire, limit, cuts)
