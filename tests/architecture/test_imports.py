"""The package's import structure: layers, no cycle, no private name imported across modules.

A static scan of every module under ``contract/``: imports inside functions count (a lazy
import is still a dependency), and so do imports under ``if TYPE_CHECKING:`` (a type is a
dependency too, even if it never runs). The subpackages are layers (docs/architecture.md,
"Layers"): each imports only its own modules and those of the layers below it; the module
graph is acyclic; no ``from X import _name`` crosses modules. A submodule's implicit
dependency on its parent package is not counted (Python runs the parent first); a package
importing its own submodules is.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from tests.support.paths import ROOT

PACKAGE = ROOT / "contract"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "tests" not in p.relative_to(PACKAGE).parts}


@cache  # every test below scans the same files: parse each once
def _imports(name: str, path: Path) -> list[tuple[str, list[str]]]:
    """(imported module, names taken from it) for every import statement, at any depth."""
    found: list[tuple[str, list[str]]] = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            names = [alias.name for alias in node.names]
            target = node.module
            # "from contract import x": x may be a submodule
            for alias in names:
                if f"{target}.{alias}" in MODULES:
                    found.append((f"{target}.{alias}", []))
            found.append((target, [n for n in names if f"{target}.{n}" not in MODULES]))
    return [(target, names) for target, names in found if target in MODULES and target != name]


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        edges = {target for target, _ in _imports(name, path)}
        # a submodule's edge to its own ancestor packages is how Python loads a package (the
        # parent runs first), not a dependency; a package importing its submodules is one
        graph[name] = {t for t in edges if not name.startswith(t + ".")}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (a depth-first search), or None when it is acyclic."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target):], target]
            if target not in state:
                found = visit(target)
                if found is not None:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found is not None:
                return found
    return None


def test_no_import_cycle() -> None:
    cycle = _cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or ())


def test_a_cycle_would_be_found() -> None:
    """The search fires on a cycle: the real graph plus one edge back down the import order."""
    graph = _graph()
    graph["contract.core.reader"] = graph["contract.core.reader"] | {"contract.rules.catalog"}
    assert _cycle(graph) is not None


def test_the_scan_sees_imports() -> None:
    """The scan is not vacuous: the checker's known dependencies are found."""
    graph = _graph()
    assert "contract.checking.pipeline" in graph["contract.checking.checker"]
    assert "contract.wires" in graph["contract.rules.catalog"]


# The layers, bottom up (docs/architecture.md, "Layers"), each a folder. A wire's kit
# (``contract/wires/<wire>/kit/``: its reference emitter or host, its consumers, strategies,
# breakers and future variants) is loaded by path only when run or asked for, and stands above the
# machinery it uses; the rest of a wire package (descriptor, rules, machines) stands right above core.
LAYERS = ("core", "wires", "rules", "checking", "strategies", "live", "goldens", "consumers", "evolution",
          "reporting", "statement", "compat", "kits", "api", "cli", "plugin", "reference", "tests")
# contract/__init__.py is the public facade (lazy check, Report...): below it only __version__ is taken
FACADE_NAMES = frozenset({"__version__"})


def layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) >= 4 and parts[1] == "wires" and parts[3] == "kit":
        return "kits"
    return {"__main__": "cli"}.get(parts[1], parts[1]) if len(parts) > 1 else "contract"


def upward(graph: dict[str, set[str]]) -> list[str]:
    """Every import from one layer into a layer above it (or between the two top ones)."""
    found = []
    for module, targets in sorted(graph.items()):
        here = layer(module)
        if here == "contract":
            continue
        for target in sorted(targets):
            there = layer(target)
            if there in ("contract", here):
                continue
            if LAYERS.index(there) > LAYERS.index(here) or {here, there} == {"cli", "plugin"}:
                found.append(f"{module} ({here}) imports {target} ({there})")
    return found


def test_every_module_stands_in_a_layer() -> None:
    """A new subpackage is placed in LAYERS (and in docs/architecture.md's picture) before use."""
    unplaced = sorted({layer(m) for m in MODULES} - {*LAYERS, "contract"})
    assert unplaced == [], f"subpackages in no layer: {unplaced}"


def test_each_layer_imports_only_the_layers_below_it() -> None:
    assert upward(_graph()) == []


def test_an_upward_import_would_be_found() -> None:
    """Near miss: the real graph plus one import from the rules up into the checking layer."""
    graph = _graph()
    graph["contract.rules.report"] = graph["contract.rules.report"] | {"contract.checking.capture_coverage"}
    assert upward(graph) == ["contract.rules.report (rules) imports contract.checking.capture_coverage (checking)"]


def test_below_the_facade_only_the_version_is_taken_from_it() -> None:
    taken = sorted(f"{name}: {n}" for name, path in MODULES.items() if layer(name) != "contract"
                   for target, names in _imports(name, path) if target == "contract"
                   for n in names if n not in FACADE_NAMES)
    assert taken == []


def test_no_private_name_is_imported_across_modules() -> None:
    crossing = [f"{name}: from {target} import {n}"
                for name, path in MODULES.items()
                for target, names in _imports(name, path)
                for n in names if n.startswith("_") and n != "__version__"]
    assert crossing == []


@pytest.mark.process
def test_the_plugin_loads_lazily() -> None:
    """pytest imports the plugin at every start wherever milk-contract is installed: it must not
    pull in the checker, the goldens or deepdiff until a scenario runs (docs/architecture.md)."""
    code = ("import sys, contract.plugin; "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith(('contract', 'deepdiff')))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    loaded = set(done.stdout.split())
    assert "contract.plugin" in loaded  # the probe ran
    assert loaded.isdisjoint({"contract.checking.checker", "contract.goldens.store", "contract.goldens.compare",
                              "contract.goldens.scenarios", "deepdiff"}), loaded


# What each verb may load: the CLI imports a verb's machinery when the verb runs, so `check` (every
# pre-commit hook run, every CI step) pays for the checker and nothing else (contract/cli/).
# One process runs the verbs in turn, each adding to what the ones before it loaded.
_PROBE = """
import json, sys, contract.cli
WATCHED = ('contract', 'hypothesis', 'deepdiff', 'jsonschema', 'multiprocessing', 'concurrent', 'importlib.metadata')
for argv in json.loads(sys.argv[1]):
    code = contract.cli.run(argv)
    print(json.dumps([code, sorted(m for m in sys.modules if m.startswith(WATCHED))]), file=sys.stderr)
"""
NEVER_FOR_CHECK = {"hypothesis", "deepdiff", "jsonschema", "multiprocessing", "concurrent.futures",
                   "importlib.metadata", "contract.evolution.evolve", "contract.evolution.surface",
                   "contract.evolution.classify", "contract.evolution.gate", "contract.rules.baseline",
                   "contract.live.harness", "contract.live.driver", "contract.live.fuzz",
                   "contract.live.provoke", "contract.strategies", "contract.goldens.store", "contract.goldens.compare",
                   "contract.goldens.rewrite", "contract.goldens.recording",
                   "contract.goldens.scenarios"}


@pytest.mark.process
def test_each_verb_loads_only_what_it_needs() -> None:
    """`--help` loads not even the checker; `check` the checker but no differ, surface, evolve, live
    harness, hypothesis or process pool. The near miss: `diff` then loads the differ, so the probe
    sees lazy imports happen."""
    golden = str(ROOT / "goldens" / "stream-json" / "hello.jsonl")
    schema = str(ROOT / "schemas" / "stream-json.schema.json")
    verbs = [["--help"], ["check", golden], ["diff", schema, schema]]
    done = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(verbs)], capture_output=True, text=True,
                          timeout=60, check=False, cwd=ROOT)
    (help_code, helped), (check_code, checked), (diff_code, diffed) = (
        json.loads(line) for line in done.stderr.splitlines()[-3:])
    assert (help_code, check_code, diff_code) == (0, 0, 0), done.stderr
    assert "contract.cli" in helped
    assert set(helped).isdisjoint({"contract.checking.checker", "contract.reporting.reporters",
                                   "contract.reporting.ci_reports",
                                   *NEVER_FOR_CHECK})
    assert "contract.checking.checker" in checked  # the probe ran the verb
    assert set(checked).isdisjoint(NEVER_FOR_CHECK), sorted(set(checked) & NEVER_FOR_CHECK)
    assert {"contract.evolution.classify", "contract.evolution.surface"} <= set(diffed)
