"""The type-confusion sweep: every member of every golden line replaced by every JSON kind.

Rule machines read fields the schema types; a line that fails the schema still reaches them
(``record.valid`` is False), so each must tolerate any value in any place. This sweep takes
each golden (both wires), replaces one member at a time by one of the kinds below, checks
the stream, and asserts: a report and never an exception, no ``checker.internal`` (no machine
raised), and a non-conformant verdict whenever the mutated line breaks the schema (judged by
the reference validator, independently of the checker's own schema step).

Each distinct (wire, line type, member path, kind) counts once, array indices folded
(``/content/0/text`` ~ ``/content/3/text``): about 7,000 streams. The default run checks every
``SAMPLE_EVERY``-th of them: a path's kinds are listed together, so each member path still gets two
or three kinds, and the kinds rotate from path to path (about 1,200 streams, two seconds). The deep
run (tests/support/depth.py) takes every occurrence, unfolded.

``check`` and ``run`` (an emitter printing the same bytes) must agree: a few samples are run
live, since each costs a process.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import contract
from contract.live.harness import run_stream
from contract.wires import WIRES as REGISTERED
from contract.wires import get
from tests.support.depth import deep, sample

WIRES = tuple(REGISTERED)
DEEP = json.loads("[" * 300 + "]" * 300)
KINDS: tuple[tuple[str, Any], ...] = (
    ("null", None), ("true", True), ("0", 0), ("-1", -1), ("1.5", 1.5), ("1e300", 1e300), ('""', ""),
    ('"x"', "x"), ("[]", []), ("{}", {}), ("[[]]", [[]]), ('{"a":{}}', {"a": {}}), ("300-deep", DEEP),
)
EVERY = deep()  # tests/support/depth.py
CHUNKS = 8  # the sweep is split so that pytest -n 2 shares it between both cores
SAMPLE_EVERY = 6  # below len(KINDS): every member path keeps at least two kinds in the sample


@cache
class _OpenTypeValidator:
    """The seed's validator, with stream-json's open set of line types (README policy).

    A stream-json line whose ``type`` is a string the top-level ``oneOf`` does not name is judged
    against the seed without that ``oneOf``; derived here from the seed, not from ``contract``.
    """

    def __init__(self, wire: str) -> None:
        schema = json.loads(get(wire).schema_path.read_text())
        self._closed = Draft202012Validator(schema)
        self._known = {branch.get("properties", {}).get("type", {}).get("const") for branch in schema.get("oneOf", [])}
        self._open = Draft202012Validator({k: v for k, v in schema.items() if k != "oneOf"})
        self._is_open = wire == "stream-json"

    def is_valid(self, instance: Any) -> bool:
        kind = instance.get("type") if isinstance(instance, dict) else None
        if self._is_open and isinstance(kind, str) and kind not in self._known:
            return bool(self._open.is_valid(instance))
        return bool(self._closed.is_valid(instance))


def _validator(wire: str) -> _OpenTypeValidator:
    return _OpenTypeValidator(wire)


def _goldens(wire: str) -> list[tuple[str, list[dict[str, Any]]]]:
    return [(path.name, [json.loads(line) for line in path.read_bytes().splitlines()])
            for path in sorted(get(wire).goldens_dir.glob("*.jsonl"))]


def _paths(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    """Every member and array element below the line's root, iteratively."""
    stack: list[tuple[tuple[str | int, ...], Any]] = [(path, value)]
    while stack:
        where, node = stack.pop()
        if where:
            yield where
        if isinstance(node, dict):
            stack.extend(((*where, key), child) for key, child in node.items())
        elif isinstance(node, list):
            stack.extend(((*where, index), child) for index, child in enumerate(node))


def _replaced(obj: dict[str, Any], path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    copy: dict[str, Any] = json.loads(json.dumps(obj))
    node: Any = copy
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return copy


def _line_kind(obj: dict[str, Any]) -> str:
    return f"{obj.get('type')}/{obj.get('subtype', '')}"


def _folded(path: tuple[str | int, ...]) -> tuple[str, ...]:
    """Array indices folded, and a subtree's nodes (``children/#`` repeated) folded to one level."""
    folded: list[str] = []
    for step in ("#" if isinstance(step, int) else step for step in path):
        if step == "#" and folded[-3:] == ["children", "#", "children"]:
            del folded[-2:]
            continue
        folded.append(step)
    return tuple(folded)


Mutation = tuple[str, int, str, str, bytes, dict[str, Any]]


def mutations(wire: str) -> list[Mutation]:
    """(golden, line, pointer, kind, stream bytes, mutated line) for each mutation swept."""
    seen: set[tuple[str, tuple[str, ...], str]] = set()
    found = []
    for name, lines in _goldens(wire):
        encoded = [json.dumps(line, ensure_ascii=False).encode() + b"\n" for line in lines]
        for index, obj in enumerate(lines):
            for path in _paths(obj):
                for kind, value in KINDS:
                    key = (_line_kind(obj), _folded(path), kind)
                    if not EVERY and key in seen:
                        continue
                    seen.add(key)
                    mutated = _replaced(obj, path, value)
                    line = json.dumps(mutated, ensure_ascii=False).encode() + b"\n"
                    stream = b"".join([*encoded[:index], line, *encoded[index + 1:]])
                    pointer = "".join(f"/{step}" for step in path)
                    found.append((name, index + 1, pointer, kind, stream, mutated))
    return found


@cache
def _all(wire: str) -> list[Mutation]:
    return mutations(wire)


@cache
def _swept(wire: str) -> list[Mutation]:
    return sample(_all(wire), SAMPLE_EVERY)


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("wire", WIRES)
def test_every_member_by_every_kind_gets_a_report(wire: str, chunk: int) -> None:
    assert _swept(wire), "the goldens gave no mutation: the sweep would assert nothing"
    swept = _swept(wire)[chunk::CHUNKS]
    if not swept:
        pytest.skip(f"{wire}: its sweep has fewer than {CHUNKS} mutations, none for chunk {chunk}")
    problems = []
    validator = _validator(wire)
    for name, line, pointer, kind, stream, mutated in swept:
        try:
            report = contract.check(stream, wire, jobs=1)
        except Exception as exc:
            problems.append(f"{name}:{line} {pointer} = {kind}: raised {type(exc).__name__}: {exc}")
            continue
        internal = [v for v in report.violations if v.rule.startswith("checker.")]
        if internal:
            problems.append(f"{name}:{line} {pointer} = {kind}: {internal[0].message}")
        elif report.conformant and not validator.is_valid(mutated):  # the reference engine, only when needed
            problems.append(f"{name}:{line} {pointer} = {kind}: breaks the schema, reported conformant")
    assert not problems, f"{len(problems)} of {len(swept)} mutations:\n" + "\n".join(problems[:40])


def _emitter(tmp: Path, data: bytes) -> list[str]:
    path = tmp / "stream.jsonl"
    path.write_bytes(data)
    return [sys.executable, "-c", "import sys; sys.stdout.buffer.write(open(sys.argv[1], 'rb').read())",
            str(path)]


@pytest.mark.process
def test_check_and_run_agree_on_samples(tmp_path: Path) -> None:
    """``run`` on an emitter printing the mutated bytes gives ``check``'s verdict and findings."""
    picked = random.Random(11).sample(_all("stream-json"), 6)
    for name, line, pointer, kind, stream, _ in picked:
        checked = contract.check(stream, "stream-json", jobs=1)
        live = run_stream(_emitter(tmp_path, stream), wire="stream-json", timeout=30)
        where = f"{name}:{line} {pointer} = {kind}"
        assert live.conformant == checked.conformant, where
        assert live.counts == checked.counts, where
