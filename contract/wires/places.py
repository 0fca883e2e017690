"""Where a producer may put a member no schema names yet: the objects of a line the schema models.

The ADR gate calls a new optional field additive at any object ("consumers ignore fields they do
not know"), so each wire's future variants (``feed --future``, ``contract/wires/<wire>/future.py``) put
an unknown member at such objects. Which objects the schema models, and which members it names
at each, are read from the schema in force (``contract.checking.schemawalk``, a walker the caller
hands in), so a rename ADR moves them with it: nothing here lists a member. Free-form payloads (a
value no schema location describes, or one whose schema names no properties) are not entered.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from contract.core.jsonvalue import escape


@dataclass(frozen=True)
class Place:
    """An object the schema models: where it is (a JSON pointer in its line), the object, the
    members the schema names there (an unknown member is none of them), and its level as the ADR
    gate's surface names a path below a line (``""`` for the line itself, ``message.content[]``,
    ``model_usage{}``)."""

    where: str
    target: dict[str, Any]
    named: frozenset[str]
    level: str


def _modelled(walk: Any, locations: list[str], value: Any, pointer: str, level: str) -> Iterator[Place]:
    if isinstance(value, dict):
        schemas = [walk.at(location) for location in locations]
        has_properties = any("properties" in schema for schema in schemas)
        named = frozenset(name for schema in schemas for name in schema.get("properties", {}))
        if has_properties:
            yield Place(pointer or "/", value, named, level)
        for key, child in value.items():
            found = [a for c in walk.children(locations, key) for a in walk.applicable(c, child)]
            if found:  # a map's entries (additionalProperties: a schema) are one level, ``{}``
                inner = f"{level}{{}}" if key not in named else (f"{level}.{key}" if level else key)
                yield from _modelled(walk, found, child, f"{pointer}/{escape(key)}", inner)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = [a for c in walk.children(locations, index) for a in walk.applicable(c, item)]
            if found:
                yield from _modelled(walk, found, item, f"{pointer}/{index}", f"{level}[]")


def places(walk: Any, lines: list[Any]) -> list[tuple[int, Place]]:
    """Every object of ``lines`` the schema in force models, with its line's index. ``walk``: the
    wire's ``contract.checking.schemawalk.Walker`` (its caller's: this layer sits below the checker)."""
    return [(number, place) for number, line in enumerate(lines)
            for place in _modelled(walk, walk.applicable("#", line), line, "", "")]


__all__ = ["Place", "places"]


def drawn(found: list[tuple[int, Place]], choose: Callable[[int], int]) -> tuple[int, Place]:
    """One of ``found``: a level first, then an object of that level (``choose(n)`` picks an index
    below ``n``), so that a level few objects hold is drawn as often as a line's top level."""
    levels = sorted({place.level for _, place in found})
    level = levels[choose(len(levels))]
    at_level = [(number, place) for number, place in found if place.level == level]
    return at_level[choose(len(at_level))]
