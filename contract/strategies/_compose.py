"""Schema-valid values composed from hypothesis strategies, one strategy per schema node.

hypothesis-jsonschema draws the wire schemas at tens of lines a second (a few subagent
snapshots), most of it spent re-merging subschemas on every draw. This module compiles the
seed schema once into plain hypothesis strategies instead: a composite per object (required
members always, which optional ones in one or two choices, or a few drawn names), ``one_of``
for a ``oneOf`` whose branches are provably disjoint, ``just``/``sampled_from`` for
``const``/``enum``, bounded ``integers``, ``text`` over the alphabet a simple ``pattern``
allows, and a composite per array (its length in one choice). Nothing is drawn to be filtered
away, so generation is fast and shrinks towards the smallest valid value.

It fails closed: a keyword it does not know how to honour (``format``, ``uniqueItems``, a
``oneOf`` whose branches might overlap, ...) raises :class:`Unsupported` when the strategy is
built, never generating values that only look valid. Annotations (``description``, ``title``,
``$schema``, ...) are ignored. A ``pattern`` that is not a single negated character class
(``^[^...]*$`` or ``^[^...]+$``, the only shape the seeds use) is left to hypothesis-jsonschema,
which is fast on a leaf string. The recursion in the subagent node tree is unrolled first
(:func:`contract.strategies._schemas.unroll`), so the tree is at most ``depth + 1`` levels deep.

Generation covers a subset of what the schema allows, on purpose and for speed (hypothesis
pays for every choice it makes, so fewer choices per value is what makes it fast): arrays hold
at most :data:`ARRAY_CAP` items (:data:`TREE_CAP` in an unrolled recursion; ``minItems`` if
more), objects with an ``additionalProperties`` schema at most :data:`ARRAY_CAP` members,
objects with ``properties`` no members beyond them and, when they have more than
:data:`OPTIONAL_CAP` optional members, at most :data:`MANY_CAP` of them; free-form payloads
hold a few leaves; strings hold no ESC unless ``ansi`` is set (ESC is ``line.ansi`` outside
free-form payloads) and no lone surrogates (not encodable as UTF-8).
"""

from __future__ import annotations

import re
from typing import Any, cast

from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from jsonschema import Draft202012Validator

from contract.checking.schema import ecma_pattern, load
from contract.strategies._common import SAFE_INT, count, flags, ints, json_values
from contract.strategies._schemas import DEFAULT_DEPTH, unroll
from contract.wires import by_wire

ESC = "\x1b"
ANSI = ESC + "".join(map(chr, range(0x80, 0xA0)))  # what line.ansi forbids (ESC, C1)
ARRAY_CAP = 3  # items per generated array: keeps draws few (hypothesis pays per choice)
TREE_CAP = 2  # children per node of an unrolled recursion: trees stay small however deep
OPTIONAL_CAP = 12  # objects with at most this many optional members: any subset of them
MANY_CAP = 4  # objects with more (a stream-json line has some sixty): at most this many of them
ANNOTATIONS = frozenset({"description", "title", "$schema", "$id", "$comment", "examples", "default", "$defs"})
# ``^[^...]*$`` / ``^[^...]+$``: a single negated class; its members are literals or \r \n \\ \/.
SIMPLE_CLASS = re.compile(r"\^\[\^((?:[^\]\\]|\\[rn\\/])+)\]([*+])\$")
CLASS_ESCAPES = {"\\r": "\r", "\\n": "\n", "\\\\": "\\", "\\/": "/"}
JSON_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")


class Unsupported(ValueError):
    """The schema uses a keyword (or a combination) this compiler cannot honour exactly."""


def _schema_type(value: Any) -> str:
    """The JSON Schema type a const admits: an integral float is an "integer" (unlike
    ``jsonvalue.type_name``, which names the Python value), as the branch-overlap test needs."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _overlap(one: list[tuple[str, str | None]], other: list[tuple[str, str | None]]) -> bool:
    """Whether two branch shapes (see :meth:`Compiler._shape`) may admit a common value."""
    numeric = {"integer", "number"}
    for kind, pin in one:
        for kind2, pin2 in other:
            same_type = kind == kind2 or {kind, kind2} <= numeric
            if same_type and (pin is None or pin2 is None or pin == pin2):
                return True
    return False


class Compiler:
    """One wire's schema compiled into strategies, each definition built once."""

    def __init__(self, schema: dict[str, Any], *, ansi: bool, depth: int) -> None:
        self.root = unroll(schema, depth)
        self.defs: dict[str, Any] = self.root.get("$defs", {})
        self.unrolled = set(self.defs) - set(schema.get("$defs", {}))  # node_0 ... node_N
        self.ansi = ansi
        self._built: dict[str, st.SearchStrategy[Any]] = {}
        self._building: set[str] = set()

    # -- entry points ----------------------------------------------------------------------

    def whole(self) -> st.SearchStrategy[Any]:
        return self.compile(self.root)

    def definition(self, name: str) -> st.SearchStrategy[Any]:
        if name not in self._built:
            if name not in self.defs:
                raise Unsupported(f"no $defs/{name} in the schema")
            if name in self._building:  # unroll() leaves no recursion; a cycle means a new kind
                raise Unsupported(f"$defs/{name} refers back to itself through other definitions")
            self._building.add(name)
            try:
                self._built[name] = self.compile(self.defs[name])
            finally:
                self._building.discard(name)
        return self._built[name]

    # -- one node --------------------------------------------------------------------------

    def compile(self, node: Any) -> st.SearchStrategy[Any]:
        if node is True:
            node = {}
        if not isinstance(node, dict):
            raise Unsupported(f"cannot generate from schema {node!r}")
        keys = set(node) - ANNOTATIONS
        if not keys:  # {}: any JSON value (the free-form payloads)
            return free_form(self.ansi)
        if "$ref" in node:
            self._alone(node, "$ref")
            return self.definition(self._ref_name(node["$ref"]))
        if "allOf" in node:
            self._alone(node, "allOf")
            if len(node["allOf"]) != 1:
                raise Unsupported("allOf with more than one subschema")
            return self.compile(node["allOf"][0])
        if "const" in node:
            self._alone(node, "const")
            return st.just(node["const"])
        if "enum" in node:
            self._alone(node, "enum")
            return st.sampled_from(node["enum"])
        if "oneOf" in node:
            return self._one_of(node)
        kind = node.get("type")
        if isinstance(kind, list):
            return st.one_of([self.compile(node | {"type": t}) for t in kind])
        builders = {
            "null": self._null,
            "boolean": self._boolean,
            "integer": self._integer,
            "number": self._number,
            "string": self._string,
            "array": self._array,
            "object": self._object,
        }
        if kind not in builders:
            raise Unsupported(f"schema without a known type: {sorted(keys)}")
        return builders[kind](node)

    def _alone(self, node: dict[str, Any], keyword: str) -> None:
        others = set(node) - ANNOTATIONS - {keyword}
        if others:
            raise Unsupported(f"{keyword} beside {sorted(others)}")

    def _only(self, node: dict[str, Any], allowed: set[str]) -> None:
        unknown = set(node) - ANNOTATIONS - allowed - {"type"}
        if unknown:
            raise Unsupported(f"keywords {sorted(unknown)} on a {node.get('type')} schema")

    def _ref_name(self, ref: str) -> str:
        prefix = "#/$defs/"
        if not ref.startswith(prefix) or "/" in ref[len(prefix) :]:
            raise Unsupported(f"$ref {ref!r} (only #/$defs/NAME)")
        return ref[len(prefix) :]

    def _resolve(self, node: Any) -> Any:
        while isinstance(node, dict) and "$ref" in node:
            node = self.defs[self._ref_name(node["$ref"])]
        return node

    # -- oneOf -----------------------------------------------------------------------------

    def _one_of(self, node: dict[str, Any]) -> st.SearchStrategy[Any]:
        branches: list[Any] = node["oneOf"]
        rest = {k: v for k, v in node.items() if k != "oneOf"}
        if set(rest) - ANNOTATIONS:
            # Branches that each pin a property to a const (the stream-json top level): fold
            # each into the parent object, so a draw never has to be matched against a branch.
            return st.one_of([self.compile(self._fold(rest, branch)) for branch in self._pinned(branches)])
        shapes = [self._shape(branch) for branch in branches]
        for i, one in enumerate(shapes):
            for other in shapes[i + 1 :]:
                if _overlap(one, other):
                    raise Unsupported(f"oneOf branches that may overlap: {one} and {other}")
        return st.one_of([self.compile(branch) for branch in branches])

    def _shape(self, branch: Any) -> list[tuple[str, str | None]]:
        """What a value valid against ``branch`` can be: (JSON type, pin) pairs, where the pin
        is the const it must equal, or for an object the const of its required ``type``
        member, or None when unpinned. Values of different pins never coincide."""
        node = self._resolve(branch)
        if not isinstance(node, dict):
            raise Unsupported(f"oneOf branch {branch!r}")
        if "const" in node:
            return [(_schema_type(node["const"]), repr(node["const"]))]
        kinds = node.get("type", list(JSON_TYPES))
        kinds = kinds if isinstance(kinds, list) else [kinds]
        pinned = self._resolve(node.get("properties", {}).get("type", {}))
        if kinds == ["object"] and "type" in node.get("required", []) and "const" in pinned:
            return [("object", "type=" + repr(pinned["const"]))]
        return [(kind, None) for kind in kinds]

    def _pinned(self, branches: list[Any]) -> list[tuple[str, Any, list[str]]]:
        """Each branch as (property, const, required); the consts of one property distinct."""
        out: list[tuple[str, Any, list[str]]] = []
        for branch in branches:
            props = branch.get("properties", {}) if isinstance(branch, dict) else None
            extra = set(branch) - ANNOTATIONS - {"properties", "required"} if isinstance(branch, dict) else {"?"}
            if props is None or extra or len(props) != 1:
                raise Unsupported(f"oneOf branch beside an object schema: {branch!r}")
            ((name, sub),) = props.items()
            if set(sub) - ANNOTATIONS != {"const"}:
                raise Unsupported(f"oneOf branch that does not pin {name!r} to a const")
            out.append((name, sub["const"], list(branch.get("required", []))))
        names = {name for name, _, _ in out}
        consts = [repr(const) for _, const, _ in out]
        if len(names) != 1 or len(set(consts)) != len(consts):
            raise Unsupported("oneOf branches that are not distinct consts of one property")
        return out

    def _fold(self, parent: dict[str, Any], pinned: tuple[str, Any, list[str]]) -> dict[str, Any]:
        name, const, required = pinned
        props = dict(parent.get("properties", {}))
        if name in props and not Draft202012Validator(props[name]).is_valid(const):
            raise Unsupported(f"oneOf pins {name!r} to {const!r}, which the parent does not allow")
        props[name] = {"const": const}
        return parent | {"properties": props, "required": list(dict.fromkeys([*parent.get("required", []), *required]))}

    # -- leaves and containers ---------------------------------------------------------------

    def _null(self, node: dict[str, Any]) -> st.SearchStrategy[Any]:
        self._only(node, set())
        return st.none()

    def _boolean(self, node: dict[str, Any]) -> st.SearchStrategy[Any]:
        self._only(node, set())
        return st.booleans()

    def _integer(self, node: dict[str, Any]) -> st.SearchStrategy[Any]:
        self._only(node, {"minimum", "maximum"})
        return st.integers(node.get("minimum"), node.get("maximum"))

    def _number(self, node: dict[str, Any]) -> st.SearchStrategy[Any]:
        self._only(node, set())
        return st.integers(-SAFE_INT, SAFE_INT) | st.floats(allow_nan=False, allow_infinity=False)

    def _string(self, node: dict[str, Any]) -> st.SearchStrategy[Any]:
        self._only(node, {"minLength", "maxLength", "pattern"})
        low, high = node.get("minLength", 0), node.get("maxLength")
        excluded = "" if self.ansi else ANSI
        pattern = node.get("pattern")
        if pattern is not None:
            simple = SIMPLE_CLASS.fullmatch(pattern)
            if simple is None:  # leave anything else to hypothesis-jsonschema, with ECMA `$`
                leaf: st.SearchStrategy[Any] = from_schema(node | {"pattern": ecma_pattern(pattern)})
                return leaf if self.ansi else leaf.filter(lambda s: not any(c in ANSI for c in s))
            members = re.findall(r"\\[rn\\/]|.", simple.group(1))
            excluded += "".join(CLASS_ESCAPES.get(m, m) for m in members)
            if simple.group(2) == "+":
                low = max(low, 1)
        alphabet = st.characters(exclude_categories=["Cs"], exclude_characters=excluded or None)
        return st.text(alphabet, min_size=low, max_size=high)

    def _array(self, node: dict[str, Any]) -> st.SearchStrategy[Any]:
        self._only(node, {"items", "minItems", "maxItems"})
        low = node.get("minItems", 0)
        high = node.get("maxItems")
        items = node.get("items", {})
        tree = isinstance(items, dict) and items.get("$ref", "").removeprefix("#/$defs/") in self.unrolled
        wanted = max(low, TREE_CAP if tree else ARRAY_CAP)
        cap = wanted if high is None else min(high, wanted)
        if high == 0:
            return st.just([])
        return _items(self.compile(items), low, cap)

    def _object(self, node: dict[str, Any]) -> st.SearchStrategy[Any]:
        self._only(node, {"properties", "required", "additionalProperties"})
        props: dict[str, Any] = node.get("properties", {})
        required: list[str] = node.get("required", [])
        missing = [name for name in required if name not in props]
        extra = node.get("additionalProperties", True)
        if missing and extra is False:
            raise Unsupported(f"required {missing} that additionalProperties forbids")
        if missing:
            raise Unsupported(f"required {missing} without a schema for them")
        if not props and extra not in (True, False):
            return _mapping(self._string({"type": "string"}), self.compile(extra))
        fixed = [(name, self.compile(props[name])) for name in required]
        optional = [(name, self.compile(sub)) for name, sub in sorted(props.items()) if name not in required]
        return _members(fixed, optional)


def _items(item: st.SearchStrategy[Any], low: int, high: int) -> st.SearchStrategy[list[Any]]:
    """Lists of ``low`` to ``high`` items: the length in one choice (``st.lists`` pays a coin
    per item); shrinking lowers the length and deletes the items after it."""

    def draw_items(draw: st.DrawFn) -> list[Any]:
        return [draw(item) for _ in range(low + count(draw, high - low))]

    return st.composite(draw_items)()


def _mapping(keys: st.SearchStrategy[str], values: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects of up to :data:`ARRAY_CAP` members (fewer when two drawn names coincide)."""

    def draw_mapping(draw: st.DrawFn) -> dict[str, Any]:
        return {draw(keys): draw(values) for _ in range(count(draw, ARRAY_CAP))}

    return st.composite(draw_mapping)()


def _members(
    fixed: list[tuple[str, st.SearchStrategy[Any]]], optional: list[tuple[str, st.SearchStrategy[Any]]]
) -> st.SearchStrategy[dict[str, Any]]:
    """Objects with every ``fixed`` member and some of the ``optional`` ones (in that order).

    A plain composite rather than ``st.fixed_dictionaries``, which costs about twice as much a
    draw. Up to :data:`OPTIONAL_CAP` optional members, each is present one time in four
    (:func:`contract.strategies._common.flags`, sparse: one choice for up to four members, two
    beyond); with more (a stream-json line has some sixty), a count and that many drawn names,
    at most :data:`MANY_CAP` (fewer where two coincide). Every way shrinks towards no optional
    member at all.
    """

    def present(draw: st.DrawFn) -> list[tuple[str, st.SearchStrategy[Any]]]:
        if len(optional) <= OPTIONAL_CAP:
            return [member for member, on in zip(optional, flags(draw, len(optional), sparse=True), strict=True) if on]
        chosen = dict.fromkeys(draw(ints(0, len(optional) - 1)) for _ in range(count(draw, MANY_CAP)))
        return [optional[index] for index in chosen]

    def draw_object(draw: st.DrawFn) -> dict[str, Any]:
        out = {name: draw(strategy) for name, strategy in fixed}
        for name, strategy in present(draw) if optional else ():
            out[name] = draw(strategy)
        return out

    return st.composite(draw_object)()


def free_form(ansi: bool) -> st.SearchStrategy[Any]:
    """Any JSON value, kept small (a few leaves): the schema's free-form payloads (ESC when ``ansi``)."""
    return json_values(escapes=ansi)


@by_wire
def compiler(wire: str, *, ansi: bool, depth: int = DEFAULT_DEPTH) -> Compiler:
    """The compiled schema of ``wire``; ``ansi``: strings may hold ESC."""
    return Compiler(load(wire), ansi=ansi, depth=depth)


def lines(wire: str, depth: int = DEFAULT_DEPTH) -> st.SearchStrategy[dict[str, Any]]:
    """Schema-valid line objects of ``wire``: any branch of its top-level ``oneOf``.

    A schema this compiler cannot honour (a wire written with ``if``/``then``, say) is drawn by
    hypothesis-jsonschema instead, whole, and each value kept only if the schema's validator takes
    it: hypothesis-jsonschema drew ``{"seq": 4, "note": ""}`` from ``if note then seq <= 3`` beside
    ``additionalProperties: false``. Slower, but nothing invalid comes out, and nothing is refused."""
    strategy: st.SearchStrategy[dict[str, Any]]
    try:
        strategy = compiler(wire, ansi=True, depth=depth).whole()
    except Unsupported:
        schema = unroll(load(wire), depth)
        # a line schema is an object schema: its values are the objects the validator takes
        strategy = cast("st.SearchStrategy[dict[str, Any]]",
                        from_schema(schema).filter(Draft202012Validator(schema).is_valid))
    return strategy


def definition(wire: str, name: str, depth: int = DEFAULT_DEPTH) -> st.SearchStrategy[Any]:
    """Values of ``$defs/name`` with no ESC in any string (for conformant streams).

    A definition this compiler cannot honour (an ADR's keyword it does not know, such as
    ``maxProperties``) is drawn by hypothesis-jsonschema and kept only where the validator takes it,
    as :func:`lines` does: slower, never invalid, never refused."""
    try:
        return compiler(wire, ansi=False, depth=depth).definition(name)
    except Unsupported:
        return _validated(wire, {"$ref": f"#/$defs/{name}"}, depth)


def subschema(wire: str, node: dict[str, Any], depth: int = DEFAULT_DEPTH) -> st.SearchStrategy[Any]:
    """Values of one node of the (unrolled) schema of ``wire``, with no ESC in any string (the
    fallback of :func:`definition` for a node the compiler cannot honour)."""
    try:
        return compiler(wire, ansi=False, depth=depth).compile(node)
    except Unsupported:
        return _validated(wire, node, depth)


def _validated(wire: str, node: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
    """``node`` (beside the wire's unrolled ``$defs``) drawn by hypothesis-jsonschema, ESC and C1 taken
    out of every string (a conformant stream's strings hold none), each value kept only if the
    validator takes it."""
    defs = unroll(load(wire), depth).get("$defs", {})
    whole = {**node, "$defs": defs} if defs else node
    return from_schema(whole).map(_scrubbed).filter(Draft202012Validator(whole).is_valid)


_NO_ANSI = str.maketrans(dict.fromkeys(map(ord, ANSI)))


def _scrubbed(value: Any) -> Any:
    """``value`` with ESC and C1 removed from every string, member names included."""
    if isinstance(value, str):
        return value.translate(_NO_ANSI)
    if isinstance(value, list):
        return [_scrubbed(item) for item in value]
    if isinstance(value, dict):
        return {_scrubbed(key): _scrubbed(item) for key, item in value.items()}
    return value
