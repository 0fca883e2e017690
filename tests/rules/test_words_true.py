"""Issue 31: a finding's words are true and its basis is no stronger than the seed.

The outside review's reproducers, each a test that failed before the fix: a line that parses as a
JSON object (one with a repeated member name: ``line.duplicate-key``, policy) is never "not a JSON
object", and its policy finding never fails a run under ``--basis written`` through the rules
about a line's place (``sj.init-first``, ``sj.result-once``, ``sj.result-last``), which read its
type from the parse wherever every reading of the repeats agrees.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
from pathlib import Path

import pytest

import contract
from contract.cli import run

INIT = ('{"type":"system","subtype":"init","session_id":"sess_1","seq":1,"ts":"2026-01-01T00:00:00Z",'
        '"agent":{"name":"milk","provider":"p","model":"m"}}')
ASSISTANT = ('{"type":"assistant","session_id":"sess_1","seq":2,"ts":"2026-01-01T00:00:01Z","agent":"primary",'
             '"message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}}')
RESULT = ('{"type":"result","subtype":"success","session_id":"sess_1","seq":3,"ts":"2026-01-01T00:00:02Z",'
          '"is_error":false}')
REPEAT = ',"extension":{"a":1,"a":1}}'


def _stream(*lines: str) -> bytes:
    return "\n".join(lines).encode() + b"\n"


def _repeat(line: str) -> str:
    """The line with a repeated member inside ``extension``: an object, opaque by policy."""
    return line[:-1] + REPEAT


# Each stream is conformant but for its repeated members: under --basis written it must pass.
REPEATED = {
    "init": _stream(_repeat(INIT), ASSISTANT, RESULT),
    "result": _stream(INIT, ASSISTANT, _repeat(RESULT)),
    "init-and-result": _stream(_repeat(INIT), ASSISTANT, _repeat(RESULT)),
    "every-line": _stream(_repeat(INIT), _repeat(ASSISTANT), _repeat(RESULT)),
    "type-repeated-with-one-value": _stream(
        INIT.replace('"type":"system"', '"type":"system","type":"system"'), ASSISTANT,
        RESULT.replace('"type":"result"', '"type":"result","type":"result"')),
}


@pytest.mark.parametrize("name", sorted(REPEATED))
def test_a_repeated_member_alone_is_conformant_under_basis_written(name: str) -> None:
    report = contract.check(REPEATED[name], wire="stream-json", basis=["written"])
    assert {v.rule for v in report.violations} == {"line.duplicate-key"}, report.violations
    assert report.conformant
    assert not contract.check(REPEATED[name], wire="stream-json").conformant  # policy still judges it


@pytest.mark.parametrize("name", sorted(REPEATED))
def test_an_object_line_is_never_called_not_an_object(name: str) -> None:
    for basis in (None, ["written"]):
        report = contract.check(REPEATED[name], wire="stream-json", basis=basis)
        for violation in report.violations:
            assert "not a JSON object" not in violation.message, violation


def test_the_cli_reproducer_lists_the_policy_finding_as_outside_the_basis(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "dup.jsonl"
    path.write_bytes(REPEATED["init-and-result"])
    assert run(["check", "--basis", "written", "--format", "json", str(path)]) == 0
    document = json.loads(capsys.readouterr().out)
    found = [(v["rule"], v["judged"]) for v in document["violations"]]
    assert found == [("line.duplicate-key", False), ("line.duplicate-key", False)]


def test_a_type_the_readings_disagree_on_fails_closed_and_says_why() -> None:
    data = _stream(INIT.replace('"type":"system"', '"type":"system","type":"result"'), ASSISTANT, RESULT)
    report = contract.check(data, wire="stream-json", basis=["written"])
    first = [v for v in report.violations if v.rule == "sj.init-first"]
    assert len(first) == 1
    assert "type cannot be read" in first[0].message
    assert not report.conformant


def test_an_opaque_second_result_is_a_second_result() -> None:
    data = _stream(INIT, ASSISTANT, RESULT, _repeat(RESULT.replace('"seq":3', '"seq":4')))
    rules = [v.rule for v in contract.check(data, wire="stream-json").violations]
    assert sorted(rules) == ["line.duplicate-key", "sj.result-once"]


def test_an_opaque_line_after_the_result_is_named_by_its_type() -> None:
    data = _stream(INIT, RESULT.replace('"seq":3', '"seq":2'), _repeat(ASSISTANT.replace('"seq":2', '"seq":3')))
    last = [v for v in contract.check(data, wire="stream-json").violations if v.rule == "sj.result-last"]
    assert len(last) == 1
    assert "type assistant" in last[0].message


# -- counts are worded by one helper (textsafe.counted) ------------------------------------------

_PLURAL = re.compile(r" (?:more )?(?:[a-z]+s\b|[a-z]+\(s\))")
# A count: len(...)/sum(...), arithmetic, or a name that holds one. Constants (MAX_LINES) are never 1.
_COUNT_NAMES = re.compile(r"(?:total|count|dropped|missing|unlisted|fed|answered|written|findings|lines|"
                          r"shrink_runs|searched|entries|catalogued|exercised|left|unread|taken)$")


def _is_count(node: ast.expr) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in ("len", "sum")
    if isinstance(node, ast.BinOp):
        return True
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return bool(_COUNT_NAMES.search(name)) and not name.isupper()


def _uncounted(source: str) -> list[str]:
    """Each f-string piece ``{count} nouns`` (or ``noun(s)``) not worded through textsafe.counted."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.JoinedStr):
            continue
        for value, text in itertools.pairwise(node.values):
            if (isinstance(value, ast.FormattedValue) and value.format_spec is None and _is_count(value.value)
                    and isinstance(text, ast.Constant) and isinstance(text.value, str)
                    and _PLURAL.match(text.value)):
                found.append(f"line {node.lineno}: {{{ast.unparse(value.value)}}}{text.value[:30]}")
    return found


def test_the_scan_finds_a_count_worded_by_hand() -> None:
    assert _uncounted('f"{len(x)} findings of {rules}"')
    assert _uncounted('f"its {self.findings} finding(s)"')
    assert not _uncounted('f"{counted(len(x), \'finding\')} of {rules}"')
    assert not _uncounted('f"{MAX_LINES} lines"')


def test_every_count_in_the_package_is_worded_by_counted() -> None:
    package = Path(contract.__file__).parent
    found = {str(path.relative_to(package)): hits for path in sorted(package.rglob("*.py"))
             if (hits := _uncounted(path.read_text(encoding="utf-8")))}
    assert not found, found


def test_one_finding_outside_the_basis_is_one_finding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "dup.jsonl"
    path.write_bytes(REPEATED["init"])
    assert run(["check", "--basis", "written", str(path)]) == 0
    summary = capsys.readouterr().out.splitlines()[-1]
    assert "(1 finding of line.duplicate-key listed, not failing;" in summary, summary


# -- leap seconds: RFC 3339 §5.7, the end of months in which a leap second occurs --------------


def _with_ts(*stamps: str) -> bytes:
    lines = [INIT, ASSISTANT, RESULT]
    return _stream(*(line.replace(line[line.index('"ts":"') + 6:line.index('"', line.index('"ts":"') + 6)], ts)
                     for line, ts in zip(lines, stamps, strict=True)))


@pytest.mark.parametrize(("ts", "rule"), [
    ("2026-03-15T23:59:60Z", "sj.ts-format"),  # the reproducer: mid-month
    ("2026-03-15T15:59:60-08:00", "sj.ts-format"),
    ("2021-12-31T23:59:60Z", "sj.ts-leap-second"),  # a month's end without one
    ("2019-01-01T00:29:60+00:30", "sj.ts-leap-second"),
    ("2016-12-31T23:59:60Z", None),  # the last one there was
    ("2017-01-01T00:29:60+00:30", None),
    ("2026-06-30T23:59:60Z", None),  # beyond the table: noted, not judged
])
def test_second_60_is_judged_by_rfc_3339_and_the_table(ts: str, rule: str | None) -> None:
    report = contract.check(_with_ts(ts, ts, ts), wire="stream-json", strict=True)
    assert {v.rule for v in report.violations} == ({rule} if rule else set()), report.violations


def test_a_leap_second_beyond_the_table_is_noted_once() -> None:
    report = contract.check(_with_ts(*["2026-06-30T23:59:60Z"] * 3), wire="stream-json")
    assert len([note for note in report.notes if "leap-second table" in note]) == 1


def test_the_oracle_types_the_same_leap_seconds_as_the_table() -> None:
    from contract.wires.stream_json import leaps
    from tests.oracle import rfc3339
    assert {f"{y:04d}-{m:02d}-{d:02d}" for y, m, d in rfc3339.LEAP_DAYS} == leaps.LEAP_DAYS
    assert "{:04d}-{:02d}-{:02d}".format(*rfc3339.KNOWN_THROUGH) == leaps.KNOWN_THROUGH


def test_the_fast_path_never_takes_a_second_60() -> None:
    from contract.wires.stream_json.facts import UTC_STAMPS
    for ts in ("2016-12-31T23:59:60Z", "2021-12-31T23:59:60Z", "2026-03-15T23:59:60Z"):
        assert UTC_STAMPS.fullmatch(ts) is None
    # A long run, the bad stamp deep inside it (where blocks take the batch path), judged as alone.
    middle = [ASSISTANT.replace('"seq":2', f'"seq":{seq}').replace("2026-01-01T00:00:01Z", "2021-12-31T23:59:59Z")
              for seq in range(2, 5002)]
    middle[3000] = middle[3000].replace("2021-12-31T23:59:59Z", "2021-12-31T23:59:60Z")
    middle[3001:] = [line.replace("2021-12-31T23:59:59Z", "2022-01-01T00:00:00Z") for line in middle[3001:]]
    init = INIT.replace("2026-01-01T00:00:00Z", "2021-12-31T23:59:59Z")
    data = _stream(init, *middle, RESULT.replace('"seq":3', '"seq":5002'))
    found = [(v.rule, v.line) for v in contract.check(data, wire="stream-json").violations]
    assert found == [("sj.ts-leap-second", 3002)]


# -- each finding's basis is the weakest step its verdict needs (the review's reproducers) -------


def _basis(data: bytes) -> dict[str, str]:
    report = contract.check(data, wire="stream-json")
    return {v.rule: report.basis_of(v.rule).value for v in report.violations}


TOOL_RESULT = ('{"type":"user","session_id":"sess_1","seq":2,"ts":"2026-01-01T00:00:01Z","agent":"primary",'
               '"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu_1","content":"CONTENT"}]}}')
TOOL_USE = ('{"type":"assistant","session_id":"sess_1","seq":2,"ts":"2026-01-01T00:00:01Z","agent":"primary",'
            '"message":{"role":"assistant","content":[{"type":"tool_use","id":"tu_1","name":"Read","input":{}}]}}')


def _tool_result(content: str) -> bytes:
    return _stream(INIT, TOOL_USE, TOOL_RESULT.replace('"seq":2', '"seq":3').replace("CONTENT", content),
                   RESULT.replace('"seq":3', '"seq":4'))


@pytest.mark.parametrize(("content", "expected"), [
    ("a\u0085b", {"line.c1": "derived"}),  # NEL raw in free text
    ("\\u009b31mred", {"line.c1": "derived"}),  # escaped CSI
    ("\\u001b[31mred", {"line.ansi": "written"}),  # ESC itself: the words
    ("\\udc00", {"line.surrogate": "policy"}),  # RFC 8259 §8.2 admits it
    ("\\ud83d\\ude00", {}),
])
def test_escapes_and_surrogates_name_the_weakest_basis(content: str, expected: dict[str, str]) -> None:
    assert _basis(_tool_result(content)) == expected


def test_a_lone_surrogate_is_json_and_conformant_under_basis_written() -> None:
    report = contract.check(_tool_result("\\udc00"), wire="stream-json", basis=["written"])
    assert report.conformant
    assert [v.rule for v in report.violations] == ["line.surrogate"]
    assert all("not a JSON object" not in v.message and v.rule != "line.json" for v in report.violations)


def test_success_with_is_error_true_is_derived_and_the_named_failures_written() -> None:
    assert _basis(_stream(INIT, ASSISTANT, RESULT.replace("false", "true"))) == {"sj.result-success": "derived"}
    refused = RESULT.replace('"success"', '"refused"').replace("false", "true")
    assert _basis(_stream(INIT, ASSISTANT, refused)) == {"sj.result-is-error": "written"}
    max_turns = RESULT.replace('"success"', '"error_max_turns"')
    assert _basis(_stream(INIT, ASSISTANT, max_turns)) == {"sj.result-is-error": "written"}


@pytest.mark.parametrize(("session", "expected"), [
    ("sess_", {"sj.session-suffix": "derived"}),
    ("sess_a b", {"sj.session-suffix": "derived"}),
    ("session-1", {"sj.session": "written"}),
    ("sess_1", {}),
])
def test_a_bare_sess_prefix_is_derived_and_a_missing_prefix_written(session: str, expected: dict[str, str]) -> None:
    data = _stream(INIT, ASSISTANT, RESULT).replace(b'"sess_1"', json.dumps(session).encode())
    assert _basis(data) == expected
