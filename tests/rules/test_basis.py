"""Rule basis (issue 23): every rule stands on one basis, every report says which, ``--basis`` judges a subset.

A third-party emitter author reading the seeds alone must be able to tell what the seed literally
demands (written) from what the project derives from its structure or a stated purpose (derived)
and what it chose where the seed is silent (policy). The red-team seed-reading cases of the issue
are here, each with the basis its verdict must name; then ``--basis`` (listed, not failing; fail
closed for what says the check did not finish) in every report format, the CLI and the plugin.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import contract
from contract.cli import run
from contract.core.rule import BASES, Basis, Observed, Rule, bases
from contract.plugin.session import ContractSession, startup_problem
from contract.reporting.formats import REPORTERS
from contract.rules.catalog import CATALOG, UNJUDGED, rules_for
from contract.rules.report import UNIGNORABLE, Report
from contract.wires import NAMES, WIRES
from tests.support.paths import ROOT
from tests.support.seeds import SEED_DIGESTS
from tests.support.wires import bundled_only
from tests.support.wrapped import unwrapped

INIT = '{"type":"system","subtype":"init","session_id":"sess_1","seq":1,"ts":"2025-01-01T00:00:00Z"}'


def _sj(*middle: str, last_seq: int | None = None) -> bytes:
    seq = last_seq if last_seq is not None else len(middle) + 2
    result = (f'{{"type":"result","subtype":"success","session_id":"sess_1","seq":{seq},'
              '"ts":"2025-01-01T00:00:00Z","is_error":false}')
    return "\n".join((INIT, *middle, result)).encode() + b"\n"


def _line(seq: int, kind: str, extra: str = "") -> str:
    return f'{{"type":{kind},"session_id":"sess_1","seq":{seq},"ts":"2025-01-01T00:00:00Z"{extra}}}'


SNAP = ('{"version":1,"sessionId":"s1","epoch":"e1","revision":3,"available":true,'
        '"capabilities":{"snapshot":true,"events":true},"fleet":{"version":1,"entries":[],"totalActive":0,'
        '"topLevelAsyncCapacity":{"used":0,"limit":4},"omitted":0},"runs":[],"omitted":{"runs":0,"children":0}}')


def _verdict(data: bytes, wire: str = "stream-json") -> dict[str, str]:
    """rule -> basis of each finding (every finding names exactly one basis)."""
    report = contract.check(data, wire=wire)
    return {v.rule: report.basis_of(v.rule).value for v in report.violations}


# -- every rule has one basis ------------------------------------------------------------------


def test_every_rule_has_one_basis_per_wire() -> None:
    for rule in CATALOG.values():
        assert isinstance(rule.basis, Basis), rule.id
        for wire in NAMES:
            assert rule.basis_for(wire) in BASES, (rule.id, wire)
        assert all(wire in NAMES for wire, _ in rule.basis_on), rule.id


def test_rules_that_mixed_two_bases_are_split() -> None:
    pairs = {("sj.seq", "sj.seq-contiguous"): ("written", "derived"),
             ("sj.session", "sj.session-constant"): ("written", "derived"),
             ("sj.message-form", "sj.message-present"): ("written", "derived"),
             ("sj.tool-args-reassembly", "sj.tool-args-duplicate-key"): ("derived", "policy")}
    for (one, other), (first, second) in pairs.items():
        assert (CATALOG[one].basis.value, CATALOG[other].basis.value) == (first, second)


# A line the checker could not read, and a stream that does not show a whole run (docs/rules.md):
# judged under any --basis (line.newline's last line without LF is read whole or is line.json too).
UNREADABLE = frozenset({"line.utf8", "line.json", "line.object"})


def milk_s(rule: Rule) -> bool:
    """A rule every wire shares, or one of milk's wires' (copied from a seed): what the pins here hold."""
    return rule.wire not in WIRES or rule.wire in SEED_DIGESTS
NOT_WHOLE = frozenset({"sj.init-first", "sj.result-last"})


def test_what_says_the_check_did_not_finish_is_never_filtered() -> None:
    """Fail closed: checker, harness and baseline rules, line.limit and every unignorable rule.

    The set is pinned for milk's wires; a wire written here may declare rules of its own that
    say its stream does not show a whole run (``filterable=False, silenceable=False``, as
    sj.init-first does): they are unignorable too."""
    every = {r.id for r in CATALOG.values() if not r.filterable}
    assert UNIGNORABLE | UNJUDGED | {"line.limit"} <= every
    assert {r.id for r in CATALOG.values() if r.observed is not Observed.STREAM} <= every
    assert all(not CATALOG[rule].silenceable for rule in every if not milk_s(CATALOG[rule]))
    assert {rule for rule in every if milk_s(CATALOG[rule])} == {
        r.id for r in CATALOG.values() if r.wire in ("run", "checker", "consumer")} | {
        "line.limit", "baseline.stale", *UNREADABLE, *NOT_WHOLE}


HELLO = ROOT / "goldens" / "stream-json" / "hello.jsonl"


def _cut_streams() -> dict[str, bytes]:
    """The reviewer's reproducers: a stream cut mid-line, one cut after two lines, random bytes, nothing."""
    whole = HELLO.read_bytes()
    return {"cut at 100 bytes": whole[:100], "first two lines": b"".join(whole.splitlines(True)[:2]),
            "4 KiB of random bytes": __import__("random").Random(20).randbytes(4096), "empty": b""}


@pytest.mark.parametrize("name", sorted(_cut_streams()))
@pytest.mark.parametrize("basis", [b.value for b in BASES])
def test_an_unreadable_or_unfinished_stream_fails_under_any_basis(name: str, basis: str, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    data = _cut_streams()[name]
    report = contract.check(data, basis=[basis])
    assert not report.conformant, (name, basis, dict(report.counts))
    assert report.failing()
    assert set(report.counts) & NOT_WHOLE, dict(report.counts)  # none of them shows a whole run
    stream = tmp_path / "cut.jsonl"
    stream.write_bytes(data)
    assert run(["check", "--basis", basis, str(stream)]) == 1
    summary = capsys.readouterr().out.strip().splitlines()[-1]
    assert "NOT conformant" in summary


def test_a_cut_line_fails_by_its_framing_finding_too() -> None:
    report = contract.check(_cut_streams()["cut at 100 bytes"], basis=["derived"])
    assert {"line.json", "line.newline", "sj.init-first", "sj.result-last"} == set(report.counts)
    assert all(report.judged(rule) for rule in ("line.json", "sj.init-first", "sj.result-last"))
    assert not report.judged("line.newline")  # read whole or line.json too: a verdict on what was seen


@pytest.mark.process
def test_a_run_that_wrote_nothing_fails_under_basis_policy(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["run", "--basis", "policy", "--", "true"]) == 1
    assert "NOT conformant (stream-json, 0 lines)" in capsys.readouterr().out


def test_a_scenario_report_cut_short_fails_under_the_plugins_basis() -> None:
    """The plugin judges a scenario's report with ``report.bases`` (contract.plugin.session): a cut one fails."""
    report = contract.check(_cut_streams()["first two lines"])
    report.bases = bases(["derived"])  # what ContractSession.run does with --contract-basis derived
    assert not report.conformant


# -- the red-team seed-reading cases, each with the basis of the words quoted -----------------


def test_seq_1_5_6_is_a_derived_gap_not_a_written_monotonic_break() -> None:
    data = _sj(_line(5, '"system","subtype":"state"'), last_seq=6)
    assert _verdict(data) == {"sj.seq-contiguous": "derived"}
    assert contract.check(data, basis=["written"]).conformant
    assert not contract.check(data, basis=["derived"]).conformant


def test_seq_step_back_is_written() -> None:
    data = _sj(_line(3, '"system","subtype":"state"'), last_seq=2)
    assert _verdict(data) == {"sj.seq-contiguous": "derived", "sj.seq": "written"}
    assert not contract.check(data, basis=["written"]).conformant


def test_out_of_order_responses_with_echoed_ids_are_derived() -> None:
    data = "\n".join([
        '{"type":"subagent_status","version":1,"id":"c1"}', '{"type":"subagent_status","version":1,"id":"c2"}',
        f'{{"type":"response","command":"subagent_status","id":"c2","success":true,"data":{SNAP}}}',
        f'{{"type":"response","command":"subagent_status","id":"c1","success":true,"data":{SNAP}}}',
    ]).encode() + b"\n"
    report = contract.check(data, wire="subagent-stdio")
    assert set(report.counts) == {"sa.response-correlation"}
    assert report.basis_of("sa.response-correlation") is Basis.DERIVED
    assert contract.check(data, wire="subagent-stdio", basis=["written"]).conformant
    for rule in rules_for("subagent-stdio"):  # no sa.* cross-line rule is written: the seed has no words
        if rule.id.startswith("sa.") and rule.id != "sa.schema":
            assert rule.basis is Basis.DERIVED, rule.id


@pytest.mark.parametrize(("line", "expected"), [
    # the form, where present, on every line type each dual-form sentence names (written)
    ('"system","subtype":"error","message":{"role":"assistant","content":[]}', {"sj.message-form": "written"}),
    ('"assistant","agent":"primary","message":"hi"', {"sj.message-form": "written"}),
    ('"user","agent":"primary","message":"hi"', {"sj.message-form": "written"}),
    ('"assistant","agent":{"name":"m","provider":"p"},"message":{"role":"assistant","content":[]}',
     {"sj.agent-form": "written"}),
    ('"user","agent":{"name":"m","provider":"p"},"message":{"role":"user","content":[]}',
     {"sj.agent-form": "written"}),
    # absent: the dual-form sentences do not make a member present, on any line type
    ('"system","subtype":"error","recoverable":true', {}),
    ('"assistant","message":{"role":"assistant","content":[]}', {}),
    ('"user","message":{"role":"user","content":[]}', {}),
    # presence of message on assistant/user is another sentence's (oneOf[2], oneOf[3]): derived
    ('"assistant","agent":"primary"', {"sj.message-present": "derived"}),
    ('"user","agent":"primary"', {"sj.message-present": "derived"}),
])
def test_dual_form_members_have_one_reading(line: str, expected: dict[str, str]) -> None:
    assert _verdict(_sj(_line(2, line))) == expected


def test_agent_missing_on_init_passes_like_message_missing_on_error() -> None:
    init = '{"type":"system","subtype":"init","session_id":"sess_1","seq":1,"ts":"2025-01-01T00:00:00Z"}'
    assert '"agent"' not in init
    assert _verdict(_sj()) == {}


def test_an_unknown_type_is_judged_by_the_envelope_only_and_the_report_says_so() -> None:
    data = _sj(_line(2, '"heartbeat"'))
    report = contract.check(data)
    assert report.conformant
    assert not report.counts
    (note,) = [n for n in report.notes if "heartbeat" in n]
    assert "common envelope only" in note
    assert "open set: ignore unknown values" in note
    assert "unknown type against the common envelope only" in CATALOG["sj.schema"].title
    broken = contract.check(_sj(_line(2, '"heartbeat","color":1')))  # the envelope still holds
    assert set(broken.counts) == {"sj.schema"}


def test_many_unknown_types_are_noted_within_a_bound() -> None:
    data = _sj(*(_line(n, f'"kind{n}"') for n in range(2, 40)))
    notes = [n for n in contract.check(data).notes if n.startswith("sj.schema:")]
    assert len(notes) == 9  # eight named, then one saying there were more
    assert "more line types" in notes[-1]


@pytest.mark.parametrize("text", [r"\u009b31m", "\u009b31m", r"\u009d0;t\u0007", r"\u0085", "a\u0085b"])
def test_c1_controls_are_derived_ansi_escapes(text: str) -> None:
    # ECMA-48's equivalence of a C1 control and ESC Fe is a step no sentence takes: derived (issue 31)
    data = _sj(_line(2, f'"system","subtype":"notification","message":"{text}"'))
    assert _verdict(data) == {"line.c1": "derived"}


@pytest.mark.parametrize("text", [r"\u001b[31m", r"\u001b"])
def test_esc_itself_is_a_written_ansi_escape(text: str) -> None:
    data = _sj(_line(2, f'"system","subtype":"notification","message":"{text}"'))
    assert _verdict(data) == {"line.ansi": "written"}


@pytest.mark.parametrize("text", ["\u011b", r"\u00a0", r"\\u009b", r"\u0007\t\u007f"])
def test_near_misses_of_c1_are_text(text: str) -> None:
    assert _verdict(_sj(_line(2, f'"system","subtype":"notification","message":"{text}"'))) == {}


def test_subagent_framing_is_policy_and_stream_json_framing_written() -> None:
    assert CATALOG["line.newline"].basis_for("stream-json") is Basis.WRITTEN
    assert CATALOG["line.newline"].basis_for("subagent-stdio") is Basis.POLICY
    event = (f'{{"type":"subagent_event","version":1,"sessionId":"s1","epoch":"e1","revision":3,'
             f'"snapshot":{SNAP}}}\r\n').encode()  # host output only: no command to answer
    report = contract.check(event, wire="subagent-stdio")
    assert set(report.counts) == {"line.newline"}
    assert report.basis_of("line.newline") is Basis.POLICY
    assert contract.check(event, wire="subagent-stdio", basis=["written", "derived"]).conformant


# -- --basis: listed, not failing; fail closed -------------------------------------------------

ONLY_DERIVED_AND_POLICY = _sj(
    _line(5, '"system","subtype":"state"'),  # a gap: derived
    _line(6, '"assistant","agent":"primary"'),  # no message: derived
    '{"type":"system","subtype":"state","session_id":"sess_2","seq":7,"ts":"2025-01-01T00:00:00Z"}',  # derived
    last_seq=8,
)


def test_basis_written_passes_a_stream_that_breaks_only_derived_or_policy_rules() -> None:
    full = contract.check(ONLY_DERIVED_AND_POLICY)
    assert not full.conformant
    assert {full.basis_of(r) for r in full.counts} == {Basis.DERIVED}
    written = contract.check(ONLY_DERIVED_AND_POLICY, basis="written")
    assert written.conformant
    assert written.counts == full.counts  # still counted and listed
    assert written.unjudged() == dict(sorted(full.counts.items()))
    assert not contract.check(ONLY_DERIVED_AND_POLICY, basis=["written", "derived"]).conformant


def test_a_policy_finding_alone_passes_written_and_derived() -> None:
    dup = _sj('{"type":"system","subtype":"state","session_id":"sess_1","seq":2,"seq":2,"ts":"2025-01-01T00:00:00Z"}')
    assert set(contract.check(dup).counts) == {"line.duplicate-key"}
    assert contract.check(dup, basis=["written", "derived"]).conformant
    assert not contract.check(dup, basis=["policy"]).conformant


@pytest.mark.parametrize("rule", sorted(r.id for r in CATALOG.values() if not r.filterable))
def test_no_basis_selection_hides_an_unfinished_check(rule: str) -> None:
    for selection in (("written",), ("derived",), ("policy",)):
        report = Report(wire="stream-json", bases=bases(selection))
        report.counts[rule] = 1
        assert not report.conformant, (rule, selection)
        assert report.judged(rule)


def test_a_checker_limit_fails_under_basis_written() -> None:
    data = _sj('{"type":"system","subtype":"state","session_id":"sess_1","seq":1e5000,"ts":"2025-01-01T00:00:00Z"}')
    report = contract.check(data, basis=["written"])
    assert "checker.limit" in report.counts
    assert not report.conformant


def test_a_line_beyond_the_limit_fails_under_basis_written() -> None:
    report = contract.check(_sj(_line(2, '"system","subtype":"state","task":"' + "x" * 300 + '"')),
                            basis=["written"], max_line_bytes=200)
    assert "line.limit" in report.counts
    assert not report.conformant


def test_unknown_basis_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown basis 'literal'"):
        contract.check(b"", basis=["literal"])
    assert bases(None) == BASES
    assert bases(["policy,written"]) == (Basis.WRITTEN, Basis.POLICY)


# -- every report format names the basis -------------------------------------------------------


@pytest.fixture
def gap(tmp_path: Path) -> Path:
    path = tmp_path / "gap.jsonl"
    path.write_bytes(ONLY_DERIVED_AND_POLICY)
    return path


def test_cli_basis_written_exits_0_and_the_summary_says_what_was_judged(
        gap: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", "--basis", "written", str(gap)]) == 0
    out = capsys.readouterr().out
    assert "sj.seq-contiguous [MUST] at /seq" in out
    assert "[basis: derived, outside --basis: listed, not failing]" in out
    summary = out.strip().splitlines()[-1]
    assert ": conformant (" in summary
    assert "judged: --basis written only (3 findings of sj.message-present, sj.seq-contiguous, " \
           "sj.session-constant listed, not failing" in summary
    assert "outside --basis" in next(line for line in unwrapped(out) if line.startswith("requirements: "))
    assert run(["check", str(gap)]) == 1  # near miss: every basis judged
    assert run(["check", "--basis", "written", "--basis", "derived", str(gap)]) == 1  # cumulative
    assert "[basis: derived]" in capsys.readouterr().out


def test_cli_refuses_an_unknown_basis(gap: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", "--basis", "literal", str(gap)]) == 2
    assert "--basis: expected written, derived, policy" in capsys.readouterr().err


def test_json_report_names_each_finding_s_basis(gap: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", "--format", "json", "--basis", "written", str(gap)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["bases"] == ["written"]
    assert report["conformant"] is True
    assert {(v["rule"], v["basis"], v["judged"]) for v in report["violations"]} == {
        ("sj.seq-contiguous", "derived", False), ("sj.message-present", "derived", False),
        ("sj.session-constant", "derived", False)}
    verdicts = {r["rule"]: r for r in report["requirements"]}
    assert verdicts["sj.seq-contiguous"]["status"] == "outside-basis"
    assert "listed, not failing" in verdicts["sj.seq-contiguous"]["reason"]
    assert verdicts["sj.seq"]["status"] == "passed"
    assert verdicts["checker.internal"]["status"] == "passed"  # never outside a basis


def test_ci_formats_name_the_basis_and_do_not_fail_on_filtered_findings(gap: Path) -> None:
    report = contract.check(gap, basis=["written"])
    github = REPORTERS["github"].one(report)
    assert "::warning " in github
    assert "::error " not in github
    assert "[basis: derived, outside --basis]" in github
    sarif = json.loads(REPORTERS["sarif"].one(report))
    results = sarif["runs"][0]["results"]
    assert {r["level"] for r in results} == {"warning"}
    assert {r["properties"]["basis"] for r in results} == {"derived"}
    assert sarif["runs"][0]["properties"]["files"][0]["bases"] == ["written"]
    rules = {r["id"]: r for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["line.newline"]["properties"]["basis_on"] == {"subagent-stdio": "policy"}
    markdown = REPORTERS["markdown"].one(report)
    assert "| Basis |" in markdown
    assert "derived (outside --basis)" in markdown
    junit = ET.fromstring(REPORTERS["junit"].one(report))
    assert junit.get("failures") == "0"
    case = next(c for c in junit.iter("testcase") if c.get("name", "").startswith("sj.seq-contiguous:"))
    assert case.find("skipped") is not None
    assert case.find("failure") is None
    full = ET.fromstring(REPORTERS["junit"].one(contract.check(gap)))  # near miss: every basis judged
    assert full.get("failures") == "3"


def test_rules_lists_each_basis(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["rules", "--format", "json"]) == 0
    listed = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert listed["sj.seq-contiguous"]["basis"] == "derived"
    assert listed["checker.limit"]["filterable"] is False
    assert run(["rules"]) == 0
    text = capsys.readouterr().out
    assert "written (policy on subagent-stdio)" in text
    assert "policy (always judged)" in text


@pytest.mark.process
def test_run_takes_basis_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["run", "--basis", "written", "--timeout", "30"]) == 0  # the bundled reference emitter
    summary = capsys.readouterr().out.strip().splitlines()[-1]
    assert summary.endswith("judged: --basis written only (no finding of the others; checker, run, consumer and "
                            "baseline findings and line.utf8, line.json, line.object, line.limit, sj.init-first, "
                            "sj.result-last always judged)")


# -- the plugin ---------------------------------------------------------------------------------


def test_plugin_basis_option() -> None:
    assert startup_problem(None, False, ["literal"]) == (
        "--contract-basis: unknown basis 'literal'; expected one of written, derived, policy")
    assert startup_problem(None, False, ["written"]) is None
    session = ContractSession.from_options(emitter=None, timeout=1.0, record=False, strict=False, basis=["written"])
    session.checked = 1
    assert any("judged --contract-basis written only" in line for line in session.summary_lines())
    plain = ContractSession.from_options(emitter=None, timeout=1.0, record=False, strict=False)
    plain.checked = 1
    assert not any("--contract-basis" in line for line in plain.summary_lines())


def test_the_rules_page_lists_every_rule_with_its_basis() -> None:
    page = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([a-z0-9.-]+)` \| (?:MUST|SHOULD) \| ([^|]+) \|", page, re.MULTILINE))
    with bundled_only():  # the page describes the shipped catalog
        shipped = list(CATALOG.values())
    assert set(rows) == {rule.id for rule in shipped}
    for rule in shipped:
        cell = rows[rule.id].strip()
        assert cell.startswith(rule.basis.value), rule.id
        assert ("always judged" in cell) == (not rule.filterable), rule.id
        for wire, basis in rule.basis_on:
            assert f"({basis.value} on {wire})" in cell, rule.id
