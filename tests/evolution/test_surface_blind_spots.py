"""The surface gate is never blind to a tightening: every schema object of every wire, tightened.

The surface (``contract.evolution.surface``) models a subset of JSON Schema; what it does not read
it records as ``unread``, where any change is breaking. This sweep holds that the two together miss
nothing: at each schema object a wire's schema reaches (its top-level object, each kind's branch,
each member, each definition), each tightening an ADR might write (a member made required, there
or through ``allOf``; a bound, a pattern, a format, ``uniqueItems``, ``multipleOf``, ``not``,
``if``/``then``, ``propertyNames``; an enum narrowed) classifies as breaking. It found, before it was
written, that a kind's own ``required`` on stream-json ("result lines carry usage"), a top-level
``allOf`` and a member required through ``allOf`` were all reported "no change".

A schema object under a definition nothing references is left out: an edit there validates
nothing (the surface reports it as ``unreferenced-edited``, additive). The default run takes the
top level (the root, each kind's branch) and every tenth schema object below it
(tests/support/depth.py); the deep run takes them all.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from contract.evolution.classify import classify, is_breaking
from contract.evolution.surface import surface_of
from contract.wires import WIRES
from tests.support.depth import sample
from tests.support.seeds import original as seed_of

Edit = Callable[[dict[str, Any]], None]


def _objects(node: Any, at: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """(pointer, schema object) of every schema object the surface walks into."""
    if not isinstance(node, dict):
        return
    yield at, node
    for key, value in node.items():
        if key in ("properties", "$defs") and isinstance(value, dict):
            for name, sub in value.items():
                yield from _objects(sub, f"{at}/{key}/{name}")
        elif key in ("items", "additionalProperties"):
            yield from _objects(value, f"{at}/{key}")
        elif key in ("allOf", "oneOf", "anyOf") and isinstance(value, list):
            for index, sub in enumerate(value):
                yield from _objects(sub, f"{at}/{key}/{index}")


def _at(document: dict[str, Any], pointer: str) -> dict[str, Any]:
    node: Any = document
    for part in pointer.split("/")[1:]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    assert isinstance(node, dict)
    return node


def _tightenings(node: dict[str, Any]) -> Iterator[tuple[str, Edit]]:
    """What an ADR might write at ``node`` that some conformant line then fails."""
    given = node.get("properties")
    members: dict[str, Any] = given if isinstance(given, dict) else {}
    optional = [name for name in members if name not in node.get("required", [])]
    if optional:
        name = optional[0]
        yield "required", lambda n: n.__setitem__("required", [*n.get("required", []), name])
        yield "allOf-required", lambda n: n.setdefault("allOf", []).append({"required": [name]})
    if members:
        first = next(iter(members))
        yield "allOf-bound", lambda n: n.setdefault("allOf", []).append({"properties": {first: {"maxLength": 0}}})
        yield "member-forbidden", lambda n: n["properties"].__setitem__(first, False)  # a boolean schema
    kind = node.get("type")
    if kind == "string" and "const" not in node and "enum" not in node:
        yield "maxLength", lambda n: n.__setitem__("maxLength", 1)
        yield "pattern", lambda n: n.__setitem__("pattern", "^a$")
        yield "format", lambda n: n.__setitem__("format", "date-time")
    if isinstance(node.get("enum"), list) and len(node["enum"]) > 1:
        yield "enum-narrowed", lambda n: n.__setitem__("enum", n["enum"][1:])
    if kind == "integer":
        yield "maximum", lambda n: n.__setitem__("maximum", 1)
        yield "multipleOf", lambda n: n.__setitem__("multipleOf", 2)
    if kind == "array":
        yield "no-items", lambda n: n.__setitem__("items", False)
        yield "minItems", lambda n: n.__setitem__("minItems", 5)
        yield "uniqueItems", lambda n: n.__setitem__("uniqueItems", True)
    if kind == "object":
        yield "maxProperties", lambda n: n.__setitem__("maxProperties", 1)
        yield "propertyNames", lambda n: n.__setitem__("propertyNames", {"maxLength": 1})
        yield "if-then", lambda n: n.update({"if": {"required": ["a"]}, "then": {"required": ["b"]}})
    if isinstance(kind, list) and len(kind) > 1:
        yield "type-narrowed", lambda n: n.__setitem__("type", n["type"][:1])
    yield "not", lambda n: n.__setitem__("not", {"type": "null"})


def _places(wire: str) -> list[str]:
    defs = surface_of(seed_of(wire))["schema"]["unreferenced_defs"]
    unreferenced = [f"/$defs/{name.rsplit('/', 1)[-1]}" for name in defs]
    return [at for at, _ in _objects(seed_of(wire)) if not any(at.startswith(u) for u in unreferenced)]


@pytest.mark.parametrize("wire", tuple(WIRES))
def test_every_tightening_at_every_schema_object_is_breaking(wire: str) -> None:
    schema = seed_of(wire)
    before = surface_of(schema)  # once: classify takes a surface as well as a schema
    blind = []
    places = _places(wire)
    top = [at for at in places if at.count("/") <= 2 and not at.startswith("/$defs")]  # the root, each kind
    for at in top + sample([at for at in places if at not in top], 20):
        for name, edit in _tightenings(_at(schema, at)):
            tightened = copy.deepcopy(schema)
            edit(_at(tightened, at))
            if not is_breaking(classify(before, tightened)):
                blind.append(f"{at or '(root)'}: {name}")
    assert not blind, f"tightenings the surface gate calls additive or no change: {blind}"


def test_the_sweep_reaches_the_places_it_found_blind() -> None:
    """The sweep itself can fail: the three places it found blind are among those it edits."""
    wire = next(iter(WIRES))
    places = _places(wire)
    assert "" in places
    assert any(at.startswith("/oneOf/") for at in places)
    schema = seed_of(wire)
    assert {name for at in places for name, _ in _tightenings(_at(schema, at))} >= {"required", "allOf-required"}
