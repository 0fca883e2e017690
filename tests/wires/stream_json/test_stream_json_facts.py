"""The stream-json machine fed by block facts judges as it does line by line.

``facts.block_facts`` computes, with no state, what each line of a block decides alone (the
two-process checker's worker runs it); ``StreamRules.feed_facts`` folds the facts into the run,
or declines them (then ``feed_batch`` judges the block). Whichever way a block goes, the
findings, their order, the counts and the rules exercised must be those of ``feed`` on each
line: checked here on long runs from every golden with random faults of every kind the facts
judge or decline (tests/support/long_runs.py), in random batch sizes, with the facts sent through
``marshal`` as the worker sends them, and with the machine's bounds lowered so they are reached.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import marshal
import random
from typing import Any

import pytest

from contract.core.reader import Record
from contract.rules.report import Collector, Report
from contract.wires import Wire, get
from contract.wires.stream_json import facts as batch
from contract.wires.stream_json.machines import StreamRules
from tests.support import long_runs
from tests.support.depth import sample
from tests.support.wires import registered


class _Recording(Collector):
    """A collector that also keeps the rules exercised since the last ``batch()``."""

    def __init__(self, report: Report) -> None:
        super().__init__(report)
        self.since: set[str] = set()
        keep = report.exercised.add

        def exercised(rule: str) -> None:
            keep(rule)
            self.since.add(rule)

        self.exercised = exercised

    def batch(self) -> tuple[int, frozenset[str]]:
        """The findings so far and the rules exercised since the last call."""
        since, self.since = frozenset(self.since), set()
        return len(self._report.violations), since


def _same(objs: list[dict[str, Any]], seed: int) -> tuple[Report, float]:
    """The run fed line by line and, in lockstep, in random batches, each by its facts (through
    marshal, as the worker sends them) when the machine takes them, else by feed_batch: after each
    batch the same findings so far and the same rules exercised in it. Returns the line-by-line
    report (checked equal to the other whole) and the share of batches the facts took."""
    one, many = Report("stream-json"), Report("stream-json")
    by_line, by_batch = _Recording(one), _Recording(many)
    lines, batches = StreamRules(), StreamRules()
    pick = random.Random(seed)
    first = taken = count = 0
    while first < len(objs):
        chunk = objs[first : first + pick.randint(1, 150)]
        for line, obj in enumerate(chunk, first + 1):
            lines.feed(Record(line, b"", obj), by_line)
        facts = StreamRules.block_facts(chunk)
        facts = None if facts is None else marshal.loads(marshal.dumps(facts))
        if facts is not None and batches.feed_facts(first + 1, facts, by_batch, chunk.__getitem__):
            taken += 1
        else:
            batches.feed_batch(first + 1, chunk, by_batch)
        assert by_batch.batch() == by_line.batch(), f"lines {first + 1}-{first + len(chunk)}"
        count += 1
        first += len(chunk)
    lines.finish(by_line)
    batches.finish(by_batch)
    assert many.to_json() == one.to_json()
    assert many.exercised == one.exercised
    return one, taken / count


# After these the rest of the run declines the facts (every stream_event is a finding, or the run
# has ended): only the batches before them are fed by facts.
RUN_WIDE = {"init without partial_messages_v1", "init without tasks_v1", "a second init without partial messages",
            "a result in the middle"}


QUIET = {"an unlisted line type", "seq a float", "ts of another shape", "a call begun a block early"}


def test_a_conformant_run_is_fed_by_its_facts() -> None:
    report, share = _same(long_runs.run(4000), 0)
    assert share > 0.8  # nearly every batch took the facts: the fold is what was compared
    assert report.conformant
    assert {"sj.tool-args-reassembly", "sj.parent-ref", "sj.tool-result-ref", "sj.capabilities"} <= report.exercised


# every third fault in the default run (test_random_faults_... mixes them), every one in the deep run
@pytest.mark.parametrize("name", sample(sorted(long_runs.FAULTS), 3))
def test_each_fault_is_reported_as_line_by_line(name: str) -> None:
    objs = long_runs.run(2500)
    assert long_runs.FAULTS[name](objs, 1200)
    report, share = _same(objs, 1)
    # the fault was seen (but an unlisted type is the schema step's note, 7.0 is the seq 7, a stamp
    # with one more digit of fraction is as valid, only not of the block's shape, and a call whose
    # first fragment is whitespace reassembles the same)
    assert report.violations or name in QUIET, name
    if name not in RUN_WIDE:
        assert share > 0.6, name


@pytest.mark.parametrize("seed", sample(range(12), 3))  # every seed in the deep run
def test_random_faults_are_reported_as_line_by_line(seed: int) -> None:
    objs, names = long_runs.broken(3000, seed)
    assert names
    _same(objs, seed)  # (faults every few hundred lines: many batches decline the facts)


@pytest.mark.parametrize("bound", ["MAX_TOOL_USE_BYTES", "MAX_PENDING_BYTES", "MAX_CALL_BYTES"])
def test_a_bound_reached_is_reported_as_line_by_line(bound: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(StreamRules, bound, {"MAX_TOOL_USE_BYTES": 40_000, "MAX_PENDING_BYTES": 300,
                                             "MAX_CALL_BYTES": 20}[bound])
    one, _ = _same(long_runs.run(3000), 2)
    assert "checker.limit" in one.counts


def test_the_facts_vouch_for_nothing_a_line_reports_alone() -> None:
    """Each line's own faults make its block's facts None: the machine then judges it line by line."""
    for name in ("agent not a string", "no message", "role of the other side", "tool_result without its id",
                 "system without subtype", "system error with a non-string message", "a second init",
                 "a result in the middle", "seq gap", "another session", "ts back in time", "ts not a date",
                 "ts with a fullwidth digit", "ts of another shape", "ts second 60", "seq a float"):
        objs = long_runs.run(400)
        assert long_runs.FAULTS[name](objs, 200)
        changed = next(index for index, (a, b) in enumerate(zip(objs, long_runs.run(400), strict=True))
                       if json.dumps(a) != json.dumps(b))
        assert batch.block_facts(objs[changed - 20 : changed + 20]) is None, name
        assert batch.block_facts(objs[changed + 1 : changed + 41]) is not None, name


def test_a_stamp_breaking_the_shape_of_its_minute_is_not_vouched_for() -> None:
    """Stamps of one minute are proven by their shape (each ASCII digit read as 0): a middle stamp
    in order but not a date-time (a colon, a letter, a fullwidth digit where a digit goes) fails."""
    objs = long_runs.run(300)
    block = [dict(o) for o in objs[100:140]]
    assert len({o["ts"][:16] for o in block}) == 1
    assert batch.block_facts(block) is not None
    for bad in ("0:", "0a", "0\uff10"):
        broken = [dict(o) for o in block]
        broken[20]["ts"] = broken[20]["ts"][:17] + bad + broken[20]["ts"][19:]
        assert batch.block_facts(broken) is None, bad


def test_a_call_streamed_and_completed_in_a_block_leaves_the_steps() -> None:
    """What the worker settles inside a block: the call's fragments and the references to ids used
    earlier in the block are no steps; the block's tool_use ids are listed once."""
    objs = long_runs.run(800)
    calls = [o for o in objs if (o.get("event") or {}).get("type") == "tool_args_delta"]
    assert calls
    start = objs.index(calls[0]) - 2
    facts = batch.block_facts(objs[start : start + 60])
    assert facts is not None
    flags, uses, ops, completed = facts[5], facts[6], facts[7], facts[8]
    assert completed
    assert flags & batch.CALLS
    assert not set(completed[::2]) & {ref for code, ref in zip(ops[1::4], ops[2::4], strict=True) if code == batch.FRAG}
    assert uses
    assert not set(uses[2::3]) & set(ops[2::4])


def _with_a_declared_check(monkeypatch: pytest.MonkeyPatch) -> contextlib.AbstractContextManager[Wire]:
    """The wire's registry plus one check (a tool_use id used once per run, as docs/architecture.md's
    "Adding a rule" declares it), for the duration of a test; the wire with its rule, current while
    the context returned is entered."""
    from contract.core.rule import Basis, Check, Level, Registry, Rule
    from contract.core.sink import Sink
    from contract.wires.stream_json import machines

    registry = Registry("stream-json")  # the machine reads its declared checks from it when built

    rule = Rule("x.tool-use-unique", Level.SHOULD, "stream-json", "a tool_use id is used once", "test",
                basis=Basis.DERIVED)

    @registry.family(rule)
    class ToolUseUnique(Check):
        kinds = ("assistant",)

        def __init__(self) -> None:
            self.first: dict[str, int] = {}

        def line(self, obj: dict[str, Any], line: int, out: Sink) -> None:
            message = obj.get("message")
            content = message.get("content") if type(message) is dict else None
            for index, block in enumerate(content if type(content) is list else ()):
                ref = block.get("id") if type(block) is dict and block.get("type") == "tool_use" else None
                if type(ref) is not str:
                    continue
                out.exercised(self.rule)
                if ref in self.first:
                    out.emit(self.rule, line, f"/message/content/{index}/id", f"{ref} again")
                else:
                    self.first[ref] = line

    monkeypatch.setattr(machines, "REGISTRY", registry)
    wire = get("stream-json")
    return registered(dataclasses.replace(wire, rules=(*wire.rules, rule)))  # the catalog knows it


def test_a_declared_check_keeps_a_conformant_run_on_the_facts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registering a check never turns the fast path off (issue 29): a block in which it finds
    nothing is still fed by its facts, and what it judged is marked as on the line path."""
    with _with_a_declared_check(monkeypatch):
        report, share = _same(long_runs.run(4000), 0)
    assert share > 0.8
    assert report.conformant
    assert "x.tool-use-unique" in report.exercised


def test_a_declared_check_that_fires_sends_its_block_line_by_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Near miss: the block where the check finds a repeated id goes line by line (its state put back
    first), so the finding and its order are feed's; the blocks around it stay on the facts."""
    objs = long_runs.run(4000)
    uses = [obj for obj in objs if obj.get("type") == "assistant" and any(
        type(b) is dict and b.get("type") == "tool_use" for b in obj["message"]["content"])]
    assert len(uses) > 2
    late = next(b for b in uses[-1]["message"]["content"] if b.get("type") == "tool_use")
    early = next(b for b in uses[0]["message"]["content"] if b.get("type") == "tool_use")
    late["id"] = early["id"]  # the last call reuses the first call's id
    with _with_a_declared_check(monkeypatch):
        report, share = _same(objs, 1)
    assert "x.tool-use-unique" in report.rules()
    assert share > 0.6
