"""Every code the classifier can emit is in the one table (contract/evolution/changes.py): additive, or
breaking and acceptable by an ADR (the accepted-breaks schema lists exactly those), or refused by
``evolve`` up front with its one-line reason (issue 47, item 1).

The codes are enumerated twice: from the source (every code literal the classifier and framing
pass for a change) and by exercising the classifier over a space of schema edits drawn with
hypothesis from the seeds (both directions). ``unread-keyword-added`` and ``line-kind-added`` on
subagent-stdio were emitted and then refused by the accepted-breaks schema (a traceback at the
gate, after evolve had written half the checkout).
"""

from __future__ import annotations

import ast
import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contract.evolution import framing
from contract.evolution.changes import ADDITIVE_CODES, BREAKING_CODES, CODES, REFUSED_CODES
from contract.evolution.classify import ADDITIVE, BREAKING, Change, classify
from contract.evolution.gate import AcceptedBreaksError, load_accepted
from tests.support.depth import sample
from tests.support.paths import ROOT
from tests.support.schema_objects import VALUED, at, schema_objects
from tests.support.seeds import seed

WIRES = ("stream-json", "subagent-stdio")
SOURCES = [ROOT / "contract" / "evolution" / name for name in ("classify.py", "framing.py")]


def _held(changes: list[Change]) -> None:
    for change in changes:
        assert change.code in CODES, change
        if change.kind == ADDITIVE:
            assert change.code in ADDITIVE_CODES, change
        else:
            assert change.kind == BREAKING
            assert change.code in BREAKING_CODES or change.code in REFUSED_CODES, change


def test_the_table_is_one_table() -> None:
    """Refused codes are no ADR's to accept, and none is also additive; framing's codes are the table's."""
    assert not set(REFUSED_CODES) & set(BREAKING_CODES)
    assert not set(REFUSED_CODES) & set(ADDITIVE_CODES)
    assert set(ADDITIVE_CODES) & set(BREAKING_CODES) == {"line-kind-added"}  # open or closed line types
    assert set(framing.CODES) <= set(BREAKING_CODES)
    assert set(framing.CATALOG_CODES) <= set(ADDITIVE_CODES)
    assert all(reason and "\n" not in reason for reason in REFUSED_CODES.values())


def test_the_accepted_breaks_schema_lists_the_acceptable_codes() -> None:
    schema = json.loads((ROOT / "schemas" / "accepted-breaks.schema.json").read_text(encoding="utf-8"))
    assert schema["$defs"]["entry"]["properties"]["code"]["enum"] == list(BREAKING_CODES)


def test_an_entry_for_every_acceptable_code_loads_and_a_refused_one_does_not(tmp_path: Path) -> None:
    path = tmp_path / "accepted-breaks.json"
    entries = [{"wire": "stream-json", "path": "x", "code": code, "adr": "ADR-0001"} for code in BREAKING_CODES]
    path.write_text(json.dumps({"accepted": entries}), encoding="utf-8")
    assert [e.code for e in load_accepted(path)] == list(BREAKING_CODES)
    for code in REFUSED_CODES:
        path.write_text(json.dumps({"accepted": [{**entries[0], "code": code}]}), encoding="utf-8")
        with pytest.raises(AcceptedBreaksError):
            load_accepted(path)


def _literal_codes(tree: ast.AST) -> tuple[set[str], list[str]]:
    """The code literals the module passes for a change, and the f-strings it builds codes with."""
    found: set[str] = set()
    built: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        name = node.func.id
        args: list[ast.expr] = []
        if name in ("_breaking", "_additive", "_change") and len(node.args) >= 2:
            args = [node.args[1]]
        elif name == "Change" and len(node.args) >= 5:
            args = [node.args[4]]
        for arg in args:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.add(arg.value)
            elif isinstance(arg, ast.JoinedStr):
                built.append(ast.unparse(arg))
    return found, built


# the codes built with an f-string, each with every value its variable takes (read from the source)
BUILT = {
    "f'unread-keyword-{verb}'": {f"unread-keyword-{v}" for v in ("added", "removed", "changed")},
    "f'{section}-edited'": {f"{s}-edited" for s in ("schema", "unreferenced", "policy")},
    "f'framing-rule-{how}'": {f"framing-rule-{h}" for h in ("weakened", "tightened", "edited")},  # framing._moved
    "f'rule-words-{how}'": {f"rule-words-{h}" for h in ("weakened", "tightened", "edited")},
}


def test_every_code_literal_of_the_classifier_is_in_the_table() -> None:
    for source in SOURCES:
        found, built = _literal_codes(ast.parse(source.read_text(encoding="utf-8")))
        assert found, source
        assert found <= set(CODES), (source, found - set(CODES))
        for pattern in built:
            assert pattern in BUILT, f"{source}: a code built as {pattern}: list its values in BUILT"
            assert BUILT[pattern] <= set(CODES)


# -- the classifier exercised over a space of schema edits ----------------------------------------

def _objects(node: Any) -> list[tuple[Any, ...]]:
    """The paths of every schema object in ``node`` (a ``not`` included)."""
    return [path for path, _ in schema_objects(node, valued=(*VALUED, "not"))]


_at = at


Edit = Callable[[dict[str, Any], dict[str, Any], Any], None]  # (schema, the node, a drawn value)


def _unread(schema: dict[str, Any], node: dict[str, Any], value: Any) -> None:
    node[["uniqueItems", "format", "not", "if", "multipleOf"][value % 5]] = [True, "date", {}, {}, 2][value % 5]


def _drop(schema: dict[str, Any], node: dict[str, Any], value: Any) -> None:
    keys = sorted(k for k in node if k not in ("$ref", "$defs"))  # a schema with a dangling $ref is no schema
    if keys:
        del node[keys[value % len(keys)]]


def _member(schema: dict[str, Any], node: dict[str, Any], value: Any) -> None:
    node.setdefault("properties", {})[f"m{value}"] = {"type": ["string", "integer", "object"][value % 3]}
    if value % 2:
        node.setdefault("required", []).append(f"m{value}")


def _retype(schema: dict[str, Any], node: dict[str, Any], value: Any) -> None:
    node["type"] = [["string"], "integer", ["number", "null"], "object", "boolean"][value % 5]


def _pin(schema: dict[str, Any], node: dict[str, Any], value: Any) -> None:
    choice = value % 4
    if choice == 0:
        node["const"] = value
    elif choice == 1:
        node["enum"] = [value, value + 1]
    elif choice == 2:
        node["maximum" if value % 8 < 4 else "minLength"] = value
    else:
        node["pattern"] = "^a"


def _close(schema: dict[str, Any], node: dict[str, Any], value: Any) -> None:
    node["additionalProperties"] = [False, True, {"type": "string"}][value % 3]


def _describe(schema: dict[str, Any], node: dict[str, Any], value: Any) -> None:
    node["description"] = f"one | two | v{value} (open set)"


def _new_kind(schema: dict[str, Any], node: dict[str, Any], value: Any) -> None:
    branches = schema["oneOf"]
    if "properties" in schema:  # the shared object's kinds (stream-json)
        schema["properties"][f"m{value}"] = {"type": "integer"}
        kind = {"properties": {"type": {"const": f"k{value}"}}, "required": ["type", f"m{value}"],
                "maxProperties": 9}
    else:
        schema["$defs"][f"k{value}"] = {"type": "object", "additionalProperties": False, "required": ["type"],
                                        "properties": {"type": {"const": f"k{value}"}}, "minProperties": 1}
        kind = {"$ref": f"#/$defs/k{value}"}
    branches.insert(value % (len(branches) + 1), kind)


def _drop_kind(schema: dict[str, Any], node: dict[str, Any], value: Any) -> None:
    del schema["oneOf"][value % len(schema["oneOf"])]


def _dialect(schema: dict[str, Any], node: dict[str, Any], value: Any) -> None:
    schema["$schema"] = f"http://json-schema.org/draft-0{(4, 7)[value % 2]}/schema#"


EDITS: tuple[Edit, ...] = (_unread, _drop, _member, _retype, _pin, _close, _describe, _new_kind, _drop_kind, _dialect)


@st.composite
def _edited(draw: st.DrawFn, wire: str) -> tuple[dict[str, Any], dict[str, Any]]:
    original = seed(wire)
    edited = copy.deepcopy(original)
    places = _objects(edited)
    for _ in range(draw(st.integers(1, 3))):
        edit = draw(st.sampled_from(EDITS))
        node = _at(edited, draw(st.sampled_from(places)))
        edit(edited, node, draw(st.integers(0, 40)))
        places = _objects(edited)
    return original, edited


@pytest.mark.parametrize("wire", WIRES)
@settings(suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(data=st.data())
def test_every_code_the_classifier_emits_is_in_the_table(wire: str, data: st.DataObject) -> None:
    original, edited = data.draw(_edited(wire))
    _held(classify(original, edited))
    _held(classify(edited, original))


@pytest.mark.parametrize("wire", WIRES)
def test_each_kind_of_edit_is_classified_within_the_table(wire: str) -> None:
    """Each edit at a sample of the schema objects (every one in the deep run; deterministic), and the codes
    issue 47 named emitted."""
    emitted: set[str] = set()
    for edit in EDITS:
        for index, place in enumerate(sample(_objects(seed(wire)), 80)):
            original = seed(wire)
            edited = copy.deepcopy(original)
            edit(edited, _at(edited, place), index)
            for changes in (classify(original, edited), classify(edited, original)):
                _held(changes)
                emitted |= {c.code for c in changes}
    assert {"unread-keyword-added", "unread-keyword-removed", "line-kind-added", "line-kind-removed",
            "dialect-changed"} <= emitted
