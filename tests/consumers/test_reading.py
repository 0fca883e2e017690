"""The reading protocol: a consumer's reading judged against the wire's reference reading (issue 49).

Three layers. The rules on readings as data (tests/consumers/cases/reading.json: each rule fires on
a reading wrong in its way and holds back on one right in a way it might mistake), and as a
property over every golden and its future variants (the reference reading passes; a text doubled
is always ``consumer.text-duplicated``, a block emptied always ``consumer.text-lost``). The
consumers that speak it: the reference consumer, the Node.js adapter and the SDK adapter example
pass every stream of every mode; each faulty consumer (one per scenario of the issue, exit 0)
is named by its rule. The silent misparse: exit 0, no reading, no output.
"""

from __future__ import annotations

import copy
import json
import shutil
import sys
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contract.consumers import broken_feed, feed, reading, transport
from contract.goldens.store import Golden, load, scenarios
from contract.wires import get
from contract.wires.stream_json.kit import future
from tests.support.depth import deep
from tests.support.paths import ROOT, TESTS

pytestmark = pytest.mark.process

CASES = json.loads((TESTS / "consumers" / "cases" / "reading.json").read_text("utf-8"))["cases"]
GOLDENS = scenarios("stream-json")
REFERENCE = get("stream-json").load_reading()
assert REFERENCE is not None
EXAMPLES = 60 if deep() else 8


def _expected(data: bytes) -> dict[str, Any]:
    assert REFERENCE is not None
    return reading.expected_reading(REFERENCE, data)


def _written(found: dict[str, Any]) -> bytes:
    """A reading as a consumer writes it: its line entries, then its view."""
    rows = [json.dumps(entry) for entry in found["lines"]]
    rows.append(json.dumps({"view": found["view"]}))
    return ("\n".join(rows) + "\n").encode()


def _judge(raw: bytes, data: bytes) -> set[str]:
    lines = data.count(b"\n")
    parsed, faults = reading.parse(raw, False, lines, "the stream")
    if parsed is None:
        return {f.rule for f in faults}
    return {f.rule for f in reading.judge_reading(parsed, _expected(data), "the stream")}


def _at(document: Any, pointer: str) -> tuple[Any, str | int]:
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer[1:].split("/")]
    for part in parts[:-1]:
        document = document[int(part)] if isinstance(document, list) else document[part]
    last = parts[-1]
    return document, int(last) if isinstance(document, list) else last


def _changed(case: dict[str, Any], found: dict[str, Any]) -> dict[str, Any]:
    found = copy.deepcopy(found)
    for pointer, value in case.get("set", {}).items():
        parent, key = _at(found, pointer)
        parent[key] = value
    if "double" in case:
        parent, key = _at(found, case["double"])
        parent[key] = parent[key] * 2
    if "drop" in case:
        parent, key = _at(found, case["drop"])
        del parent[key]
    for target, source in case.get("append", {}).items():
        parent, key = _at(found, target)
        origin, at = _at(found, source)
        parent[key].append(copy.deepcopy(origin[at]))
    for target, source in case.get("copy", {}).items():
        parent, key = _at(found, target)
        origin, at = _at(found, source)
        parent[key] = origin[at]
    if case.get("keep_messages_with_text"):
        found["view"]["messages"] = [m for m in found["view"]["messages"] if m["blocks"]]
    if "usage_times" in case:
        usage = found["view"]["ending"]["usage"]
        found["view"]["ending"]["usage"] = {k: v * case["usage_times"] for k, v in usage.items()}
    if case.get("reorder_usage"):
        usage = found["view"]["ending"]["usage"]
        found["view"]["ending"]["usage"] = dict(reversed(list(usage.items())))
    return found


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case: dict[str, Any]) -> None:
    data = load("stream-json", case["golden"]).data()
    raw = case["raw"].encode() if "raw" in case else _written(_changed(case, _expected(data)))
    assert _judge(raw, data) == set(case["rules"])


def test_every_rule_has_a_case_that_fires_and_one_that_must_not() -> None:
    fired = {rule for case in CASES for rule in case["rules"]}
    assert fired == set(reading.READING_RULES)
    # each rule's must-not case: a case right in a way near the rule's (its id says which)
    assert sum(1 for case in CASES if not case["rules"]) >= 6


def _lines(golden: Golden) -> list[dict[str, Any]]:
    return [orjson.loads(raw) for raw in golden.data().split(b"\n") if raw.strip()]


@pytest.mark.parametrize("golden", GOLDENS, ids=[g.name for g in GOLDENS])
def test_on_every_future_variant_the_reference_passes_and_a_changed_text_is_named(golden: Golden) -> None:
    """Over drawn variants: the reference reading judges itself clean, a future change never changes a
    message's text, and a text doubled or emptied is named by its rule, wherever it is."""
    strategy = future.variants(golden.name, _lines(golden))
    texts = [b["text"] for m in _expected(golden.data())["view"]["messages"] for b in m["blocks"]]

    @settings(max_examples=EXAMPLES, database=None, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(strategy, st.data())
    def check(variant: future.Variant, draw: st.DataObject) -> None:
        found = _expected(variant.data)
        assert _judge(_written(found), variant.data) == set()
        assert [b["text"] for m in found["view"]["messages"] for b in m["blocks"]] == texts
        where = [(i, j) for i, m in enumerate(found["view"]["messages"]) for j, b in enumerate(m["blocks"])
                 if b["text"]]
        if not where:
            return
        i, j = draw.draw(st.sampled_from(where))
        block = found["view"]["messages"][i]["blocks"][j]
        doubled = copy.deepcopy(found)
        doubled["view"]["messages"][i]["blocks"][j]["text"] = block["text"] * 2
        assert _judge(_written(doubled), variant.data) == {"consumer.text-duplicated"}
        emptied = copy.deepcopy(found)
        emptied["view"]["messages"][i]["blocks"][j]["text"] = ""
        assert _judge(_written(emptied), variant.data) == {"consumer.text-lost"}

    check()


# -- consumers that speak the protocol ----------------------------------------------------------

PY = sys.executable
MISREADS = TESTS / "faulty_consumers" / "misreads.py"
NODE_ADAPTER = ROOT / "examples" / "reading" / "consumer.js"
SDK_ADAPTER = ROOT / "examples" / "reading" / "sdk_adapter.py"


def _node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.skip("node is not on PATH (Debian: apt-get install nodejs): the adapter is JavaScript")
    return found


def _consumer(name: str) -> list[str]:
    if name == "reference":
        return [PY, "-m", "contract.reference.stream_json_consumer"]
    if name == "sdk":
        return [PY, str(SDK_ADAPTER)]
    return [_node(), str(NODE_ADAPTER)]


@pytest.mark.parametrize("name", ["reference", "node", "sdk"])
def test_the_adapters_pass_every_golden_and_their_readings_are_judged(name: str) -> None:
    result = feed.feed_stream(_consumer(name), GOLDENS, seed=1)
    assert result.report.conformant, [v.message for v in result.report.violations]
    assert result.readings == len(GOLDENS)  # each wrote a reading, and it was judged
    assert set(reading.READING_RULES) <= result.report.exercised


@pytest.mark.parametrize("name", ["reference", "node"])
def test_the_adapters_pass_future_broken_and_transport(name: str) -> None:
    golden = [load("stream-json", "tool_calls")]
    argv = _consumer(name)
    futures = feed.feed_stream(argv, golden, future=True, examples=4, seed=3)
    assert futures.report.conformant, [v.message for v in futures.report.violations]
    broken = broken_feed.feed_broken(argv, golden, seed=3)
    assert broken.report.conformant, [v.message for v in broken.report.violations]
    hostile = transport.feed_transport(argv, golden, seed=3, huge=False)
    assert hostile.report.conformant, [v.message for v in hostile.report.violations]


FAULTS = {"duplicate": ("streaming_thinking", "consumer.text-duplicated"),
          "overwrite": ("streaming_thinking", "consumer.text-lost"),
          "empty": ("tool_calls", "consumer.text-lost"),
          "usage": ("hello", "consumer.usage-summed"),
          "subtype": ("interrupted", "consumer.ending-misread"),
          "interrupt": ("interrupted", "consumer.ending-misread")}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_each_faulty_consumer_is_named_by_its_rule(fault: str) -> None:
    scenario, rule = FAULTS[fault]
    result = feed.feed_stream([PY, str(MISREADS), fault], [load("stream-json", scenario)], seed=1)
    assert set(result.report.counts) == {rule}, [v.message for v in result.report.violations]
    (failure,) = result.failures
    assert failure.outcome.status == 0  # wrong, and exiting 0: only its reading tells


def test_the_faulty_consumer_without_its_fault_passes_every_golden() -> None:
    result = feed.feed_stream([PY, str(MISREADS), "none"], GOLDENS, seed=1)
    assert result.report.conformant, [v.message for v in result.report.violations]


def test_a_node_consumer_keeping_streamed_text_twice_is_named() -> None:
    argv = [_node(), str(TESTS / "faulty_consumers" / "text_twice.js")]
    result = feed.feed_stream(argv, [load("stream-json", "streaming_thinking"), load("stream-json", "hello")], seed=1)
    assert set(result.report.counts) == {"consumer.text-duplicated"}
    assert {f.scenario for f in result.failures} == {"streaming_thinking"}  # hello streamed no delta


def test_a_parser_silent_after_a_new_line_kind_is_a_silent_misparse() -> None:
    argv = [PY, str(MISREADS), "silent"]
    golden = [load("stream-json", "hello")]
    assert feed.feed_stream(argv, golden, seed=1).report.conformant  # today's wire: it reports
    result = feed.feed_stream(argv, golden, future=True, examples=6, seed=1)
    assert set(result.report.counts) == {"consumer.silent"}
    (failure,) = result.failures
    assert "line type" in failure.changes


def test_silent_misparse_fires_on_exit_0_with_nothing_said_and_not_otherwise() -> None:
    golden = [load("stream-json", "hello")]
    silent = [PY, "-c", "import sys; sys.stdin.buffer.read()"]
    said = [PY, "-c", "import sys; sys.stdin.buffer.read(); print('ok')"]
    said_on_stderr_only = [PY, "-c", "import sys; sys.stdin.buffer.read(); print('ok', file=sys.stderr)"]
    assert set(feed.feed_stream(silent, golden, seed=1).report.counts) == {"consumer.silent"}
    assert set(feed.feed_stream(said_on_stderr_only, golden, seed=1).report.counts) == {"consumer.silent"}
    assert feed.feed_stream(said, golden, seed=1).report.conformant
    # a reading is something said: the reference reading written, nothing on stdout
    writes = [PY, "-c", "import os, runpy, sys; m = runpy.run_path(sys.argv[1]); "
                        "m['write_reading'](m['reading'](sys.stdin.buffer), os.environ['MILK_CONTRACT_READING'])",
              str(ROOT / "contract" / "wires" / "stream_json" / "kit" / "consumer.py")]
    assert feed.feed_stream(writes, golden, seed=1).report.conformant


def test_a_consumer_without_a_reading_leaves_the_reading_rules_unasked() -> None:
    said = [PY, "-c", "import sys; sys.stdin.buffer.read(); print('ok')"]
    report = feed.feed_stream(said, [load("stream-json", "hello")], seed=1).report
    assert report.conformant
    assert all(rule in report.unasked for rule in reading.READING_RULES)
    assert "consumer.silent" in report.exercised


def test_a_reading_that_says_success_on_a_broken_stream_is_dishonest() -> None:
    # the reference reading with its ending forced to success; it exits 3 on a stream that is not a
    # whole run (honest by its status), but its reading says the run succeeded
    lying = [PY, "-c", "import os, runpy, sys; m = runpy.run_path(sys.argv[1]); r = m['reading'](sys.stdin.buffer); "
                       "e = r['view']['ending']; e and e.update(failed=False); "
                       "m['write_reading'](r, os.environ['MILK_CONTRACT_READING']); print('{}'); "
                       "sys.exit(0 if r['whole'] else 3)",
             str(ROOT / "contract" / "wires" / "stream_json" / "kit" / "consumer.py")]
    result = broken_feed.feed_broken(lying, [load("stream-json", "tool_calls")], seed=1)
    assert set(result.report.counts) == {"consumer.dishonest"}, [v.message for v in result.report.violations]
    assert all("reading" in v.message for v in result.report.violations)


def test_a_hostile_reading_is_bounded_and_escaped() -> None:
    hostile = [PY, "-c", "import os, sys; sys.stdin.buffer.read(); print('ok'); "
                         "open(os.environ['MILK_CONTRACT_READING'], 'wb').write(b'\\x1b[31m' + b'x' * 5000)"]
    result = feed.feed_stream(hostile, [load("stream-json", "hello")], seed=1)
    assert set(result.report.counts) == {"consumer.reading-schema"}
    (violation,) = result.report.violations
    assert "\x1b" not in violation.message
    assert len(violation.message) < 1000


def test_repeated_line_less_findings_are_counted_without_an_empty_line_list(capsys: pytest.CaptureFixture[str]) -> None:
    """A consumer's findings name no line: grouped, the text report says how many, not "on lines , …"."""
    from contract.cli import run

    assert run(["feed", "--", PY, str(MISREADS), "empty"]) == 1
    out = capsys.readouterr().out
    assert "    ×2\n" in out
    assert "on lines ," not in out
