"""The deltas' contract (issue 49) read independently: cases where it must fire and must not.

Each case of cases/deltas.json is a golden edited as in cases/stream_readings.json, checked with
`milk-contract check --format json` as a black box. The rule's id is data (`rule`, matched as a
prefix) because this reading was written before the rule existed: while `milk-contract rules`
does not list it, a case raises :class:`RuleUnknown` and is a strict xfail ("no such rule yet")
that expects exactly that exception. Once the rule lands, a case that agrees passes (strict:
the mark must go) and a case that disagrees fails, so a disagreement is never hidden by the mark.
A case whose reading the rule did not take carries `resolved` (why) and `independent_expected`
(this reading's `fires` and `lines`, kept as the record): it asserts the rule's reading, and that
the record still differs from it.
Before the rule is looked for, every case asserts the findings the transcript must raise today
(`others`), so the transcripts are what they say. READINGS.md, "The deltas' contract", gives the
words each case rests on.
"""

from __future__ import annotations

import functools
import itertools
import json
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from tests.independent.blackbox import GOLDENS, cli, load_cases, params, transcript
from tests.support.depth import deep, sample

pytestmark = pytest.mark.process

DATA = load_cases("deltas")
NO_RULE = "no such rule yet"


class RuleUnknown(Exception):
    """The CLI's rule catalog has no rule with the case's id (prefix)."""


@functools.cache
def known_rules() -> frozenset[str]:
    """The stream-json rule ids `milk-contract rules --format json` lists."""
    done = cli("rules", "--format", "json", "--wire", "stream-json")
    assert done.returncode == 0, done.stderr
    return frozenset(str(rule["id"]) for rule in json.loads(done.stdout))


def _is(rule: str, prefix: str) -> bool:
    return rule.startswith(prefix)


@pytest.mark.parametrize("case", params(DATA["cases"], raises={NO_RULE: RuleUnknown}, every=3, by="fires"))
def test_case(case: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "stream.jsonl"
    path.write_bytes(transcript(case))
    done = cli("check", "--format", "json", str(path))
    stream = path.read_bytes()
    shown = f"exit {done.returncode}\nstream:\n{stream!r}\nstdout:\n{done.stdout[-2500:]}\nstderr:\n{done.stderr}"
    assert done.returncode in (0, 1), shown
    report = json.loads(done.stdout)
    found = [(str(v["rule"]), v["line"]) for v in report["violations"]]
    prefix = str(case["rule"])
    others = sorted({rule for rule, _ in found if not _is(rule, prefix)})
    assert others == sorted(set(case.get("others", []))), f"other findings differ\n{shown}"
    if not any(_is(rule, prefix) for rule in known_rules()):
        raise RuleUnknown(prefix)
    lines = [line for rule, line in found if _is(rule, prefix)]
    if case.get("resolved"):  # the other reading was taken (READINGS.md, "Resolved"): still not this one's
        mine = case["independent_expected"]
        agrees = bool(lines) is mine["fires"] and all(line in lines for line in mine.get("lines", []))
        assert not agrees, f"resolved, yet the code now agrees with the independent reading {mine}\n{shown}"
    if not case["fires"]:
        assert not lines, f"{prefix} fired on lines {lines}\n{shown}"
        return
    assert lines, f"{prefix} did not fire\n{shown}"
    assert report["conformant"] is False or done.returncode == 0, shown
    missing = [line for line in case.get("lines", []) if line not in lines]
    assert not missing, f"{prefix} not on lines {missing} (found on {lines})\n{shown}"


def _judge(case: dict[str, Any], path: Path) -> tuple[list[str], list[int | None]]:
    """The other rules `check` raises on the case's transcript, and the lines the deltas rule fired on."""
    path.write_bytes(transcript(case))
    done = cli("check", "--format", "json", str(path))
    assert done.returncode in (0, 1), f"exit {done.returncode}\n{done.stderr}"
    found = [(str(v["rule"]), v["line"]) for v in json.loads(done.stdout)["violations"]]
    others = sorted({rule for rule, _ in found if not _is(rule, RULE)})
    return others, [line for rule, line in found if _is(rule, RULE)]


RULE = str(DATA["cases"][0]["rule"])
XFAIL_UNKNOWN = pytest.mark.xfail(reason=NO_RULE, strict=True, raises=RuleUnknown)


def _require_rule() -> None:
    if not any(_is(rule, RULE) for rule in known_rules()):
        raise RuleUnknown(RULE)


def _delta_lines(golden: str) -> list[tuple[int, bool]]:
    """Each content_block_delta line (0-based) of a golden, and whether its block has another delta.

    A block is (actor, the actor's next assistant line, index): reading (2) of READINGS.md.
    """
    lines = [json.loads(line) for line in (GOLDENS / f"{golden}.jsonl").read_text(encoding="utf-8").splitlines()]
    completed: dict[Any, int] = {}
    keys: list[tuple[int, tuple[Any, int, Any]]] = []
    for at, line in enumerate(lines):
        actor = line.get("parent_tool_use_id")
        if line.get("type") == "assistant":
            completed[actor] = completed.get(actor, 0) + 1
        event = line.get("event") if line.get("type") == "stream_event" else None
        if isinstance(event, dict) and event.get("type") == "content_block_delta":
            keys.append((at, (actor, completed.get(actor, 0), event.get("index"))))
    counts = Counter(key for _, key in keys)
    return [(at, counts[key] > 1) for at, key in keys]


STREAMED = ["stream-json/streaming_thinking", "stream-json/tool_calls", "stream-json/subagent_tasks"]
STREAMED.append("stream-json/session_housekeeping")
LOST = sample([(golden, at, kept) for golden in STREAMED for at, kept in _delta_lines(golden)], every=3)


@pytest.mark.parametrize(("golden", "at", "kept"), LOST, ids=[f"{g.split('/')[1]}-line-{a + 1}" for g, a, _ in LOST])
def test_sweep_each_delta_lost(golden: str, at: int, kept: bool, tmp_path: Path) -> None:
    """Every text or thinking delta of every streamed golden dropped: the rule fires on the message's
    assistant line when the block keeps another delta; a block left with none is not judged (reading 4)."""
    case = {"golden": golden, "edits": [{"op": "remove", "path": f"/{at}"}], "renumber_seq": True}
    others, lines = _judge(case, tmp_path / "stream.jsonl")
    assert others == []
    _require_rule()
    assert bool(lines) is kept, lines


THINKING = (
    "The user asks why the cache test is flaky. The TTL is 1s and the test sleeps 1s, so expiry races the assertion."
)
TEXT = (
    "The test sleeps exactly as long as the TTL (1 s), so whether the entry has expired when the assertion runs"
    " depends on scheduling. Use a fake clock, or sleep well past the TTL."
)


def _pieces(text: str, cuts: set[int]) -> list[str]:
    bounds = [0, *sorted(cuts), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


@st.composite
def resplit(draw: st.DrawFn) -> tuple[list[dict[str, Any]], bool]:
    """streaming_thinking's two blocks cut anew into deltas, interleaved at random; maybe one delta
    dropped (from a block that keeps another) or repeated. Returns the deltas and whether the rule must fire."""
    thinking = _pieces(THINKING, draw(st.sets(st.integers(1, len(THINKING) - 1), max_size=5)))
    text = _pieces(TEXT, draw(st.sets(st.integers(1, len(TEXT) - 1), max_size=5)))
    queues = [
        [{"index": 0, "delta": {"type": "thinking_delta", "thinking": piece}} for piece in thinking],
        [{"index": 1, "delta": {"type": "text_delta", "text": piece}} for piece in text],
    ]
    fault = draw(st.sampled_from(["none", "drop", "repeat"]))
    block = draw(st.integers(0, 1))
    at = draw(st.integers(0, len(queues[block]) - 1))
    if fault == "drop" and len(queues[block]) > 1:
        del queues[block][at]
    elif fault == "repeat":
        queues[block].insert(at, queues[block][at])
    else:
        fault = "none"
    order = draw(st.lists(st.integers(0, 1), min_size=sum(map(len, queues)), max_size=sum(map(len, queues))))
    deltas: list[dict[str, Any]] = []
    for pick in order:  # take from the queue drawn, or the other one when it is empty
        queue = queues[pick] if queues[pick] else queues[1 - pick]
        deltas.append({"type": "content_block_delta", **queue.pop(0)})
    return deltas, fault != "none"


# derandomized, so a failure is found again; no shrinking: each example is a process, and the draw is printed
@settings(
    max_examples=40 if deep() else 4,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],
)
@given(drawn=resplit())
def test_resplit_deltas(drawn: tuple[list[dict[str, Any]], bool]) -> None:
    """Any cut of a block's text into deltas, blocks interleaved in any way, concatenates to the block
    (silent); one delta lost or repeated does not (fires on the assistant line)."""
    deltas, fires = drawn
    inserts = [{"at": 1 + n, "line": {"type": "stream_event", "event": event}} for n, event in enumerate(deltas)]
    removals = [{"op": "remove", "path": f"/{1 + len(deltas)}"} for _ in range(7)]
    case = {"golden": "stream-json/streaming_thinking", "insert": inserts, "edits": removals, "renumber_seq": True}
    with tempfile.TemporaryDirectory() as work:
        others, lines = _judge(case, Path(work) / "stream.jsonl")
    assert others == []
    _require_rule()
    assert lines == ([1 + len(deltas) + 1] if fires else []), (lines, deltas)
