"""The subagent-stdio checker beyond the per-rule cases: host-output-only files, wire detection,
tolerance of any shape, and the reference host's replay logic (in process, no subprocess)."""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Iterator
from typing import Any

import pytest

import contract
from contract.core.reader import Record
from contract.rules.catalog import CATALOG
from contract.rules.report import Collector, Report
from contract.wires import subagent_stdio
from contract.wires.subagent_stdio.kit.host import Host, default_script
from contract.wires.subagent_stdio.machines import HOST_OUTPUT_ONLY_NOTE

WIRE = "subagent-stdio"


def _jsonl(lines: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(line, separators=(",", ":")).encode() + b"\n" for line in lines)


def test_the_default_conversation_is_conformant_under_strict() -> None:
    report = contract.check(_jsonl(default_script()), wire=WIRE, strict=True)
    assert report.conformant
    assert not report.counts, report.violations


def test_host_output_only_is_judged_on_everything_but_correlation_and_says_so() -> None:
    host_only = [line for line in default_script() if line["type"] != "subagent_status"]
    report = contract.check(_jsonl(host_only), wire=WIRE, strict=True)
    assert report.conformant
    assert HOST_OUTPUT_ONLY_NOTE in report.notes
    host_only[1]["revision"] = 99  # the other rules still run
    assert "sa.event-envelope" in contract.check(_jsonl(host_only), wire=WIRE).rules()


def test_the_note_is_absent_when_commands_are_present() -> None:
    report = contract.check(_jsonl(default_script()), wire=WIRE)
    assert HOST_OUTPUT_ONLY_NOTE not in report.notes


def test_auto_picks_the_subagent_wire_from_the_first_line_and_says_so() -> None:
    report = contract.check(_jsonl(default_script()), wire="auto")
    assert report.wire == WIRE
    assert any(note.startswith("wire: subagent-stdio") for note in report.notes)


def test_check_accepts_an_iterable_of_lines() -> None:
    lines = [json.dumps(line).encode() + b"\n" for line in default_script()]
    assert contract.check(iter(lines), wire=WIRE).conformant


def test_every_wire_rule_is_traced_in_a_machine_docstring() -> None:
    machines = subagent_stdio.SUBAGENT_STDIO.machines()
    docs = " ".join(type(machine).__doc__ or "" for machine in machines)
    rules = [rule for rule, spec in CATALOG.items() if spec.wire == WIRE and rule != "sa.schema"]
    assert [rule for rule in rules if rule not in docs] == []


ODD_VALUES: tuple[Any, ...] = (None, "x", [], {}, True, 1.5, -1, [{"key": 1}])


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, dict):
        for key, child in value.items():
            yield (*path, key)
            yield from _paths(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield (*path, index)
            yield from _paths(child, (*path, index))


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    copied = copy.deepcopy(value)
    target = copied
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = new
    return copied


def test_machines_tolerate_any_shape_in_any_field() -> None:
    """Every field of a command, a response and an event replaced by odd values: never raises."""
    script = default_script()
    command, response, event = script[0], script[1], script[2]
    streams = []
    for line in (command, response, event):
        for path in _paths(line):
            for odd in ODD_VALUES:
                streams.append(_jsonl([command, _replaced(line, path, odd), event]))
    assert len(streams) > 500
    for data in streams:
        out = Collector(Report(wire=WIRE))
        machines = subagent_stdio.SUBAGENT_STDIO.machines()
        for number, raw in enumerate(data.splitlines(), 1):
            for machine in machines:
                machine.feed(Record(number, raw, json.loads(raw)), out)
        for machine in machines:
            machine.finish(out)


# -- the reference host, in process --------------------------------------------------------


def _serve(commands: list[bytes], script: list[dict[str, Any]] | None = None,
           host: type[Host] = Host) -> list[dict[str, Any]]:
    stdout = io.BytesIO()
    server = host(script or default_script(), stdout)
    assert server.serve(iter(commands)) == 0
    return [json.loads(line) for line in stdout.getvalue().splitlines()]


def test_host_echoes_the_actual_id_or_none() -> None:
    sent = [b'{"type":"subagent_status","version":1,"id":"mine"}\n',
            b'{"type":"subagent_status","version":1}\n',
            b'{"type":"subagent_status","version":1,"id":""}\n']
    responses = [line for line in _serve(sent) if line["type"] == "response"]
    assert [r.get("id", None) for r in responses] == ["mine", None, ""]
    assert "id" not in responses[1]


def test_host_pushes_scripted_events_after_their_response_and_repeats_the_last_answer() -> None:
    sent = [b'{"type":"subagent_status","version":1}\n'] * 5
    kinds = [(line["type"], line.get("revision", line.get("data", {}).get("revision")))
             for line in _serve(sent)]
    assert kinds == [
        ("response", 3), ("subagent_event", 4),
        ("response", 4), ("subagent_event", 5), ("subagent_event", 6),
        ("response", 6), ("response", 6), ("response", 6),
    ]


def test_host_skips_lines_that_are_not_commands(capsys: pytest.CaptureFixture[str]) -> None:
    out = _serve([b"hello\n", b"[1]\n", b'{"type":"subagent_status","version":1}\n'])
    assert [line["type"] for line in out][:1] == ["response"]
    assert "skipped" in capsys.readouterr().err


def test_host_replays_leading_events_before_the_first_answer() -> None:
    script = default_script()
    leading = [script[2], *script[:2]]  # an event first, then the first question and answer
    out = _serve([b'{"type":"subagent_status","version":1}\n'], leading)
    assert [line["type"] for line in out] == ["subagent_event", "response"]


def test_a_script_without_responses_is_refused() -> None:
    with pytest.raises(ValueError, match="no response"):
        Host([{"type": "subagent_status", "version": 1}], io.BytesIO())
