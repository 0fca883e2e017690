"""The composed strategies: health-checked under default settings, derived from the seeds,
closed to schema keywords they cannot honour, and shrinking to small examples.

:mod:`contract.strategies._compose` builds one hypothesis strategy per schema node instead of
asking hypothesis-jsonschema on every draw. Speed must not cost what the strategies prove:
every public strategy passes hypothesis' health checks under the *default* settings (not the
suite's profile, which a user of ``contract.strategies`` does not have), every branch of each
seed's top-level ``oneOf`` is reachable, a schema keyword the compiler cannot honour is refused
when the strategy is built (never generated around), and a failing example still shrinks to
the smallest line that fails.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample
from jsonschema import Draft202012Validator

from contract.checking.schema import ecma_pattern, load
from contract.strategies import WIRES, breakable, broken_streams, lines, streams
from contract.strategies._compose import ESC, Compiler, Unsupported
from tests.support.wires import registered
from tests.wires.audit_log import AUDIT_LOG

# The default settings as a user gets them (every health check on), but few examples: the point is
# the health checks, which run on the first examples drawn. The 200 ms deadline is left out: it
# times the test body on the wall clock, not generation, and a loaded CI machine made it flake.
DEFAULT = settings(settings.get_profile("default"), max_examples=5, database=None, deadline=None)


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("public", ["lines", "streams"])
def test_public_strategies_pass_health_checks_under_default_settings(wire: str, public: str) -> None:
    strategy: st.SearchStrategy[Any] = lines(wire) if public == "lines" else streams(wire)

    @DEFAULT
    @given(strategy)
    def draw_some(value: Any) -> None:
        assert value  # a line object or a transcript is never empty

    draw_some()


@pytest.mark.parametrize("wire", WIRES)
def test_broken_streams_pass_health_checks_under_default_settings(wire: str) -> None:
    # Every rule's strategy in one run (each is also drawn, health-checked, per rule in
    # test_strategies_streams.py under the suite's profile).
    every = st.one_of([broken_streams(wire, rule) for rule in sorted(breakable(wire))])

    @settings(DEFAULT, max_examples=20)
    @given(every)
    def draw_some(value: bytes) -> None:
        assert value.strip()

    draw_some()


def _branches(wire: str) -> list[Draft202012Validator]:
    """A validator of each branch of the schema's top-level oneOf, read from the schema, not copied
    (a schema with no top-level oneOf, the synthetic wire's, is its one branch). No member is
    assumed to tell the branches apart: a wire's lines need not carry ``type``."""
    schema = load(wire)
    defs = {"$defs": schema["$defs"]} if "$defs" in schema else {}
    return [Draft202012Validator({**branch, **defs}) for branch in schema.get("oneOf", [schema])]


@pytest.mark.parametrize("wire", WIRES)
def test_every_top_level_branch_is_generated(wire: str) -> None:
    branches = _branches(wire)
    assert branches
    # Each search stops at its first hit (no shrinking); derandomized, so it cannot flake.
    quick = settings(database=None, max_examples=200, phases=[Phase.generate], derandomize=True)
    for branch in branches:
        assert branch.is_valid(find(lines(wire), branch.is_valid, settings=quick))


# Shrinking takes hundreds of draws per example (seconds on a busy two-core machine), so these
# run in the deep run only (``tox -e deep``; tests/support/depth.py), as the other slow properties do.
deep_only = pytest.mark.deep


@deep_only
def test_a_failing_node_shrinks_to_the_smallest_tree() -> None:
    """A property that fails on any node with a child shrinks to one child and no optional member."""
    seed = load("subagent-stdio")
    nodes = Compiler({"$defs": seed["$defs"], "$ref": "#/$defs/node"}, ansi=False, depth=1).whole()
    smallest = find(nodes, lambda node: bool(node["children"]), settings=settings(database=None, max_examples=100))
    assert smallest == {
        "key": "0",
        "status": seed["$defs"]["node"]["properties"]["status"]["enum"][0],
        "children": [{"key": "0", "status": smallest["status"], "children": [], "omittedChildren": 0}],
        "omittedChildren": 0,
    }


@deep_only
def test_a_failing_stream_json_line_shrinks_to_its_required_members() -> None:
    smallest = find(
        lines("stream-json"),
        lambda line: line["type"] == "result",
        settings=settings(database=None, max_examples=100),
    )
    assert smallest == {"type": "result", "session_id": "", "seq": 0, "ts": ""}


# -- the compiler fails closed -------------------------------------------------------------------


def _compile(node: dict[str, Any], defs: dict[str, Any] | None = None) -> st.SearchStrategy[Any]:
    return Compiler({"$defs": defs or {}} | node, ansi=False, depth=1).whole()


@pytest.mark.parametrize(
    ("node", "message"),
    [
        ({"type": "string", "format": "date-time"}, "format"),
        ({"type": "array", "items": {"type": "integer"}, "uniqueItems": True}, "uniqueItems"),
        ({"type": "integer", "exclusiveMinimum": 0}, "exclusiveMinimum"),
        ({"type": "object", "minProperties": 1}, "minProperties"),
        ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, "overlap"),
        ({"oneOf": [{"type": "string"}, {"const": "x"}]}, "overlap"),
        ({"allOf": [{"type": "string"}, {"maxLength": 3}]}, "allOf"),
        ({"$ref": "other.json#/x"}, r"\$ref"),
        ({"type": "object", "required": ["a"], "additionalProperties": False}, "required"),
        ({"not": {"type": "string"}}, "type"),
    ],
    ids=[
        "format",
        "uniqueItems",
        "exclusiveMinimum",
        "minProperties",
        "oneOf-numbers",
        "oneOf-const",
        "allOf-two",
        "remote-ref",
        "required-forbidden",
        "not",
    ],
)
def test_unknown_keywords_are_refused_when_built(node: dict[str, Any], message: str) -> None:
    with pytest.raises(Unsupported, match=message):
        _compile(node)


def test_mutual_recursion_is_refused() -> None:
    defs = {"a": {"type": "array", "items": {"$ref": "#/$defs/b"}}, "b": {"$ref": "#/$defs/a"}}
    with pytest.raises(Unsupported, match="refers back"):
        _compile({"$ref": "#/$defs/a"}, defs)


def test_disjoint_one_of_and_pinned_branches_are_accepted() -> None:
    # Near misses of the refusals above: types that cannot overlap, objects told apart by type.
    _compile({"oneOf": [{"type": "string"}, {"type": "integer"}]})
    _compile({"oneOf": [{"const": "x"}, {"const": "y"}]})
    pinned = {"type": "object", "required": ["type"], "properties": {"type": {"const": "a"}}}
    _compile({"oneOf": [pinned, pinned | {"properties": {"type": {"const": "b"}}}]})
    with pytest.raises(Unsupported, match="overlap"):
        _compile({"oneOf": [pinned, pinned]})


# -- strings -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern",
    [r"^[^\r\n]*$", r"^[^/\\\r\n]+$", r"^[a-c]{2}$", r"^x[0-9]*$"],
    ids=["seed-id", "seed-key", "class-not-negated", "literal-prefix"],
)
@settings(max_examples=30, database=None)
@given(data=st.data())
def test_pattern_strings_match_with_ecma_dollar(pattern: str, data: st.DataObject) -> None:
    node = {"type": "string", "pattern": pattern, "maxLength": 6}
    value = data.draw(_compile(node))
    assert re.search(ecma_pattern(pattern), value), value
    assert len(value) <= 6
    assert ESC not in value


def test_seed_patterns_take_the_fast_path() -> None:
    # Every pattern in the seeds is a single negated class; were one not, hypothesis-jsonschema
    # would draw it (correct, but slower): this pins that the seeds stay on the fast path.
    from contract.strategies._compose import SIMPLE_CLASS

    patterns = set(re.findall(r'"pattern": ("(?:[^"\\]|\\.)*")', json.dumps(load("subagent-stdio"))))
    patterns |= set(re.findall(r'"pattern": ("(?:[^"\\]|\\.)*")', json.dumps(load("stream-json"))))
    assert patterns
    for quoted in patterns:
        assert SIMPLE_CLASS.fullmatch(json.loads(quoted)), quoted


@settings(max_examples=50, database=None)
@given(data=st.data())
def test_no_ansi_unless_asked(data: st.DataObject) -> None:
    quiet = data.draw(Compiler({"type": "string", "minLength": 1}, ansi=False, depth=0).whole())
    assert ESC not in quiet


def test_ansi_when_asked() -> None:
    loud = Compiler({"type": "string", "minLength": 1}, ansi=True, depth=0).whole()
    found = find(loud, lambda s: ESC in s, settings=settings(database=None, max_examples=3000, derandomize=True))
    assert found == ESC


# -- free-form payloads --------------------------------------------------------------------------


def _shape(value: Any, depth: int = 0) -> set[str]:
    """The kinds of value in a free-form payload, containers with their size and nesting depth."""
    if isinstance(value, list | dict):
        found = {f"{type(value).__name__} of {len(value)}", f"depth {depth + 1}"}
        for item in value.values() if isinstance(value, dict) else value:
            found |= _shape(item, depth + 1)
        return found
    return {"float" if type(value) is float else type(value).__name__}


def test_free_form_values_reach_every_shape_in_one_choice_each() -> None:
    # json_values picks a value's shape in one choice (a scalar kind, or an array or object of
    # up to two items); this pins that each shape, and nesting two deep, is still drawn.
    from contract.strategies._common import json_values

    wanted = {"NoneType", "bool", "int", "float", "str", "depth 2"}
    wanted |= {f"{kind} of {size}" for kind in ("list", "dict") for size in range(3)}
    found: set[str] = set()

    def all_seen(value: Any) -> bool:
        found.update(_shape(value))
        return wanted <= found

    quick = settings(database=None, max_examples=1000, phases=[Phase.generate], derandomize=True)
    with contextlib.suppress(NoSuchExample):  # what is missing is reported below
        find(json_values(), all_seen, settings=quick)
    assert wanted <= found, f"never drawn: {sorted(wanted - found)}"


def test_a_wire_schema_the_compiler_cannot_honour_is_drawn_whole_and_valid(tmp_path: Path) -> None:
    """A wire written with if/then (the ninth add-a-wire trial's) gets lines, each valid, both ways
    of the condition among them: hypothesis-jsonschema draws what the compiler refuses."""
    schema = json.loads(AUDIT_LOG.schema_path.read_text(encoding="utf-8"))
    schema["allOf"] = [{"if": {"required": ["note"]}, "then": {"properties": {"seq": {"maximum": 3}}}}]
    path = tmp_path / "audit-log.schema.json"
    path.write_text(json.dumps(schema), encoding="utf-8")
    with pytest.raises(Unsupported):
        Compiler(schema, ansi=True, depth=1).whole()
    valid = Draft202012Validator(schema)
    quick = settings(database=None, max_examples=200, phases=[Phase.generate], derandomize=True)
    with registered(dataclasses.replace(AUDIT_LOG, schema_file=str(path))):
        for noted in (True, False):
            def both_ways(line: dict[str, Any], noted: bool = noted) -> bool:
                return valid.is_valid(line) and ("note" in line) is noted

            assert valid.is_valid(find(lines(AUDIT_LOG.name), both_ways, settings=quick))

        @settings(max_examples=50, database=None)
        @given(lines(AUDIT_LOG.name))
        def each_valid(line: dict[str, Any]) -> None:
            assert valid.is_valid(line), line

        each_valid()
