"""The schema objects of a JSON Schema with their paths: what the ADR-gate tests edit, one place at a time."""

from __future__ import annotations

from typing import Any

VALUED = ("items", "additionalProperties")  # keywords whose value is one schema
LISTS = ("oneOf", "anyOf", "allOf")  # keywords whose value is a list of schemas
MAPS = ("properties", "$defs")  # keywords whose value maps names to schemas


def schema_objects(node: Any, at: tuple[Any, ...] = (), valued: tuple[str, ...] = VALUED
                   ) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Every schema object of ``node`` (members, items, branches, definitions) with its path."""
    if not isinstance(node, dict):
        return []
    out: list[tuple[tuple[Any, ...], dict[str, Any]]] = [(at, node)]
    for key in valued:
        out += schema_objects(node.get(key), (*at, key), valued)
    for key in LISTS:
        for index, branch in enumerate(node.get(key) or []):
            out += schema_objects(branch, (*at, key, index), valued)
    for key in MAPS:
        for name, sub in (node.get(key) or {}).items():
            out += schema_objects(sub, (*at, key, name), valued)
    return out


def at(schema: Any, path: tuple[Any, ...]) -> Any:
    """The value at ``path`` (keys and indexes) of ``schema``."""
    for part in path:
        schema = schema[part]
    return schema
