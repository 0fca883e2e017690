"""The gate, proven end to end: the real contract/tests/test_surface.py run by pytest on copies.

Each test builds a throwaway root (schema copies, an empty golden corpus, an accepted-breaks
file, a copy of the surface test), points the test at it through MILK_CONTRACT_SURFACE_ROOT and
runs pytest in-process (pytester), with and without ``--snapshot-update``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from contract.evolution.gate import ACCEPTED_NAME, ROOT_ENV
from contract.wires import BUNDLED as WIRES  # the shipped wires: their schemas are the checkout's
from contract.wires import NAMES
from tests.support.paths import ROOT

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

pytest_plugins = ["pytester"]

REPO = ROOT
SURFACE_TEST = REPO / "contract" / "tests" / "test_surface.py"
COPY = "test_gate_copy.py"  # not test_surface.py: the outer session may hold that module name
STATUS = "/$defs/node/properties/status/enum"
# the gate test runs once per registered wire; the edits below touch subagent-stdio only
ALL = len(WIRES)
# a wire registered beside the package (the session's synthetic one) has no snapshot: skipped, said so
OTHERS = len(NAMES) - len(WIRES)
STATUS_PATHS = ("response.data.runs[].status", "event.snapshot.runs[].status")


class Root:
    """A throwaway checkout for the gate: schemas, goldens, accepted breaks and the test."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        self.path = pytester.path
        (self.path / "schemas").mkdir()
        (self.path / "goldens").mkdir()
        for wire in WIRES:
            shutil.copy(REPO / "schemas" / f"{wire}.schema.json", self.path / "schemas")
        shutil.copy(SURFACE_TEST, self.path / COPY)
        self.accept([])

    def schema(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self._schema_file().read_text(encoding="utf-8"))
        return data

    def write_schema(self, schema: dict[str, Any]) -> None:
        self._schema_file().write_text(json.dumps(schema, indent=2), encoding="utf-8")

    def _schema_file(self) -> Path:
        return self.path / "schemas" / "subagent-stdio.schema.json"

    def accept(self, entries: list[dict[str, str]]) -> None:
        (self.path / ACCEPTED_NAME).write_text(json.dumps({"accepted": entries}),
                                              encoding="utf-8")

    def snapshot_text(self) -> str:
        [found] = self.path.glob("__snapshots__/*/*subagent-stdio*.json")
        return found.read_text(encoding="utf-8")

    def run(self, *args: str) -> pytest.RunResult:
        # Only syrupy is needed; other plugins (hypothesis imports itself lazily at the end
        # of every session, and pytester discards it each time) cost seconds per run.
        quiet = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:xdist",
                 "-p", "no:milk_contract", "--assert=plain", "--import-mode=importlib", "-q")
        return self.pytester.runpytest_inprocess(*quiet, COPY, *args)


@pytest.fixture
def root(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Root:
    made = Root(pytester)
    monkeypatch.setenv(ROOT_ENV, str(made.path))
    made.run("--snapshot-update").assert_outcomes(passed=ALL, skipped=OTHERS)
    return made


def _drop_detached(root: Root) -> None:
    schema = root.schema()
    schema["$defs"]["node"]["properties"]["status"]["enum"].remove("detached")
    root.write_schema(schema)


def _entries(adr: str = "ADR-0099") -> list[dict[str, str]]:
    return [{"wire": "subagent-stdio", "path": p, "code": "enum-value-removed", "adr": adr}
            for p in STATUS_PATHS]


def test_unchanged_surface_passes(root: Root) -> None:
    root.run().assert_outcomes(passed=ALL, skipped=OTHERS)


def test_breaking_edit_fails_even_under_snapshot_update(root: Root) -> None:
    before = root.snapshot_text()
    _drop_detached(root)
    result = root.run("--snapshot-update")
    result.assert_outcomes(passed=ALL - 1, failed=1, skipped=OTHERS)
    result.stdout.fnmatch_lines(["*BREAKING change to the subagent-stdio wire*",
                                 "*event.snapshot.runs[[]].status*enum-value-removed*"])
    assert root.snapshot_text() == before, "the stored snapshot must not record the break"
    root.run().assert_outcomes(passed=ALL - 1, failed=1, skipped=OTHERS)  # and it stays refused


def test_accepted_break_passes_once_recorded(root: Root) -> None:
    _drop_detached(root)
    root.accept(_entries())
    pending = root.run()
    pending.assert_outcomes(passed=ALL - 1, failed=1, skipped=OTHERS)
    pending.stdout.fnmatch_lines(["*accepted by ADR*ADR-0099*"])
    root.run("--snapshot-update").assert_outcomes(passed=ALL, skipped=OTHERS)
    assert "ADR-0099" in root.snapshot_text()
    root.run().assert_outcomes(passed=ALL, skipped=OTHERS)  # the recorded entries are not stale afterwards


def test_stale_entry_fails(root: Root) -> None:
    root.accept([{"wire": "subagent-stdio", "path": "command.id", "code": "pattern-removed",
                  "adr": "ADR-0100"}])
    result = root.run("--snapshot-update")
    result.assert_outcomes(passed=ALL - 1, failed=1, skipped=OTHERS)
    result.stdout.fnmatch_lines(["*stale entries*", "*command.id*pattern-removed*"])


def test_additive_edit_fails_until_updated_and_says_nothing_breaks(root: Root) -> None:
    schema = root.schema()
    schema["$defs"]["node"]["properties"]["model"] = {"type": "string"}
    root.write_schema(schema)
    result = root.run()
    result.assert_outcomes(passed=ALL - 1, failed=1, skipped=OTHERS)
    result.stdout.fnmatch_lines(["*Every change is additive: nothing breaks*",
                                 "*runs[[]].model: new optional field*"])
    root.run("--snapshot-update").assert_outcomes(passed=ALL, skipped=OTHERS)
    root.run().assert_outcomes(passed=ALL, skipped=OTHERS)
