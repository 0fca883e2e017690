"""Classify the changes between two wire surfaces (or two schemas) as additive or breaking.

Each :class:`Change` says what changed (``path``, ``reason``, a stable ``code`` that the
accepted-breaks file names), whether it is ``additive`` or ``breaking``, and, because these are
output wires, which side it breaks: ``consumers`` (readers that relied on the old shape: a
widened type, a new closed-enum value, a field that may now be missing), ``emitters`` (writers that
were valid and are not any more: a new required field, a narrowed bound, a dropped enum value) or
``both``. Additive changes break nobody (``breaks`` is None).

Values are compared by their canonical JSON text, never with ``==``: Python (and deepdiff inside
lists and sets) treats ``1``, ``1.0`` and ``True`` as equal, but a const changed from ``1`` to
``true`` or a maximum from ``1`` to ``1.0`` is a different wire. deepdiff, on type-tagged copies
of both surfaces, is the safety net: any difference the rules below did not explain is reported
as a breaking ``unclassified`` change rather than passing silently.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from typing import Any

from contract.core.jsonvalue import canonical_text, clip, same_text, shown

# The change vocabulary lives in contract/evolution/changes.py (contract.evolution.framing classifies with it too);
# re-exported here, where callers have always found it.
from contract.evolution.changes import ADDITIVE as ADDITIVE
from contract.evolution.changes import ADDITIVE_CODES as ADDITIVE_CODES
from contract.evolution.changes import BREAKING as BREAKING
from contract.evolution.changes import BREAKING_CODES as BREAKING_CODES
from contract.evolution.changes import CODES as CODES
from contract.evolution.changes import REFUSED_CODES as REFUSED_CODES
from contract.evolution.changes import Change as Change
from contract.evolution.changes import Found as Found
from contract.evolution.changes import Region as Region
from contract.evolution.surface import SEED_DIALECT, as_surface

_NARROW_UP = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_NARROW_DOWN = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")


def _show(value: Any) -> str:
    return clip(canonical_text(value), 80)


def _breaking(path: str, code: str, reason: str, breaks: str) -> Change:
    return Change(BREAKING, path, reason, breaks, code)


def _additive(path: str, code: str, reason: str) -> Change:
    return Change(ADDITIVE, path, reason, None, code)


# -- one field ----------------------------------------------------------------------------------


def _covers(types: set[str], wanted: str) -> bool:
    return wanted in types or "any" in types or (wanted == "integer" and "number" in types)


def _types(path: str, old: set[str], new: set[str]) -> Iterator[Change]:
    if old == new:
        return
    widened = all(_covers(new, t) for t in old)
    narrowed = all(_covers(old, t) for t in new)
    text = f"type changed from {' | '.join(sorted(old))} to {' | '.join(sorted(new))}"
    if widened and not narrowed:
        yield _breaking(path, "type-widened", text + " (consumers may now receive values they "
                        "do not handle)", "consumers")
    elif narrowed and not widened:
        yield _breaking(path, "type-narrowed", text + " (values emitters sent are now invalid)",
                        "emitters")
    else:
        yield _breaking(path, "type-changed", text, "both")


def _required(path: str, old: Any, new: Any) -> Iterator[Change]:
    if old is True and new is False:
        yield _breaking(path, "required-made-optional",
                        "required field made optional (consumers relied on its presence)",
                        "consumers")
    elif old is False and new is True:
        yield _breaking(path, "optional-made-required",
                        "optional field made required (emitters that omit it are now invalid)",
                        "emitters")


def _const(path: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    if "const" in old and "const" in new:
        if not same_text(old["const"], new["const"]):
            yield _breaking(path, "const-changed", f"const changed from {_show(old['const'])} to "
                            f"{_show(new['const'])}", "both")
    elif "const" in new:
        yield _breaking(path, "const-added", f"const {_show(new['const'])} added (other values "
                        "emitters sent are now invalid)", "emitters")
    elif "const" in old:
        yield _breaking(path, "const-removed", f"const {_show(old['const'])} removed (consumers "
                        "may now receive other values)", "consumers")


def _enum(path: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    if "enum" not in old and "enum" not in new:
        return
    if "enum" not in old:
        yield _breaking(path, "enum-added", "closed enum added (values outside it are now "
                        "invalid)", "emitters")
        return
    if "enum" not in new:
        yield _breaking(path, "enum-removed", "closed enum removed (consumers may now receive "
                        "values they do not handle)", "consumers")
        return
    before = {canonical_text(v) for v in old["enum"]}
    after = {canonical_text(v) for v in new["enum"]}
    for value in sorted(before - after):
        yield _breaking(path, "enum-value-removed", f"closed enum value {value} removed "
                        "(emitters that send it are now invalid)", "emitters")
    for value in sorted(after - before):
        yield _breaking(path, "enum-value-added", f"closed enum value {value} added (the enum is "
                        "closed, so consumers may not handle it)", "consumers")


def _open_set(path: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    before = set(old.get("open_set", []))
    after = set(new.get("open_set", []))
    for value in sorted(after - before):
        yield _additive(path, "open-set-value-added",
                        f"open-set value {shown(value)} documented (consumers ignore unknown values)")
    for value in sorted(before - after):  # see POLICY["open-sets"] in contract/evolution/surface.py
        yield _breaking(path, "known-value-removed",
                        f"known value {shown(value)} no longer documented: its documented meaning is "
                        "withdrawn (consumers must ignore only values they don't recognize)", "consumers")


def _bounds(path: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    for keyword in (*_NARROW_UP, *_NARROW_DOWN):
        a, b = old.get(keyword), new.get(keyword)
        if (keyword not in old and keyword not in new) or same_text(a, b):
            continue
        if keyword not in old:
            yield _breaking(path, "bound-added", f"{keyword} {_show(b)} added", "emitters")
        elif keyword not in new:
            yield _breaking(path, "bound-removed", f"{keyword} {_show(a)} removed", "consumers")
        else:
            yield _bound_moved(path, keyword, a, b)


def _bound_moved(path: str, keyword: str, a: Any, b: Any) -> Change:
    text = f"{keyword} changed from {_show(a)} to {_show(b)}"
    if not isinstance(a, int | float) or not isinstance(b, int | float) or a == b:
        # same number in another JSON type (1 vs 1.0): typed consumers and generators see it
        return _breaking(path, "bound-changed", text + " (same value, different JSON type)",
                         "both")
    tighter = b > a if keyword in _NARROW_UP else b < a
    if tighter:
        return _breaking(path, "bound-narrowed", text + " (values emitters sent may now be "
                         "invalid)", "emitters")
    return _breaking(path, "bound-widened", text + " (consumers may now receive values beyond "
                     "the bound they relied on)", "consumers")


def _pattern(path: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    a, b = old.get("pattern"), new.get("pattern")
    if same_text(a, b):
        return
    if a is None:
        yield _breaking(path, "pattern-added", f"pattern {shown(b)} added", "emitters")
    elif b is None:
        yield _breaking(path, "pattern-removed", f"pattern {shown(a)} removed", "consumers")
    else:
        yield _breaking(path, "pattern-changed", f"pattern changed from {shown(a)} to {shown(b)}", "both")


def _extra(path: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    a, b = old.get("additionalProperties"), new.get("additionalProperties")
    if same_text(a, b) or a is None or b is None:
        return  # None: the value stopped or started being an object, reported as a type change
    if a is False:
        yield _breaking(path, "object-opened", f"additionalProperties changed from false to "
                        f"{_show(b)} (unmodeled members may now reach consumers)", "consumers")
    elif b is False:
        yield _breaking(path, "object-closed", f"additionalProperties changed from {_show(a)} "
                        "to false (emitters' extra members are now invalid)", "emitters")
    else:
        yield _breaking(path, "object-changed", f"additionalProperties changed from "
                        f"{_show(a)} to {_show(b)}", "both")


def _recursive(path: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    a, b = old.get("recursive"), new.get("recursive")
    if not same_text(a, b):
        yield _breaking(path, "structure-changed", f"recursion changed from {_show(a)} to "
                        f"{_show(b)}", "both")


def _description(path: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    if not same_text(old.get("description"), new.get("description")):
        yield _additive(path, "description-edited", "description edited (no shape change)")


def compare_entry(path: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    """Every change between two entries for the same path."""
    found = list(_recursive(path, old, new))
    found += _types(path, set(old.get("types", ["any"])), set(new.get("types", ["any"])))
    found += _required(path, old.get("required"), new.get("required"))
    for rule in (_const, _enum, _bounds, _pattern, _extra, _open_set, _description):
        found += rule(path, old, new)
    return found


# -- fields, added and removed ------------------------------------------------------------------


def _parent(path: str) -> str:
    if path.endswith(("[]", "{}")):
        return path[:-2]
    return path.rsplit(".", 1)[0] if "." in path else ""


def _subtree(fields: Mapping[str, Any], top: str) -> dict[str, str]:
    """The entries at and under ``top``, keyed relative to it, descriptions left out (and the
    top's own ``required``: a rename that also changes it is still a rename)."""
    out: dict[str, str] = {}
    for path, entry in fields.items():
        if path == top or path.startswith((top + ".", top + "[]", top + "{}")):
            ignore = ("description", "required") if path == top else ("description",)
            out[path[len(top):]] = canonical_text({k: v for k, v in entry.items() if k not in ignore})
    return out


def _tops(paths: set[str]) -> list[str]:
    return sorted(p for p in paths if _parent(p) not in paths)


def _field_changes(old: Mapping[str, Any], new: Mapping[str, Any], skip: set[str]) -> Found:
    old_fields, new_fields = old["fields"], new["fields"]
    removed = {p for p in old_fields if p not in new_fields and _head(p) not in skip}
    added = {p for p in new_fields if p not in old_fields and _head(p) not in skip}
    renamed = _renames(old_fields, new_fields, _tops(removed), _tops(added))
    for before, after in renamed.items():
        yield ("fields", before), _breaking(before, "field-renamed", f"renamed to {after}", "both")
    for path in _tops(removed):
        if path not in renamed:
            yield ("fields", path), _removed(path, old_fields[path], _closed(old, path))
    for path in _tops(added):
        if path not in renamed.values():
            yield ("fields", path), _added(path, new_fields[path])
    for path in sorted(set(old_fields) & set(new_fields)):
        for change in compare_entry(path, old_fields[path], new_fields[path]):
            yield ("fields", path), change
    for path in (removed | added):  # sub-fields of a reported top are covered by it
        yield ("fields", path), None


def _head(path: str) -> str:
    """The first segment of a path: the line kind, on wires whose paths start with one."""
    return path.split(".", 1)[0].split("[", 1)[0].split("{", 1)[0]


def _renames(old: Mapping[str, Any], new: Mapping[str, Any], removed: list[str],
             added: list[str]) -> dict[str, str]:
    """Each removed member paired with the added member it was renamed to: one of the same parent and
    shape; where several are, the one whose name is likest (:func:`_likeness`), and none where two are
    as like (a removal and an addition then, which is what a rename is too, without a guess)."""
    out: dict[str, str] = {}
    for before in removed:
        shape = _subtree(old, before)
        candidates = [after for after in added if after not in out.values() and _parent(after) == _parent(before)
                      and _subtree(new, after) == shape]
        if len(candidates) == 1:
            out[before] = candidates[0]
        elif candidates:
            ranked = sorted(candidates, key=lambda after: _likeness(before, after), reverse=True)
            if _likeness(before, ranked[0]) > _likeness(before, ranked[1]):
                out[before] = ranked[0]
    return out


def _likeness(before: str, after: str) -> float:
    """How alike two member names are: the words they share, one spelling the other's initials
    (``ttft_ms`` and ``time_to_first_token_ms``), then their characters in common."""
    import difflib

    def words(path: str) -> list[str]:
        return [w for w in re.split(r"[^A-Za-z0-9]+|(?<=[a-z])(?=[A-Z])", path.rsplit(".", 1)[-1].lower()) if w]

    one, other = words(before), words(after)
    shared = len(set(one) & set(other))
    initials = any(w == "".join(x[0] for x in other[i:i + len(w)]) for w in one if len(w) > 1
                   for i in range(len(other) - len(w) + 1)) or \
        any(w == "".join(x[0] for x in one[i:i + len(w)]) for w in other if len(w) > 1
            for i in range(len(one) - len(w) + 1))
    return shared + 2 * initials + difflib.SequenceMatcher(None, before, after).ratio()


def _closed(surface: Mapping[str, Any], path: str) -> bool:
    parent = _parent(path)
    entry = surface["fields"].get(parent) if parent else surface["root"]
    return bool(entry) and entry.get("additionalProperties") is False


def _removed(path: str, entry: Mapping[str, Any], parent_closed: bool) -> Change:
    if "required" not in entry:  # an items/values schema: dropping it lifts a constraint
        return _breaking(path, "constraint-removed", "item schema removed (consumers may now "
                         "receive anything here)", "consumers")
    if parent_closed:
        return _breaking(path, "field-removed", "field removed: consumers that read it break, "
                         "and emitters that still send it are now invalid (its object is closed)",
                         "both")
    return _breaking(path, "field-removed", "field removed: consumers that read it break",
                     "consumers")


def _added(path: str, entry: Mapping[str, Any]) -> Change:
    if "required" not in entry:
        return _breaking(path, "constraint-added", "item schema added (values emitters sent "
                         "may now be invalid)", "emitters")
    if entry["required"]:
        return _breaking(path, "required-field-added", "new required field (emitters that do "
                         "not send it are now invalid)", "emitters")
    return _additive(path, "optional-field-added", "new optional field (consumers ignore "
                     "fields they do not know)")


# -- line kinds, corpus, text -------------------------------------------------------------------


def _kind_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> Found:
    before, after = old["line_kinds"], new["line_kinds"]
    for name in sorted(set(before) - set(after)):
        yield ("line_kinds", name), _breaking(f"kind:{name}", "line-kind-removed",
                                              f"line kind {shown(name)} removed", "both")
    # Consumers ignore a line type they do not know only where the schema says its types are an
    # open set (stream-json's discriminator: "open set: ignore unknown values"); where no words open
    # them (subagent-stdio's seed has none), a consumer may reject a new one.
    open_kinds = "open_set" in old["fields"].get("type", {})
    for name in sorted(set(after) - set(before)):
        if open_kinds:
            yield ("line_kinds", name), _additive(
                f"kind:{name}", "line-kind-added", f"line kind {shown(name)} added (consumers ignore "
                "unknown types; a validator built from the older schema rejects it)")
        else:
            yield ("line_kinds", name), _breaking(
                f"kind:{name}", "line-kind-added", f"line kind {shown(name)} added, and the schema does not say "
                "its line types are an open set: a consumer may reject it", "consumers")
    for name in sorted(set(before) & set(after)):
        a, b = before[name], after[name]
        region: Region = ("line_kinds", name)
        if not same_text(a.get("type"), b.get("type")):
            yield region, _breaking(f"kind:{name}", "const-changed", f"line kind {shown(name)} type "
                                    f"changed from {_show(a.get('type'))} to "
                                    f"{_show(b.get('type'))}", "both")
        for change in (*_open_set(f"kind:{name}", a, b), *_description(f"kind:{name}", a, b)):
            yield region, change


def _corpus_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> Found:
    before, after = old.get("kinds", {}), new.get("kinds", {})
    if old.get("goldens") != new.get("goldens"):
        yield ("goldens",), _additive("corpus", "corpus-size", f"golden transcripts: "
                                      f"{old.get('goldens')} → {new.get('goldens')}")
    for name in sorted(set(before) - set(after)):
        yield ("kinds", name), _breaking(f"corpus:{name}", "kind-no-longer-seen",
                                         f"no golden line of kind {shown(name)} any more",
                                         "consumers")
    for name in sorted(set(after) - set(before)):
        yield ("kinds", name), _additive(f"corpus:{name}", "kind-seen",
                                         f"goldens now show {shown(name)} lines")
    for name in sorted(set(before) & set(after)):
        for path in sorted(set(before[name]) - set(after[name])):
            yield ("kinds", name), _breaking(f"corpus:{name}:{path}", "field-no-longer-seen",
                                             f"{path} no longer seen on {name} lines in the "
                                             "goldens", "consumers")
        for path in sorted(set(after[name]) - set(before[name])):
            yield ("kinds", name), _additive(f"corpus:{name}:{path}", "field-seen",
                                             f"{path} now seen on {name} lines in the goldens")


def _text_changes(section: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Found:
    for key in sorted(set(old) | set(new)):
        if not same_text(old.get(key), new.get(key)):
            yield (key,), _additive(f"{section}:{key}", f"{section}-edited",
                                    f"{section} {shown(key)} edited (no shape change)")


# -- the whole surface --------------------------------------------------------------------------


def _dialect_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> Found:
    """A ``$schema`` change (the surface records one only where it is not the seeds'): the dialect
    decides what every keyword means (under draft-04 ``const`` is no keyword at all), so no reading
    of the rest holds across it."""
    a, b = old.get("dialect", SEED_DIALECT), new.get("dialect", SEED_DIALECT)
    if not same_text(a, b):
        yield ("dialect",), _breaking("$schema", "dialect-changed", f"$schema changed from {_show(a)} to {_show(b)}: "
                                      "the dialect decides what every keyword means", "both")
    yield ("dialect",), None


def _schema_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> Found:
    skip = set(old["line_kinds"]) ^ set(new["line_kinds"])
    yield from _dialect_changes(old, new)
    yield from _kind_changes(old, new)
    for region, change in _field_changes(old, new, skip):
        yield region, change
    for path in old["fields"].keys() ^ new["fields"].keys():
        yield ("fields", path), None  # covered by a kind change or a reported top
    for change in compare_entry("(root)", old["root"], new["root"]):
        yield ("root",), change
    yield from _text_changes("schema", {k: old.get(k) for k in ("title", "description")},
                             {k: new.get(k) for k in ("title", "description")})
    for region, change in _text_changes("unreferenced", old.get("unreferenced_defs", {}),
                                        new.get("unreferenced_defs", {})):
        yield ("unreferenced_defs", *region), change
    # kinds are their own objects (no shared top-level object whose members every kind has)
    by_definition = "additionalProperties" not in old["root"] and "additionalProperties" not in new["root"]
    yield from _unread_changes(old.get("unread", {}), new.get("unread", {}), skip, by_definition)


def _of_kind(at: str, kinds: AbstractSet[str], by_definition: bool) -> bool:
    """Whether the schema pointer ``at`` lies in the top-level ``oneOf`` branch of one of ``kinds``
    (surface.py names those branches ``/oneOf[KIND]``) or, where each kind is its own object named by
    its definition (``by_definition``: subagent-stdio's ``$ref: #/$defs/KIND``), in that definition."""
    places = [f"/oneOf[{kind}]" for kind in kinds] + ([f"/$defs/{kind}" for kind in kinds] if by_definition else [])
    return any(at == place or at.startswith(place + "/") for place in places)


def _unread_changes(old: Mapping[str, Any], new: Mapping[str, Any], kinds: AbstractSet[str] = frozenset(),
                    by_definition: bool = False) -> Found:
    """Keywords the surface does not read (``if``, ``not``, ``uniqueItems``...), by schema pointer:
    any change to one is breaking both ways, since nothing here can show it additive (fail closed:
    the ADR accepts it, or the surface learns to read the keyword).

    Except in the branch of a line kind added or removed (``kinds``): what a new kind requires,
    forbids or bounds is part of the new kind, judged whole by its ``line-kind-added`` (no line of
    the old wire took that branch), and a removed kind's by its ``line-kind-removed``."""
    for at in sorted(old.keys() | new.keys()):
        if _of_kind(at, kinds, by_definition):
            continue
        a, b = old.get(at, {}), new.get(at, {})
        for keyword in sorted(a.keys() | b.keys()):
            if keyword in a and keyword in b and same_text(a[keyword], b[keyword]):
                continue
            verb = "added" if keyword not in a else "removed" if keyword not in b else "changed"
            yield ("unread", at, keyword), _breaking(
                f"{at}/{keyword}", f"unread-keyword-{verb}",
                f"{shown(keyword)} {verb} at {shown(at) if at else 'the root'}: the surface does not read it there, so "
                "the change cannot be shown additive", "both")
    yield ("unread",), None  # every change in it is reported above


Section = Callable[[Mapping[str, Any], Mapping[str, Any]], Found]


def classify(old: Any, new: Any) -> list[Change]:
    """Every change from ``old`` to ``new`` (surfaces or JSON Schemas), most severe first."""
    before, after = as_surface(old), as_surface(new)
    sections: list[tuple[str, Section]] = [
        ("schema", _schema_changes),
        ("policy", lambda a, b: _text_changes("policy", a, b)),
    ]
    if "corpus" in before and "corpus" in after:
        sections.append(("corpus", _corpus_changes))
    from contract.evolution.framing import (
        changes as rule_changes,  # the words rules stand on (contract/evolution/framing.py)
    )

    schemas = (before.get("schema", {}), after.get("schema", {}))  # what the descriptions said, each side
    sections.append(("rules", lambda a, b: rule_changes(a, b, schemas)))
    changes: list[Change] = []
    covered: set[Region] = set()
    for name, compare in sections:
        for region, change in compare(before.get(name, {}), after.get(name, {})):
            covered.add((name, *region))
            if change is not None:
                changes.append(change)
    changes += _unexplained(before, after, covered, [s for s, _ in sections])
    return sorted(set(changes), key=lambda c: (c.kind != BREAKING, c.path, c.code, c.reason))


def _tagged(value: Any) -> Any:
    """A copy whose scalars are canonical JSON text, so deepdiff never equates 1, 1.0 and true."""
    if isinstance(value, dict):
        return {k: _tagged(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_tagged(v) for v in value]
    return canonical_text(value)


def _differing(a: Any, b: Any) -> tuple[Any, Any]:
    """Both sides pruned to the members that differ, so deepdiff only walks what changed."""
    if not isinstance(a, dict) or not isinstance(b, dict):
        return a, b
    keep_a: dict[str, Any] = {}
    keep_b: dict[str, Any] = {}
    for key in a.keys() | b.keys():
        if key in a and key in b:
            if same_text(a[key], b[key]):
                continue
            keep_a[key], keep_b[key] = _differing(a[key], b[key])
        elif key in a:
            keep_a[key] = a[key]
        else:
            keep_b[key] = b[key]
    return keep_a, keep_b


def _unexplained(old: Mapping[str, Any], new: Mapping[str, Any], covered: set[Region],
                 sections: list[str]) -> list[Change]:
    a, b = _differing({k: old.get(k) for k in sections}, {k: new.get(k) for k in sections})
    from deepdiff import DeepDiff  # slow to import; `check` never needs it

    # lists in a surface are sorted when derived, so order is significant and cheap to compare
    diff = DeepDiff(_tagged(a), _tagged(b), view="tree", threshold_to_diff_deeper=0)
    out: list[Change] = []
    for level in (lvl for group in diff.values() for lvl in group):
        parts = tuple(str(p) for p in level.path(output_format="list"))
        if any(parts[: len(region)] == region for region in covered):
            continue
        out.append(_breaking("/" + "/".join(parts), "unclassified", "changed in a way the "
                             "classifier has no rule for; treated as breaking", "both"))
    return out


def is_breaking(changes: list[Change]) -> bool:
    return any(c.kind == BREAKING for c in changes)
