"""The root conftest's xdist groups stay true: a module with a once-per-process fixture runs on one
worker, and so do the modules sharing a conftest's session fixture.

A static scan of the test modules: one that asks for a shared session fixture (the vectors' draw,
tests/consumers/conftest.py) must be named in the root conftest's ``SHARED_SETUP``, and every name
there must be a test module. Then the scheduler the root conftest gives pytest-xdist is asked how
it splits node ids into work units: a module defining a module-scoped fixture is one unit, found
without a list.
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support.paths import ROOT, TESTS


def _root_conftest() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_root_conftest", ROOT / "conftest.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _asks_for(path: Path, fixtures: set[str]) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(node, ast.FunctionDef) and {arg.arg for arg in node.args.args} & fixtures
               for node in ast.walk(tree))


def test_every_module_sharing_a_session_fixture_is_grouped() -> None:
    root = _root_conftest()
    shared: dict[str, str] = root.SHARED_SETUP
    modules = {p.relative_to(ROOT).as_posix() for p in TESTS.rglob("test_*.py")}
    assert set(shared) <= modules, f"not test modules: {sorted(set(shared) - modules)}"
    needing = {m for m in modules if _asks_for(ROOT / m, set(root.SHARED_SESSION_FIXTURES))}
    assert needing, "no module asks for the shared session fixtures: the list is stale"
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
    once = "tests/statement/test_statement.py"  # its three statements: a module fixture
    assert split(f"{once}::test_x") == split(f"{once}::test_y[1]") == once
    free = ["tests/checking/test_edges.py::test_a", "tests/checking/test_edges.py::test_b"]
    assert [split(n) for n in free] == free  # everything else is a unit of its own, as --dist load


def test_auto_takes_two_workers_a_core() -> None:
    workers_for = _root_conftest().workers_for
    assert [workers_for(cores) for cores in (1, 2, 8)] == [2, 4, 16]  # a worker waits on a child, another runs


def test_a_dist_the_user_chose_is_left_to_xdist() -> None:
    class Chosen(_Config):
        def getoption(self, name: str) -> Any:
            return {"dist": "loadfile"}.get(name)

    assert _root_conftest().pytest_xdist_make_scheduler(Chosen(), None) is None


@pytest.mark.process  # starts pytest
def test_the_root_conftest_loads_without_xdist(tmp_path: Path) -> None:
    """xdist's hooks are optional: without them pluggy refused the conftest ("unknown hook
    'pytest_xdist_auto_num_workers'", exit 3) under ``-p no:xdist`` or wherever xdist is absent."""
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert True\n", encoding="utf-8")
    (tmp_path / "conftest.py").write_bytes((ROOT / "conftest.py").read_bytes())
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider",
                           "--strict-markers", "-W", "error", "-q", str(tmp_path / "test_one.py")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "1 passed" in done.stdout
