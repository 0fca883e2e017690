"""One form for schema texts that mean the same thing, so the gate compares meanings, not spellings.

The surface (contract/evolution/surface.py) is read from a schema after :func:`normalised` has
rewritten it: two schemas that every instance passes or fails alike (in the seeds' dialect,
draft 2020-12) then give the same surface wherever one of these rewrites tells them apart, and
``diff`` calls the rewrite no change. Each rewrite is an equivalence of the dialect, applied
wherever a schema object stands (not only where the seeds happen to use the keyword):

* ``enum`` of one value is ``const`` of that value (an instance equals the one value or fails);
* on a value that must be an integer (``type: integer``), ``exclusiveMaximum: N`` is
  ``maximum: N-1`` and ``exclusiveMinimum: N`` is ``minimum: N+1`` for an integer N (no
  integer lies between), and of an inclusive and an exclusive bound only the tighter one counts;
* a top-level ``anyOf`` whose branches are pairwise disjoint is a ``oneOf``: no instance can pass
  two branches, so "at least one" and "exactly one" pass the same instances. Disjoint is shown,
  not assumed: two branches are disjoint when a member both require is pinned by each to values
  the other's does not allow (``type: "system"`` against ``type: "result"``).

Anything else is left as written, so the classifier judges it as before (fail closed: a rewrite
this module cannot show equivalent stays a change).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

# where a keyword's value is a schema, a list of schemas, or a map of schemas (draft 2020-12)
SCHEMA_VALUED = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
                  "unevaluatedItems", "unevaluatedProperties", "additionalItems")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _integer_only(node: Mapping[str, Any]) -> bool:
    declared = node.get("type")
    return declared == "integer" or (isinstance(declared, list) and declared == ["integer"])


def _bounds(node: dict[str, Any]) -> None:
    """An integer value's exclusive bounds as the inclusive ones they equal (the tighter kept)."""
    if not _integer_only(node):
        return
    for exclusive, inclusive, step, tighter in (("exclusiveMaximum", "maximum", -1, min),
                                                ("exclusiveMinimum", "minimum", 1, max)):
        bound = node.get(exclusive)
        if not isinstance(bound, int) or isinstance(bound, bool):
            continue
        other = node.get(inclusive)
        if inclusive in node and not _is_int(other):
            continue  # a float beside it: left as written
        del node[exclusive]
        node[inclusive] = bound + step if other is None else tighter(other, bound + step)


def _walk(node: Any) -> None:
    if not isinstance(node, dict):
        return
    enum = node.get("enum")
    if isinstance(enum, list) and len(enum) == 1 and "const" not in node:
        node["const"] = node.pop("enum")[0]
    _bounds(node)
    for key in SCHEMA_VALUED:
        _walk(node.get(key))
    for key in SCHEMA_LISTS:
        branches = node.get(key)
        if isinstance(branches, list):
            for branch in branches:
                _walk(branch)
    for key in SCHEMA_MAPS:
        members = node.get(key)
        if isinstance(members, dict):
            for sub in members.values():
                _walk(sub)


def _target(document: Mapping[str, Any], branch: Any) -> Any:
    """A branch with a local ``$ref`` (and nothing else it constrains) as the object it names."""
    ref = branch.get("$ref") if isinstance(branch, Mapping) else None
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return branch
    node: Any = document
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, Mapping) or part not in node:
            return branch
        node = node[part]
    return node


def _pins(document: Mapping[str, Any], branch: Any, shared: frozenset[str]) -> dict[str, set[str]]:
    """The members ``branch`` requires (``shared``: those the enclosing object requires too), each
    with the values it allows when it allows only listed ones (canonical JSON text)."""
    node = _target(document, branch)
    if not isinstance(node, Mapping):
        return {}
    required = shared | {name for name in node.get("required", []) if isinstance(name, str)}
    members = node.get("properties")
    out: dict[str, set[str]] = {}
    for name in required:
        sub = members.get(name) if isinstance(members, Mapping) else None
        if not isinstance(sub, Mapping):
            continue
        if "const" in sub:
            out[name] = {json.dumps(sub["const"], sort_keys=True)}
        elif isinstance(sub.get("enum"), list):
            out[name] = {json.dumps(v, sort_keys=True) for v in sub["enum"]}
    return out


def disjoint(document: Mapping[str, Any], branches: list[Any], shared: frozenset[str] = frozenset()) -> bool:
    """Whether no instance can pass two of ``branches``: every pair has a member both require and pin
    to values with none in common."""
    pins = [_pins(document, branch, shared) for branch in branches]
    for i, a in enumerate(pins):
        for b in pins[i + 1:]:
            if not any(name in b and not (a[name] & b[name]) for name in a):
                return False
    return True


def normalised(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` (a copy) in the one form of :mod:`this module <contract.evolution.normal>`."""
    out: dict[str, Any] = copy.deepcopy(dict(schema))
    _walk(out)
    branches = out.get("anyOf")
    if "oneOf" not in out and isinstance(branches, list) and branches:
        required = out.get("required")
        shared = frozenset(n for n in required if isinstance(n, str)) if isinstance(required, list) else frozenset()
        if disjoint(out, branches, shared):
            out["oneOf"] = out.pop("anyOf")
    return out
