"""Reports: hostile text escaped in every format, findings never lost past the cap, JSON streamed.

- Member names are input: ESC, OSC, CR, U+0001, U+2028, U+FFFE and lone surrogates in a key
  reach pointers and messages. The text report shows them as ``\\u001b``-style escapes, the
  JUnit report stays well-formed XML (parsed here with ``xml.etree``), and the JSON report
  stays valid JSON that gives back the same strings.
- Past the memory cap (``contract.rules.report.MAX_KEPT_VIOLATIONS``) the counts stay exact, each
  rule keeps its first occurrences and the vital rules (run, framing, checker, terminal)
  keep theirs; every format says how many it counted and kept.
- ``--format json`` is written violation by violation: the writer's own allocations stay a
  small fraction of what it writes (traced in process, the default run), and 200k failing lines
  stay far below 150 MiB peak RSS (measured in a child, as tests/checking/test_hostile.py does: the deep
  run, tests/support/depth.py).
"""

from __future__ import annotations

import json
import tracemalloc
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import contract
from contract.core import textsafe
from contract.reporting.formats import REPORTERS
from contract.reporting.reporters import render_json, render_junit, render_text
from contract.rules import report as report_module
from contract.rules.report import Collector, Report
from tests.checking.test_hostile import check_process
from tests.support.paths import ROOT

HELLO = (ROOT / "goldens" / "stream-json" / "hello.jsonl").read_bytes()
HOSTILE_NAMES = ["\x1b[2J", "\x1b]0;x\x07", "a\rconformant", "\x01", "\u2028", "\ufffe", "\x9b31m", "\x7f",
                 "\u202e"]
RAW = [chr(c) for c in [*range(0x00, 0x20), *range(0x7f, 0xa0), 0x2028, 0x2029, 0xfffe, 0xffff, 0xd800, 0x202e]]


def _hostile_stream() -> bytes:
    """hello.jsonl, then line 2 again once per hostile name, as an extra member (a schema finding each)."""
    lines = HELLO.splitlines(keepends=True)
    body = lines[1].rstrip(b"\n")[:-1]
    extra = [body + b"," + json.dumps(name).encode() + b":1}\n" for name in HOSTILE_NAMES]
    return b"".join([*lines, *extra])


@pytest.fixture(scope="module")
def hostile() -> Report:
    report = contract.check(_hostile_stream(), source="in\x1b[31mput\r.jsonl")
    report.stderr = "boom\x1b]0;pwned\x07\rconformant\n"
    assert not report.conformant
    assert report.counts["sj.schema"] >= len(HOSTILE_NAMES)
    # a lone surrogate fails line.json on the wire, but a report may still hold one (the API, a
    # decoded message): every reporter must cope
    Collector(report).emit("sj.schema", 2, "/\ud800", "expected no member '\udfff'")
    return report


def test_textsafe_escapes_every_unsafe_character_and_nothing_else() -> None:
    for char in RAW:
        assert textsafe.text(char) == f"\\u{ord(char):04x}"
    near_misses = "plain ASCII é 中 🙂 \\ / ~ \" ' <&>"
    assert textsafe.text(near_misses) == near_misses


@pytest.mark.parametrize("fmt", ["json", "junit", "text"])  # the CI formats: tests/reporting/test_report_escaping.py
def test_every_format_escapes_hostile_member_names(fmt: str, hostile: Report) -> None:
    out = REPORTERS[fmt].one(hostile)
    assert not any(char in out for char in RAW if char != "\n"), fmt
    out.encode("utf-8")  # no lone surrogate left: writable to any UTF-8 stream
    if fmt == "text":
        assert "/\\u001b]0;x\\u0007" in out  # the OSC name, shown not executed
        assert "in\\u001b[31mput\\u000d.jsonl" in out
        assert "  | boom\\u001b]0;pwned\\u0007" in out  # the stderr tail (split at the CR)
    elif fmt == "json":
        pointers = {v["pointer"] for v in json.loads(out)["violations"]}
        assert {"/\x1b]0;x\x07", "/\ud800", "/\x01", "/a\rconformant", "/\u2028"} <= pointers  # the same strings back
    else:
        root = ET.fromstring(out.encode())  # well-formed XML 1.0
        text = "".join(root.itertext())
        assert "/\\u0001" in text
        assert "/\\u001b]0;x\\u0007" in text


def test_junit_was_invalid_xml_with_u0001_before() -> None:
    """The near miss: the standard library's escape alone leaves U+0001, which no XML parser takes."""
    from xml.sax.saxutils import escape

    with pytest.raises(ET.ParseError):
        ET.fromstring(f"<a>{escape(chr(1))}</a>")
    assert ET.fromstring(f"<a>{textsafe.xml(chr(1))}</a>").text == "\\u0001"


# -- findings past the cap --------------------------------------------------------------------------


@pytest.fixture
def small_cap(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(report_module, "MAX_KEPT_VIOLATIONS", 50)
    monkeypatch.setattr(report_module, "FIRST_PER_RULE", 3)
    monkeypatch.setattr(report_module, "VITAL_PER_RULE", 5)
    return 50


def test_past_the_cap_counts_stay_exact_and_vital_findings_are_kept(small_cap: int) -> None:
    report = Report(wire="stream-json")
    out = Collector(report)
    for line in range(1, 201):
        out.emit("sj.schema", line, "/seq", "expected an integer")
    for line in range(201, 211):
        out.emit("sj.seq", line, "/seq", "a gap")
        out.emit("line.newline", line, None, "a CR")
    out.emit("sj.result-last", 210, None, "no result")
    out.emit("run.output-limit", None, None, "flooded")
    out.emit("checker.limit", 5, None, "a bound")
    assert report.counts == {"sj.schema": 200, "sj.seq": 10, "line.newline": 10, "sj.result-last": 1,
                             "run.output-limit": 1, "checker.limit": 1}
    kept = report.kept_counts()
    assert kept["sj.schema"] == small_cap  # the general pool, filled first
    assert kept["sj.seq"] == 3  # a rule met only past the cap keeps its first occurrences
    assert kept["line.newline"] == 5  # a vital rule keeps up to VITAL_PER_RULE
    assert {kept["sj.result-last"], kept["run.output-limit"], kept["checker.limit"]} == {1}
    assert report.dropped == sum(report.counts.values()) - len(report.violations) == 150 + 7 + 5
    text = render_text(report)
    assert f"… 223 findings counted, {len(report.violations)} kept" in text
    assert "sj.schema 50 of 200" in text
    assert "sj.seq 3 of 10" in text
    assert "run.output-limit" in text  # the finding that explains the failure is shown
    body = json.loads(render_json(report))
    assert body["kept"]["sj.schema"] == 50
    assert body["counts"]["sj.schema"] == 200
    assert len(body["violations"]) == len(report.violations)
    junit = ET.fromstring(render_junit(report).encode())
    messages = [f.get("message", "") for f in junit.iter("failure")]
    assert any(m.startswith("200 findings counted, 50 kept") for m in messages)


def test_below_the_cap_everything_is_kept_and_nothing_said(small_cap: int) -> None:
    report = Report(wire="stream-json")
    out = Collector(report)
    for line in range(1, small_cap + 1):
        out.emit("sj.schema", line, "/seq", "expected an integer")
    assert report.dropped == 0
    assert "counted" not in render_text(report)


def test_the_json_report_is_the_documented_document(hostile: Report) -> None:
    """Streamed, it is still exactly ``to_json()`` (escaped characters aside)."""
    assert json.loads(render_json(hostile)) == json.loads(json.dumps(hostile.to_json()))


class _Counting:
    """A text stream that keeps nothing: how much was written, and the largest single write."""

    def __init__(self) -> None:
        self.written = self.largest = 0

    def write(self, text: str) -> int:
        self.written += len(text)
        self.largest = max(self.largest, len(text))
        return len(text)


def test_the_json_report_is_written_one_violation_at_a_time() -> None:
    """The streaming writer holds one violation at a time: with 5,000 findings (about 1 MB of JSON)
    it allocates under a quarter of what it writes (measured: 0.17 MB, most of it fixed), and no
    single write is large. Building the document first (``render_json``, or ``to_json()`` for the
    header, as the writer once did: 1.4 MB) holds more than all of it."""
    report = Report(wire="stream-json")
    out = Collector(report)
    for line in range(1, 5_001):
        out.emit("sj.schema", line, "/seq", f"expected an integer, found the string {line!r}")
    sink = _Counting()
    tracemalloc.start()
    try:
        REPORTERS["json"].write(report, sink)  # type: ignore[arg-type]  # a write-only stand-in for TextIO
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert sink.written > 900_000
    assert peak < sink.written / 4, f"{peak} bytes allocated to write {sink.written}"
    # the header: one requirement verdict (with its basis) per catalogued rule, about 600 bytes each
    assert sink.largest < 48_000  # 80 rules or so
    assert json.loads(render_json(report))["counts"]["sj.schema"] == 5_000


@pytest.mark.deep  # the default run: test_the_json_report_is_written_one_violation_at_a_time
@pytest.mark.process
def test_200k_failing_lines_stay_flat_in_memory(tmp_path: Path) -> None:
    """Measured: about 48 MiB peak for JSON, 43 MiB for text (a clean file: 28 MiB); before: 196 MiB
    (and 75 MiB while the JSON writer still built every violation's dict for the header)."""
    lines = HELLO.splitlines(keepends=True)
    broken = lines[1].replace(b'"seq":2', b'"seq":"x"')
    assert broken != lines[1]
    path = tmp_path / "failing.jsonl"
    path.write_bytes(lines[0] + broken * 200_000)
    outcome = check_process(["check", "--format", "json", str(path)], stdin=None, timeout=240, scratch=tmp_path)
    assert outcome.code == 1
    assert outcome.max_rss_mib < 150, outcome.max_rss_mib
    head = json.loads(outcome.stdout)
    assert head["counts"]["sj.schema"] == 200_000
    assert head["dropped"] == 200_000 - report_module.MAX_KEPT_VIOLATIONS  # sj.result-last is kept past the cap


def test_counts_of_a_noun_in_y_read_right() -> None:
    """``2 accepted-breaks entrys`` was printed by evolve (issue 47): a consonant and y take -ies."""
    from contract.core.textsafe import counted

    assert counted(2, "accepted-breaks entry") == "2 accepted-breaks entries"
    assert counted(1, "accepted-breaks entry") == "1 accepted-breaks entry"
    assert counted(3, "key") == "3 keys"  # a vowel before the y: -s
    assert counted(2, "entry", "entries of note") == "2 entries of note"
