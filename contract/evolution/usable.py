"""Whether a schema document is one a validator can use: every ``$ref`` names a schema in the same file,
and no chain of ``$ref`` and in-place applicators (``allOf``/``anyOf``/``oneOf``, ``not``, ``if``/``then``/
``else``, ``dependentSchemas``) leads back to where it started without descending into the instance.

A schema can pass the metaschema and still be none a validator can apply: a ``$ref`` cycle recurses
forever on every instance that reaches it, a ``$ref`` to nothing or to another file cannot be followed
(and following a ``file:`` or remote one would read what the user never meant to give). ``diff``,
``evolve`` and ``feed --adr`` (the shared loader, contract/evolution/adr_streams.py) refuse such a
schema with :func:`problem`'s one line, exit 2, before any validator runs on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from contract.core import textsafe
from contract.core.jsonvalue import tokens
from contract.evolution.normal import SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_VALUED

Path = tuple[str, ...]
# keywords that apply their schemas to the instance in hand (not to a member or item of it)
_IN_PLACE_ONE = ("not", "if", "then", "else")
_IN_PLACE_LISTS = ("allOf", "anyOf", "oneOf")
_IN_PLACE_MAPS = ("dependentSchemas",)
_REFS = ("$ref", "$dynamicRef")


def _pointer(path: Path) -> str:
    return "#" + "".join("/" + part.replace("~", "~0").replace("/", "~1") for part in path)


def _shown(ref: str) -> str:
    return repr(textsafe.text(ref, 120))


class _Graph:
    """The document's schema objects (by path) and, for each, the paths it applies in place."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document
        self.nodes: dict[Path, Any] = {}
        self.edges: dict[Path, list[Path]] = {}
        self.anchors: dict[str, Path] = {}
        self.refs: list[tuple[Path, str]] = []

    def walk(self, start: Path, node: Any) -> None:
        stack = [(start, node)]
        while stack:
            path, here = stack.pop()
            if path in self.nodes or not isinstance(here, Mapping):
                continue
            self.nodes[path] = here
            edges = self.edges.setdefault(path, [])
            for key in ("$anchor", "$dynamicAnchor"):
                if isinstance(here.get(key), str):
                    self.anchors.setdefault(here[key], path)
            for key in _REFS:
                if isinstance(here.get(key), str):
                    self.refs.append((path, here[key]))
            for key in SCHEMA_VALUED:
                if key in here:
                    stack.append(((*path, key), here[key]))
                    if key in _IN_PLACE_ONE:
                        edges.append((*path, key))
            for key in SCHEMA_LISTS:
                if isinstance(here.get(key), list):
                    for index, branch in enumerate(here[key]):
                        stack.append(((*path, key, str(index)), branch))
                        if key in _IN_PLACE_LISTS:
                            edges.append((*path, key, str(index)))
            for key in SCHEMA_MAPS:
                if isinstance(here.get(key), Mapping):
                    for name, sub in here[key].items():
                        stack.append(((*path, key, str(name)), sub))
                        if key in _IN_PLACE_MAPS:
                            edges.append((*path, key, str(name)))

    def target(self, ref: str) -> tuple[Path, Any] | str:
        """Where a local ``ref`` points, or why it cannot be followed."""
        if not ref.startswith("#"):
            return f"a $ref outside the file ({_shown(ref)}): only references inside the schema can be followed"
        fragment = unquote(ref[1:])
        if fragment and not fragment.startswith("/"):
            if fragment in self.anchors:
                anchored = self.anchors[fragment]
                return anchored, self.nodes[anchored]
            return f"a $ref to nothing ({_shown(ref)}: no such anchor)"
        node: Any = self.document
        path: Path = ()
        for part in tokens(fragment) if fragment else []:
            if isinstance(node, Mapping) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return f"a $ref to nothing ({_shown(ref)})"
            path = (*path, part)
        if not isinstance(node, Mapping | bool):
            return f"a $ref to something that is not a schema ({_shown(ref)})"
        return path, node

    def cycle(self) -> Path | None:
        """A schema object that reaches itself through in-place applicators and $refs, or None."""
        done: set[Path] = set()
        for start in self.nodes:
            if start in done:
                continue
            on_path = {start}
            stack = [(start, iter(self.edges.get(start, ())))]
            while stack:
                path, pending = stack[-1]
                step = next(pending, None)
                if step is None:
                    stack.pop()
                    on_path.discard(path)
                    done.add(path)
                elif step in on_path:
                    return step
                elif step not in done:
                    on_path.add(step)
                    stack.append((step, iter(self.edges.get(step, ()))))
        return None


def problem(document: Any) -> str | None:
    """Why no validator can use ``document`` (a schema already read), in a few words, or None."""
    if isinstance(document, bool):
        return None
    if not isinstance(document, Mapping):
        return "not a JSON Schema (not an object)"
    graph = _Graph(document)
    graph.walk((), document)
    followed = 0
    while followed < len(graph.refs):  # a $ref target outside the keywords walked is walked from there
        path, ref = graph.refs[followed]
        followed += 1
        found = graph.target(ref)
        if isinstance(found, str):
            return f"{found} at {_shown(_pointer(path))}"
        graph.edges.setdefault(path, []).append(found[0])
        graph.walk(*found)
    looped = graph.cycle()
    if looped is not None:
        return (f"a $ref cycle through {_shown(_pointer(looped))}: it refers back to itself without "
                "descending into the line, so no validator can apply it")
    return None
