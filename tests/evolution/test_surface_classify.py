"""Schema edits as data (tests/wires/<wire>/surface_cases.json), each classified in both directions.

Each case is a JSON-Patch-like edit (RFC 6902 add, remove, replace, move, copy, plus
``remove-value`` that drops one value from an array by value and ``replace-text`` that swaps one
span of a string, which must occur exactly once) applied to a copy of the real schema; the
classifier must report exactly the expected changes from the original to the edited copy and back.

The cases run against the seeds (tests/support/seeds.py), not the schema in force, which an ADR may
have evolved (README: the ADR author's walk): an evolved schema that already holds an edit's
keyword would make the case no change. The data names only what each edit changes. One expectation depends on the
rest of the schema: whether the edit makes an unreferenced definition (stream-json
``$defs/event``) start or stop mirroring the top-level object. That is read from the two schemas
here (:func:`_mirror_notes`), independently of the surface code, and added to the case's own.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from contract.evolution.classify import BREAKING_CODES, Change, classify, compare_entry
from contract.evolution.surface import surface_for, surface_of
from contract.wires import WIRES
from tests.support.paths import ROOT, TESTS
from tests.support.seeds import original as seed_of

CASE_FILES = sorted((TESTS / "wires").glob("*/surface_cases.json"))  # each wire's, in its test folder
SCHEMAS = ROOT / "schemas"


def _cases() -> list[Any]:
    found = []
    for path in CASE_FILES:
        document = json.loads(path.read_text(encoding="utf-8"))
        for case in document["cases"]:
            found.append(pytest.param(document["wire"], {**case, "named": _named_rules(document)},
                                      id=f"{document['wire']}: {case['name']}"))
    return found


def _named_rules(document: dict[str, Any]) -> frozenset[str]:
    """The rules a case file names in its expected changes (``rule:<id>:<at>`` paths)."""
    return frozenset(str(change[2]).split(":")[1] for case in document["cases"]
                     for change in case["forward"] + case["reverse"] if str(change[2]).startswith("rule:"))


def _held(found: set[tuple[str, str, str, str | None]], named: frozenset[str]) -> set[tuple[str, str, str, str | None]]:
    """``found`` without the changes of the rules the case file does not name: a rule added after the
    file was written (docs/architecture.md, "Adding a rule") that quotes an edited sentence adds its
    own ``rule:`` change, classified by the same code as the named rules'; it must be breaking (no
    schema edit of a quoted sentence is additive for the rule standing on it), but the file is not
    rewritten for it."""
    extra = {c for c in found if c[2].startswith("rule:") and c[2].split(":")[1] not in named}
    assert all(kind == "breaking" for kind, *_ in extra), extra
    return found - extra


def _split(pointer: str) -> list[str]:
    return [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]


def _index(node: list[Any], part: str) -> int:
    """A list position: a number, or ``type=NAME``, the ``oneOf`` branch whose type const is NAME (read
    from the schema in force, so a case names the result branch wherever an ADR moved it)."""
    if part.startswith("type="):
        return next(i for i, b in enumerate(node) if b.get("properties", {}).get("type", {}).get("const") == part[5:])
    return int(part)


def _locate(document: Any, pointer: str) -> tuple[Any, str]:
    *parents, last = _split(pointer)
    node = document
    for part in parents:
        node = node[_index(node, part)] if isinstance(node, list) else node[part]
    return node, str(_index(node, last)) if isinstance(node, list) and last.startswith("type=") else last


def _apply(document: Any, ops: list[dict[str, Any]]) -> Any:
    out = copy.deepcopy(document)
    for op in ops:
        kind = op["op"]
        if kind in ("move", "copy"):
            holder, key = _locate(out, op["from"])
            if kind == "move":
                value = holder.pop(int(key)) if isinstance(holder, list) else holder.pop(key)
            else:
                value = copy.deepcopy(holder[int(key)] if isinstance(holder, list) else holder[key])
            op = {"op": "add", "path": op["path"], "value": value}
            kind = "add"
        holder, key = _locate(out, op["path"])
        if kind == "replace-text":
            text = holder[key]
            if text.count(op["old"]) != 1:  # the case no longer fits this schema: say so, never guess
                raise ValueError(f"replace-text: {op['old']!r} occurs {text.count(op['old'])} times in {op['path']}")
            holder[key] = text.replace(op["old"], op["new"])
        elif kind == "remove-value":
            target = holder[key]
            target.remove(op["value"])
        elif kind == "remove":
            del holder[int(key) if isinstance(holder, list) else key]
        elif isinstance(holder, list):
            index = len(holder) if key == "-" else int(key)
            if kind == "add":
                holder.insert(index, op["value"])
            else:
                holder[index] = op["value"]
        else:
            if kind == "replace" and key not in holder:
                raise KeyError(f"replace of a missing member {op['path']}")
            holder[key] = op["value"]
    return out


def _shape(changes: list[Change]) -> set[tuple[str, str, str, str | None]]:
    return {(c.kind, c.code, c.path, c.breaks) for c in changes}


def _refs(node: Any) -> set[str]:
    """Every ``$ref`` value anywhere in ``node``."""
    found: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if isinstance(item.get("$ref"), str):
                found.add(item["$ref"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True)  # JSON text: 1, 1.0 and true stay apart


def _mirrors(schema: dict[str, Any]) -> dict[str, bool]:
    """Each unreferenced ``$defs`` entry: does it mirror the top-level properties and required?"""
    refs = _refs(schema)
    return {name: _text(node.get("properties")) == _text(schema.get("properties"))
            and _text(node.get("required")) == _text(schema.get("required"))
            for name, node in schema.get("$defs", {}).items() if f"#/$defs/{name}" not in refs}


def _mirror_notes(old: dict[str, Any], new: dict[str, Any]) -> set[tuple[str, str, str, None]]:
    """The surface's additive note for each unreferenced definition whose mirroring changed."""
    before, after = _mirrors(old), _mirrors(new)
    return {("additive", "unreferenced-edited", f"unreferenced:{name}", None)
            for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


@pytest.mark.parametrize(("wire", "case"), _cases())
def test_schema_edit_forward_and_reverse(wire: str, case: dict[str, Any]) -> None:
    original = _apply(seed_of(wire), case.get("base", []))
    edited = _apply(original, case["edit"])
    # compared as JSON text: Python's == calls 1, 1.0 and True equal, the very blind spot tested
    assert json.dumps(edited, sort_keys=True) != json.dumps(original, sort_keys=True)
    forward = {tuple(x) for x in case["forward"]} | _mirror_notes(original, edited)
    reverse = {tuple(x) for x in case["reverse"]} | _mirror_notes(edited, original)
    assert _held(_shape(classify(original, edited)), case["named"]) == forward
    assert _held(_shape(classify(edited, original)), case["named"]) == reverse


def test_cases_cover_every_breaking_family() -> None:
    """The data exercises additive and breaking changes, each kind of breaks, many codes."""
    seen: set[tuple[str, ...]] = set()
    for path in CASE_FILES:
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            seen |= {tuple(map(str, x)) for x in case["forward"] + case["reverse"]}
    codes = {s[1] for s in seen}
    assert {s[3] for s in seen} == {"consumers", "emitters", "both", "None"}
    assert len(codes & set(BREAKING_CODES)) >= 25
    assert {"optional-field-added", "open-set-value-added", "line-kind-added",
            "description-edited"} <= codes


def test_identical_inputs_have_no_change() -> None:
    for wire in WIRES:
        assert classify(seed_of(wire), copy.deepcopy(seed_of(wire))) == []
        assert classify(surface_for(wire), surface_for(wire)) == []


def test_schema_and_surface_mix() -> None:
    """OLD may be a stored surface and NEW a schema: the corpus is then left out."""
    schema = seed_of("subagent-stdio")
    edited = _apply(schema, [{"op": "remove", "path": "/$defs/command/properties/id"}])
    assert _shape(classify(surface_of(schema, "subagent-stdio"), edited)) == {
        ("breaking", "field-removed", "command.id", "both")}


def _renamed_beside(added: list[str]) -> set[tuple[str, str, str, str | None]]:
    """The changes of stream-json's seed with ``ttft_ms`` removed and ``added`` (integers) added, both places."""
    schema = seed_of("stream-json")
    places = ("", "/$defs/event")
    edits: list[dict[str, Any]] = [{"op": "remove", "path": f"{base}/properties/ttft_ms"} for base in places]
    edits += [{"op": "add", "path": f"{base}/properties/{name}", "value": {"type": "integer"}}
              for name in added for base in places]
    return _shape(classify(schema, _apply(schema, edits)))


def test_a_rename_beside_another_new_member_of_the_same_shape_pairs_the_likest_name() -> None:
    """An ADR that adds latency_ms and renames ttft_ms to time_to_first_token_ms: the rename is ttft_ms's to
    the name that spells its initials, not to the first integer added (an ADR walk was told the wrong
    rename, and the migrate command for it); where two names are as like, no rename is guessed."""
    changes = _renamed_beside(["latency_ms", "time_to_first_token_ms"])
    assert ("breaking", "field-renamed", "ttft_ms", "both") in changes
    assert ("additive", "optional-field-added", "latency_ms", None) in changes
    assert not any(path == "time_to_first_token_ms" for _, _, path, _ in changes)
    alone = _renamed_beside(["time_to_first_token_ms"])
    assert ("breaking", "field-renamed", "ttft_ms", "both") in alone
    tie = _renamed_beside(["aa_ms", "bb_ms"])
    assert not any(code == "field-renamed" for _, code, _, _ in tie)
    assert ("breaking", "field-removed", "ttft_ms", "both") in tie


def test_accepted_breaks_schema_lists_every_breaking_code() -> None:
    schema = json.loads((SCHEMAS / "accepted-breaks.schema.json").read_text(encoding="utf-8"))
    assert schema["$defs"]["entry"]["properties"]["code"]["enum"] == list(BREAKING_CODES)


# -- surfaces compared directly: the corpus part and the safety net ----------------------------


def _surface_pair() -> tuple[dict[str, Any], dict[str, Any]]:
    base = surface_of(seed_of("stream-json"), "stream-json", goldens=Path("/nonexistent"))
    base["corpus"] = {"goldens": 1, "kinds": {"system/init": ["cwd", "seq"], "result/success":
                                              ["seq"]}}
    return base, copy.deepcopy(base)


def test_corpus_field_no_longer_seen_breaks_consumers() -> None:
    old, new = _surface_pair()
    new["corpus"]["kinds"]["system/init"] = ["seq"]
    assert _shape(classify(old, new)) == {
        ("breaking", "field-no-longer-seen", "corpus:system/init:cwd", "consumers")}
    assert _shape(classify(new, old)) == {
        ("additive", "field-seen", "corpus:system/init:cwd", None)}


def test_corpus_kind_gone_breaks_consumers_and_new_kind_is_additive() -> None:
    old, new = _surface_pair()
    del new["corpus"]["kinds"]["result/success"]
    new["corpus"]["goldens"] = 2
    assert _shape(classify(old, new)) == {
        ("breaking", "kind-no-longer-seen", "corpus:result/success", "consumers"),
        ("additive", "corpus-size", "corpus", None)}
    assert ("additive", "kind-seen", "corpus:result/success", None) in _shape(classify(new, old))


def test_unexplained_difference_is_breaking_not_silent() -> None:
    """An attribute the rules do not know (here `format`) still fails the gate."""
    old, new = _surface_pair()
    new["schema"]["fields"]["ts"]["format"] = "date-time"
    changes = classify(old, new)
    assert [(c.kind, c.code) for c in changes] == [("breaking", "unclassified")]
    assert "ts" in changes[0].path


def test_entry_values_compare_by_json_type() -> None:
    assert compare_entry("x", {"types": ["integer"], "const": 1},
                         {"types": ["integer"], "const": 1}) == []
    changed = compare_entry("x", {"types": ["boolean"], "const": True},
                            {"types": ["boolean"], "const": 1})
    assert [c.code for c in changed] == ["const-changed"]
    assert compare_entry("x", {"types": ["array"], "enum": [1]},
                         {"types": ["array"], "enum": [True]}) != []


def test_policy_is_stated_in_every_surface() -> None:
    surface = surface_for("stream-json")
    assert set(surface["policy"]) == {"additional-properties", "line-kinds", "unreferenced-defs",
                                      "open-sets", "rules"}
    assert surface["schema"]["unreferenced_defs"] == {
        name: "unreferenced; mirrors the top-level properties and required" if mirrors else "unreferenced"
        for name, mirrors in _mirrors(seed_of("stream-json")).items()}
    children = surface_for("subagent-stdio")["schema"]["fields"]["event.snapshot.runs[].children[]"]
    assert children["recursive"] == "event.snapshot.runs[]"
