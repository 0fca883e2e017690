"""Systematic mutations of conformant transcripts, for the differential test.

Each mutation is a pure function of (transcript, wire, choice) and returns ``(kind, bytes)``; the
kind names what was done (e.g. ``numeric/7.0``) so that a disagreement can be listed by kind. They
work on the raw text on purpose: re-serialising would hide exactly the number forms and member
orders the mutations are meant to probe.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tests.oracle.jsonparse import _NUMBER, _STRING

Mutation = tuple[str, bytes]


def lines_of(data: bytes) -> list[bytes]:
    """The lines of a transcript that ends with one newline (the goldens do)."""
    assert data.endswith(b"\n")
    return data[:-1].split(b"\n")


def join(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


def number_spans(line: str) -> list[tuple[int, int]]:
    """Spans of the number tokens outside strings in one valid JSON line."""
    spans: list[tuple[int, int]] = []
    pos = 0
    while pos < len(line):
        ch = line[pos]
        if ch == '"':
            m = _STRING.match(line, pos)
            assert m is not None
            pos = m.end()
        elif ch == "-" or ch.isdigit():
            m = _NUMBER.match(line, pos)
            assert m is not None
            spans.append((pos, m.end()))
            pos = m.end()
        else:
            pos += 1
    return spans


# Numeric forms of an integer n that JSON Schema still calls an integer (the last one only once read
# as a binary float, which rounds it to n).
NUMERIC_FORMS: dict[str, Callable[[str], str]] = {
    "numeric/.0": lambda n: n + ".0",
    "numeric/e0": lambda n: n + "e0",
    # 7 -> 70e-1, but 0 -> 0e-1 (00e-1 would not be JSON at all)
    "numeric/0e-1": lambda n: n + "0e-1" if n.lstrip("-") != "0" else n + "e-1",
    "numeric/.0000000000000001": lambda n: n + ".0000000000000001",
}


def integer_spans(lines: list[str]) -> list[tuple[int, int, int]]:
    """(line index, start, end) of every integer token outside strings."""
    return [
        (i, a, b) for i, line in enumerate(lines) for a, b in number_spans(line) if re.fullmatch(r"-?[0-9]+", line[a:b])
    ]


def numeric(data: bytes, form: str, which: int, spans: list[tuple[int, int, int]] | None = None) -> Mutation:
    """Rewrite the ``which``-th integer token of the transcript in another numeric form."""
    lines = [line.decode() for line in lines_of(data)]
    spans = integer_spans(lines) if spans is None else spans
    i, a, b = spans[which % len(spans)]
    lines[i] = lines[i][:a] + NUMERIC_FORMS[form](lines[i][a:b]) + lines[i][b:]
    return form, join([line.encode() for line in lines])


TS_DIGITS = {
    "ts/fullwidth": 0xFF10,
    "ts/arabic-indic": 0x0660,
    "ts/math-bold": 0x1D7CE,
}


def ts_digit(data: bytes, kind: str, line_no: int, which: int) -> Mutation:
    """Replace one ASCII digit of one line's ts with the same digit from another Unicode script."""
    lines = [line.decode() for line in lines_of(data)]
    i = line_no % len(lines)
    m = re.search(r'"ts":"([^"]*)"', lines[i])
    assert m is not None
    digits = [k for k in range(m.start(1), m.end(1)) if lines[i][k] in "0123456789"]
    k = digits[which % len(digits)]
    lines[i] = lines[i][:k] + chr(TS_DIGITS[kind] + int(lines[i][k])) + lines[i][k + 1 :]
    return kind, join([line.encode() for line in lines])


LEAP = {
    "ts/leap-ok-utc": "2026-12-31T23:59:60Z",
    "ts/leap-ok-offset": "2027-01-01T00:59:60+01:00",
    "ts/leap-bad-minute": "2026-11-30T09:14:60Z",
    "ts/leap-bad-offset": "2026-12-31T23:59:60+01:00",
    "ts/second-61": "2026-12-31T23:59:61Z",
    "ts/feb-29-nonleap": "2026-02-29T10:00:00Z",
    "ts/lowercase-t-z": "2026-11-30t09:31:10.500z",
    "ts/space-separator": "2026-11-30 09:31:10.500Z",
    "ts/trailing-newline": "2026-11-30T09:31:10.500Z\\n",
    "ts/no-offset": "2026-11-30T09:31:10.500",
}


def ts_value(data: bytes, kind: str, line_no: int) -> Mutation:
    lines = [line.decode() for line in lines_of(data)]
    i = line_no % len(lines)
    lines[i] = re.sub(r'"ts":"[^"]*"', '"ts":"' + LEAP[kind] + '"', lines[i], count=1)
    return kind, join([line.encode() for line in lines])


def insert_member(data: bytes, kind: str, line_no: int, member: str) -> Mutation:
    """Insert ``member`` (raw JSON text ``"name":value``) first in one line's top-level object."""
    lines = lines_of(data)
    i = line_no % len(lines)
    lines[i] = b"{" + member.encode() + b"," + lines[i][1:]
    return kind, join(lines)


def replace_first(data: bytes, kind: str, old: str, new: str) -> Mutation | None:
    text = data.decode()
    if old not in text:
        return None
    return kind, text.replace(old, new, 1).encode()


def lines_op(data: bytes, kind: str, a: int, b: int) -> Mutation:
    """drop / repeat / swap lines (indices taken modulo the line count)."""
    lines = lines_of(data)
    i, j = a % len(lines), b % len(lines)
    if kind == "lines/drop":
        del lines[i]
    elif kind == "lines/repeat":
        lines.insert(i, lines[i])
    elif kind == "lines/swap":
        lines[i], lines[j] = lines[j], lines[i]
    else:
        raise ValueError(kind)
    return kind, join(lines)


def nested(depth: int) -> str:
    """A JSON array nested ``depth`` levels deep."""
    return "[" * depth + "]" * depth


# Members inserted at the top of a line. Keyed by kind; "{depth}" is formatted with the nesting.
SJ_MEMBERS: dict[str, str] = {
    "dup/top-seq": '"seq":1',
    "dup/meta-depth": '"_meta":{"a":{"b":[{"c":1,"c":1}]}}',
    "dup/meta-depth-distinct": '"_meta":{"a":{"b":[{"c":1},{"c":1}]}}',
    "ctl/esc-name-in-meta": '"_meta":{"\\u001b[31m":1}',
    "ctl/esc-value-in-meta": '"_meta":{"k":"\\u001b[31mred\\u001b[0m"}',
    "ctl/osc-value-in-meta": '"_meta":{"k":"\\u001b]0;title\\u0007"}',
    "ctl/cr-value-in-meta": '"_meta":{"k":"a\\rb"}',
    "ctl/cr-name-in-meta": '"_meta":{"a\\rb":1}',
    "ctl/nul-value-in-meta": '"_meta":{"k":"\\u0000"}',
    "ctl/esc-member-name-top": '"\\u001b[2J":1',
    "ctl/c1-csi-in-meta": '"_meta":{"k":"\\u009b31m"}',
    "num/1e400-meta": '"_meta":{"n":1e400}',
    "num/-1e400-meta": '"_meta":{"n":-1e400}',
    "num/1e-400-meta": '"_meta":{"n":1e-400}',
    "num/4301-digits-meta": '"_meta":{"n":' + "9" * 4301 + "}",
    "num/4300-digits-meta": '"_meta":{"n":' + "9" * 4300 + "}",
    "num/lone-surrogate-meta": '"_meta":{"s":"\\ud800"}',
    "deep/1023": '"_meta":' + nested(1022),
    "deep/1024": '"_meta":' + nested(1023),
    "deep/1025": '"_meta":' + nested(1024),
    "deep/3000": '"_meta":' + nested(2999),
    "open/unknown-top-member": '"x_new_field":1',
}


def node_chain(n: int) -> str:
    """A run node with ``n`` levels of single children below it (two nesting levels per node)."""
    text = '{"key":"k","status":"running","children":[],"omittedChildren":0}'
    for _ in range(n):
        text = '{"key":"k","status":"running","children":[' + text + '],"omittedChildren":0}'
    return text


SA_MEMBERS: dict[str, str] = {
    "dup/top-type": '"type":"subagent_event"',
    "ctl/esc-member-name-top": '"\\u001b[2J":1',
    "deep/1025": '"x":' + nested(1024),
    "deep/1024": '"x":' + nested(1023),
    "num/1e400-top": '"x":1e400',
}


# Textual substitutions: kind -> (old, new). Applied to the first occurrence in the transcript.
SJ_REPLACEMENTS: dict[str, tuple[str, str]] = {
    "open/unknown-type": ('"type":"stream_event"', '"type":"telemetry"'),
    "open/unknown-result-subtype": ('"type":"result","subtype":"success"', '"type":"result","subtype":"budget_spent"'),
    "open/unknown-system-subtype": ('"subtype":"agent_switch"', '"subtype":"weather_report"'),
    "open/unknown-system-subtype-2": ('"subtype":"memory"', '"subtype":"dream"'),
    "form/error-message-object": (
        '"message":"provider returned',
        '"message":{"role":"x","content":[]},"_meta":"provider returned',
    ),
    "open/unknown-result-subtype-true": (
        '"subtype":"error_max_turns"',
        '"subtype":"error_budget"',
    ),
    "open/unknown-agent-label": ('"agent":"primary"', '"agent":"sidekick"'),
    "open/unknown-capability": ('"capabilities":["', '"capabilities":["future_v9","'),
    "open/unknown-stop-reason": ('"stop_reason":"end_turn"', '"stop_reason":"mystery"'),
    "open/unknown-block-type": ('"content":[{"type":"text"', '"content":[{"type":"image_ref"'),
    "open/unknown-delta-type": ('"delta":{"type":"text_delta"', '"delta":{"type":"audio_delta"'),
    "ctl/esc-in-tool-input": ('"input":{', '"input":{"esc":"\\u001b[1m",'),
    "ctl/esc-name-in-tool-input": ('"input":{', '"input":{"\\u001b]8;;x\\u0007":1,'),
    "ctl/esc-in-text": ('"text":"', '"text":"\\u001b[31m'),
    "ctl/cr-in-text": ('"text":"', '"text":"\\r'),
    "ctl/raw-esc-byte-in-text": ('"text":"', '"text":"\x1b[31m'),
    "ctl/raw-u2028-in-text": ('"text":"', '"text":"\u2028'),
    "ctl/esc-in-tool-result": ('"type":"tool_result"', '"type":"tool_result","_meta":{"k":"\\u001b[0m"}'),
    "dup/tool-input": ('"input":{', '"input":{"d":1,"d":2,'),
    "dup/tool-input-deep": ('"input":{', '"input":{"d":[{"e":{"f":1,"f":1}}],'),
    "dup/message-role": ('"role":"assistant"', '"role":"assistant","role":"assistant"'),
    "dup/reassembled-args": ('"partial_json":"{', '"partial_json":"{\\"dd\\":1,\\"dd\\":1,'),
    "num/1e400-tool-input": ('"input":{', '"input":{"n":1e400,'),
    "num/7.0-seq": ('"seq":7,', '"seq":7.0,'),
    "num/seq-float-rounds": ('"seq":2,', '"seq":2.0000000000000001,'),
    "num/5e0-seq": ('"seq":5,', '"seq":5e0,'),
    "num/nan-meta": ('"seq":1,', '"seq":1,"_meta":NaN,'),
    "num/leading-zero": ('"seq":1,', '"seq":01,'),
    "num/seq-1e5000": ('"seq":1,', '"seq":1e5000,'),
    "form/subtype-dropped": ('"type":"result","subtype":"success"', '"type":"result"'),
    "form/message-to-meta": ('"message":{"id":"msg_', '"_meta":{"id":"msg_'),
    "form/is-error-string": ('"is_error":false', '"is_error":"false"'),
    "form/is-error-flip-true": ('"is_error":false', '"is_error":true'),
    "form/is-error-flip-false": ('"is_error":true', '"is_error":false'),
    "form/is-error-dropped": (',"is_error":false', ""),
    "form/agent-object-on-assistant": ('"agent":"primary"', '"agent":{"name":"milk","provider":"x"}'),
    "form/agent-string-on-init": ('"agent":{"name":"milk"', '"agent":"milk","x":{"name":"milk"'),
    "ref/tool-result-unknown": ('"tool_use_id":"toolu_', '"tool_use_id":"other_'),
    "ref/tool-use-id-changed": ('"type":"tool_use","id":"toolu_', '"type":"tool_use","id":"other_'),
    "ref/parent-unknown": ('"parent_tool_use_id":"toolu_', '"parent_tool_use_id":"other_'),
    "ref/args-fragment-changed": ('"partial_json":"{\\"', '"partial_json":"{\\"zz'),
    "session/changed-once": (',"seq":3,', ',"seq":3,"session_id":"sess_OTHER",'),
    "session/no-prefix": ('"session_id":"sess_', '"session_id":"'),
    "frame/leading-space": ("\n{", "\n {"),
    "frame/tab-before-newline": ("}\n", "}\t\n"),
}

SA_REPLACEMENTS: dict[str, tuple[str, str]] = {
    "num/revision-.0": ('"revision":1', '"revision":1.0'),
    "num/version-1e0": ('"version":1', '"version":1e0'),
    "num/version-float-rounds": ('"version":1', '"version":1.0000000000000001'),
    "num/revision-over-max": ('"revision":1', '"revision":9007199254740992'),
    "open/unknown-status": ('"status":"running"', '"status":"hibernating"'),
    "ctl/newline-in-id": ('"id":"sub-1"', '"id":"sub-1\\n"'),
    "ctl/newline-in-key": ('"key":"', '"key":"\\n'),
    "ctl/esc-in-progress": ('"progress":"', '"progress":"\\u001b[1m'),
    "ctl/slash-in-key": ('"key":"', '"key":"a/'),
    "dup/in-tokens": ('"tokens":{', '"tokens":{"input":1,'),
    "corr/response-id": ('"command":"subagent_status","id":"sub-1"', '"command":"subagent_status","id":"sub-9"'),
    "caps/events-false": ('"events":true', '"events":false'),
    "env/event-extra-member": (
        '"type":"subagent_event","version":1,"sessionId"',
        '"type":"subagent_event","version":1,"x":0,"sessionId"',
    ),
    "frame/leading-space": ("\n{", "\n {"),
    "dup/fleet-entry-key": (
        '"entries":[{',
        '"entries":[{"key":"dupkey","agent":"a","startedAt":0,"tokens":{"input":0,"output":0,"total":0}},'
        '{"key":"dupkey","agent":"a","startedAt":0,"tokens":{"input":0,"output":0,"total":0}},{',
    ),
    "open/status-completed-alias": ('"status":"running"', '"status":"completed"'),
    # Valid recursive run trees, within the documented 1024-level limit: ~905 and ~1015 levels deep.
    "deep/node-tree-905": ('"runs":[', '"runs":[' + node_chain(450) + ","),
    "deep/node-tree-1015": ('"runs":[', '"runs":[' + node_chain(505) + ","),
}

FRAMING: dict[str, Callable[[bytes], bytes]] = {
    "frame/crlf": lambda d: d.replace(b"\n", b"\r\n", 1),
    "frame/bom": lambda d: b"\xef\xbb\xbf" + d,
    "frame/no-final-newline": lambda d: d[:-1],
    "frame/blank-line": lambda d: d.replace(b"\n", b"\n\n", 1),
    "frame/bad-utf8": lambda d: d.replace(b'":"', b'":"\xff', 1),
    "frame/overlong-utf8": lambda d: d.replace(b'":"', b'":"\xc0\xaf', 1),
    "frame/array-line": lambda d: d + b"[1]\n",
    "frame/empty": lambda d: b"",
    "frame/raw-esc-between-lines": lambda d: d + b"\x1b[0m\n",
    "frame/cr-only-terminators": lambda d: d.replace(b"\n", b"\r"),
}


def corpus(wire: str, name: str, data: bytes) -> list[Mutation]:
    """Every deterministic mutation of one conformant transcript (the witness set of the test)."""
    out: list[Mutation] = []
    count = len(lines_of(data))
    spans = integer_spans([line.decode() for line in lines_of(data)])
    for form in NUMERIC_FORMS:
        for which in range(len(spans)):
            out.append(numeric(data, form, which, spans))
    for op in ("lines/drop", "lines/repeat", "lines/swap"):
        for i in range(count):
            out.append(lines_op(data, op, i, i + 1))
    for kind, make in FRAMING.items():
        out.append((kind, make(data)))
    members = SJ_MEMBERS if wire == "stream-json" else SA_MEMBERS
    for kind, member in members.items():
        for i in (0, count // 2, count - 1):
            out.append(insert_member(data, kind, i, member))
    replacements = SJ_REPLACEMENTS if wire == "stream-json" else SA_REPLACEMENTS
    for kind, (old, new) in replacements.items():
        got = replace_first(data, kind, old, new)
        if got is not None:
            out.append(got)
    if wire == "stream-json":
        for kind in TS_DIGITS:
            for i in (0, count - 1):
                for which in (0, 5, 11):
                    out.append(ts_digit(data, kind, i, which))
        for kind in LEAP:
            for i in (0, count - 1):
                out.append(ts_value(data, kind, i))
    return out
