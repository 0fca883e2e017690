"""No module outside a wire's own package names that wire: they read the descriptor.

The words of a wire are what the registry says of it: its name (and its package's module name),
its conversation's line types (``Wire.dialogue``) and its rule ids. They are looked for in the
code of every module under ``contract/`` but the wire's own package, as string constants (not
docstrings, not comments) and in imports; a module that must name one anyway is in ``ALLOWED``
with the reason. The synthetic wire of tests/synthetic_wire is among the wires searched for:
nothing under ``contract/`` names it, yet the suite's generic tests run over it
(tests/test_wire_registry.py), which is the claim that a wire is its package plus one line in
the registry.
"""

from __future__ import annotations

import ast
from pathlib import Path

from contract.wires import WIRES, Wire
from tests.synthetic_wire import AUDIT_LOG

ROOT = Path(__file__).resolve().parent.parent / "contract"

# Modules that name a wire, each with why. A module listed here that names none fails too.
ALLOWED: dict[str, str] = {
    "wires/__init__.py": "the registry: one import and one entry per wire",
    "catalog.py": "rule sources cite each seed by name (prose), and line.ansi keeps stream-json as its "
                  "display wire (the rules listing); its reach is Wire.ansi (rules_for)",
    "rules.py": "the seed-citation prefixes (SJ_SCHEMA, SA_SCHEMA) the wires' rules.py import: prose",
    "cli.py": "help texts and misuse messages that name the bundled wires to people (prose)",
    "plugin.py": "help texts naming the bundled wires (prose)",
    "evolve.py": "a misuse message naming the conversation wire (prose)",
    "surface.py": "the surface's policy notes on the stream-json seed's quirks (prose)",
    "vectors.py": "the future-compatible test vectors are built per bundled wire (not yet a descriptor field)",
    "strategies/stream_json.py": "a wire's strategies, found by the descriptor's ``strategies`` module name",
    "strategies/stream_json_broken.py": "a wire's strategies (breakers by rule id), named by ``Wire.strategies``",
    "strategies/subagent_stdio.py": "a wire's strategies, found by the descriptor's ``strategies`` module name",
    "strategies/subagent_stdio_broken.py": "a wire's strategies (breakers by rule id), named by ``Wire.strategies``",
    "strategies/future.py": "future-compatible stream-json variants (the vectors' generator)",
    "strategies/future_hosts.py": "future-compatible subagent-stdio host variants (the vectors' generator)",
    "reference/stream_json_emitter.py": "a wire's reference emitter, named by ``Wire.reference``",
    "reference/subagent_host.py": "a wire's reference host, named by ``Wire.reference``",
    "reference/subagent_client.py": "the reference client of the conversation wire (milk-contract feed)",
    "tests/test_consumer.py": "the shipped suite feeds the stream-json goldens to a consumer",
    "tests/test_goldens.py": "the shipped suite's floor on each bundled wire's goldens",
}


def _words(wire: Wire) -> set[str]:
    words = {wire.name, wire.name.replace("-", "_"), *(rule.id for rule in wire.rules)}
    if wire.dialogue is not None:
        words |= {wire.dialogue.command, wire.dialogue.response, *([wire.dialogue.event] * bool(wire.dialogue.event))}
    return words


def _named(text: str, word: str) -> bool:
    # a word with -, _ or . is distinctive anywhere; a plain one ("response") only as the whole string
    return word in text if any(c in word for c in "-_.") else text == word


def _found(path: Path, words: set[str]) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            found += [f"{node.lineno}: {word!r}" for word in words if _named(node.value, word)]
        elif isinstance(node, ast.Import | ast.ImportFrom):
            modules = [getattr(node, "module", None) or "", *(alias.name for alias in node.names)]
            found += [f"{node.lineno}: import {word}" for word in words
                      if "_" in word and any(word in module.split(".") for module in modules)]
    return found


def _outside_own_package(wire_package: str | None, path: Path) -> bool:
    relative = path.relative_to(ROOT).parts
    return not (len(relative) > 2 and relative[0] == "wires" and relative[1] == wire_package)


def test_no_module_outside_a_wire_package_names_a_wire() -> None:
    wires = [*WIRES.values(), AUDIT_LOG]
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
