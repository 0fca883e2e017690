"""The independent consumer readings (cases/readings.json) held against the wire's reference reading.

Each case's stream is built as cases/deltas.json's are (blackbox.transcript); the reference
reading is stream-json's (``Wire.load_reading``, through ``contract.consumers.reading.
expected_reading``, as ``feed`` derives it). Its per-line records (`line`, `did`; a `note` is the
reader's commentary) and its view are compared with the case's `expected`, field by field; a
difference names the case and the JSON pointer. A case whose reading the reference did not take
carries `resolved` (why) and `reference_differs` (each pointer the reference reads otherwise, and
what it reads there): the differences must be exactly those, so a resolution never hides another.
In-process and cheap: every case runs in the default run. READINGS.md, "Consumer readings", says
what each expectation rests on.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from contract import wires
from contract.consumers.reading import expected_reading
from tests.independent.blackbox import load_cases, transcript

DATA = load_cases("readings")
_MISSING = object()  # a member one side has and the other has not


def differences(want: Any, got: Any, pointer: str = "") -> dict[str, tuple[Any, Any]]:
    """Every JSON pointer at which ``got`` differs from ``want``: (wanted, got), ``_MISSING`` for an absent member.

    Values are JSON: a bool is never equal to a number here (``True == 1`` in Python)."""
    if isinstance(want, dict) and isinstance(got, dict):
        out: dict[str, tuple[Any, Any]] = {}
        for key in sorted(set(want) | set(got)):
            at = f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}"
            if key not in want or key not in got:
                out[at] = (want.get(key, _MISSING), got.get(key, _MISSING))
            else:
                out |= differences(want[key], got[key], at)
        return out
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        out = {}
        for index, (one, other) in enumerate(zip(want, got, strict=True)):
            out |= differences(one, other, f"{pointer}/{index}")
        return out
    if type(want) is not type(got) or want != got:
        return {pointer: (want, got)}
    return {}


def _reading(case: dict[str, Any]) -> dict[str, Any]:
    """The reference reading's records and view of the case's stream, in the shape the cases give."""
    reference = wires.get("stream-json").load_reading()
    assert reference is not None, "stream-json has a reference reading (Wire.reading)"
    found = expected_reading(reference, transcript(case))
    return {"lines": found["lines"], "view": found["view"]}


def _expected(case: dict[str, Any]) -> dict[str, Any]:
    """The case's expectation without the reader's notes (`note` says why, it is no reading)."""
    expected = case["expected"]
    lines = [{"line": record["line"], "did": record["did"]} for record in expected["lines"]]
    return {"lines": lines, "view": expected["view"]}


@pytest.mark.parametrize("case", DATA["cases"], ids=[case["id"] for case in DATA["cases"]])
def test_reference_reading(case: dict[str, Any]) -> None:
    found = differences(_expected(case), _reading(case))
    allowed = case.get("reference_differs", {}) if case.get("resolved") else {}
    unresolved = {at: pair for at, pair in found.items() if at not in allowed or pair[1] != allowed[at]}
    said = [f"{case['id']}: at {at} expected {want!r}, the reference reads {got!r}"
            for at, (want, got) in unresolved.items()]
    assert not unresolved, "\n".join(said)
    stale = sorted(set(allowed) - set(found))
    assert not stale, f"{case['id']}: resolved at {stale}, yet the reference now reads it as this case expects"


def test_resolved_cases_say_where_and_why() -> None:
    """`reference_differs` only with `resolved`, and every resolution names what differs."""
    for case in DATA["cases"]:
        assert bool(case.get("resolved")) == bool(case.get("reference_differs")), case["id"]


@pytest.mark.parametrize(
    ("want", "got", "where"),
    [
        ({"a": [1, 2]}, {"a": [1, 3]}, ["/a/1"]),
        ({"a": True}, {"a": 1}, ["/a"]),
        ({"a": None}, {}, ["/a"]),
        ({"a/b": [1]}, {"a/b": [1, 2]}, ["/a~1b"]),
        ({"a": {"b": "x"}}, {"a": {"b": "x"}}, []),
    ],
)
def test_differences_name_the_pointer(want: Any, got: Any, where: list[str]) -> None:
    assert sorted(differences(want, got)) == where


NODE_ADAPTER = Path(__file__).resolve().parents[2] / "examples" / "reading" / "consumer.js"


@pytest.mark.process
def test_the_node_adapter_reads_every_case_as_the_reference_does(tmp_path: Path) -> None:
    """examples/reading/consumer.js ports the reference reading: on every case's stream it writes the same."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH (Debian: apt-get install nodejs): the adapter is JavaScript")
    apart = []
    for case in DATA["cases"]:
        path = tmp_path / f"{case['id']}.reading.jsonl"
        done = subprocess.run([node, str(NODE_ADAPTER)], input=transcript(case), capture_output=True, timeout=60,
                              check=False, env={**os.environ, "MILK_CONTRACT_READING": str(path)})
        assert done.returncode in (0, 3), (case["id"], done.stderr)
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        written = {"lines": records[:-1], "view": records[-1]["view"]}
        apart += [f"{case['id']}: {at}" for at in differences(_reading(case), written)]
    assert not apart, apart
