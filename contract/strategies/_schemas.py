"""The seed schemas made generable: recursion unrolled, ``$`` made ECMA-262.

:func:`unroll` is what :mod:`contract.strategies._compose` (the strategies the suite uses)
builds on. The hypothesis-jsonschema strategies below (:func:`lines`, :func:`schema_strategy`)
are the implementation that preceded it, kept importable as the baseline that
``bench/generate.py`` measures in the same run; nothing else uses them.

hypothesis-jsonschema cannot follow a recursive ``$ref`` (the subagent schema's ``node.children``
refers to ``node``) and it generates ``pattern`` strings with Python's ``re``, whose ``$`` also
matches before a final newline. So the schema handed to it is derived from the seed in code:
the node recursion unrolled into ``node_0 … node_N`` (the deepest ``children`` empty), and every
pattern's ``$`` translated to ``\\Z`` (ECMA-262 semantics, as :mod:`contract.checking.schema` does for
jsonschema). Building a strategy is cheap; drawing is slow (tens of lines a second), so the
strategies are cached and callers keep their example counts low.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from contract.checking.schema import ecma_pattern, load
from contract.wires import by_wire

# node_0 … node_2: trees three levels deep; deeper ones draw at 3-11 snapshots/s (docs/architecture.md, "Pitfalls")
DEFAULT_DEPTH = 2


def recursive_defs(schema: dict[str, Any]) -> set[str]:
    """The ``$defs`` names whose definition refers (directly) to itself."""
    defs = schema.get("$defs", {})
    return {name for name, sub in defs.items() if f"#/$defs/{name}" in _refs(sub)}


def _refs(node: Any) -> set[str]:
    found: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str):
                found.add(ref)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _replace_ref(node: Any, old: str, new: str) -> Any:
    """A copy of ``node`` with every ``{"$ref": old}`` pointing at ``new``."""
    if isinstance(node, dict):
        return {k: (new if k == "$ref" and v == old else _replace_ref(v, old, new)) for k, v in node.items()}
    if isinstance(node, list):
        return [_replace_ref(v, old, new) for v in node]
    return node


def _empty_self_arrays(node: Any, ref: str) -> Any:
    """The deepest level: an array whose items are ``ref`` may hold no items at all."""
    if isinstance(node, dict):
        items = node.get("items")
        if node.get("type") == "array" and isinstance(items, dict) and items.get("$ref") == ref:
            bare = {k: v for k, v in node.items() if k != "items"}
            bare["maxItems"] = 0
            return bare
        return {k: _empty_self_arrays(v, ref) for k, v in node.items()}
    if isinstance(node, list):
        return [_empty_self_arrays(v, ref) for v in node]
    return node


def unroll(schema: dict[str, Any], depth: int = DEFAULT_DEPTH) -> dict[str, Any]:
    """``schema`` with each self-recursive definition unrolled ``depth`` levels deep.

    ``$defs/X`` becomes ``X_0 … X_depth``: ``X_i`` refers to ``X_{i+1}`` where ``X`` referred to
    itself, and ``X_depth`` allows no items in those arrays. Every other reference to ``X``
    points at ``X_0``. Non-array self references are not expected in these schemas (a test pins
    that every recursion in the seeds is an array of children).
    """
    out = copy.deepcopy(schema)
    for name in sorted(recursive_defs(schema)):
        ref = f"#/$defs/{name}"
        body = out["$defs"].pop(name)
        levels = {f"{name}_{i}": _replace_ref(body, ref, f"#/$defs/{name}_{i + 1}") for i in range(depth)}
        levels[f"{name}_{depth}"] = _empty_self_arrays(body, ref)
        out = _replace_ref(out, ref, f"#/$defs/{name}_0")
        out["$defs"].update(levels)
    if recursive_defs(out):
        raise ValueError(f"recursion left after unrolling: {sorted(recursive_defs(out))}")
    return out


def ecma_patterns(node: Any) -> Any:
    """A copy of ``node`` with each ``pattern`` given ECMA-262 ``$`` semantics (``\\Z``)."""
    if isinstance(node, dict):
        return {
            k: (ecma_pattern(v) if k == "pattern" and isinstance(v, str) else ecma_patterns(v)) for k, v in node.items()
        }
    if isinstance(node, list):
        return [ecma_patterns(v) for v in node]
    return node


@by_wire
def generable(wire: str, depth: int = DEFAULT_DEPTH) -> dict[str, Any]:
    """The wire's schema in the form hypothesis-jsonschema can draw from."""
    schema: dict[str, Any] = ecma_patterns(unroll(load(wire), depth))
    return schema


def schema_strategy(wire: str, definition: str | None = None, depth: int = DEFAULT_DEPTH) -> Any:
    """Objects valid against the whole schema, or against one of its ``$defs``.

    Deferred: hypothesis-jsonschema canonicalises the schema when the strategy is built, which
    takes seconds for a whole wire; building on first draw keeps test collection (once per
    pytest-xdist worker) and ``import`` fast.
    """
    return st.deferred(lambda: _built(wire, definition, depth))


@by_wire
def _built(wire: str, definition: str | None, depth: int) -> Any:
    schema = generable(wire, depth)
    if definition is not None:
        schema = {"$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}
    return from_schema(schema)


def lines(wire: str, depth: int = DEFAULT_DEPTH) -> st.SearchStrategy[dict[str, Any]]:
    """Schema-valid line objects of ``wire`` (any branch of the top-level ``oneOf``)."""
    strategy: st.SearchStrategy[dict[str, Any]] = schema_strategy(wire, None, depth)
    return strategy
