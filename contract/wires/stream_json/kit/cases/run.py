"""stream-json's cases of the rules on a run's shape and identity: the schema, timestamps, the
init and result lines, subtypes, the checker's limits, seq, the session id and the result's
error flags (tests/wires/stream_json/cases/)."""

from __future__ import annotations

import copy

from contract.wires.casefiles import Case, Table, case
from contract.wires.stream_json.kit.cases.lines import (
    DELETE,
    OK,
    REST,
    SJ,
    base,
    edit,
    insert,
    last_line,
    line,
    numbered,
    renumber,
    seqs,
    setf,
)


def sj_schema() -> list[Case]:
    return [
        case("seq written as a string", True, lines=edit(setf(1, "/seq", "1")), at=[(2, "/seq")]),
        # "open set: ignore unknown values": an unknown type is judged without the top-level oneOf
        case("an unknown line type is open (every other keyword still holds)", False,
             lines=edit(setf(3, "/type", "thought"))),
        case("an unknown line type with a member the schema does not model", True,
             lines=edit(lambda ls: ls[3].update(type="thought", mood="x")), at=[(4, "/mood")]),
        case("an unknown line type without seq", True,
             lines=edit(lambda ls: (ls[3].update(type="thought"), ls[3].pop("seq"))), at=[(4, "/seq")]),
        case("is_error written as the string false", True, lines=edit(setf(4, "/is_error", "false")),
             at=[(5, "/is_error")]),
        case("a member the schema does not model", True, lines=edit(setf(4, "/cost", 1)), at=[(5, "/cost")]),
        case(
            "a dual-form Message object is explained at its own bad member",
            True,
            lines=edit(setf(3, "/message/model", "m-1")),
            at=[(4, "/message/model")],
        ),
        case(
            "usage without cache_read",
            True,
            lines=edit(setf(4, "/usage/cache_read", DELETE)),
            at=[(5, "/usage/cache_read")],
        ),
        case("provider detail inside extension is fine", False, lines=edit(setf(4, "/extension", {"cost": 1}))),
        case(
            "seq written as 1.0 is an integer per JSON Schema", False, raw_text=OK.replace('"seq":1,', '"seq":1.0,')
        ),
    ]


def sj_ts_format() -> list[Case]:
    return [
        case("a Unix epoch number as text", True, lines=edit(setf(2, "/ts", "1767225600")), at=[(3, "/ts")]),
        case("no time zone", True, lines=edit(setf(2, "/ts", "2026-03-01T10:00:02"))),
        case("February 30th", True, lines=edit(setf(2, "/ts", "2026-02-30T10:00:02Z"))),
        case("hour 24", True, lines=edit(setf(2, "/ts", "2026-03-01T24:00:02Z"))),
        case(
            "fractional seconds and an offset",
            False,
            lines=edit(setf(2, "/ts", "2026-03-01T11:00:02.123456+01:00")),
        ),
        case("fullwidth digits in the year", True, lines=edit(setf(2, "/ts", "２０２６-03-01T10:00:02Z")),
             at=[(3, "/ts")]),
        case("Arabic-Indic digits in the second", True, lines=edit(setf(2, "/ts", "2026-03-01T10:00:٠٢Z"))),
        case("mathematical-bold digits in the second", True, lines=edit(setf(2, "/ts", "2026-03-01T10:00:𝟎𝟐Z"))),
        case("second 60 on an ordinary minute (a leap second only at 23:59:60 UTC)", True,
             lines=edit(setf(4, "/ts", "2026-03-01T10:00:60Z")), at=[(5, "/ts")]),
        case("second 60 at 09:14 UTC", True, lines=edit(setf(4, "/ts", "2026-03-01T09:14:60Z"))),
        case("23:59:60 local time at +01:00 is 22:59:60 UTC", True,
             lines=edit(setf(4, "/ts", "2026-03-01T23:59:60+01:00"))),
        # RFC 3339 §5.7: "at the end of months" (issue 31): 23:59:60 UTC mid-month is no leap second.
        case("23:59:60Z in the middle of a month (RFC 3339 §5.7: leap seconds end a month)", True,
             lines=edit(setf(4, "/ts", "2026-03-15T23:59:60Z")), at=[(5, "/ts")]),
        case("23:59:60Z on the first of a month", True, lines=edit(setf(4, "/ts", "2026-03-01T23:59:60Z"))),
        case("15:59:60-08:00 mid-month (23:59:60 UTC, not a month's end)", True,
             lines=edit(setf(4, "/ts", "2026-03-15T15:59:60-08:00"))),
        case("a leap second at 23:59:60Z at a month's end", False,
             lines=edit(setf(4, "/ts", "2016-12-31T23:59:60Z"))),
        case("a leap second at 15:59:60-08:00 (23:59:60 UTC on 2016-12-31)", False,
             lines=edit(setf(4, "/ts", "2016-12-31T15:59:60-08:00"))),
        case("a leap second at 00:29:60+00:30 (23:59:60 UTC the day before, a month's end)", False,
             lines=edit(setf(4, "/ts", "2017-01-01T00:29:60+00:30"))),
        case("23:59:60Z at the end of a month the table says had none is sj.ts-leap-second's, not this rule's",
             False, lines=edit(setf(4, "/ts", "2021-12-31T23:59:60Z"))),
        case("lower-case t and z (RFC 3339 §5.6 note)", False, lines=edit(setf(2, "/ts", "2026-03-01t10:00:02z"))),
        case("a ts that is an array is the schema's finding", False, lines=edit(setf(2, "/ts", ["x"]))),
    ]


def sj_ts_leap_second() -> list[Case]:
    # RFC 3339 §5.7 "months in which a leap second occurs": which months, from the IERS table
    # (contract/wires/stream_json/leap_seconds.json), known through 2025-12-31.
    return [
        case("23:59:60Z at the end of December 2021: no leap second that month", True,
             lines=edit(setf(4, "/ts", "2021-12-31T23:59:60Z")), at=[(5, "/ts")]),
        case("15:59:60-08:00 on 2017-06-30 (23:59:60 UTC at a month's end without one)", True,
             lines=edit(setf(4, "/ts", "2017-06-30T15:59:60-08:00"))),
        case("00:29:60+00:30 on 2019-01-01 (23:59:60 UTC on 2018-12-31, which had none)", True,
             lines=edit(setf(4, "/ts", "2019-01-01T00:29:60+00:30"))),
        case("the leap second of 2016-12-31", False, lines=edit(setf(4, "/ts", "2016-12-31T23:59:60Z"))),
        case("the leap second of 2015-06-30 written at -08:00", False,
             lines=edit(setf(4, "/ts", "2015-06-30T15:59:60-08:00"))),
        case("a month's end after the table (2026-06-30): not judged, the report notes it", False,
             lines=edit(setf(4, "/ts", "2026-06-30T23:59:60Z"))),
        case("a second 60 mid-month is sj.ts-format's, not this rule's", False,
             lines=edit(setf(4, "/ts", "2026-03-15T23:59:60Z")), exercised=False),
    ]


def sj_init_first() -> list[Case]:
    return [
        case(
            "an assistant line before init",
            True,
            lines=edit(lambda ls: (ls.insert(0, ls.pop(1)), renumber(ls))),
            at=[(1, "/type")],
        ),
        case("a first line that is not JSON (opaque, but it keeps its place)", True,
             raw_text="{oops\n" + OK, at=[(1, None)]),
        # A repeated member makes the line opaque (line.duplicate-key, policy), not something
        # other than an object: its type is read from the parse wherever the readings agree.
        case("a first line whose type is repeated with different values: no reading is the line's", True,
             raw_text=OK.replace('{"type":"system",', '{"type":"system","type":"result",', 1), at=[(1, "/type")]),
        case("a first line whose subtype is repeated with different values", True,
             raw_text=OK.replace('"subtype":"init",', '"subtype":"init","subtype":"state",', 1),
             at=[(1, "/type")]),
        case("an init that repeats a member inside extension is still the init (line.duplicate-key alone)", False,
             raw_text=OK.replace('"subtype":"init",', '"subtype":"init","extension":{"a":1,"a":1},', 1)),
        case("an init with a lone surrogate escape (line.surrogate, policy) is still the init", False,
             raw_text=OK.replace('"cwd":"/work"', '"cwd":"/w\\udc00rk"', 1)),
        case("an init whose type is repeated with one value is still the init", False,
             raw_text=OK.replace('{"type":"system",', '{"type":"system","type":"system",', 1)),
        case("system/init is first", False, lines=base()),
    ]


def sj_init_once() -> list[Case]:
    return [
        case("a second init mid-run", True, lines=edit(insert(3, copy.deepcopy(base()[0]))), at=[(4, "/subtype")]),
        case(
            "a system/state line is not an init",
            False,
            lines=edit(insert(3, line(0, "system", subtype="state", session_state="busy"))),
        ),
    ]


def sj_result_once() -> list[Case]:
    return [
        case(
            "two result lines",
            True,
            lines=edit(lambda ls: (ls.append(copy.deepcopy(ls[-1])), renumber(ls))),
            at=[(6, "/type")],
        ),
        case("a second result that repeats a member name is still a second result", True,
             raw_text=OK + OK.splitlines()[-1].replace('"seq":4', '"seq":5')[:-1] + ',"extension":{"a":1,"a":2}}\n',
             at=[(6, "/type")]),
        case("one result line", False, lines=base()),
        case("no result line is sj.result-last's (a truncated run), not this rule", False,
             lines=edit(lambda ls: ls.pop()), exercised=False),
    ]


def sj_result_last() -> list[Case]:
    return [
        case("no result line: a truncated run", True, lines=edit(lambda ls: ls.pop())),
        case(
            "an assistant line after the result",
            True,
            lines=edit(lambda ls: (ls.append(copy.deepcopy(ls[3])), renumber(ls))),
            at=[(6, None)],
        ),
        case("an opaque (not JSON) line after the result", True, raw_text=OK + "{oops\n", at=[(6, None)]),
        case("a last line whose type is repeated with different values may or may not be the result", True,
             raw_text=last_line(OK, lambda last: last.replace('{"type":"result",',
                                                               '{"type":"result","type":"user",', 1)),
             at=[(5, None)]),
        case("the result is the last line", False, lines=base()),
        case("a result that repeats a member inside extension is still the result (line.duplicate-key alone)",
             False, raw_text=last_line(OK, lambda last: last[:-1] + ',"extension":{"a":1,"a":2}}')),
    ]


def sj_subtype() -> list[Case]:
    # 'a "type" discriminator per line plus "subtype" for the system/result families'
    return [
        case("a system line without subtype", True,
             lines=edit(insert(3, line(0, "system", body="note"))), at=[(4, "/subtype")]),
        case("a result line without subtype", True, lines=edit(setf(4, "/subtype", DELETE)), at=[(5, "/subtype")]),
        case("an unknown system subtype is an open-set value", False,
             lines=edit(insert(3, line(0, "system", subtype="weather", body="note")))),
        case("a subtype that is a number is the schema's finding alone", False,
             lines=edit(setf(4, "/subtype", 7))),
        case("an assistant line needs no subtype", False, lines=base()),
    ]


def checker_limit() -> list[Case]:
    # A seq whose magnitude is beyond exact reading stops the seq check for that line (fail closed).
    return [
        case("seq 1e5000: beyond the checker's exact integers", True,
             raw_text=OK.replace('"seq":2,', '"seq":1e5000,'), at=[(3, "/seq")]),
        case("seq 2e0 is the integer 2, read normally", False, raw_text=OK.replace('"seq":2,', '"seq":2e0,')),
    ]


def sj_seq() -> list[Case]:
    # Two rules, two bases (issue 23): "monotonic seq per run" is written (sj.seq: a step back;
    # monotonic allows a repeat); contiguity is derived from the purpose "gap-tolerant consumers
    # can detect dropped lines" (sj.seq-contiguous: a gap or a repeat). Each near miss of one is
    # the other's firing case.
    return [
        case("a step back: 0, 1, 2, 1", True, lines=edit(setf(3, "/seq", 1)), at=[(4, "/seq")]),
        case("1, 3, 2: a step back (its gap before is sj.seq-contiguous's)", True,
             lines=edit(numbered(0, 1, 3, 2, 4)), at=[(4, "/seq")]),
        case("a step back written as 1e0 after 2", True, raw_text=OK.replace('"seq":3,', '"seq":1e0,'),
             at=[(4, "/seq")]),
        case("a repeated seq is monotonic (a repeat is sj.seq-contiguous's, derived)", False,
             lines=edit(numbered(0, 1, 1, 2, 3))),
        case("1.0, 1.0, 99.0: a repeat, then a gap: monotonic", False,
             raw_text=seqs(OK, "1.0", "1.0", "99.0", "100", "101")),
        case("seq 1, 5, 6: a gap is still monotonic (sj.seq-contiguous's, derived)", False,
             lines=edit(numbered(1, 5, 6, 7, 8))),
        case(
            "contiguous from 7 (any start)", False, lines=edit(lambda ls: [o.update(seq=o["seq"] + 7) for o in ls])
        ),
        case(
            "0.0, 1.0, 2.0, 3.0, 4.0: monotonic by value",
            False,
            raw_text=seqs(OK, "0.0", "1.0", "2.0", "3.0", "4.0"),
        ),
        case("70e-1 after 6 is 7", False, raw_text=seqs(OK, "5", "6", "70e-1", "8", "9")),
        case("a non-integral seq 2.5 is the schema's finding, not a step back", False,
             raw_text=OK.replace('"seq":2,', '"seq":2.5,')),
        case("a seq that is an array is the schema's finding", False, lines=edit(setf(2, "/seq", [2]))),
        case("after a line that is not JSON, a seq above the last one read is monotonic", False,
             raw_text=OK.replace(REST.split("\n")[1] + "\n", "{oops\n", 1).replace('"seq":3,', '"seq":2,')),
        case("a seq repeated as 1 then 2 after 1: monotonic in both readings", False,
             raw_text=OK.replace('"seq":2,', '"seq":1,"seq":2,')),
        case("2.0000000000000001 after 1 is no integer (read exactly): the schema's, not a step", False,
             raw_text=OK.replace('"seq":2,', '"seq":2.0000000000000001,')),
    ]


def sj_seq_contiguous() -> list[Case]:
    return [
        case("seq 1, 5, 6: a gap (the red-team case: derived, not written)", True,
             lines=edit(numbered(1, 5, 6, 7, 8)), at=[(2, "/seq")]),
        case("a gap: line 3 dropped", True, lines=edit(setf(2, "/seq", 3)), at=[(3, "/seq")]),
        case("a gap written as a double: 3.0 after 1", True, raw_text=OK.replace('"seq":2,', '"seq":3.0,'),
             at=[(3, "/seq")]),
        case("1.0, 1.0, 99.0: a repeat, then a gap", True,
             raw_text=seqs(OK, "1.0", "1.0", "99.0", "100", "101"), at=[(2, "/seq"), (3, "/seq")]),
        # A line rejected by framing is opaque but stands for one step of seq.
        case("after a line that is not JSON, a seq that does not step over it", True,
             raw_text=OK.replace(REST.split("\n")[1] + "\n", "{oops\n", 1).replace('"seq":3,', '"seq":2,'),
             at=[(4, "/seq")]),
        case("0, 1, 1, 2, 3: a repeat", True, lines=edit(numbered(0, 1, 1, 2, 3)), at=[(3, "/seq")]),
        case("a repeat written as 1e0 after 1", True, raw_text=OK.replace('"seq":2,', '"seq":1e0,'),
             at=[(3, "/seq")]),
        case("0, 1, 2, 1, 2: the step back is sj.seq's (written), then one step on", False,
             lines=edit(numbered(0, 1, 2, 1, 2))),
        case(
            "contiguous from 7 (any start)", False, lines=edit(lambda ls: [o.update(seq=o["seq"] + 7) for o in ls])
        ),
        case("0.0, 1.0, 2.0, 3.0, 4.0: contiguous by value", False,
             raw_text=seqs(OK, "0.0", "1.0", "2.0", "3.0", "4.0")),
        case("a line that is not JSON stands for one seq step", False,
             raw_text=OK.replace(REST.split("\n")[1] + "\n", "{oops\n", 1)),
        case("a non-integral seq 2.5 stands for one step", False,
             raw_text=OK.replace('"seq":2,', '"seq":2.5,')),
    ]


def sj_session() -> list[Case]:
    return [
        case(
            "a session id without the sess_ prefix",
            True,
            lines=edit(lambda ls: [o.update(session_id="1d1e46f9-35c7") for o in ls]),
            at=[(1, "/session_id")],
        ),
        case("the session id changes mid-run to another sess_ id: sj.session-constant's (derived)", False,
             lines=edit(setf(3, "/session_id", "sess_other"))),
        case("sess_ with nothing after it has the prefix: sj.session-suffix's (derived)", False,
             lines=edit(lambda ls: [o.update(session_id="sess_") for o in ls])),
        case("one sess_ id throughout", False, lines=base()),
        # the description is on every line's member: each line's session_id is judged (issue 46)
        case("a later line's session_id without the sess_ prefix, the first line's with it", True,
             lines=edit(setf(3, "/session_id", "1d1e46f9-35c7")), at=[(4, "/session_id")]),
        case("the run's id without the prefix is a finding on every line that carries it", True,
             lines=edit(lambda ls: [o.update(session_id="1d1e46f9-35c7") for o in ls]),
             at=[(1, "/session_id"), (3, "/session_id"), (5, "/session_id")]),
        case("a later line's other sess_ id has the form: sj.session-constant's alone", False,
             lines=edit(setf(4, "/session_id", "sess_later"))),
    ]


def sj_session_suffix() -> list[Case]:
    # "milk session id (sess_...)": the ellipsis read as an id, one token (issue 31: derived)
    return [
        case("sess_ with nothing after it", True, lines=edit(lambda ls: [o.update(session_id="sess_") for o in ls]),
             at=[(1, "/session_id")]),
        case("white space in the id after sess_", True,
             lines=edit(lambda ls: [o.update(session_id="sess_01 HZX3") for o in ls])),
        case("a one-character id after sess_", False,
             lines=edit(lambda ls: [o.update(session_id="sess_1") for o in ls])),
        case("no sess_ prefix at all is sj.session's (written)", False,
             lines=edit(lambda ls: [o.update(session_id="1d1e46f9") for o in ls]), exercised=False),
        case("one sess_ id throughout", False, lines=base()),
        case("a later line's sess_ with nothing after it, the first line's with an id", True,
             lines=edit(setf(3, "/session_id", "sess_")), at=[(4, "/session_id")]),
        case("a later line's other sess_ id with an id after it: sj.session-constant's alone", False,
             lines=edit(setf(3, "/session_id", "sess_other"))),
    ]


def sj_result_success() -> list[Case]:
    # "true when the run failed": that a success reports false is "only then" read (issue 31: derived)
    return [
        case("success with is_error true", True,
             lines=edit(lambda ls: ls[4].update(subtype="success", is_error=True)),
             at=[(5, "/is_error")]),
        case("success with is_error false", False, lines=base()),
        case("a refusal with is_error true is sj.result-is-error's (written)", False,
             lines=edit(lambda ls: ls[4].update(subtype="refused", is_error=True)), exercised=False),
    ]


def sj_session_constant() -> list[Case]:
    return [
        case(
            "the session id changes mid-run",
            True,
            lines=edit(setf(3, "/session_id", "sess_other")),
            at=[(4, "/session_id")],
        ),
        case("one id throughout, even without the sess_ form (that is sj.session's)", False,
             lines=edit(lambda ls: [o.update(session_id="1d1e46f9-35c7") for o in ls])),
        case("a later line's id without the prefix is another id too (and sj.session's)", True,
             lines=edit(setf(3, "/session_id", "1d1e46f9-35c7")), at=[(4, "/session_id")]),
        case("one sess_ id throughout", False, lines=base()),
    ]


def sj_result_is_error() -> list[Case]:
    return [
        case(
            "is_error missing from the result",
            True,
            lines=edit(setf(4, "/is_error", DELETE)),
            at=[(5, "/is_error")],
        ),
        case(
            "a refusal reported as an error",
            True,
            lines=edit(lambda ls: ls[4].update(subtype="refused", is_error=True)),
        ),
        case(
            "max turns reported as success",
            True,
            lines=edit(lambda ls: ls[4].update(subtype="error_max_turns", is_error=False)),
        ),
        case(
            "an interrupted run with is_error true",
            False,
            lines=edit(lambda ls: ls[4].update(subtype="interrupted", is_error=True)),
        ),
        case(
            "success with is_error true is sj.result-success's (derived), not this rule's",
            False,
            lines=edit(lambda ls: ls[4].update(subtype="success", is_error=True)),
        ),
        case(
            "is_error written as the string false is the schema's finding alone",
            False,
            lines=edit(setf(4, "/is_error", "false")),
        ),
        case(
            "an unknown subtype only needs a boolean",
            False,
            lines=edit(lambda ls: ls[4].update(subtype="budget_exhausted", is_error=True)),
        ),
    ]


CASES: Table = (
    (SJ, "sj.schema", sj_schema),
    (SJ, "sj.ts-format", sj_ts_format),
    (SJ, "sj.ts-leap-second", sj_ts_leap_second),
    (SJ, "sj.init-first", sj_init_first),
    (SJ, "sj.init-once", sj_init_once),
    (SJ, "sj.result-once", sj_result_once),
    (SJ, "sj.result-last", sj_result_last),
    (SJ, "sj.subtype", sj_subtype),
    (SJ, "checker.limit", checker_limit),
    (SJ, "sj.seq", sj_seq),
    (SJ, "sj.seq-contiguous", sj_seq_contiguous),
    (SJ, "sj.session", sj_session),
    (SJ, "sj.session-suffix", sj_session_suffix),
    (SJ, "sj.result-success", sj_result_success),
    (SJ, "sj.session-constant", sj_session_constant),
    (SJ, "sj.result-is-error", sj_result_is_error),
)
