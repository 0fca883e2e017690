"""``milk-contract feed --wire subagent-stdio``: the suite plays the host to a client.

A client that polls (the reference client) passes on every golden and its future host variants;
one that sends a malformed command fails with the subagent-stdio rule the command breaks, at its
line; one that crashes on events it did not ask for fails with consumer.crash; one that never
exits is killed (consumer.hang). No process outlives a test.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from contract import cli
from contract.consumers import feed_client
from contract.goldens.store import load, scenarios
from tests.support.depth import deep
from tests.support.paths import TESTS
from tests.support.processes import spy_on_starts

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

CLIENTS = TESTS / "faulty_clients"
REFERENCE = [sys.executable, "-m", "contract.reference.subagent_client"]
DEEP = deep()
BUDGET = [] if DEEP else ["--examples", "3", "--seed", "1", "--shrink-seconds", "5"]


@pytest.fixture(autouse=True)
def _no_process_left(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    yield from spy_on_starts(monkeypatch, feed_client)


def _client(name: str) -> list[str]:
    return [sys.executable, str(CLIENTS / f"{name}.py")]


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:  # JSON: any shape
    code = cli.run(["feed", "--wire", "subagent-stdio", "--format", "json", *args])
    return code, json.loads(capsys.readouterr().out)


def _varied(wire: str) -> list[str]:
    """The goldens of ``wire`` that have future host variants (one with nothing to vary has none): read
    from the goldens, whichever there are, never counted by hand."""
    from contract.consumers.feed_client import host_lines, script_from
    from contract.wires import get

    future = get(wire).load_future()
    assert future is not None
    varied = []
    for golden in scenarios(wire):
        try:
            future.variants(host_lines(script_from(golden.name, golden.data(), wire)))
        except ValueError:
            continue
        varied.append(golden.name)
    return varied


def test_a_polling_client_passes_with_future_variants(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _json(capsys, "--future", *BUDGET, "--", *REFERENCE)
    assert code == 0, report["violations"]
    notes = " ".join(map(str, report["notes"]))
    # every golden with something to vary (since unknown members: each, unavailable too), read from the goldens
    assert notes.count("future host variants answered") == len(_varied("subagent-stdio"))
    assert "sa.response-correlation" in [r["rule"] for r in report["requirements"]
                                         if r["status"] == "passed"]


def test_a_malformed_command_fails_with_its_rule(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _json(capsys, "--scenario", "first_poll", "--", *_client("malformed_command"))
    assert code == 1
    violations = report["violations"]
    assert report["counts"] == {"sa.schema": 1}, violations
    [finding] = violations
    assert finding["line"] == 1
    assert finding["pointer"] == "/version"
    assert finding["message"].startswith("first_poll: ")


def test_a_client_that_crashes_on_unasked_events(capsys: pytest.CaptureFixture[str]) -> None:
    # the golden without events passes; the one whose host pushes events does not
    assert cli.run(["feed", "--wire", "subagent-stdio", "--scenario", "first_poll", "--",
                    *_client("strict_events")]) == 0
    capsys.readouterr()
    code, report = _json(capsys, "--scenario", "workflow_events", "--", *_client("strict_events"))
    assert code == 1
    assert report["counts"]["consumer.crash"] == 1
    # the command it wrote before it read the event may go unanswered (the answer met a closed pipe)
    assert set(report["counts"]) <= {"consumer.crash", "sa.response-correlation"}


def test_a_client_that_never_exits_is_killed() -> None:
    hangs = [sys.executable, "-c", "import time; time.sleep(3600)"]
    result = feed_client.feed_client(hangs, [load("subagent-stdio", "first_poll")], timeout=1.0)
    assert set(result.report.counts) == {"consumer.hang"}


def test_the_host_answers_with_the_command_id_and_never_goes_back() -> None:
    script = feed_client.script_from("epoch_change", load("subagent-stdio", "epoch_change").data())
    polls = [sys.executable, "-m", "contract.reference.subagent_client", "4"]  # one more poll than answers
    outcome, transcript = feed_client.converse(polls, script)
    assert outcome.status == 0
    import contract

    report = contract.check(transcript, "subagent-stdio", strict=True)
    assert report.conformant, [v.message for v in report.violations]
    lines = [json.loads(raw) for raw in transcript.splitlines()]
    answers = [line for line in lines if line["type"] == "response"]
    assert [a["id"] for a in answers] == ["poll-1", "poll-2", "poll-3", "poll-4"]


def test_a_flooding_client_is_cut_and_fails() -> None:
    floods = [sys.executable, "-c", f"import sys; sys.stdout.write('x\\n' * {feed_client.MAX_COMMANDS + 1})"]
    result = feed_client.feed_client(floods, [load("subagent-stdio", "first_poll")], timeout=30.0)
    assert "run.output-limit" in result.report.counts
    assert not result.report.conformant


def test_a_client_that_sends_no_command_exercised_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    """``true`` as a client once passed every golden conversation (exit 0, nothing sent)."""
    assert cli.run(["feed", "--wire", "subagent-stdio", "--format", "json", "--", "true"]) == 1  # before: 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["counts"]) == {"consumer.early-exit"}
    assert report["counts"]["consumer.early-exit"] == len(scenarios("subagent-stdio"))
    assert "sent none: nothing of the wire was exercised" in report["violations"][0]["message"]
    # near miss: the reference client sends its commands and passes, the rule judged
    result = feed_client.feed_client(REFERENCE, scenarios("subagent-stdio")[:1])
    assert result.report.conformant, [v.message for v in result.report.violations]
    assert "consumer.early-exit" in result.report.exercised


def test_the_host_plays_the_wire_it_is_given() -> None:
    """The wire is the caller's, not fixed at import (issue 29): on a conversation wire with other
    line types the host groups that wire's events, answers that wire's commands with its responses."""
    import dataclasses

    from contract.wires import Dialogue, conversation

    other = dataclasses.replace(conversation(), name="ping-stdio", dialogue=Dialogue(
        command="ping", response="pong", event="push", build=lambda ident: {"type": "ping", "id": ident}))
    golden = b'{"type":"push","n":0}\n{"type":"pong","n":1}\n{"type":"push","n":2}\n'
    script = feed_client.script_from("pings", golden, other)
    assert [(r["n"], [e["n"] for e in events]) for r, events in script.answers] == [(1, [0, 2])]
    client = [sys.executable, "-c", "import sys; print('{\"type\":\"ping\",\"id\":\"p1\"}', flush=True); "
              "sys.stdin.read()"]
    outcome, transcript = feed_client.converse(client, script, wire=other)
    assert (outcome.status, outcome.fed) == (0, 1)  # its one ping answered
    lines = [json.loads(raw) for raw in transcript.splitlines()]
    assert [(line["type"], line.get("id")) for line in lines] == [("ping", "p1"), ("pong", "p1"), ("push", None),
                                                                  ("push", None)]
    with pytest.raises(ValueError, match="no response"):  # the registry's conversation wire has other types
        feed_client.script_from("pings", golden)
