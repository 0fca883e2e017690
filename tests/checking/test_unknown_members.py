"""An object with members ``additionalProperties: false`` refuses: one finding that names each of them.

The finding stays where it was (the first unknown member's pointer, one per object, so counts and
baselines read as before); its message lists every unknown member's JSON pointer, escaped, up to
``MAX_MEMBERS_NAMED``, then how many more. Both engines (the reference engine's detail and the
fast engine's, used past the first distinct failing lines) say the same.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import contract
from contract.checking.schema import MAX_MEMBERS_NAMED, engine
from contract.reporting.formats import REPORTERS

INIT: dict[str, Any] = {
    "type": "system", "session_id": "sess_01HZX3", "seq": 0, "ts": "2026-03-01T10:00:00Z", "subtype": "init",
    "agent": {"name": "milk", "provider": "anthropic", "model": "m-1"},
    "capabilities": ["stream_v1"], "cwd": "/work", "tools": ["Read"],
}
STATUS: dict[str, Any] = {"type": "subagent_status", "version": 1, "id": "sub-1"}


def _schema_findings(line: dict[str, Any], wire: str) -> list[contract.Violation]:
    report = contract.check(json.dumps(line, ensure_ascii=False).encode() + b"\n", wire=wire)
    return [v for v in report.violations if v.rule.endswith(".schema")]


@pytest.mark.parametrize(("wire", "base"), [("stream-json", INIT), ("subagent-stdio", STATUS)])
def test_every_unknown_member_is_named_by_its_pointer(wire: str, base: dict[str, Any]) -> None:
    line = {**base, "zz": 1, "a/b": "x", "t~\x1b": [1]}
    findings = _schema_findings(line, wire)
    assert len(findings) == 1  # one finding per object, as before: counts and baselines unchanged
    finding = findings[0]
    assert finding.pointer == "/zz"
    assert finding.message.startswith("expected no member 'zz' (additionalProperties is false here), found 1")
    assert "all 3 unknown members of this object: /zz, /a~1b, /t~0\x1b" in finding.message
    # the reporter escapes the hostile character, once
    assert "/t~0\\u001b" in REPORTERS["text"].one(contract.check(json.dumps(line).encode() + b"\n", wire=wire))


def test_a_nested_object_names_its_members_under_its_own_pointer() -> None:
    line = {**INIT, "agent": {**INIT["agent"], "x": 1, "y": 2}}
    (finding,) = _schema_findings(line, "stream-json")
    assert finding.pointer == "/agent/x"
    assert finding.message.endswith("all 2 unknown members of this object: /agent/x, /agent/y")


def test_a_lone_unknown_member_reads_as_before() -> None:
    (finding,) = _schema_findings({**INIT, "zz": 1}, "stream-json")
    assert finding.message == "expected no member 'zz' (additionalProperties is false here), found 1"


def test_100000_unknown_members_give_a_bounded_message_that_counts_them_all() -> None:
    line = {**INIT, **{f"k{i}": i for i in range(100_000)}}
    (finding,) = _schema_findings(line, "stream-json")
    named = ", ".join(f"/k{i}" for i in range(MAX_MEMBERS_NAMED))
    assert (f"100,000 unknown members in this object, the first {MAX_MEMBERS_NAMED}: {named}, "
            f"and {100_000 - MAX_MEMBERS_NAMED:,} more (at most {MAX_MEMBERS_NAMED} named per object)"
            in finding.message)
    assert len(finding.message) < 400


def test_a_long_member_name_is_clipped_in_the_list() -> None:
    line = {**INIT, "a": 1, "b" * 10_000: 2}
    (finding,) = _schema_findings(line, "stream-json")
    assert len(finding.message) < 300
    assert "/a, /bbb" in finding.message
    assert finding.message.endswith("…")


def test_both_engines_say_the_same() -> None:
    line = {**INIT, "zz": 1, "a/b": "x", **{f"k{i}": i for i in range(20)}}
    eng = engine("stream-json")
    reference = [e for e in eng.explain(line) if e.keyword == "additionalProperties"]
    fast = [e for e in eng.explain_fast(line) if e.keyword == "additionalProperties"]
    assert reference == fast
    assert "22 unknown members" in reference[0].message
