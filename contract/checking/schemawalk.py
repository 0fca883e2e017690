"""Walk a JSON value alongside the wire schema that governs it.

Coverage needs to know which schema property each member of a golden line instantiates (so
that "every field the schema models" can be counted), and the golden comparison needs to know
whether a member that appeared is required where it appeared (an optional one is an additive
change). Both need the same thing: for a place in a value, the schema locations that apply to
it, found by following ``$ref``, ``allOf`` and the ``oneOf``/``anyOf`` branches the value fits.

Branch fitting is deliberately shallow (JSON type, ``const``, and the ``const`` members of an
object, which is how both wire schemas discriminate their branches): the walk is for
attribution, not validation; validation is ``contract.checking.schema``'s job.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from contract.checking.schema import load
from contract.core.jsonvalue import escape, same_type_and_value
from contract.wires import by_wire

Schema = dict[str, Any]
Segment = str | int

_JSON_TYPES: dict[type, tuple[str, ...]] = {
    dict: ("object",),
    list: ("array",),
    str: ("string",),
    bool: ("boolean",),
    int: ("integer", "number"),
    float: ("number",),
    type(None): ("null",),
}


def json_types(value: Any) -> tuple[str, ...]:
    """The JSON Schema types a Python value satisfies (1.0 counts as an integer, per the spec)."""
    if type(value) is float and value.is_integer():
        return ("integer", "number")
    return _JSON_TYPES.get(type(value), ())


@dataclass(frozen=True)
class Member:
    """A member ``key`` of an object value, attributed to the schema at ``schema`` (a location)."""

    schema: str
    key: str
    pointer: str


@dataclass(frozen=True)
class EnumValue:
    """A scalar value at a place whose schema (``schema``) lists an ``enum``."""

    schema: str
    value: Any
    pointer: str


class Walker:
    """Schema-guided traversal of values of one wire."""

    def __init__(self, root: Schema) -> None:
        self.root = root
        # location -> subschema: the walk asks for the same few locations once per member it
        # visits; the schema's own locations are finitely many, so this stays small
        self._found: dict[str, Schema] = {}

    def at(self, location: str) -> Schema:
        """The subschema at a location such as ``#/$defs/node/properties/key``."""
        found = self._found.get(location)
        if found is not None:
            return found
        node: Any = self.root
        for token in location.lstrip("#").split("/")[1:]:
            token = token.replace("~1", "/").replace("~0", "~")
            node = node[int(token)] if isinstance(node, list) else node[token]
        if not isinstance(node, dict):
            return {}
        self._found[location] = node
        return node

    def applicable(self, location: str, value: Any) -> list[str]:
        """Every schema location that applies to ``value``, ``location`` first."""
        found = [location]
        schema = self.at(location)
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            found += self.applicable(ref, value)
        for index, _ in enumerate(schema.get("allOf", ())):
            found += self.applicable(f"{location}/allOf/{index}", value)
        for keyword in ("oneOf", "anyOf"):
            for index, _ in enumerate(schema.get(keyword, ())):
                branch = f"{location}/{keyword}/{index}"
                if self.fits(branch, value):
                    found += self.applicable(branch, value)
        return found

    def fits(self, location: str, value: Any) -> bool:
        """A shallow test: type, const, and the const-valued members of an object branch."""
        for loc in self._refs(location):
            schema = self.at(loc)
            kinds = schema.get("type")
            if kinds is not None:
                allowed = (kinds,) if isinstance(kinds, str) else tuple(kinds)
                if not set(allowed) & set(json_types(value)):
                    return False
            if "const" in schema and not same_type_and_value(schema["const"], value):
                return False
            if isinstance(value, dict):
                for key, sub in schema.get("properties", {}).items():
                    if isinstance(sub, dict) and "const" in sub and key in value \
                            and not same_type_and_value(sub["const"], value[key]):
                        return False
                    if isinstance(sub, dict) and "const" in sub and key not in value \
                            and key in schema.get("required", ()):
                        return False
        return True

    def _refs(self, location: str) -> Iterator[str]:
        yield location
        ref = self.at(location).get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            yield from self._refs(ref)

    def children(self, locations: list[str], segment: Segment) -> list[str]:
        """Schema locations for a member (str segment) or an item (int segment)."""
        found: list[str] = []
        for loc in locations:
            schema = self.at(loc)
            if isinstance(segment, int):
                if isinstance(schema.get("items"), dict):
                    found.append(f"{loc}/items")
            elif segment in schema.get("properties", {}):
                found.append(f"{loc}/properties/{escape(segment)}")
            elif isinstance(schema.get("additionalProperties"), dict):
                found.append(f"{loc}/additionalProperties")
        return found

    def locations(self, value: Any, path: list[Segment]) -> list[str]:
        """The schema locations applying at ``path`` inside ``value`` (empty when unmodelled)."""
        locs = self.applicable("#", value)
        for segment in path:
            value = value[segment]
            locs = [a for c in self.children(locs, segment) for a in self.applicable(c, value)]
        return locs

    def required(self, value: Any, path: list[Segment]) -> frozenset[str]:
        """Member names required of the object at ``path`` by any schema that applies there."""
        names: set[str] = set()
        for loc in self.locations(value, path):
            names.update(self.at(loc).get("required", ()))
        return frozenset(names)

    def modelled(self, value: Any, path: list[Segment], key: str) -> bool:
        """Whether some schema at ``path`` names ``key`` among its properties."""
        return any(key in self.at(loc).get("properties", {}) for loc in self.locations(value, path))

    def forbidden(self, value: Any, path: list[Segment], key: str) -> bool:
        """Whether a schema at ``path`` forbids ``key``: ``additionalProperties: false`` there, with
        ``key`` neither among its properties nor matched by its patternProperties."""
        import re

        for loc in self.locations(value, path):
            schema = self.at(loc)
            if schema.get("additionalProperties") is not False or key in schema.get("properties", {}):
                continue
            if not any(re.search(pattern, key) for pattern in schema.get("patternProperties", {})):
                return True
        return False

    def walk(self, value: Any) -> Iterator[Member | EnumValue]:
        """Every member of every object in ``value`` and every enum-governed scalar."""
        yield from self._walk(self.applicable("#", value), value, "")

    def _walk(self, locs: list[str], value: Any, pointer: str) -> Iterator[Member | EnumValue]:
        # Below a value no schema location applies to (a free-form payload) nothing can be found:
        # such a subtree is not entered (``if sub``), however many members it has.
        for loc in locs:
            if "enum" in self.at(loc) and not isinstance(value, dict | list):
                yield EnumValue(loc, value, pointer)
        if isinstance(value, dict):
            named = [(loc, self.at(loc).get("properties", {})) for loc in locs]  # once, not per member
            for key, child in value.items():
                for loc, properties in named:
                    if key in properties:
                        yield Member(loc, key, pointer)
                sub = [a for c in self.children(locs, key) for a in self.applicable(c, child)]
                if sub:
                    yield from self._walk(sub, child, f"{pointer}/{escape(key)}")
        elif isinstance(value, list):
            for index, item in enumerate(value):
                sub = [a for c in self.children(locs, index) for a in self.applicable(c, item)]
                if sub:
                    yield from self._walk(sub, item, f"{pointer}/{index}")

    def reachable(self) -> Iterator[str]:
        """Every schema location reachable from the root (each once, recursion included)."""
        seen: set[str] = set()
        todo = ["#"]
        while todo:
            loc = todo.pop()
            if loc in seen:
                continue
            seen.add(loc)
            yield loc
            todo.extend(self._next(loc))

    def _next(self, loc: str) -> Iterator[str]:
        schema = self.at(loc)
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            yield ref
        for keyword in ("allOf", "oneOf", "anyOf"):
            for index, _ in enumerate(schema.get(keyword, ())):
                yield f"{loc}/{keyword}/{index}"
        for key in schema.get("properties", {}):
            yield f"{loc}/properties/{escape(key)}"
        for keyword in ("items", "additionalProperties"):
            if isinstance(schema.get(keyword), dict):
                yield f"{loc}/{keyword}"


@by_wire
def walker(wire: str) -> Walker:
    """The walker for a wire's schema (cached by name, following the registry: ``contract.wires.by_wire``)."""
    return Walker(load(wire))
