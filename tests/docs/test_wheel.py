"""The wheel ships the suite alone (issue 48): the ``contract`` package and its data, nothing else
at the top of site-packages.

It installed top-level ``tests``, ``tools`` and ``bench`` packages (``import tests`` resolved to
ours, and a user's pre-commit hook over a committed venv checked our fixtures as transcripts):
``[tool.hatch.build.targets.wheel]`` listed them, with ``modules``, ``mypy_path`` and ``exclude``
lines copied from ``[tool.mypy]`` (hatch reads ``exclude`` as gitignore patterns, so those
regexes excluded nothing). Here the wheel is built offline with hatchling's own builder (the
test extra has it) and read back; ``tox -e installed`` runs the shipped suite from it.
"""

from __future__ import annotations

import ast
import tomllib
import zipfile

import pytest

import contract
from tests.support.paths import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
DATA = ("schemas", "goldens", "requirements")  # top-level folders of the checkout, in the wheel under contract/_data
# the wheel builder's options (hatch.pypa.io, "Wheel" and "Build configuration"): nothing of mypy's
HATCH_WHEEL_OPTIONS = frozenset({
    "packages", "only-include", "include", "exclude", "sources", "force-include", "artifacts", "only-packages",
    "skip-excluded-dirs", "ignore-vcs", "reproducible", "directory", "dev-mode-dirs", "dev-mode-exact",
    "core-metadata-version", "shared-data", "shared-scripts", "extra-metadata", "strict-naming",
    "macos-max-compat", "bypass-selection", "require-runtime-dependencies", "require-runtime-features",
    "versions", "hooks",
})


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    builders = pytest.importorskip("hatchling.builders.wheel",
                                   reason="building the wheel needs hatchling (pip install -e '.[test]')")
    built = list(builders.WheelBuilder(str(ROOT)).build(directory=str(tmp_path_factory.mktemp("wheel")),
                                                        versions=["standard"]))
    assert len(built) == 1
    return zipfile.ZipFile(built[0])


def test_the_wheels_top_level_is_contract_and_its_metadata(wheel: zipfile.ZipFile) -> None:
    top = {name.split("/")[0] for name in wheel.namelist()}
    assert top == {"contract", f"milk_contract-{contract.__version__}.dist-info"}


def test_the_wheel_holds_the_shipped_suite_and_its_data(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    for folder in DATA:  # every data file of the checkout, at its place in the package
        files = {p.relative_to(ROOT).as_posix() for p in (ROOT / folder).rglob("*") if p.is_file()}
        assert files
        assert {f"contract/_data/{name}" for name in files} <= names, folder
    assert "contract/_data/accepted-breaks.json" in names
    assert "contract/py.typed" in names
    shipped = {p.relative_to(ROOT).as_posix() for p in (ROOT / "contract" / "tests").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    assert shipped <= names  # the suite pytest --pyargs contract runs, its surface snapshots with it
    assert not [name for name in names if "__pycache__" in name or name.endswith(".pyc")]


def test_the_package_imports_nothing_from_the_checkouts_other_folders() -> None:
    """What the wheel leaves out (tests, tools, bench, the root conftest) is never imported by what it ships."""
    outside = {"tests", "tools", "bench", "conftest", "fuzz", "examples"}
    found: list[str] = []
    for source in (ROOT / "contract").rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            found += [f"{source.relative_to(ROOT)}: {m}" for m in modules if m.split(".")[0] in outside]
    assert not found, found


def test_the_hatch_section_holds_hatchs_keys_only() -> None:
    section = PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert set(section) <= HATCH_WHEEL_OPTIONS, set(section) - HATCH_WHEEL_OPTIONS
    assert section["packages"] == ["contract"]
    assert set(section["force-include"].values()) == {f"contract/_data/{name}" for name in
                                                      (*DATA, "accepted-breaks.json")}


def test_tox_comes_with_the_test_extra() -> None:
    """The docs run tox (tox -e installed, test, deep, ...): installing the test extra gets it."""
    assert any(requirement.replace(" ", "").startswith("tox>=4") for requirement in
               PYPROJECT["project"]["optional-dependencies"]["test"])
    assert "tox>=4" in (ROOT / "tox.ini").read_text(encoding="utf-8")  # the version tox.ini requires


def test_the_sdist_still_carries_the_checkouts_tests_and_tools() -> None:
    include = set(PYPROJECT["tool"]["hatch"]["build"]["targets"]["sdist"]["include"])
    assert {"contract", "tests", "tools", "bench", *DATA, "tox.ini", "conftest.py"} <= include
    assert all((ROOT / path).exists() for path in include)


def test_hatch_reads_no_mypy_lines() -> None:
    """Near miss of the keys test: [tool.mypy] keeps its own lines, the wheel section none of them."""
    mypy = PYPROJECT["tool"]["mypy"]
    assert {"modules", "mypy_path", "exclude"} <= set(mypy)
    section = PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert not {"modules", "mypy_path"} & set(section)
    assert section.get("exclude") != mypy["exclude"]
