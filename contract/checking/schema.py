"""Schema validation of one line: a fast engine for the verdict, a reference engine for the detail.

* Fast: jsonschema-rs answers ``is_valid`` on every line (about 200 times quicker than
  jsonschema here) and implements ECMA-262 ``$`` (end of input only).
* Reference: jsonschema (pure Python) explains a failing line: JSON pointer, failing keyword,
  offending value and, for a ``oneOf``, the branch that came closest. Its ``pattern`` keyword is
  replaced by one that translates ``$`` to ``\\Z``, because Python's ``$`` also matches before a
  final newline and would accept ``"id": "abc\\n"`` against ``^[^\\r\\n]*$``.

Numbers arrive as the parser reads them (``contract.core.jsonline``): ``int``, ``float``, or a
``Decimal`` where a float would round. jsonschema-rs compares Decimals exactly; the reference
engine gets a type checker for which an integer is any number whose exact value is integral
(``7.0``, ``Decimal("5E+0")``, never ``Decimal("2.0000000000000001")`` nor a boolean), and
Python compares ``Decimal`` with ``int`` bounds exactly.

Both engines must agree on every line; the suite tests that differentially.

Open line types (stream-json): the seed calls ``type`` an open set ("open set: ignore unknown
values"; "open-set enums everywhere ... does not constrain them"), yet its top-level ``oneOf``
names five constants. A line whose ``type`` is a string outside those five is validated against
the seed without that ``oneOf`` (``open_type_schema``): every other keyword still holds
(required type/session_id/seq/ts, additionalProperties false, every property schema). The
schema files stay byte-identical to the seeds; the open variant is derived here, for both
engines. The subagent-stdio ``oneOf`` stays closed: no words in that seed open it.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import jsonschema_rs

from contract.core.jsonvalue import clip, escape, quoted, shown
from contract.core.jsonvalue import pointer as pointer_of
from contract.core.textsafe import counted
from contract.wires import by_wire, get

MAX_ERRORS_PER_LINE = 8  # a line that fails many ways is reported by its first few
# An object with members additionalProperties refuses: one finding, naming this many by their
# pointers and counting the rest ("and N more"): member names are hostile input.
MAX_MEMBERS_NAMED = 8


@dataclass(frozen=True, slots=True)
class SchemaError:
    pointer: str
    keyword: str
    message: str


@by_wire
def load(wire: str) -> dict[str, Any]:
    with open(get(wire).schema_path, "rb") as handle:
        schema: dict[str, Any] = json.load(handle)
    return schema


@by_wire
def known_types(wire: str) -> frozenset[str]:
    """The line types the top-level ``oneOf`` names by ``const`` (empty for a wire without one)."""
    schema = load(wire)
    return frozenset(_branch_consts(schema.get("oneOf", []), schema))


@by_wire
def open_type_schema(wire: str) -> dict[str, Any]:
    """The seed without its top-level ``oneOf``: what a line of an unknown type is validated against."""
    return {key: value for key, value in load(wire).items() if key != "oneOf"}


def unknown_type(wire: str, instance: Any) -> bool:
    """Whether ``instance`` is a line of an open-set wire whose string ``type`` the seed does not list."""
    if type(instance) is not dict or not get(wire).open_types:
        return False
    kind = instance.get("type")
    return type(kind) is str and kind not in known_types(wire)


def _array_validator(schema: dict[str, Any]) -> Any:
    """``is_valid`` of a validator of arrays whose every item is valid under ``schema``, or None
    when the schema refers to anything but its own ``$defs`` (moved to the array's root, so each
    reference resolves to the same subschema; a reference to the root would not)."""
    text = json.dumps(schema)
    if text.count('"$ref"') != text.count('"$ref": "#/$defs/') or any(
            word in text for word in ('"$dynamicRef"', '"$recursiveRef"', '"$anchor"', '"$dynamicAnchor"')):
        return None
    items = {key: value for key, value in schema.items() if key not in ("$defs", "$id", "$schema")}
    wrapper = {key: schema[key] for key in ("$schema", "$defs") if key in schema} | {"type": "array", "items": items}
    return jsonschema_rs.validator_for(wrapper).is_valid


class Engine:
    """The validators for one wire's schema, built once."""

    def __init__(self, wire: str) -> None:
        self.wire = wire
        self.schema = load(wire)
        self._closed = jsonschema_rs.validator_for(self.schema)
        # a wire whose line type is an open set by the seed's own words (Wire.open_types)
        self._open = jsonschema_rs.validator_for(open_type_schema(wire)) if get(wire).open_types else None
        self._closed_is_valid = self._closed.is_valid
        self._known = known_types(wire)
        self.is_valid_fast = self._closed_is_valid if self._open is None else self._is_valid_open_aware
        self._all_closed = _array_validator(self.schema)

    def all_valid(self, instances: list[Any]) -> bool:
        """Whether every instance is valid (``is_valid_fast`` on each): one call into the engine for
        the lot when the schema allows (the closed schema as an array's ``items``), each instance
        judged alone only when that call says no (a line of an unlisted type)."""
        if self._all_closed is not None and self._all_closed(instances):
            return True
        return all(map(self.is_valid_fast, instances))

    def _is_valid_open_aware(self, instance: Any) -> bool:
        # The closed schema first: a line it accepts has a known type, so it is valid either way,
        # and the hot path (nearly every line) costs one call as before. Only a rejected line of
        # an unlisted type is judged again, without the top-level oneOf.
        if self._closed_is_valid(instance):
            return True
        kind = instance.get("type") if type(instance) is dict else None
        return type(kind) is str and kind not in self._known and self._open is not None and bool(
            self._open.is_valid(instance))

    def _fast_for(self, instance: Any) -> Any:
        return self._open if self._open is not None and unknown_type(self.wire, instance) else self._closed

    def _reference_for(self, instance: Any) -> Any:
        return reference(self.wire, open_type=unknown_type(self.wire, instance))

    def is_valid(self, instance: Any) -> bool:
        try:
            return bool(self.is_valid_fast(instance))
        except (ValueError, OverflowError, TypeError):  # values the Rust engine cannot hold
            try:
                return not any(True for _ in self._reference_for(instance).iter_errors(instance))
            except RecursionError:  # and nested too deep for the other: not provably valid
                return False

    def is_valid_reference(self, instance: Any) -> bool:
        return bool(self._reference_for(instance).is_valid(instance))

    def explain(self, instance: Any) -> list[SchemaError]:
        """Why ``instance`` fails, most useful first (never empty for an invalid instance)."""
        try:
            found = list(dict.fromkeys(_flatten_all(self._reference_for(instance).iter_errors(instance),
                                                    self.schema)))
        except RecursionError:  # nested deeper than the pure-Python engine recurses
            found = []
        if not found:  # the engines disagree: trust the stricter and say what it said
            try:
                return self._fast_errors(instance) or [SchemaError("", "", "fails the schema")]
            except (ValueError, OverflowError, TypeError):
                return [SchemaError("", "", "expected a line valid against the schema, found one that is not "
                                    "(nested too deep, or numbers too large, for either engine to say where)")]
        return found[:MAX_ERRORS_PER_LINE]

    def explain_fast(self, instance: Any) -> list[SchemaError]:
        """Why ``instance`` fails, in jsonschema-rs's plainer words, about ten times quicker."""
        try:
            return self._fast_errors(instance) or self.explain(instance)
        except (ValueError, OverflowError, TypeError):  # values the Rust engine cannot hold
            return self.explain(instance)

    def _fast_errors(self, instance: Any) -> list[SchemaError]:
        found: list[SchemaError] = []
        for e in self._fast_for(instance).iter_errors(instance):
            keyword = str(e.schema_path[-1]) if e.schema_path else ""
            unexpected = getattr(getattr(e, "kind", None), "unexpected", None)  # read defensively:
            refused = getattr(e, "instance", None)  # older jsonschema-rs releases may lack either
            if keyword == "additionalProperties" and isinstance(refused, dict) and isinstance(unexpected, list):
                # the same words as the reference engine's: every unknown member, by its pointer
                found.append(unknown_members(pointer_of(e.instance_path), keyword, refused,
                                             [str(k) for k in unexpected]))
            else:
                message = e.message if len(e.message) <= 200 else e.message[:199] + "…"  # it quotes values
                found.append(SchemaError(pointer_of(e.instance_path), keyword, message))
            if len(found) >= MAX_ERRORS_PER_LINE:
                break
        return found


@by_wire
def engine(wire: str) -> Engine:
    return Engine(wire)


# -- the reference engine -------------------------------------------------------------------


def ecma_pattern(pattern: str) -> str:
    """Translate an ECMA-262 regex to Python where they differ on anchors: ``$`` → ``\\Z``."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "$" and not in_class:
            char = r"\Z"
        out.append(char)
        i += 1
    return "".join(out)


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(ecma_pattern(pattern))


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if isinstance(instance, str) and not _compiled(pattern).search(instance):
        yield ValidationError(f"{shown(instance)} does not match {shown(pattern)}")


@by_wire
def reference(wire: str, open_type: bool = False) -> Any:
    """A jsonschema validator for ``wire`` with ECMA-262 ``pattern`` semantics.

    ``open_type``: the variant for a line of an unknown type (``open_type_schema``).
    """
    from jsonschema import Draft202012Validator, validators

    checker = Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer)
    cls = validators.extend(Draft202012Validator, {"pattern": _pattern}, type_checker=checker)
    return cls(open_type_schema(wire) if open_type else load(wire))


def _is_integer(checker: Any, instance: Any) -> bool:
    """JSON Schema's integer, by exact value: ``1.0`` and ``Decimal("5E+0")`` are integers."""
    kind = type(instance)
    if kind is int:
        return True
    if kind is float:
        return bool(instance.is_integer())
    if kind is Decimal:
        return bool(instance.is_finite() and instance == instance.to_integral_value())
    return False


# -- explaining errors -----------------------------------------------------------------------


def _flatten_all(errors: Any, root: dict[str, Any]) -> Iterator[SchemaError]:
    for error in sorted(errors, key=lambda e: (len(e.absolute_path), str(e.absolute_path))):
        yield from _flatten(error, root)


def _flatten(error: Any, root: dict[str, Any]) -> Iterator[SchemaError]:
    keyword = error.validator
    if keyword in ("oneOf", "anyOf") and error.context:
        yield from _closest_branch(error, root)
        return
    yield _describe(error)


def _closest_branch(error: Any, root: dict[str, Any]) -> Iterator[SchemaError]:
    """For a failed ``oneOf``, explain the branch that came closest, not all of them."""
    branches: dict[int, list[Any]] = {}
    for sub in error.context:
        branches.setdefault(sub.schema_path[0], []).append(sub)
    instance = error.instance
    # A branch whose discriminator matched is the one the author meant.
    matched = [
        errs for errs in branches.values()
        if not any(_is_discriminator_error(e) for e in errs)
    ]
    if not matched:
        consts = _branch_consts(error.validator_value, root)
        if consts and isinstance(instance, dict):
            found = instance.get("type", "<missing>")
            yield SchemaError(
                pointer_of(error.absolute_path) + "/type",
                error.validator,
                f"expected type to be one of {', '.join(consts)}, found {_short(found)}",
            )
            return
        yield SchemaError(pointer_of(error.absolute_path), error.validator,
                          f"expected a value valid under one of the {error.validator} branches, "
                          f"found {_short(instance)}")
        return
    best = min(matched, key=len)
    yield from _flatten_all(best, root)


def _is_discriminator_error(error: Any) -> bool:
    """The branch was not meant: another line type, or another form of a dual-form field."""
    path = list(error.relative_path)
    if error.validator == "const" and path[-1:] == ["type"]:
        return True
    return bool(error.validator == "type" and not path)


def _branch_consts(branches: Any, root: dict[str, Any]) -> list[str]:
    consts: list[str] = []
    for branch in branches:
        target = branch
        if "$ref" in branch:  # local refs only ("#/$defs/name"): the wire schemas have no others
            target = root.get("$defs", {}).get(branch["$ref"].rsplit("/", 1)[-1])
        const = target.get("properties", {}).get("type", {}).get("const") if target else None
        if isinstance(const, str):
            consts.append(const)
    return consts


def _describe(error: Any) -> SchemaError:
    keyword = error.validator
    value = error.validator_value
    instance = error.instance
    pointer = pointer_of(error.absolute_path)
    if keyword == "required":
        # jsonschema reports one error per missing member, naming it only in its message
        name = next((n for n in value if repr(n) in error.message), "?")
        return SchemaError(f"{pointer}/{escape(name)}", keyword,
                           f"expected required member {quoted(name)}, found it missing")
    if keyword in ("additionalProperties", "unevaluatedProperties"):
        allowed = set(error.schema.get("properties", {}))
        extra = [k for k in instance if k not in allowed] if isinstance(instance, dict) else []
        return unknown_members(pointer, keyword, instance, extra)
    expected = {
        "type": lambda: f"type {value if isinstance(value, str) else ' or '.join(value)}",
        "const": lambda: f"the constant {_short(value)}",
        "enum": lambda: "one of " + ", ".join(_short(v) for v in value),
        "pattern": lambda: f"a string matching {value}",
        "minLength": lambda: f"at least {counted(value, 'character')}",
        "maxLength": lambda: f"at most {counted(value, 'character')}",
        "minimum": lambda: f"a number >= {value}",
        "maximum": lambda: f"a number <= {value}",
        "maxItems": lambda: f"at most {counted(value, 'item')}",
        "minItems": lambda: f"at least {counted(value, 'item')}",
    }.get(keyword, lambda: f"{keyword} {_short(value)}")()
    if keyword in ("maxItems", "minItems") and isinstance(instance, list):
        found = counted(len(instance), "item")
    elif keyword in ("minLength", "maxLength") and isinstance(instance, str):
        found = counted(len(instance), "character")
    else:
        found = _short(instance)
    return SchemaError(pointer, keyword, f"expected {expected}, found {found}")


def unknown_members(pointer: str, keyword: str, instance: Any, extra: list[str]) -> SchemaError:
    """One finding for an object's members that ``additionalProperties: false`` refuses, naming each.

    The finding sits at the first unknown member (its pointer, as baselines match it) and its
    message lists the JSON pointer of every unknown member of the object, up to
    ``MAX_MEMBERS_NAMED`` (each clipped), then says how many more: member names are the input's,
    so an object of 100,000 of them gives a message of a bounded size that still counts them all.
    """
    name = extra[0] if extra else "?"
    found = _short(instance.get(name) if isinstance(instance, dict) else None)
    message = f"expected no member {quoted(name)} (additionalProperties is false here), found {found}"
    if len(extra) > 1:
        named = ", ".join(clip(f"{pointer}/{escape(k)}", 80) for k in extra[:MAX_MEMBERS_NAMED])
        if len(extra) <= MAX_MEMBERS_NAMED:
            message += f"; all {len(extra)} unknown members of this object: {named}"
        else:
            message += (f"; {len(extra):,} unknown members in this object, the first {MAX_MEMBERS_NAMED}: "
                        f"{named}, and {len(extra) - MAX_MEMBERS_NAMED:,} more "
                        f"(at most {MAX_MEMBERS_NAMED} named per object)")
    return SchemaError(f"{pointer}/{escape(name)}", keyword, message)


def _short(value: Any, limit: int = 60) -> str:
    if type(value) is Decimal:  # a number as written (json.dumps cannot write a Decimal)
        return clip(str(value), limit)
    if type(value) is str:  # in JSON's quotes, its characters as they are: the reporter escapes them
        return clip(f'"{value}"', limit)
    try:
        text = json.dumps(value, ensure_ascii=False)  # non-ASCII as it is; the reporter escapes
    except (TypeError, ValueError):
        text = repr(value)
    return clip(text, limit)
