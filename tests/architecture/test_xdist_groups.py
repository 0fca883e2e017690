"""The root conftest's xdist groups stay true: every module with a costly once-per-process fixture runs
on one worker, and the scheduler really keeps it there.

A static scan of the test modules: a module that defines a module- or session-scoped fixture, or
asks for one of the session fixtures of tests/consumers/conftest.py, must be named in the root
conftest's ``SHARED_SETUP``, and every name there must be a test module. Then the scheduler the
root conftest gives pytest-xdist is asked how it splits node ids into work units.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support.paths import ROOT, TESTS

SESSION_FIXTURES = {"drawn_vectors", "exported_vectors"}  # tests/consumers/conftest.py


def _root_conftest() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_root_conftest", ROOT / "conftest.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _once_per_process(path: Path) -> bool:
    """True when the module defines a module/session fixture or asks for a shared session one."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            if {arg.arg for arg in node.args.args} & SESSION_FIXTURES:
                return True
            scopes = [kw.value for d in node.decorator_list if isinstance(d, ast.Call) for kw in d.keywords
                      if kw.arg == "scope"]
            if any(isinstance(v, ast.Constant) and v.value in ("module", "session") for v in scopes):
                return True
    return False


def test_every_module_with_a_once_per_process_fixture_is_grouped() -> None:
    shared: dict[str, str] = _root_conftest().SHARED_SETUP
    modules = {p.relative_to(ROOT).as_posix() for p in TESTS.rglob("test_*.py")}
    assert set(shared) <= modules, f"not test modules: {sorted(set(shared) - modules)}"
    needing = {m for m in modules if _once_per_process(ROOT / m)}
    assert needing <= set(shared), f"add to the root conftest's SHARED_SETUP: {sorted(needing - set(shared))}"


class _Config:
    """What the load-scope scheduler reads of a config: two popen workers, biggest units first."""

    class option:
        loadscopereorder = True
        numprocesses = 2

    def getoption(self, name: str) -> Any:
        return {"dist": "load"}.get(name)

    def getvalue(self, name: str) -> Any:
        return {"tx": ["popen", "popen"], "numprocesses": 2}.get(name)


def test_the_scheduler_keeps_a_group_together_and_spreads_the_rest() -> None:
    pytest.importorskip("xdist")
    scheduler = _root_conftest().pytest_xdist_make_scheduler(_Config(), None)
    split = scheduler._split_scope
    a = split("tests/consumers/test_vectors.py::test_one")
    assert a == split("tests/consumers/test_node_vectors.py::test_two[x::y]") == "vectors"
    assert split("tests/statement/test_statement.py::test_x") == "statements"
    free = ["tests/checking/test_edges.py::test_a", "tests/checking/test_edges.py::test_b"]
    assert [split(n) for n in free] == free  # everything else is a unit of its own, as --dist load


def test_a_dist_the_user_chose_is_left_to_xdist() -> None:
    class Chosen(_Config):
        def getoption(self, name: str) -> Any:
            return {"dist": "loadfile"}.get(name)

    assert _root_conftest().pytest_xdist_make_scheduler(Chosen(), None) is None
