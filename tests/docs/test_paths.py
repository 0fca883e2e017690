"""Every path to a file of the checkout that the docs, the configuration or a module's text names
is there (issue 48: docs/development.md and a pyproject comment still said contract/plugin.py after
the plugin became a package). A path that names no file on purpose (a placeholder, a file of a
tutorial's wire, a path inside a golden) is listed below with why."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.paths import ROOT

_PATH = re.compile(r"(?<![\w./<-])(?:contract|tests|tools|bench|docs|schemas|goldens|examples|requirements|fuzz)"
                   r"/[\w./-]*?\.(?:py|md|json|jsonl|toml|ini|yaml|txt)\b")
NOT_FILES = {
    "schemas/W.schema.json": "a placeholder for a wire's schema (contract/evolution/evolve.py)",
    "tests/emitters/NAME.py": "a placeholder for an emitter double (tests/emitters/_in_process.py)",
    "schemas/audit-log.schema.json": "the adding-a-wire walk-through's step (docs/extending.md)",
    "tests/wires/stream_json/cases/sj.tool-use-unique.json": "the adding-a-rule walk-through's rule",
    "requirements/stream-json/r2.json": "a revision an ADR walk writes (docs/adr-walk.md)",
    "tests/test_migrations.py": "a command inside a golden: milk's tool running a project's tests",
    "tests/test_emitter.py": "pytest's node id of the shipped suite run with --pyargs (contract/tests/)",
}
IN_THE_WHEEL = "contract/_data/"  # where the top-level data folders are in the installed package


def _texts() -> list[Path]:
    return sorted({*(ROOT / "docs").glob("*.md"), ROOT / "README.md", ROOT / "BENCHMARKS.md",
                   ROOT / "pyproject.toml", ROOT / "tox.ini", ROOT / "conftest.py",
                   *(p for folder in ("contract", "tests", "tools", "bench") for p in (ROOT / folder).rglob("*.py"))}
                  - {Path(__file__).resolve()})


def test_every_named_path_is_there() -> None:
    missing: dict[str, list[str]] = {}
    for text in _texts():
        for path in set(_PATH.findall(text.read_text(encoding="utf-8"))):
            if path not in NOT_FILES and not path.startswith(IN_THE_WHEEL) and not (ROOT / path).exists():
                missing.setdefault(path, []).append(text.relative_to(ROOT).as_posix())
    assert not missing, missing


def test_the_scan_finds_paths_and_the_exceptions_are_still_named() -> None:
    found = {path for text in _texts() for path in _PATH.findall(text.read_text(encoding="utf-8"))}
    assert "contract/plugin/__init__.py" in found  # near miss: a real path is found, and is there
    assert "contract/plugin.py" not in found
    assert set(NOT_FILES) <= found, set(NOT_FILES) - found  # an exception no text names any more goes
