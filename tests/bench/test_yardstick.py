"""The benchmark's yardstick is what it says (issue 50): ``bench/yardstick.py``'s bare loop parses
with orjson and validates every line with a compiled jsonschema-rs validator of the wire's own
schema, so the figure ``check / bare loop`` cannot drift to a weaker baseline (a parse alone, a
validator that passes what jsonschema-rs rejects, the other wire's schema). Nothing here is timed."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import orjson
import pytest

from bench import yardstick
from contract.core.resources import data_dir
from contract.wires import BUNDLED

WIRES = ("stream-json", "subagent-stdio")  # the two the benchmark measures (bench/run.py's builders)


def _schema(wire: str) -> bytes:
    return (data_dir("schemas") / f"{wire}.schema.json").read_bytes()


def _golden_lines(wire: str) -> list[bytes]:
    return [line + b"\n" for path in sorted((data_dir("goldens") / wire).glob("*.jsonl"))
            for line in path.read_bytes().split(b"\n") if line]


@pytest.mark.parametrize("wire", WIRES)
def test_the_bare_loop_passes_the_goldens_and_rejects_the_other_wires_lines(wire: str) -> None:
    assert wire in BUNDLED
    mine = _golden_lines(wire)
    other = _golden_lines(next(w for w in WIRES if w != wire))
    assert yardstick.bare_loop(mine, _schema(wire)) == 0
    assert yardstick.bare_loop(other, _schema(wire)) == len(other)  # the wire's own schema, per line


def test_the_bare_loop_validates_with_jsonschema_rs_not_the_python_reference() -> None:
    # Python's `$` matches before a final newline, so jsonschema passes this id; jsonschema-rs does not
    schema = _schema("subagent-stdio")
    line = {"type": "subagent_status", "version": 1, "id": "watch-1\n"}
    assert jsonschema.Draft202012Validator(json.loads(schema)).is_valid(line)
    assert yardstick.bare_loop([orjson.dumps(line)], schema) == 1
    assert type(yardstick.validator(schema)).__module__.startswith("jsonschema_rs")


def test_the_bare_loop_and_the_orjson_loop_parse_with_orjson() -> None:
    line = b'{"type":"subagent_status","version":1,"id":NaN}\n'  # json.loads reads NaN; orjson does not
    assert yardstick.loads_loop([line]) == 1
    with pytest.raises(orjson.JSONDecodeError) as parsed:
        yardstick.orjson_loop([line])
    with pytest.raises(orjson.JSONDecodeError) as validated:
        yardstick.bare_loop([line], _schema("subagent-stdio"))
    assert type(parsed.value) is type(validated.value) is orjson.JSONDecodeError  # not json's own


@pytest.mark.parametrize("wire", WIRES)
def test_the_command_the_benchmark_times_is_the_bare_loop_of_the_wires_schema(wire: str, tmp_path: Path) -> None:
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_bytes(b"".join(_golden_lines(wire)))
    bad.write_bytes(b"".join(_golden_lines(wire)) + b'{"type":"no such line"}\n')
    command = yardstick.argv("bare", good, wire)
    assert command[2:] == ["bare", str(good), str(data_dir("schemas") / f"{wire}.schema.json")]
    assert Path(command[1]).resolve() == Path(yardstick.__file__).resolve()
    assert yardstick.main(command[2:]) == 0
    assert yardstick.main(yardstick.argv("bare", bad, wire)[2:]) == 1
    assert yardstick.main(["bare", str(good)]) == 2  # no schema: misuse, never a loop without validation
