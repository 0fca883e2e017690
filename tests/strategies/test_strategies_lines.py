"""Generated lines: schema-valid for both engines, and the engines agree on mutated ones too.

The project validates with two engines (jsonschema-rs for the verdict, jsonschema with ECMA-262
``$`` for the explanation); a line one accepts and the other rejects would be a checker that
says "invalid" without saying why, or worse. So every generated line, and every mutation of
one (a required key dropped, a type changed, a trailing LF on a pattern-bound string, 1 made
1.0, ...), must get the same verdict from both.
"""

from __future__ import annotations

import copy
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contract.checking.schema import engine, load
from contract.strategies import lines
from contract.strategies._schemas import generable, recursive_defs, unroll

EXAMPLES = settings().max_examples  # the profile's count, the same for both wires

OTHER_TYPES: list[Any] = [None, True, 0, 2.5, "text", [], {}]


def _locations(value: Any) -> list[tuple[Any, Any]]:
    """Every (container, key or index) in a JSON value, the root's members first."""
    found: list[tuple[Any, Any]] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found.extend((node, key) for key in node)
            stack.extend(node.values())
        elif isinstance(node, list):
            found.extend((node, index) for index in range(len(node)))
            stack.extend(node)
    return found


def mutate(draw: st.DrawFn, line: dict[str, Any]) -> dict[str, Any]:
    """``line`` changed in one place, the way a faulty emitter or a lossy relay would."""
    out = copy.deepcopy(line)
    where = _locations(out)
    kind = draw(
        st.sampled_from(
            [
                "drop",
                "retype",
                "newline",
                "float",
                "bool",
                "extra",
                "empty",
                "negative",
                "beyond-max",
            ]
        )
    )
    if kind == "extra" or not where:
        out[draw(st.sampled_from(["extra", "Type", "seq "]))] = draw(st.sampled_from(OTHER_TYPES))
        return out
    container, key = draw(st.sampled_from(where))
    value = container[key]
    if kind == "drop":
        del container[key]
    elif kind == "newline" and isinstance(value, str):
        container[key] = value + "\n"  # the ECMA-262 `$` trap: Python's `$` matches before it
    elif kind == "empty" and isinstance(value, str):
        container[key] = ""
    elif kind == "float" and type(value) is int and abs(value) < 2**53:
        container[key] = float(value)  # 1 and 1.0 are the same JSON Schema integer
    elif kind == "bool" and type(value) in (int, bool):
        container[key] = int(value) if type(value) is bool else bool(value)
    elif kind == "negative" and type(value) is int:
        container[key] = -value - 1
    elif kind == "beyond-max" and type(value) is int:
        container[key] = 9007199254740992  # one above the subagent schema's maximum
    else:
        container[key] = draw(st.sampled_from([v for v in OTHER_TYPES if type(v) is not type(value)]))
    return out


def _fast(wire: str, instance: Any) -> bool:
    return bool(engine(wire).is_valid_fast(instance))


def _valid_and_agreed(wire: str, line: dict[str, Any], data: st.DataObject) -> None:
    assert _fast(wire, line), f"jsonschema-rs rejects a generated line: {line!r}"
    assert engine(wire).is_valid_reference(line), f"jsonschema rejects a generated line: {line!r}"
    for _ in range(3):  # mutations are cheap next to drawing the line
        changed = data.draw(st.composite(lambda draw: mutate(draw, line))(), label="mutated")
        fast, reference = _fast(wire, changed), engine(wire).is_valid_reference(changed)
        assert fast == reference, f"engines disagree: jsonschema-rs {fast}, jsonschema {reference} on {changed!r}"


@settings(max_examples=EXAMPLES)
@given(line=lines("stream-json"), data=st.data())
def test_stream_json_lines_valid_and_engines_agree(line: dict[str, Any], data: st.DataObject) -> None:
    _valid_and_agreed("stream-json", line, data)


@settings(max_examples=EXAMPLES)
@given(line=lines("subagent-stdio"), data=st.data())
def test_subagent_lines_valid_and_engines_agree(line: dict[str, Any], data: st.DataObject) -> None:
    _valid_and_agreed("subagent-stdio", line, data)


SNAPSHOT: dict[str, Any] = {
    "version": 1,
    "sessionId": None,
    "epoch": "e1",
    "revision": 1,
    "available": True,
    "capabilities": {"snapshot": True, "events": True},
    "fleet": {
        "version": 1,
        "entries": [],
        "totalActive": 0,
        "topLevelAsyncCapacity": {"used": 0, "limit": 4},
        "omitted": 0,
    },
    "runs": [],
    "omitted": {"runs": 0, "children": 0},
}
NODE: dict[str, Any] = {"key": "k1", "status": "running", "children": [], "omittedChildren": 0}
LINE: dict[str, Any] = {
    "type": "system",
    "subtype": "notification",
    "session_id": "sess_1",
    "seq": 1,
    "ts": "2026-01-01T00:00:00Z",
}


@pytest.mark.parametrize(
    ("wire", "instance", "valid"),
    [
        ("subagent-stdio", {"type": "subagent_status", "version": 1, "id": "abc"}, True),
        ("subagent-stdio", {"type": "subagent_status", "version": 1, "id": "abc\n"}, False),
        ("subagent-stdio", {"type": "subagent_status", "version": 1.0}, True),
        ("subagent-stdio", {"type": "subagent_status", "version": True}, False),
        (
            "subagent-stdio",
            {
                "type": "response",
                "command": "subagent_status",
                "success": True,
                "data": SNAPSHOT | {"runs": [NODE | {"key": "k1\n"}]},
            },
            False,
        ),
        (
            "subagent-stdio",
            {
                "type": "response",
                "command": "subagent_status",
                "success": True,
                "data": SNAPSHOT
                | {
                    "runs": [
                        NODE | {"children": [NODE | {"children": [NODE | {"children": [NODE | {"key": "deep\n"}]}]}]}
                    ]
                },
            },
            False,
        ),
        ("stream-json", LINE | {"seq": 1.0}, True),
        ("stream-json", LINE | {"seq": True}, False),
        ("stream-json", LINE | {"seq": 1.5}, False),
    ],
    ids=[
        "id",
        "id-trailing-lf",
        "version-1.0",
        "version-true",
        "key-trailing-lf",
        "deep-key-trailing-lf",
        "seq-1.0",
        "seq-true",
        "seq-1.5",
    ],
)
def test_engines_agree_on_known_traps(wire: str, instance: dict[str, Any], valid: bool) -> None:
    assert _fast(wire, instance) is valid
    assert engine(wire).is_valid_reference(instance) is valid


def test_unrolled_schema_has_no_recursion_and_a_bounded_depth() -> None:
    seed = load("subagent-stdio")
    assert recursive_defs(seed) == {"node"}  # if the seed grows another recursion, unroll it too
    schema = generable("subagent-stdio", 2)
    assert not recursive_defs(schema)
    assert schema["$defs"]["node_2"]["properties"]["children"]["maxItems"] == 0
    # Derived, not copied: every level keeps the seed node's properties but the recursion.
    node = seed["$defs"]["node"]["properties"]
    for level in ("node_0", "node_1", "node_2"):
        mine = schema["$defs"][level]["properties"]
        assert set(mine) == set(node)
        assert all(mine[k] == node[k] for k in node if k not in ("children", "key", "runId", "workflowId"))


def test_unrolling_bounds_depth_but_keeps_shallow_trees() -> None:
    from jsonschema import Draft202012Validator

    unrolled = Draft202012Validator(unroll(load("subagent-stdio"), 1))
    original = Draft202012Validator(load("subagent-stdio"))

    def with_depth(levels: int) -> dict[str, Any]:
        tree: dict[str, Any] = NODE
        for _ in range(levels - 1):
            tree = NODE | {"children": [tree]}
        return {
            "type": "response",
            "command": "subagent_status",
            "success": True,
            "data": SNAPSHOT | {"runs": [tree]},
        }

    assert original.is_valid(with_depth(2))
    assert unrolled.is_valid(with_depth(2))
    assert original.is_valid(with_depth(3))
    assert not unrolled.is_valid(with_depth(3))


@pytest.mark.process
def test_import_contract_does_not_import_hypothesis() -> None:
    code = "import sys, contract; sys.exit('hypothesis' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
