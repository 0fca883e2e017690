"""Every line's session_id is judged (issue 46), on the block path as on the line path.

sj.session judged the first line's id alone; the description "milk session id (sess_...)" is on
every line's member. A long stream goes through the block path (``check_blocks``), which must
give each line's finding exactly as the line path does: one finding at the line that breaks the
form wherever it stands, and one per line when the run's one id is off its form.
"""

from __future__ import annotations

import json
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

import contract
from contract.core.resources import data_dir

LINES = 4000


@cache
def _stream() -> tuple[str, ...]:
    """A conformant run of LINES lines (the max_turns golden's body repeated), one session id."""
    golden = (data_dir("goldens") / "stream-json" / "max_turns.jsonl").read_text(encoding="utf-8").splitlines()
    objs = [json.loads(line) for line in golden]
    body = objs[1:-1] * ((LINES - 2) // (len(objs) - 2))
    run = [objs[0], *body, objs[-1]]
    return tuple(json.dumps({**obj, "seq": seq, "ts": objs[0]["ts"]}, separators=(",", ":"))
                 for seq, obj in enumerate(run))


def _check(lines: list[str]) -> contract.Report:
    return contract.check(("\n".join(lines) + "\n").encode(), "stream-json", jobs=1)


def test_the_long_stream_is_conformant() -> None:
    report = _check(list(_stream()))
    assert report.conformant, report.violations
    assert "sj.session" in report.exercised


@settings(derandomize=True, max_examples=12, deadline=None)
@given(st.data(), st.sampled_from([("nope", "sj.session"), ("sess_", "sj.session-suffix"),
                                   ("sess_a b", "sj.session-suffix")]))
def test_a_later_line_off_the_form_is_found_where_it_stands(data: st.DataObject, bad: tuple[str, str]) -> None:
    lines = list(_stream())
    at = data.draw(st.integers(1, len(lines) - 1), label="line index")
    session = json.loads(lines[0])["session_id"]
    lines[at] = lines[at].replace(json.dumps(session), json.dumps(bad[0]), 1)
    report = _check(lines)
    assert [v.line for v in report.violations if v.rule == bad[1]] == [at + 1]
    assert [v.line for v in report.violations if v.rule == "sj.session-constant"] == [at + 1]


def test_the_run_s_one_id_off_the_form_is_a_finding_on_every_line() -> None:
    lines = list(_stream())
    session = json.dumps(json.loads(lines[0])["session_id"])
    report = _check([line.replace(session, '"nope"', 1) for line in lines])
    assert report.counts["sj.session"] == len(lines)
    assert "sj.session-constant" not in report.counts
