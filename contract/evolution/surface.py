"""The wire surface: what a consumer or an emitter of a wire can rely on, derived in code.

A surface is a plain JSON object (so it can be stored as a reviewable syrupy snapshot, dumped by
``milk-contract diff`` and compared by :mod:`contract.evolution.classify`). It has two parts:

* ``schema``: derived from the wire's JSON Schema. Every field path (``$ref`` resolved, the
  recursive subagent ``node.children`` recorded as ``recursive`` instead of unrolled), its JSON
  types, whether it is required, ``const`` and closed ``enum`` values, bounds, ``pattern``,
  ``additionalProperties``, its description and the *open-set* values the description documents
  (adding one of those is additive, unlike a closed ``enum`` value). The line kinds come from the
  top-level ``oneOf``: the ``type`` consts for stream-json, the command/response/event
  definitions for subagent-stdio.
  What it does not read (``if``/``then``, ``not``, ``uniqueItems``, a top-level ``allOf``, a
  shared-object kind's own constraints) is kept as it stands under ``unread``, by the JSON pointer
  of its schema object, only when there is any: a change there is breaking (``classify``). A
  ``$schema`` other than the seeds' (draft 2020-12) is kept under ``dialect``: the dialect decides
  what every keyword means, so a change of it is breaking. The schema is read in one form
  (contract/evolution/normal.py): spellings that mean the same thing give the same surface.
* ``corpus``: derived from the golden transcripts: the line kinds seen (``type`` or
  ``type/subtype``) and the schema paths of the fields seen on each.

Path notation: ``a.b`` for a member, ``a[]`` for array items, ``a{}`` for the values of a map
(``additionalProperties`` with a schema). Subagent paths start with their line kind
(``event.snapshot.runs[].key``); stream-json kinds share one object, so its paths have no prefix.

Policy on the schema quirks docs/architecture.md lists ("Pitfalls") (also stored in every surface under ``policy``, so a
reviewer reads it next to the data it governs): see :func:`policy`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from contract.core import prose
from contract.core.jsonvalue import shown, type_name
from contract.core.resources import data_dir
from contract.evolution.normal import normalised
from contract.wires import NAMES, get
from contract.wires import WIRES as WIRES_BY_NAME

FORMAT = "milk-contract-surface/1"
SEED_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SEED_DIALECT_NAMES = (SEED_DIALECT, SEED_DIALECT + "#")  # the seeds' $schema, as the metaschema names itself
WIRES = NAMES

_SCHEMAS: dict[str, str] = {
    "additional-properties": (
        "The schemas close their objects (additionalProperties: false). The surface reads that as "
        "'emitters send only modeled fields'. Consumers must ignore what they do not recognise, so "
        "a new optional field is additive even though a validator built from the older schema "
        "rejects it; emitters are always checked against the current schema."
    ),
}
# after the wires' notes (the order the surface has always printed them in)
_RULES_AND_SETS: dict[str, str] = {
    "open-sets": (
        "Values a description documents as an open set (\"open set\", \"known: ...\") are recorded "
        "as open_set (and, for the top-level description, under rules.known_values). Adding one is "
        "additive: consumers must ignore values they don't recognize. Removing one is breaking for "
        "consumers: that sentence protects a consumer from values it never heard of, not from losing "
        "the documented meaning of one it relies on (rules read it, e.g. refused reports is_error "
        "false). Closed enum values and consts are breaking in either direction."
    ),
    "rules": (
        "The words rules stand on are surface items (rules: framing clauses, each catalog rule's "
        "quoted words with the sentence they stand in, known values). Removing or weakening a rule "
        "breaks consumers, adding or tightening one breaks emitters, and any other edit to a "
        "sentence a rule quotes is breaking until an ADR accepts it; the change names the rule."
    ),
}


def policy(wire: str | None = None) -> dict[str, str]:
    """The surface's policy notes: on every schema, then the named wire's own on its seed's quirks
    (``Wire.surface_policy``; none for a schema no registered wire is named for), then on open
    sets and the words rules stand on. One wire's notes are not another's: stream-json's on its
    shared kinds once stood in subagent-stdio's surface, saying a new kind was additive there."""
    notes = dict(_SCHEMAS)
    if wire is not None and wire in WIRES_BY_NAME:
        notes.update(WIRES_BY_NAME[wire].surface_policy)
    notes.update(_RULES_AND_SETS)
    return notes


_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
           "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties")
# Every keyword the surface reads, by where its value is: schemas, lists of schemas, a map of
# schemas, or a value it records. Annotations change no instance's validity.
_SCHEMA_VALUED = frozenset({"items", "additionalProperties"})
_SCHEMA_LISTS = frozenset({"allOf", "oneOf", "anyOf"})
_SCHEMA_MAPS = frozenset({"properties", "$defs"})
_VALUES = frozenset({"type", "required", "const", "enum", "pattern", "$ref", *_BOUNDS})
ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "examples", "default",
                         "deprecated", "readOnly", "writeOnly"})
READ = _SCHEMA_VALUED | _SCHEMA_LISTS | _SCHEMA_MAPS | _VALUES | ANNOTATIONS


# -- schema part --------------------------------------------------------------------------------


class _Walker:
    """Walks one schema document, resolving local ``$ref`` and recording each field path once."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document
        self.fields: dict[str, dict[str, Any]] = {}
        self.reached: set[str] = set()

    def resolve(self, ref: str) -> Mapping[str, Any]:
        if not ref.startswith("#"):
            raise ValueError(f"only local $ref is supported, found {shown(ref)}")
        node: Any = self.document
        for part in ref[1:].split("/")[1:]:
            node = node[part.replace("~1", "/").replace("~0", "~")]
        if isinstance(node, bool):
            return {}  # a boolean schema: _as_schema's reading
        if not isinstance(node, Mapping):
            raise ValueError(f"$ref {shown(ref)} does not name a schema object")
        return node

    def walk(self, node: Mapping[str, Any], path: str, required: bool | None,
             stack: dict[str, str]) -> dict[str, Any]:
        """Record ``path`` (and everything under it); return its entry."""
        node = _as_schema(node)
        entry, branches, stack = self._entry(node, path, stack)
        if required is not None:
            entry["required"] = required
        self.fields[path] = entry
        if "recursive" not in entry:
            self._children(branches, path, stack, self.required_always(node, set()))
        return entry

    def required_always(self, node: Mapping[str, Any], seen: set[str]) -> frozenset[str]:
        """The members ``node`` requires whichever alternative a value takes: its own ``required``,
        its ``$ref`` target's and its ``allOf`` branches' (not a ``oneOf``/``anyOf`` branch's, which
        requires them only of the values that take it)."""
        found = set(node.get("required", []))
        ref = node.get("$ref")
        if isinstance(ref, str) and ref not in seen:
            found |= self.required_always(self.resolve(ref), seen | {ref})
        for branch in node.get("allOf", []):
            if isinstance(branch, Mapping):
                found |= self.required_always(branch, seen)
        return frozenset(found)

    def _entry(self, node: Mapping[str, Any], path: str,
               stack: dict[str, str]) -> tuple[dict[str, Any], list[Mapping[str, Any]],
                                                dict[str, str]]:
        ref = node.get("$ref")
        if isinstance(ref, str) and ref in stack:
            # recursion: say where the structure repeats instead of unrolling it forever
            self.reached.add(ref)
            entry: dict[str, Any] = {"recursive": stack[ref],
                                     "types": _own_types(self.resolve(ref)) or ["any"]}
            if isinstance(node.get("description"), str):
                entry["description"] = node["description"]
            return entry, [], stack
        stack = dict(stack)
        branches = list(self._flatten(node, path, stack))
        return _describe(branches, node.get("description")), branches, stack

    def _flatten(self, node: Mapping[str, Any], path: str,
                 stack: dict[str, str]) -> Iterator[Mapping[str, Any]]:
        """The schema objects that jointly describe one value: $ref targets and all branches."""
        node = _as_schema(node)
        yield node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref not in stack:
            self.reached.add(ref)
            stack[ref] = path
            yield from self._flatten(self.resolve(ref), path, stack)
        for keyword in ("allOf", "oneOf", "anyOf"):
            for branch in node.get(keyword, []):
                yield from self._flatten(branch, path, stack)

    def _children(self, branches: list[Mapping[str, Any]], path: str,
                  stack: dict[str, str], always: frozenset[str] = frozenset()) -> None:
        for branch in branches:
            required = always | self.required_always(branch, set())
            for name, sub in branch.get("properties", {}).items():
                self.walk(sub, _join(path, name), name in required, stack)
            items = branch.get("items")
            if isinstance(items, Mapping):
                self.walk(items, f"{path}[]", None, stack)
            extra = branch.get("additionalProperties")
            if isinstance(extra, Mapping):
                self.walk(extra, f"{path}{{}}", None, stack)


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _own_types(node: Mapping[str, Any]) -> list[str]:
    declared = node.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return sorted(declared)
    if "const" in node:
        return [type_name(node["const"])]
    if "enum" in node:
        return sorted({type_name(v) for v in node["enum"]})
    return []


def _types(branches: list[Mapping[str, Any]]) -> list[str]:
    """JSON types a value may take: the alternatives' union, ``any`` for a free-form value."""
    head = set(_own_types(branches[0]))
    others: set[str] = set().union(*(_own_types(b) for b in branches[1:]))
    found = head & others if head and others else head | others
    return sorted(found) or ["any"]


def _describe(branches: list[Mapping[str, Any]], description: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"types": _types(branches)}
    if not isinstance(description, str):
        description = next((b["description"] for b in branches
                            if isinstance(b.get("description"), str)), None)
    for branch in branches:
        for keyword in ("const", *_BOUNDS, "pattern"):
            if keyword in branch:
                entry[keyword] = branch[keyword]
        if "enum" in branch:
            entry["enum"] = sorted(branch["enum"], key=_canonical)
        if "properties" in branch or branch.get("type") == "object":
            extra = branch.get("additionalProperties", True)
            entry["additionalProperties"] = "schema" if isinstance(extra, Mapping) else extra
    if isinstance(description, str):
        entry["description"] = description
        known = open_set_values(description)
        if known is not None:
            entry["open_set"] = known
    return entry


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


_OPEN = re.compile(r"open[- ]sets?\b", re.IGNORECASE)
_FAMILY = re.compile(r"(\w+) family:\s*$")


def open_set_values(description: str) -> list[str] | None:
    """The values a description documents as an open set, or None when it documents none.

    Handles the forms the wires use: ``a | b | c (open set)``, ``open set (known: a, b)``, and
    families ``system family: a | b; result family: c | d (open sets ...)`` (``system/a``).
    """
    description = " ".join(description.split())  # reflowed text documents the same values
    if not _OPEN.search(description):
        return None
    values: list[str] = []
    for found in prose.known(description):
        values.extend(found)
    for match in prose.ALTERNATION.finditer(description):
        family = _FAMILY.search(description[: match.start()])
        prefix = f"{family.group(1)}/" if family else ""
        values.extend(prefix + v for v in prose.split_run(match.group(0)))
    return sorted(dict.fromkeys(values))


def _line_kinds(walker: _Walker, schema: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The top-level ``oneOf`` alternatives, each named by its ``type`` const (or its $def)."""
    kinds: dict[str, dict[str, Any]] = {}
    for index, branch in enumerate(map(_as_schema, schema.get("oneOf", []))):
        ref = branch.get("$ref")
        target = walker.resolve(ref) if isinstance(ref, str) else branch
        name = _kind_name(branch, index)
        kind: dict[str, Any] = {"type": _type_const(target)}
        description = branch.get("description", target.get("description"))
        if isinstance(description, str):
            kind["description"] = description
            known = open_set_values(description)
            if known is not None:
                kind["open_set"] = known
        kinds[name] = kind
    return kinds


def schema_surface(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The schema part of a surface."""
    walker = _Walker(schema)
    kinds = _line_kinds(walker, schema)
    root = _describe([{k: v for k, v in schema.items()
                       if k in ("type", "properties", "additionalProperties", *_BOUNDS)}], None)
    # Read from the schema's structure, not a wire's name: any JSON Schema can be surfaced.
    if "properties" in schema:  # every kind shares the top-level object (stream-json)
        walker._children([schema], "", {}, walker.required_always(schema, set()))
    else:  # each kind is its own object, named by its $def (subagent-stdio)
        for index, branch in enumerate(schema.get("oneOf", [])):
            name = _kind_name(branch, index)
            if name not in walker.fields:  # two branches of one kind (the same $ref twice): walked once
                walker.walk(branch, name, True, {})
    out: dict[str, Any] = {
        "title": schema.get("title"),
        "description": schema.get("description"),
        "root": root,
        "line_kinds": kinds,
        "fields": dict(sorted(walker.fields.items())),
        "unreferenced_defs": _unreferenced(schema, walker.reached),
    }
    dialect = schema.get("$schema")
    if dialect not in SEED_DIALECT_NAMES:  # only then: the seeds' surfaces are as they always were
        out["dialect"] = dialect if isinstance(dialect, str) else None
    unread: dict[str, dict[str, Any]] = {}
    _unread_top(schema, unread)
    if unread:  # only then: a surface of a schema the surface reads whole is as it always was
        out["unread"] = dict(sorted(unread.items()))
    return out


def _pointer(at: str, name: str) -> str:
    return f"{at}/{name.replace('~', '~0').replace('/', '~1')}"


def _as_schema(node: Any) -> Any:
    """A boolean schema as the object it means to the walk: ``true`` is ``{}``; ``false`` too, its
    "no value passes" being recorded by ``_unread`` (``false-schema``)."""
    return {} if isinstance(node, bool) else node


def _unread(node: Any, at: str, out: dict[str, dict[str, Any]]) -> None:
    """Each keyword of ``node`` (and of every schema under it) that the surface does not read, by the
    JSON pointer of its schema object: ``if``, ``not``, ``uniqueItems``, ``format``... A change to
    one is a change the surface cannot show additive (``contract.evolution.classify``: breaking).
    A ``false`` schema (no value passes: ``items: false``, a member that must be absent) is one too."""
    if node is False:
        out.setdefault(at, {})["false-schema"] = True
        return
    if not isinstance(node, Mapping):
        return
    for key, value in node.items():
        if key not in READ:
            out.setdefault(at, {})[key] = value
        elif key in _SCHEMA_VALUED:
            if not (key == "additionalProperties" and isinstance(value, bool)):  # read: open or closed
                _unread(value, _pointer(at, key), out)
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            for index, branch in enumerate(value):
                _unread(branch, _pointer(_pointer(at, key), str(index)), out)
        elif key in _SCHEMA_MAPS and isinstance(value, Mapping):
            for name, sub in value.items():
                _unread(sub, _pointer(_pointer(at, key), name), out)


def _unread_top(schema: Mapping[str, Any], out: dict[str, dict[str, Any]]) -> None:
    """``_unread`` of a whole wire schema, whose top level the surface reads less of: the root's own
    keywords (``schema_surface``: no top-level ``allOf``), and, where every kind shares the top-level
    object (stream-json), of each kind's ``oneOf`` branch only its ``type`` const: what else a kind
    requires or constrains is unread there ("result lines carry usage" is a change)."""
    shared = "properties" in schema
    read = {"type", "properties", "additionalProperties", "oneOf", "$defs", *_BOUNDS, *ANNOTATIONS}
    if shared:
        read.add("required")  # the shared object's members: required read as each field's
    for key, value in schema.items():
        if key not in read:
            out.setdefault("", {})[key] = value
        elif key in ("properties", "$defs") and isinstance(value, Mapping):
            for name, sub in value.items():
                _unread(sub, _pointer(_pointer("", key), name), out)
        elif key == "additionalProperties" and not isinstance(value, bool):  # a boolean is read
            _unread(value, "/additionalProperties", out)
    for index, branch in enumerate(schema.get("oneOf", [])):
        at = f"/oneOf[{_kind_name(branch, index)}]"  # by kind, not index: a kind inserted moves no other
        if not shared:
            _unread(branch, at, out)
        elif isinstance(branch, Mapping) and (rest := _kind_residue(branch)):
            out[at] = rest


def _type_const(node: Mapping[str, Any]) -> Any:
    """The ``type`` const a schema object pins its lines to (None when it pins none)."""
    members = node.get("properties")
    tag = members.get("type") if isinstance(members, Mapping) else None
    return tag.get("const") if isinstance(tag, Mapping) else None


def _kind_name(branch: Any, index: int) -> str:
    """A top-level ``oneOf`` branch's kind name: its ``$ref``'s name, or its ``type`` const, or (lines
    told apart by another member) its index, so that such kinds are not all named "None"."""
    if not isinstance(branch, Mapping):
        return str(index)
    ref = branch.get("$ref")
    if isinstance(ref, str):
        return ref.rsplit("/", 1)[-1]
    const = _type_const(branch)
    return str(const) if const is not None else str(index)


def _kind_residue(branch: Mapping[str, Any]) -> dict[str, Any]:
    """A shared-object kind's branch without what the surface reads of it (its description, its
    ``type`` const and the ``required`` of ``type``)."""
    rest = {key: value for key, value in branch.items() if key not in ANNOTATIONS}
    members = rest.pop("properties", {})
    if isinstance(members, Mapping):
        tag = members.get("type")
        if isinstance(tag, Mapping) and set(tag) - ANNOTATIONS == {"const"}:
            members = {name: sub for name, sub in members.items() if name != "type"}
    if members:
        rest["properties"] = members
    required = rest.pop("required", [])
    if isinstance(required, list):
        required = [name for name in required if name != "type" or "type" in members]
    if required:
        rest["required"] = required
    return rest


def _unreferenced(schema: Mapping[str, Any], reached: set[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, node in schema.get("$defs", {}).items():
        if f"#/$defs/{name}" in reached:
            continue
        mirrors = (node.get("properties") == schema.get("properties")
                   and node.get("required") == schema.get("required"))
        out[name] = ("unreferenced; mirrors the top-level properties and required" if mirrors
                     else "unreferenced")
    return out


# -- corpus part --------------------------------------------------------------------------------


def corpus_surface(wire: str, schema_part: Mapping[str, Any],
                   goldens: Path | None = None) -> dict[str, Any]:
    """Line kinds seen in ``goldens/<wire>/*.jsonl`` and the schema paths of the fields on each."""
    folder = (goldens if goldens is not None else data_dir("goldens")) / wire
    kinds: dict[str, set[str]] = {}
    files = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
    by_type = {k["type"]: name for name, k in schema_part["line_kinds"].items()}
    prefixed = bool(by_type) and all(name in schema_part["fields"] for name in by_type.values())
    for obj in _objects(files):
        kind, root = _kind_of(obj, by_type, prefixed)
        seen = kinds.setdefault(kind, set())
        _observe(obj, root, schema_part["fields"], seen)
        seen.discard(root)  # the kind itself is not one of its fields
    return {"goldens": len(files),
            "kinds": {k: sorted(v) for k, v in sorted(kinds.items())}}


def _objects(files: list[Path]) -> Iterator[dict[str, Any]]:
    for file in files:
        with open(file, "rb") as handle:
            for raw in handle:
                try:
                    obj = json.loads(raw)
                except ValueError:  # the goldens' own tests judge framing; the surface skips it
                    continue
                if isinstance(obj, dict):
                    yield obj


def _kind_of(obj: Mapping[str, Any], by_type: Mapping[Any, str],
             prefixed: bool) -> tuple[str, str]:
    line_type = obj.get("type")
    if prefixed:
        name = by_type.get(line_type, f"unknown:{line_type}")
        return name, name
    subtype = obj.get("subtype")
    if line_type is None:  # a wire whose lines are told apart by another member, or by none
        return "(line)", ""
    kind = f"{line_type}/{subtype}" if isinstance(subtype, str) else str(line_type)
    return kind, ""


def _observe(value: Any, path: str, fields: Mapping[str, Mapping[str, Any]],
             seen: set[str]) -> None:
    """Record the schema paths ``value`` populates, folding recursion back onto its first path."""
    entry = fields.get(path) if path else {"types": ["object"]}
    if path:
        seen.add(path)
    if entry is None or entry.get("types") == ["any"]:
        return  # unmodeled (a violation, judged elsewhere) or free-form: nothing to map inside
    if "recursive" in entry:
        path = str(entry["recursive"])
    if isinstance(value, dict):
        is_map = f"{path}{{}}" in fields
        for key, sub in value.items():
            _observe(sub, f"{path}{{}}" if is_map else _join(path, key), fields, seen)
    elif isinstance(value, list):
        for item in value:
            _observe(item, f"{path}[]", fields, seen)


# -- the whole surface --------------------------------------------------------------------------


def surface_of(schema: Mapping[str, Any], wire: str | None = None,
               goldens: Path | None = None, with_corpus: bool = True) -> dict[str, Any]:
    """The surface of ``schema`` (and, given a wire, of its golden corpus)."""
    from contract.evolution.framing import (
        rules_surface,  # imported here: framing classifies with contract.evolution.classify
    )

    schema = normalised(schema)  # equivalent spellings read alike (contract/evolution/normal.py)
    part = schema_surface(schema)
    named = wire if wire is not None else named_by(schema)
    out: dict[str, Any] = {"format": FORMAT, "wire": wire, "policy": policy(named), "schema": part,
                           "rules": rules_surface(schema, named)}
    if wire is not None and with_corpus:
        out["corpus"] = corpus_surface(wire, part, goldens)
    return out


def named_by(schema: Mapping[str, Any]) -> str | None:
    """The registered wire whose schema ``schema`` is a version of (the same ``$id``, or with no
    ``$id`` the same ``title``), or None: a schema compared alone (``milk-contract diff``) gets
    that wire's rules section, so another wire's rules never enter it; an unknown one gets every
    rule's (the more it holds, the more a change names)."""
    for key in ("$id", "title"):
        mark = schema.get(key)
        if isinstance(mark, str) and mark:
            for name, descriptor in WIRES_BY_NAME.items():
                try:
                    with open(descriptor.schema_path, "rb") as handle:
                        if json.load(handle).get(key) == mark:
                            return name
                except (OSError, ValueError):
                    continue
            return None
    return None


def surface_for(wire: str, schemas: Path | None = None,
                goldens: Path | None = None) -> dict[str, Any]:
    """The surface of a bundled wire: its schema plus its goldens."""
    descriptor = get(wire)  # ValueError for an unknown wire
    folder = schemas if schemas is not None else data_dir("schemas")
    with open(folder / descriptor.schema_file, "rb") as handle:
        schema = json.load(handle)
    return surface_of(schema, wire, goldens)


def is_surface(document: Any) -> bool:
    return isinstance(document, dict) and document.get("format") == FORMAT


def as_surface(document: Any) -> dict[str, Any]:
    """A surface from either a surface (returned as is) or a JSON Schema."""
    if is_surface(document):
        return dict(document)
    if isinstance(document, dict) and any(k in document for k in ("$schema", "oneOf", "properties",
                                                                   "type", "$defs")):
        return surface_of(document)
    raise ValueError("neither a JSON Schema nor a milk-contract surface")
