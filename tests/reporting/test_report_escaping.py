"""Property: generated hostile text, in every place a report shows input, through every report format.

Member names in pointers, values quoted in messages, hints, file names, an emitter's stderr and
the checker's notes are drawn from an alphabet that mixes every class of code point
``contract.core.textsafe`` must escape (C0, DEL, C1, lone surrogates, U+2028/U+2029, the
bidirectional controls, the noncharacters of every plane) with the characters each format's
syntax layer cares about (``\\``, ``u``, ``%``, ``|``, ``<``, ``&``, ``:`` …) and any other
character. For each of the six formats, one file and many, the output

- holds none of those code points raw (the only raw LF is the format's own line structure:
  the same number of lines as the same report with each input string renamed to a plain token),
- still parses in its format (JSON and SARIF load, SARIF validates against the OASIS schema,
  JUnit is well-formed XML, every markdown table row has its header's cells, every github line
  is a workflow command or a prefixed plain line),
- keeps distinct inputs distinct: JSON gives back the exact strings; every other format shows
  each string in the one escaped form, and reading the escapes back gives the string again.

The "unsafe" set is written out here from the spec, not imported, so the test cannot agree with
a wrong table in ``contract.core.textsafe``.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from functools import cache

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contract
from contract.core import textsafe
from contract.reporting.formats import REPORTERS
from contract.rules.report import Collector, Report
from tests.support.depth import deep
from tests.support.paths import ROOT

HELLO = (ROOT / "goldens" / "stream-json" / "hello.jsonl").read_bytes()
EXAMPLES = settings().max_examples * (3 if deep() else 1)  # 10 in the default run, 300 deep


def unsafe(code: int) -> bool:
    """The code points no report may show raw (the issue's list, written out independently)."""
    return (code < 0x20 or 0x7F <= code <= 0x9F or 0xD800 <= code <= 0xDFFF
            or code in (0x2028, 0x2029, 0x061C, 0x200E, 0x200F)
            or 0x202A <= code <= 0x202E or 0x2066 <= code <= 0x2069
            or 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE)


def raw_unsafe(out: str) -> set[str]:
    """The unsafe code points in ``out``, but the LF of the format's own lines."""
    return {char for char in set(out) if unsafe(ord(char)) and char != "\n"}


_ESCAPE = re.compile(r"\\u([0-9a-f]{4})|\\U([0-9a-f]{8})")


def unescape(shown: str) -> str:
    """The reader's side of textsafe.text: every ``\\uXXXX``/``\\UXXXXXXXX`` back to its character."""
    return _ESCAPE.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)), shown)


SPECIAL = [chr(c) for c in (*range(0x00, 0x20), 0x7F, 0x80, 0x85, 0x9B, 0x9F, 0xD800, 0xDBFF, 0xDC00, 0xDFFF,
                            0x2028, 0x2029, 0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A),
                            0xFDD0, 0xFDEF, 0xFFFE, 0xFFFF, 0x1FFFE, 0x1FFFF, 0x10FFFE, 0x10FFFF)]
SYNTAX = list("\\uU0123abcdef%:,|`*_[]<>~&\"' #/")  # what the escapes and the syntax layers are made of
hostile_text = st.text(st.sampled_from(SPECIAL) | st.sampled_from(SYNTAX) | st.characters(), max_size=16)


def test_the_escaping_alphabet_is_the_unsafe_set() -> None:
    """Every code point of SPECIAL is one the spec lists, so the property test draws them all."""
    assert all(unsafe(ord(char)) for char in SPECIAL)
    assert not any(unsafe(ord(char)) for char in SYNTAX)


@settings(max_examples=EXAMPLES * 4)
@given(hostile_text)
def test_textsafe_text_is_safe_one_line_and_reversible(value: str) -> None:
    shown = textsafe.text(value)
    assert not raw_unsafe(shown)
    assert "\n" not in shown
    shown.encode("utf-8")  # no lone surrogate left
    assert unescape(shown) == value  # unambiguous: distinct inputs stay distinct


def test_textsafe_text_near_misses_and_the_backslash() -> None:
    plain = "plain ASCII é 中 🙂 \\ \\n \\x1b / ~ \" ' <&> \ufffd \U0001f600 \u200d"
    assert textsafe.text(plain) == plain  # nothing else is touched (ZWJ, U+FFFD, emoji included)
    assert textsafe.text("\u202e\u200e\u061c\U0010ffff\ufdd0") == "\\u202e\\u200e\\u061c\\U0010ffff\\ufdd0"
    # a backslash that would read as an escape is one itself: the two inputs stay apart
    assert textsafe.text("\\u202e") == "\\u005cu202e" != textsafe.text("\u202e")
    assert textsafe.text("x" * 10, limit=4) == "xxxx…(6 more characters)"


RULES = ("line.json", "sj.schema", "sj.seq", "sj.ts-order")  # distinct rules: one finding kind each (SHOULD last)


@st.composite
def hostile_reports(draw: st.DrawFn) -> Report:
    report = Report(wire="stream-json", source=draw(hostile_text), lines=7, stderr=draw(hostile_text),
                    notes=[draw(hostile_text)])
    out = Collector(report)
    for line, rule in enumerate(RULES[:draw(st.integers(1, len(RULES)))], start=1):
        hint = draw(st.none() | hostile_text)
        out.emit(rule, line, "/" + draw(hostile_text), draw(hostile_text), hint)
    return report


def renamed(report: Report) -> Report:
    """The same report with every input string (but stderr) renamed to a plain token, equal to equal."""
    names: dict[str, str] = {}

    def plain(value: str) -> str:
        return names.setdefault(value, f"s{len(names)}") if value else value  # empty stays empty (not shown)

    copy = Report(wire=report.wire, source=plain(report.source), lines=report.lines, stderr=report.stderr,
                  notes=[plain(note) for note in report.notes])
    out = Collector(copy)
    for v in report.violations:
        out.emit(v.rule, v.line, "/" + plain((v.pointer or "/")[1:]), plain(v.message),
                 None if v.hint is None else plain(v.hint))
    return copy


@cache
def _sarif_validator() -> jsonschema.protocols.Validator:
    schema = json.loads((ROOT / "tests" / "sarif" / "sarif-schema-2.1.0.json").read_text())
    return jsonschema.validators.validator_for(schema)(schema)


_MD_ESCAPED = re.compile(r"\\(.)")
_MD_CELL = re.compile(r"(?<!\\)\|")
_GITHUB_LINE = re.compile(r"::(error|warning) ([^:]*)::(.*)|milk-contract: .*")


def readable(fmt: str, out: str) -> str:
    """What a reader of ``fmt`` sees once the format's own syntax layer is undone, escapes read back."""
    if fmt == "junit":
        return unescape("".join(ET.fromstring(out).itertext()) + " ".join(
            value for element in ET.fromstring(out).iter() for value in element.attrib.values()))
    if fmt == "markdown":
        return unescape(_MD_ESCAPED.sub(r"\1", out))
    if fmt == "github":
        return unescape(out.replace("%0A", "\n").replace("%0D", "\r").replace("%3A", ":").replace("%2C", ",")
                        .replace("%25", "%"))
    if fmt == "sarif":
        return unescape("\n".join(r["message"]["text"] for r in json.loads(out)["runs"][0]["results"]))
    return unescape(out)


def parses(fmt: str, out: str, validate: bool = True) -> None:
    """``out`` is a well-formed document of its format (raises otherwise); SARIF is also validated
    against its schema when ``validate`` (the costly part: once per report is enough)."""
    if fmt == "json":
        json.loads(out)
    elif fmt == "sarif":
        document = json.loads(out)
        if validate:
            _sarif_validator().validate(document)
    elif fmt == "junit":
        ET.fromstring(out)
    elif fmt == "markdown":
        rows = [line for line in out.splitlines() if line.startswith("|")]
        widths = {len(_MD_CELL.split(row)) for row in rows}
        assert len(widths) <= 2, rows  # the files table and the findings tables: each row its header's width
    elif fmt == "github":
        assert all(_GITHUB_LINE.fullmatch(line) for line in out.splitlines()), out
    else:
        assert out.endswith("\n")


@pytest.mark.parametrize("many", [False, True], ids=["one-file", "many-files"])
@pytest.mark.parametrize("fmt", sorted(REPORTERS))
@settings(max_examples=EXAMPLES)
@given(first=hostile_reports(), second=hostile_reports())
def test_hostile_text_is_escaped_in_every_format(fmt: str, many: bool, first: Report, second: Report) -> None:
    reports = [first, second] if many else [first]
    render = REPORTERS[fmt].many if many else (lambda rs: REPORTERS[fmt].one(rs[0]))
    out = render(reports)
    assert not raw_unsafe(out), (fmt, raw_unsafe(out))
    out.encode("utf-8")
    # the SARIF schema check costs about 0.1 s a document: every example in the deep run, and in the
    # default run the every-unsafe-character reports below (test_every_unsafe_code_point_in_every_field_of_every_format)
    parses(fmt, out, validate=deep())
    # no input string made a line of its own: the structure is that of plain tokens
    assert out.count("\n") == render([renamed(r) for r in reports]).count("\n")
    if fmt == "json":  # for tools: the exact strings back
        loaded = json.loads(out)
        for report, back in zip(reports, loaded["reports"] if many else [loaded], strict=True):
            assert back["source"] == report.source
            assert back["notes"] == report.notes
            assert back["stderr"] == report.stderr
            assert [(v["pointer"], v["message"], v["hint"]) for v in back["violations"]] == [
                (v.pointer, v.message, v.hint) for v in report.violations]
        return
    seen = readable(fmt, out)
    for report in reports:
        for v in report.violations if not (fmt == "text" and many) else ():  # one summary line a file there
            assert v.message in seen, (fmt, v.message)
            assert (v.pointer or "") in seen, (fmt, v.pointer)
        if fmt in ("text", "github", "markdown"):
            assert report.source in seen


def _every_unsafe_report(tag: str) -> Report:
    """Every unsafe code point of SPECIAL in every field, and the escape look-alikes beside them."""
    every = "".join(SPECIAL) + "".join(SYNTAX)
    report = Report(wire="stream-json", source=f"{tag}{every}.jsonl", lines=3, stderr=f"{every}\n{tag}",
                    notes=[every])
    out = Collector(report)
    out.emit("sj.schema", 1, f"/{tag}{every}", f"member {every!s} {tag}", every)
    out.emit("sj.seq", 2, "/\u202e", "\u202e and \\u202e, written out")  # look-alikes of the escape
    out.emit("line.json", 3, "/\u202e", "\u202e")  # the characters themselves: shown apart from the above
    return report


@pytest.mark.parametrize("many", [False, True], ids=["one-file", "many-files"])
@pytest.mark.parametrize("fmt", sorted(REPORTERS))
def test_every_unsafe_code_point_in_every_field_of_every_format(fmt: str, many: bool) -> None:
    reports = [_every_unsafe_report("a"), _every_unsafe_report("b")] if many else [_every_unsafe_report("a")]
    out = REPORTERS[fmt].many(reports) if many else REPORTERS[fmt].one(reports[0])
    assert not raw_unsafe(out), (fmt, sorted(raw_unsafe(out)))
    parses(fmt, out)
    if fmt == "json":
        return  # the exact strings: the property test below
    seen = readable(fmt, out)
    for report in reports:
        for v in report.violations if not (fmt == "text" and many) else ():
            assert v.message in seen, (fmt, v.message)
            assert (v.pointer or "") in seen, (fmt, v.pointer)


@settings(max_examples=EXAMPLES)
@given(name=hostile_text, value=hostile_text, banner=hostile_text, path=hostile_text)
def test_hostile_streams_through_the_checker_reach_no_format_raw(name: str, value: str, banner: str,
                                                                 path: str) -> None:
    """End to end: a member name and a value in a line, a non-JSON banner line, a file name."""
    lines = HELLO.splitlines(keepends=True)
    body = lines[1].rstrip(b"\n")[:-1]
    member = json.dumps({name: value}, ensure_ascii=True)[1:-1].encode()  # \\u escapes: any code point
    stream = b"".join([lines[0], body + b"," + member + b"}\n",
                       banner.encode("utf-8", "surrogatepass") + b"\n", *lines[1:]])
    report = contract.check(stream, source=path)
    assert not report.conformant
    for fmt, renderers in REPORTERS.items():
        for out in (renderers.one(report), renderers.many([report])):
            assert not raw_unsafe(out), (fmt, raw_unsafe(out))
            parses(fmt, out, validate=False)  # the schema is held in the test above


def test_a_file_name_that_is_not_utf8_gets_a_sarif_uri() -> None:
    """os.fsdecode gives a non-UTF-8 name surrogate escapes; the URI percent-encodes its bytes
    (before: UnicodeEncodeError, so the SARIF reporter failed and no report was written)."""
    from contract.reporting.ci_reports import sarif_uri

    assert sarif_uri("caps/a\udcff.jsonl") == "caps/a%FF.jsonl"
    assert sarif_uri("a\ud800") == "a%ED%A0%80"  # any other lone surrogate: as UTF-8 would write it
    assert sarif_uri("caps/é.jsonl") == "caps/%C3%A9.jsonl"  # near miss


def test_a_quoted_value_is_escaped_once_in_the_one_form() -> None:
    """Messages quote values raw (``contract.core.jsonvalue.quoted``), not through ``repr`` or ASCII JSON,
    whose escapes the shared one would show again as ``\\u005cu202e`` (and ``é`` as ``\\u005cu00e9``)."""
    line = {"type": "system", "subtype": "init", "x\u202e\x1b": "é\u202e"}
    report = contract.check(json.dumps(line, ensure_ascii=False).encode() + b"\n")
    text = REPORTERS["text"].one(report)
    assert "expected no member 'x\\u202e\\u001b'" in text
    assert 'found "é\\u202e"' in text
    assert "\\u005c" not in text
    assert "ESC (U+001B)" in text  # the checker's own words name the character, they do not escape it
    assert json.loads(REPORTERS["json"].one(report))["violations"]  # the JSON report still loads
