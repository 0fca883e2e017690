"""No module outside a wire's own package names that wire: they read the descriptor.

The words of a wire are what the registry says of it: its name (and its package's module name),
its line types (its schema's, its conversation's ``Wire.dialogue``, its ``Wire.terminal``), the
members all its lines carry and no other wire's do, and its rule ids. They are looked for in the
code of every module under ``contract/`` but the wire's own package, as string constants (not
docstrings, not comments) and in imports; a module that must name one anyway is in ``ALLOWED``
with the reason. The synthetic wire of tests/wires/audit_log is among the wires searched for:
nothing under ``contract/`` names it, yet the suite's generic tests run over it
(tests/wires/test_wire_registry.py), which is the claim that a wire is its package plus one line in
the registry.
"""

from __future__ import annotations

import ast
import json
import re
from functools import cache
from pathlib import Path

import pytest

from contract.wires import WIRES, Wire
from tests.support.paths import ROOT as CHECKOUT
from tests.wires.audit_log import AUDIT_LOG

ROOT = CHECKOUT / "contract"

# Modules that name a wire, each with why. A module listed here that names none fails too. Beside
# the registry, only public aliases: one-line programs at a path the docs tell users to type,
# running a wire's own program (its logic stays in the wire's package).
_ALIAS = "a public alias ({where}: python -m contract.reference.{name}) running contract/wires/{wire}/kit/{module}.py"
ALLOWED: dict[str, str] = {
    "consumers/reading.py": "the reading protocol's own member names (schemas/reading.schema.json: an ending's "
                            "subtype and result), one of which shares its word with stream-json's terminal line",
    "wires/__init__.py": "the registry: one import and one entry per wire",
    "wires/stream_json/kit/cases/framing.py": "a line.ansi case's description (tests/cases/line/line.ansi.json): "
                                              "on a stream-json stream a line of the other wire's type is no exception",
    "reference/stream_json_emitter.py": _ALIAS.format(where="README, docs/milk-ci.md; Wire.reference",
                                                      name="stream_json_emitter", wire="stream_json", module="emitter"),
    "reference/stream_json_consumer.py": _ALIAS.format(where="README, docs/consumers.md", name="stream_json_consumer",
                                                       wire="stream_json", module="consumer"),
    "reference/strict_consumer.py": _ALIAS.format(where="README, docs/consumers.md", name="strict_consumer",
                                                  wire="stream_json", module="strict_consumer"),
    "reference/subagent_host.py": _ALIAS.format(where="docs/milk-ci.md; Wire.reference", name="subagent_host",
                                                wire="subagent_stdio", module="host"),
    "reference/subagent_client.py": _ALIAS.format(where="README, docs/consumers.md", name="subagent_client",
                                                  wire="subagent_stdio", module="client"),
}


def _words(wire: Wire) -> set[str]:
    types, members = _schema_lines(wire.schema_path, wire.type_member)
    # a member another wire's lines carry too (audit-log numbers its lines by seq) is no wire's own word
    shared = {member for other in _searched() if other.name != wire.name
              for member in _schema_lines(other.schema_path, other.type_member)[1]}
    words = {wire.name, wire.name.replace("-", "_"), *(rule.id for rule in wire.rules), *types, *(members - shared)}
    if wire.dialogue is not None:
        words |= {wire.dialogue.command, wire.dialogue.response, *([wire.dialogue.event] * bool(wire.dialogue.event))}  # type: ignore[arg-type]  # listed only when set
    if wire.terminal is not None:
        words.add(wire.terminal)
    return words


def _searched() -> list[Wire]:
    """The wires whose words are looked for: the registry's and the synthetic one."""
    return [*WIRES.values(), AUDIT_LOG]


@cache
def _schema_lines(schema_path: Path, type_member: str) -> tuple[frozenset[str], frozenset[str]]:
    """What a generic module would name to pick out or read a wire's lines: its line types (the
    ``type_member`` consts of the schema's top-level ``oneOf``, a local ``$ref`` followed) and the
    members every line type requires but ``type_member`` itself (stream-json's ``seq``, ``ts``, ``session_id``)."""
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    defs = schema.get("$defs", {})
    types: set[str] = set()
    required: list[set[str]] = []
    for branch in schema.get("oneOf", []):
        ref = branch.get("$ref") if isinstance(branch, dict) else None
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            branch = defs.get(ref.removeprefix("#/$defs/"), {})
        if not isinstance(branch, dict):
            continue
        const = branch.get("properties", {}).get(type_member, {}).get("const")
        if isinstance(const, str):
            types.add(const)
        required.append({*branch.get("required", []), *schema.get("required", [])})
    members = set.intersection(*required) if required else set(schema.get("required", []))
    return frozenset(types), frozenset(members - {type_member})


def _named(text: str, word: str) -> bool:
    # A word with -, _ or . is distinctive wherever it stands as a word of its own (no letter or digit
    # either side: "stream-json.schema.json", "contract.wires.stream_json"), not inside another word
    # (a rule "ta.schema" is not named by "golden-meta.schema.json"); a plain one ("response") only
    # as the whole string.
    if not any(c in word for c in "-_."):
        return text == word
    return word in text and _standing_alone(word).search(text) is not None  # the regex only on a hit


@cache
def _standing_alone(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z0-9]){re.escape(word)}(?![A-Za-z0-9])")


@cache  # every wire's words are looked for in the same files: read each once
def _strings_and_imports(path: Path) -> list[tuple[int, str | list[str]]]:
    """In the tree's order: (line, text) of every string constant but docstrings, (line, modules) of every import."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    seen: list[tuple[int, str | list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            seen.append((node.lineno, node.value))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            seen.append((node.lineno, [getattr(node, "module", None) or "", *(alias.name for alias in node.names)]))
    return seen


def _found(path: Path, words: set[str]) -> list[str]:
    found = []
    for lineno, seen in _strings_and_imports(path):
        if isinstance(seen, str):
            found += [f"{lineno}: {word!r}" for word in words if _named(seen, word)]
        else:
            found += [f"{lineno}: import {word}" for word in words
                      if "_" in word and any(word in module.split(".") for module in seen)]
    return found


def _outside_own_package(wire_package: str | None, path: Path) -> bool:
    relative = path.relative_to(ROOT).parts
    return not (len(relative) > 2 and relative[0] == "wires" and relative[1] == wire_package)


def test_no_module_outside_a_wire_package_names_a_wire() -> None:
    wires = _searched()
    named: dict[str, list[str]] = {}
    for path in sorted(ROOT.rglob("*.py")):
        for wire in wires:
            package = wire.name.replace("-", "_")
            if _outside_own_package(package, path):
                hits = _found(path, _words(wire))
                if hits:
                    named.setdefault(path.relative_to(ROOT).as_posix(), []).extend(hits)
    unexplained = {module: hits for module, hits in named.items() if module not in ALLOWED}
    assert not unexplained, unexplained
    stale = sorted(set(ALLOWED) - set(named))
    assert not stale, f"allowed but naming no wire any more (remove): {stale}"


def test_each_alias_is_a_one_line_program_running_its_wire_module() -> None:
    """An allowed alias holds no logic: its code (past the docstring) is the runpy call of the file it
    says, and that file is in the wire's package."""
    for module in (m for m in ALLOWED if m.startswith("reference/")):
        tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
        code = [node for node in tree.body[1:] if not isinstance(node, ast.Import | ast.ImportFrom)]
        assert len(code) == 2, module  # the program's path, and the __main__ guard running it
        assert isinstance(code[1], ast.If), module
        program = next(part for part in ALLOWED[module].split() if part.startswith("contract/wires/"))
        text = (ROOT / module).read_text(encoding="utf-8")
        wire, *inside = program.split("/")[2:]
        assert " / ".join(f'"{part}"' for part in (wire, *inside)) in text, module
        assert (ROOT.parent / program).is_file(), program


def test_nothing_in_the_package_names_the_synthetic_wire() -> None:
    """The synthetic wire runs through every generic test, yet no module of the package knows it."""
    words = _words(AUDIT_LOG) | {AUDIT_LOG.name.replace("-", "_"), "synthetic_wire"}
    assert not {path.name: hits for path in ROOT.rglob("*.py") if (hits := _found(path, words))}


def test_the_search_finds_a_wire_named_outside_its_package(tmp_path: Path) -> None:
    """The search itself can fail: a string naming a wire, or an import of its package, is found."""
    wire = next(iter(WIRES.values()))
    module = tmp_path / "m.py"
    package = wire.name.replace("-", "_")
    module.write_text(f'"""doc {wire.name}"""\nfrom contract.wires import {package}\nX = "{wire.name}"\n')
    assert _found(module, _words(wire)) == [f"2: import {package}", f"3: {wire.name!r}"]


@pytest.mark.parametrize(("text", "word", "named"), [
    ("stream-json", "stream-json", True),
    ("stream-json.schema.json", "stream-json", True),
    ("contract.wires.stream_json", "stream_json", True),
    ("see ta.schema.", "ta.schema", True),
    ("golden-meta.schema.json", "ta.schema", False),  # the ninth trial's rule prefix, inside a word
    ("al.sequence", "al.seq", False),
    ("responses", "response", False),
    ("response", "response", True),
])
def test_a_word_of_a_wire_is_found_standing_alone_not_inside_another(text: str, word: str, named: bool) -> None:
    assert _named(text, word) is named


@pytest.mark.parametrize(("code", "found"), [
    # the advice run.stall once gave in contract/live/timeline.py
    ('HINT = "flush stdout after each line, and write progress (stream_event) lines during long work"',
     ["1: 'stream_event'"]),
    # the terminal line picked out by its type (contract/consumers/judging.py once)
    ('def f(v):\n    return v.get("type") == "result"', ["2: 'result'"]),
    ('ID = "session_id"', ["1: 'session_id'"]),  # a member every stream-json line carries, and no other wire's
    ('LINE = "system"', ["1: 'system'"]),
    # near misses: the words inside prose, the type member itself, and a member another wire carries too
    ('HINT = "report null when the stream has no result line"', []),
    ('KEY = "type"', []),
    ('KEY = "seq"', []),
    ('"""The result and stream_event lines (a docstring)."""', []),
])
def test_a_wire_s_line_types_and_members_are_found_in_a_generic_module(tmp_path: Path, code: str,
                                                                        found: list[str]) -> None:
    module = tmp_path / "m.py"
    module.write_text(code + "\n")
    wire = next(wire for wire in WIRES.values() if wire.terminal is not None)
    assert sorted(_found(module, _words(wire))) == sorted(found)
