"""The yardsticks ``bench/run.py`` holds the checker against: three loops a user could write.

* ``loads``: ``json.loads`` of every line (the stdlib parse alone);
* ``orjson``: ``orjson.loads`` of every line (the fast parse alone);
* ``bare``: ``orjson.loads`` of every line and a jsonschema-rs validator, compiled once from the
  wire's own schema, asked of every line (what "parse and validate" costs with the two libraries
  this project already depends on: issue 50's yardstick).

``python bench/yardstick.py LOOP FILE [SCHEMA]`` runs one loop over FILE as a whole process, so
the benchmark times it as it times ``milk-contract check``; it exits 1 when the bare loop finds a
line its schema rejects (the benchmark's transcripts are conformant, so that is a benchmark bug).
The module imports nothing of the project and each loop imports only its own library, so no
loop pays for another's imports. tests/bench/test_yardstick.py holds the bare loop to what it
says (orjson parses, jsonschema-rs validates, a line the schema rejects is counted), so that the
figure cannot drift to a weaker baseline.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

LOOPS = ("loads", "orjson", "bare")


def loads_loop(lines: Iterable[bytes]) -> int:
    """``json.loads`` of every line; the lines read."""
    import json

    count = 0
    for line in lines:
        json.loads(line)
        count += 1
    return count


def orjson_loop(lines: Iterable[bytes]) -> int:
    """``orjson.loads`` of every line; the lines read."""
    import orjson

    count = 0
    for line in lines:
        orjson.loads(line)
        count += 1
    return count


def validator(schema: bytes) -> Any:
    """A jsonschema-rs validator compiled once from a schema's bytes (its ``$schema`` picks the draft)."""
    import jsonschema_rs
    import orjson

    return jsonschema_rs.validator_for(orjson.loads(schema))


def bare_loop(lines: Iterable[bytes], schema: bytes) -> int:
    """``orjson.loads`` and the compiled validator's ``is_valid`` for every line; the lines the
    schema rejects (a line orjson cannot parse raises ``orjson.JSONDecodeError``)."""
    import orjson

    is_valid = validator(schema).is_valid
    invalid = 0
    for line in lines:
        if not is_valid(orjson.loads(line)):
            invalid += 1
    return invalid


def argv(loop: str, transcript: Path, wire: str) -> list[str]:
    """The command that runs ``loop`` over ``transcript`` as a whole process (the bare loop with
    ``wire``'s own schema, as shipped): what ``bench/run.py`` and ``bench/regress.py`` time."""
    from contract.core.resources import data_dir  # here, not above: a loop's process never imports it

    schema = [str(data_dir("schemas") / f"{wire}.schema.json")] if loop == "bare" else []
    return [sys.executable, str(Path(__file__).resolve()), loop, str(transcript), *schema]


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in LOOPS or (argv[0] == "bare") != (len(argv) == 3):
        print("usage: yardstick.py loads|orjson FILE | yardstick.py bare FILE SCHEMA", file=sys.stderr)
        return 2
    with open(argv[1], "rb") as lines:
        if argv[0] == "loads":
            loads_loop(lines)
        elif argv[0] == "orjson":
            orjson_loop(lines)
        else:
            with open(argv[2], "rb") as schema:
                invalid = bare_loop(lines, schema.read())
            if invalid:
                print(f"{invalid} lines fail the schema", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
