"""The independent reading of `statement diff`, `statement merge` and `matrix`, driven as a black box.

Statements are made once per module by the CLI itself (the bundled reference, shards of it, a replay
build with one fault, folders of captures), on demand, and edited copies are derived from them as
cases/statements.json says; each case runs one verb and checks its exit status and what it names.
The words each case rests on: READINGS.md, "Statements".
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.independent.blackbox import (
    GOLDENS,
    ROOT,
    apply_edits,
    cli,
    load_cases,
    params,
    read_json,
    reseal,
    write_json,
)
from tests.support.depth import sample

pytestmark = pytest.mark.process

DATA = load_cases("statements")
CLAIMED_LEVELS = ("MUST", "MUST+SHOULD", "full", "none")


class Statements:
    """The statements of cases/statements.json, each made (or derived) the first time it is asked for."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.made = {spec["name"]: spec for spec in DATA["made"]}
        self.derived = {spec["name"]: spec for spec in DATA["derived"]}
        self.paths: dict[str, Path] = {}
        self.exits: dict[str, int] = {}

    def path(self, name: str) -> Path:
        if name not in self.paths:
            self.paths[name] = self._derive(name) if name in self.derived else self._make(name)
        return self.paths[name]

    def doc(self, name: str) -> dict[str, Any]:
        loaded: dict[str, Any] = read_json(self.path(name))
        return loaded

    def _make(self, name: str) -> Path:
        spec = self.made[name]
        captures = self.folder / "captures"  # one folder, so that its scenario names stay the same
        if "captures" in spec:
            captures.mkdir(exist_ok=True)
            for old in captures.glob("*.jsonl"):
                old.unlink()
            for file_name, source in spec["captures"].items():
                golden = (GOLDENS / f"{source['golden']}.jsonl").read_text(encoding="utf-8")
                lines = apply_edits([json.loads(line) for line in golden.splitlines()], source["edits"])
                text = "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines)
                (captures / file_name).write_text(text, encoding="utf-8")
        out = self.folder / f"{name}.json"
        words = {"{python}": sys.executable, "{root}": str(ROOT), "{captures}": str(captures)}
        argv = [_fill(arg, words) for arg in spec["argv"]]
        # the options before `--` (the build's command follows it)
        split = argv.index("--") if "--" in argv else len(argv)
        done = cli(*argv[:split], "--output", str(out), *argv[split:])
        assert out.is_file(), f"statement {name} was not written: {done.stderr}"
        self.exits[name] = done.returncode
        return out

    def _derive(self, name: str) -> Path:
        spec = self.derived[name]
        doc = apply_edits(self.doc(spec["from"]), spec["edits"])
        if spec.get("reseal", True):
            reseal(doc)
        return write_json(self.folder / f"{name}.json", doc)


def _fill(arg: str, words: dict[str, str]) -> str:
    for word, value in words.items():
        arg = arg.replace(word, value)
    return arg


@pytest.fixture(scope="module")
def statements(tmp_path_factory: pytest.TempPathFactory) -> Statements:
    return Statements(tmp_path_factory.mktemp("independent-statements"))


def _without_generated(doc: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in doc.items() if key != "generated"}


def _claimed_level(doc: dict[str, Any]) -> str | None:
    """The level a statement claims; a shard's ``none`` beside a note that names it a shard is no claim
    (the lead's resolution: the statement schema requires a level, and a shard's is the fail-closed
    ``none`` with ``level.note`` "shard I/N: merge the shards for a level")."""
    level = doc.get("level")
    achieved = level.get("achieved") if isinstance(level, dict) else level
    note = level.get("note") if isinstance(level, dict) else None
    if achieved == "none" and isinstance(note, str) and note.startswith("shard "):
        return None
    return achieved if achieved in CLAIMED_LEVELS else None


# every other build in the default run (a complete one and a drifting one kept), every build deep
EXITS = sample([spec for spec in DATA["made"] if "exit" in spec], 2)


@pytest.mark.parametrize("spec", [pytest.param(s, id=s["name"]) for s in EXITS])
def test_statement_exit_status(statements: Statements, spec: dict[str, Any]) -> None:
    """`statement` exits 0 when the build is MUST-complete, 1 otherwise (docs/statements.md)."""
    statements.path(spec["name"])
    assert statements.exits[spec["name"]] == spec["exit"]


@pytest.mark.parametrize("case", params(DATA["cases"], every=3, by="verb"))
def test_case(statements: Statements, case: dict[str, Any], tmp_path: Path) -> None:
    paths = [str(statements.path(name)) for name in case["inputs"]]
    verb = case["verb"]
    if verb == "inspect":
        doc = statements.doc(case["inputs"][0])
        assert doc.get("shard") == case["shard"]
        claimed = _claimed_level(doc)
        if case["claims_level"]:
            assert claimed == case["level"]
        else:
            assert claimed is None, f"a shard claims the level {claimed!r}"
        return
    if verb == "diff":
        done = cli("statement", "diff", *paths, "--format", "text")
    elif verb == "merge":
        merged = tmp_path / "merged.json"
        done = cli("statement", "merge", *paths, "--output", str(merged))
    elif verb == "matrix":
        done = cli("matrix", "--format", "markdown", *paths)
    else:
        raise AssertionError(f"unknown verb {verb!r}")
    shown = f"exit {done.returncode}\nstdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-2000:]}"
    assert "Traceback" not in done.stderr, shown
    if "exit" in case:
        assert done.returncode == case["exit"], shown
    else:
        assert done.returncode in case["exit_in"], shown
    if done.returncode == 2:
        assert len(done.stderr.strip().splitlines()) == 1, f"misuse is one line on stderr\n{shown}"
    for text in case.get("stdout_contains", []):
        assert text in done.stdout, shown
    for text in case.get("stdout_contains_ci", []):
        assert text.lower() in done.stdout.lower(), shown
    if case.get("names_missing_scenarios"):
        old, new = (set(statements.doc(name)["scenarios"]) for name in case["inputs"])
        missing = sorted(old - new)
        assert missing, "the case needs scenarios missing in the new statement"
        unnamed = [scenario for scenario in missing if scenario not in done.stdout]
        assert not unnamed, f"not named: {unnamed}\n{shown}"
    if "equals" in case:
        expected = statements.doc(case["equals"])
        got = read_json(merged)
        assert _without_generated(got) == _without_generated(expected)
        assert got["sha256"] == expected["sha256"]
