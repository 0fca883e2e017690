"""The oracle's own cases: every rule it implements fires on one input and stays quiet on a near miss.

The differential test is only as good as the oracle, so the oracle gets its own table, written from
the seed text (tests/oracle/READINGS.md), independent of the project's rule cases.
"""

from __future__ import annotations

import pytest

from tests.oracle import judge
from tests.oracle.jsonparse import JSONSyntaxError, parse
from tests.oracle.rfc3339 import is_rfc3339_date_time

INIT = (
    '{"type":"system","subtype":"init","session_id":"sess_1","seq":1,"ts":"2026-11-30T09:14:02Z",'
    '"agent":{"name":"milk","provider":"p"}}'
)
A = (
    '{"type":"assistant","session_id":"sess_1","seq":2,"ts":"2026-11-30T09:14:03Z","agent":"primary",'
    '"message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}}'
)
TU = (
    '{"type":"assistant","session_id":"sess_1","seq":2,"ts":"2026-11-30T09:14:03Z","agent":"primary",'
    '"message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"p":"x"}}]}}'
)
TR = (
    '{"type":"user","session_id":"sess_1","seq":3,"ts":"2026-11-30T09:14:04Z","agent":"primary",'
    '"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}'
)
R = '{"type":"result","subtype":"success","session_id":"sess_1","seq":3,"ts":"2026-11-30T09:14:04Z","is_error":false}'
R4 = R.replace('"seq":3', '"seq":4')
ARGS = (
    '{"type":"stream_event","session_id":"sess_1","seq":2,"ts":"2026-11-30T09:14:03Z",'
    '"event":{"type":"tool_args_delta","tool_use_id":"t1","partial_json":"{\\"p\\":\\"x\\"}"}}'
)
SNAP = (
    '{"version":1,"sessionId":"s","epoch":"e1","revision":%s,"available":true,'
    '"capabilities":{"snapshot":true,"events":%s},"fleet":{"version":1,"entries":[],"totalActive":0,'
    '"topLevelAsyncCapacity":{"used":0,"limit":4},"omitted":0},"runs":%s,"omitted":{"runs":0,"children":0}}'
)
CMD = '{"type":"subagent_status","version":1,"id":"c1"}'


def resp(rid: str = "c1", rev: str = "1", events: str = "true", runs: str = "[]") -> str:
    data = SNAP % (rev, events, runs)
    return f'{{"type":"response","command":"subagent_status","id":"{rid}","success":true,"data":{data}}}'


def event(rev: str = "2", snap_rev: str | None = None, events: str = "true") -> str:
    snapshot = SNAP % (snap_rev or rev, events, "[]")
    return (
        f'{{"type":"subagent_event","version":1,"sessionId":"s","epoch":"e1","revision":{rev},"snapshot":{snapshot}}}'
    )


def sj(*lines: str) -> bytes:
    return "".join(line + "\n" for line in lines).encode()


GOOD_SJ = sj(INIT, A, R)
GOOD_SA = sj(CMD, resp(), event())

# (id, wire, transcript, rule, level, fires?)
CASES: list[tuple[str, str, bytes, str, str, bool]] = [
    ("utf8", "stream-json", GOOD_SJ.replace(b'"hi"', b'"h\xffi"'), "line.utf8", "MUST", True),
    ("utf8-near", "stream-json", GOOD_SJ.replace(b'"hi"', '"h\u00e9i"'.encode()), "line.utf8", "MUST", False),
    ("bom", "stream-json", b"\xef\xbb\xbf" + GOOD_SJ, "line.utf8", "MUST", True),
    ("no-final-newline", "stream-json", GOOD_SJ[:-1], "line.newline", "MUST", True),
    ("crlf", "stream-json", GOOD_SJ.replace(b"\n", b"\r\n"), "line.newline", "MUST", True),
    ("escaped-cr-near", "stream-json", GOOD_SJ.replace(b'"hi"', b'"h\\r\\ni"'), "line.newline", "MUST", False),
    ("blank", "stream-json", GOOD_SJ.replace(b"\n", b"\n\n", 1), "line.blank", "MUST", True),
    ("u2028-near", "stream-json", GOOD_SJ.replace(b'"hi"', '"h\u2028i"'.encode()), "line.blank", "MUST", False),
    ("not-json", "stream-json", sj(INIT, A.replace('"hi"', "NaN"), R), "line.json", "MUST", True),
    ("json-near", "stream-json", sj(INIT, A.replace('"hi"', '"NaN"'), R), "line.json", "MUST", False),
    ("array", "stream-json", GOOD_SJ + b"[1]\n", "line.object", "MUST", True),
    (
        "dup-deep",
        "stream-json",
        sj(INIT, TU.replace('{"p":"x"}', '{"a":[{"b":1,"b":1}]}'), R),
        "line.duplicate-key",
        "MUST",
        True,
    ),
    (
        "dup-near",
        "stream-json",
        sj(INIT, TU.replace('{"p":"x"}', '{"a":[{"b":1},{"b":1}]}'), R),
        "line.duplicate-key",
        "MUST",
        False,
    ),
    ("esc-value", "stream-json", sj(INIT, TU.replace('"x"', '"\\u001b[1m"'), R), "line.ansi", "MUST", True),
    ("esc-name", "stream-json", sj(INIT, TU.replace('"p"', '"\\u001b]0;t\\u0007"'), R), "line.ansi", "MUST", True),
    ("bel-near", "stream-json", sj(INIT, TU.replace('"x"', '"\\u0007[1m"'), R), "line.ansi", "MUST", False),
    (
        "deep-1025",
        "stream-json",
        sj(INIT.replace("{", '{"_meta":' + "[" * 1024 + "]" * 1024 + ",", 1), A, R),
        "line.limit",
        "MUST",
        True,
    ),
    (
        "deep-1024-near",
        "stream-json",
        sj(INIT.replace("{", '{"_meta":' + "[" * 1023 + "]" * 1023 + ",", 1), A, R),
        "line.limit",
        "MUST",
        False,
    ),
    (
        "int-4301",
        "stream-json",
        sj(INIT.replace("{", '{"_meta":' + "9" * 4301 + ",", 1), A, R),
        "line.limit",
        "MUST",
        True,
    ),
    (
        "int-4300-near",
        "stream-json",
        sj(INIT.replace("{", '{"_meta":' + "9" * 4300 + ",", 1), A, R),
        "line.limit",
        "MUST",
        False,
    ),
    # seq 1e5000 is beyond exact integers: checker.limit for that line's seq check (the lead, R8).
    ("int-by-exponent", "stream-json", sj(INIT, A, R.replace('"seq":3', '"seq":1e5000')), "checker.limit", "MUST",
     True),
    ("int-by-exponent-not-line", "stream-json", sj(INIT, A, R.replace('"seq":3', '"seq":1e5000')), "line.limit",
     "MUST", False),
    (
        "int-by-exponent-near",
        "stream-json",
        sj(INIT, A, R.replace('"seq":3', '"seq":1e400')),
        "line.limit",
        "MUST",
        False,
    ),
    ("schema", "stream-json", sj(INIT, A.replace('"seq":2', '"seq":"2"'), R), "sj.schema", "MUST", True),
    ("seq-2.0-near", "stream-json", sj(INIT, A.replace('"seq":2', '"seq":2.0'), R), "sj.schema", "MUST", False),
    (
        "seq-rounds",
        "stream-json",
        sj(INIT, A.replace('"seq":2', '"seq":2.0000000000000001'), R),
        "sj.schema",
        "MUST",
        True,
    ),
    (
        "unknown-type-near",
        "stream-json",
        sj(INIT, A.replace('"assistant"', '"telemetry"', 1), R),
        "sj.schema",
        "MUST",
        False,
    ),
    ("unknown-member", "stream-json", sj(INIT, A.replace("{", '{"x_new":1,', 1), R), "sj.schema", "MUST", True),
    ("ts", "stream-json", sj(INIT.replace("T09", "\uff34\u0030\u0039"), A, R), "sj.ts-format", "MUST", True),
    (
        "ts-leap-near",
        "stream-json",
        sj(INIT.replace("2026-11-30T09:14:02Z", "2026-12-31T23:59:60Z"), A, R),
        "sj.ts-format",
        "MUST",
        False,
    ),
    ("init-first", "stream-json", sj(A, INIT, R), "sj.init-first", "MUST", True),
    ("init-once", "stream-json", sj(INIT, INIT.replace('"seq":1', '"seq":2'), R), "sj.init-once", "MUST", True),
    ("init-once-near", "stream-json", sj(A, INIT, R), "sj.init-once", "MUST", False),
    ("result-once", "stream-json", sj(INIT, A, R, R4), "sj.result-once", "MUST", True),
    # A missing result is a truncated run: sj.result-last, not sj.result-once (the lead, R6).
    ("result-once-none", "stream-json", sj(INIT, A), "sj.result-once", "MUST", False),
    ("result-last-none", "stream-json", sj(INIT, A), "sj.result-last", "MUST", True),
    (
        "result-last",
        "stream-json",
        sj(INIT, R.replace('"seq":3', '"seq":2'), A.replace('"seq":2', '"seq":3')),
        "sj.result-last",
        "MUST",
        True,
    ),
    ("seq-repeat", "stream-json", sj(INIT, A.replace('"seq":2', '"seq":1'), R), "sj.seq-contiguous", "MUST", True),
    ("seq-repeat-near", "stream-json", sj(INIT, A.replace('"seq":2', '"seq":1'), R), "sj.seq", "MUST", False),
    ("seq-back", "stream-json", sj(INIT, A.replace('"seq":2', '"seq":0'), R.replace('"seq":3', '"seq":1')),
     "sj.seq", "MUST", True),
    (
        "seq-gap",
        "stream-json",
        sj(INIT, A.replace('"seq":2', '"seq":5'), R.replace('"seq":3', '"seq":6')),
        "sj.seq-contiguous",
        "MUST",
        True,
    ),
    (
        "seq-gap-near",
        "stream-json",
        sj(INIT, "{oops", R),
        "sj.seq",
        "MUST",
        False,
    ),
    ("is-error", "stream-json", sj(INIT, A, R.replace('"success"', '"refused"').replace("false", "true")),
     "sj.result-is-error", "MUST", True),
    # success with is_error true: "true when the run failed" read as "only then" (derived, its own rule)
    ("is-error-success", "stream-json", sj(INIT, A, R.replace("false", "true")), "sj.result-success", "MUST", True),
    ("is-error-success-near", "stream-json", sj(INIT, A, R.replace("false", "true")), "sj.result-is-error", "MUST",
     False),
    ("session-bare-prefix", "stream-json", sj(INIT, A, R).replace(b'"sess_1"', b'"sess_"'), "sj.session-suffix",
     "MUST", True),
    ("session-bare-prefix-near", "stream-json", sj(INIT, A, R).replace(b'"sess_1"', b'"sess_"'), "sj.session",
     "MUST", False),
    (
        "is-error-missing",
        "stream-json",
        sj(INIT, A, R.replace(',"is_error":false', "")),
        "sj.result-is-error",
        "MUST",
        True,
    ),
    (
        "is-error-refused",
        "stream-json",
        sj(INIT, A, R.replace("success", "refused").replace("false", "true")),
        "sj.result-is-error",
        "MUST",
        True,
    ),
    (
        "is-error-open-near",
        "stream-json",
        sj(INIT, A, R.replace("success", "budget").replace("false", "true")),
        "sj.result-is-error",
        "MUST",
        False,
    ),
    (
        "agent-form",
        "stream-json",
        sj(INIT, A.replace('"agent":"primary"', '"agent":{"name":"a","provider":"p"}'), R),
        "sj.agent-form",
        "MUST",
        True,
    ),
    (
        "agent-label-near",
        "stream-json",
        sj(INIT, A.replace('"primary"', '"sidekick"'), R),
        "sj.agent-form",
        "MUST",
        False,
    ),
    (
        "message-form",
        "stream-json",
        sj(INIT, A.replace('"message":{', '"message":"x","m":{'), R),
        "sj.message-form",
        "MUST",
        True,
    ),
    (
        "subtype",
        "stream-json",
        sj(INIT, A, R.replace('"subtype":"success",', "")),
        "sj.subtype",
        "MUST",
        True,
    ),
    (
        "tool-result-ref",
        "stream-json",
        sj(INIT, TU, TR.replace('"t1"', '"t2"'), R4),
        "sj.tool-result-ref",
        "MUST",
        True,
    ),
    ("tool-result-ref-near", "stream-json", sj(INIT, TU, TR, R4), "sj.tool-result-ref", "MUST", False),
    (
        "parent-ref",
        "stream-json",
        sj(INIT, TU, TR.replace("{", '{"parent_tool_use_id":"t9",', 1), R4),
        "sj.parent-ref",
        "MUST",
        True,
    ),
    (
        "parent-ref-near",
        "stream-json",
        sj(INIT, TU, TR.replace("{", '{"parent_tool_use_id":"t1",', 1), R4),
        "sj.parent-ref",
        "MUST",
        False,
    ),
    (
        "args",
        "stream-json",
        sj(INIT, ARGS.replace('\\"x\\"', '\\"y\\"'), TU.replace('"seq":2', '"seq":3'), R4),
        "sj.tool-args-reassembly",
        "MUST",
        True,
    ),
    (
        "args-dup",
        "stream-json",
        sj(INIT, ARGS.replace('{\\"p\\"', '{\\"p\\":\\"x\\",\\"p\\"'), TU.replace('"seq":2', '"seq":3'), R4),
        "sj.tool-args-duplicate-key",
        "MUST",
        True,
    ),
    (
        "args-near",
        "stream-json",
        sj(INIT, ARGS, TU.replace('"seq":2', '"seq":3'), R4),
        "sj.tool-args-reassembly",
        "MUST",
        False,
    ),
    ("session", "stream-json", sj(INIT, A.replace("sess_1", "sess_2"), R), "sj.session-constant", "MUST", True),
    ("session-near", "stream-json", sj(INIT, A.replace("sess_1", "sess_2"), R), "sj.session", "MUST", False),
    ("sa-schema", "subagent-stdio", sj(CMD.replace('"c1"', '"c1\\n"'), resp("c1\\n")), "sa.schema", "MUST", True),
    (
        "sa-key",
        "subagent-stdio",
        sj(CMD, resp(runs='[{"key":"k\\n","status":"running","children":[],"omittedChildren":0}]')),
        "sa.schema",
        "MUST",
        True,
    ),
    (
        "sa-key-near",
        "subagent-stdio",
        sj(CMD, resp(runs='[{"key":"k","status":"running","children":[],"omittedChildren":0}]')),
        "sa.schema",
        "MUST",
        False,
    ),
    (
        "sa-ansi",
        "subagent-stdio",
        sj(CMD.replace('"c1"', '"\\u001b[1m"'), resp("\\u001b[1m")),
        "line.ansi",
        "MUST",
        False,
    ),
    # The lead's decisions (issue 12): each with a case that fires and a near miss.
    # RFC 8259 8.2 admits a lone surrogate: policy, its own rule (issue 31), and the line is still JSON
    ("surrogate", "stream-json", sj(INIT, A.replace('"hi"', '"\\ud800"'), R), "line.surrogate", "MUST", True),
    ("surrogate-json-near", "stream-json", sj(INIT, A.replace('"hi"', '"\\ud800"'), R), "line.json", "MUST", False),
    ("surrogate-pair-near", "stream-json", sj(INIT, A.replace('"hi"', '"\\ud83d\\ude00"'), R), "line.json", "MUST",
     False),
    # A repeated member makes the line opaque, still an object: its type is read where all readings agree.
    ("dup-opaque-init", "stream-json", sj(INIT.replace('{"type":"system",', '{"type":"system","type":"result",'), A, R),
     "sj.init-first", "MUST", True),
    ("dup-opaque-init-near", "stream-json",
     sj(INIT.replace('{"type":"system",', '{"type":"system","type":"system",'), A, R), "sj.init-first", "MUST", False),
    ("dup-extension-init-near", "stream-json",
     sj(INIT.replace('{"type":"system",', '{"type":"system","extension":{"a":1,"a":1},'), A, R), "sj.init-first",
     "MUST", False),
    ("dup-extension-result-near", "stream-json",
     sj(INIT, A, R.replace('{"type":"result",', '{"type":"result","extension":{"a":1,"a":1},')), "sj.result-last",
     "MUST", False),
    ("dup-opaque-seq-near", "stream-json", sj(INIT, A.replace('"seq":2', '"seq":9,"seq":2'), R), "sj.seq", "MUST",
     False),
    ("esc-tool-input", "stream-json", sj(INIT, TU.replace('"input":{', '"input":{"c":"\\u001b[1m",', 1), R4),
     "line.ansi", "MUST", True),
    # C1 controls: ESC's one-character forms by ECMA-48 (derived, line.c1: issue 31)
    ("csi-tool-input", "stream-json", sj(INIT, TU.replace('"input":{', '"input":{"c":"\\u009b1m",', 1), R4),
     "line.c1", "MUST", True),
    ("csi-tool-input-ansi-near", "stream-json", sj(INIT, TU.replace('"input":{', '"input":{"c":"\\u009b1m",', 1),
     R4), "line.ansi", "MUST", False),
    ("nel-tool-input", "stream-json", sj(INIT, TU.replace('"input":{', '"input":{"c":"a\u0085b",', 1), R4),
     "line.c1", "MUST", True),
    ("nbsp-tool-input-near", "stream-json", sj(INIT, TU.replace('"input":{', '"input":{"c":"\\u00a01m",', 1), R4),
     "line.ansi", "MUST", False),
    ("message-missing", "stream-json", sj(INIT, '{"type":"assistant","session_id":"sess_1","seq":2,'
     '"ts":"2026-11-30T09:14:03Z","agent":"primary"}', R), "sj.message-present", "MUST", True),
    ("is-error-string-near", "stream-json", sj(INIT, A, R.replace("false", '"false"')), "sj.result-is-error", "MUST",
     False),
    ("is-error-string-schema", "stream-json", sj(INIT, A, R.replace("false", '"false"')), "sj.schema", "MUST", True),
    ("unknown-type-extra", "stream-json",
     sj(INIT, A.replace('"assistant","session_id"', '"thought","x":1,"session_id"'), R), "sj.schema", "MUST", True),
    ("sa-corr", "subagent-stdio", sj(CMD, resp("c2")), "sa.response-correlation", "MUST", True),
    ("sa-corr-near", "subagent-stdio", GOOD_SA, "sa.response-correlation", "MUST", False),
    ("sa-env", "subagent-stdio", sj(event("2", "3")), "sa.event-envelope", "MUST", True),
    ("sa-rev", "subagent-stdio", sj(event("5"), event("4")), "sa.revision-order", "MUST", True),
    ("sa-rev-near", "subagent-stdio", sj(event("4"), event("5")), "sa.revision-order", "MUST", False),
    (
        "sa-caps",
        "subagent-stdio",
        sj(CMD, resp(events="false"), event(events="false")),
        "sa.events-capability",
        "MUST",
        True,
    ),
]


@pytest.mark.parametrize(("wire", "data", "rule", "level", "fires"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rule_fires_or_not(wire: str, data: bytes, rule: str, level: str, fires: bool) -> None:
    verdict = judge(data, wire)
    found = verdict.must if level == "MUST" else verdict.should
    assert (rule in found) is fires, verdict.notes


@pytest.mark.parametrize("wire", ["stream-json", "subagent-stdio"])
def test_plain_transcripts_are_conformant(wire: str) -> None:
    verdict = judge(GOOD_SJ if wire == "stream-json" else GOOD_SA, wire)
    assert verdict.conformant, verdict.notes
    assert not verdict.should, verdict.notes


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("2026-11-30T09:14:02Z", True),
        ("2026-11-30t09:14:02.5z", True),
        ("2026-12-31T23:59:60Z", True),
        ("2027-01-01T00:59:60+01:00", True),
        ("2026-11-30T09:14:60Z", False),
        ("2026-12-31T23:59:60+01:00", False),
        ("2024-02-29T00:00:00Z", True),
        ("2026-02-29T00:00:00Z", False),
        ("2026-11-30T09:14:02", False),
        ("2026-11-30 09:14:02Z", False),
        ("2026-11-30T09:14:02Z\n", False),
        ("\uff12026-11-30T09:14:02Z", False),
        ("2026-11-30T09:14:02+24:00", False),
    ],
)
def test_rfc3339(value: str, ok: bool) -> None:
    assert is_rfc3339_date_time(value) is ok


@pytest.mark.parametrize("text", ["", "{", '{"a":1,}', "[1,]", "01", "1.", "NaN", '{"a" 1}', '"\x01"', "1 2", "-"])
def test_parser_rejects(text: str) -> None:
    with pytest.raises(JSONSyntaxError):
        parse(text)


def test_parser_is_exact_and_iterative() -> None:
    parsed = parse('{"n":2.0000000000000001,"big":1e400,"d":' + "[" * 5000 + "]" * 5000 + "}")
    assert isinstance(parsed.value, dict)
    assert str(parsed.value["n"]) == "2.0000000000000001"
    assert parsed.max_depth == 5001
    assert parse('{"a":{"b":1,"b":2}}').duplicate_pointers == ["/a/b"]
