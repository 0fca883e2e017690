"""The wires' generators (``contract/wires/<wire>/kit/cases``, ``.../kit/goldens.py``) write the committed files.

``tools/make_cases.py`` and ``tools/make_goldens.py`` only run them; the files they write are the
artifact the suite reads, so a generator that drifted from them (or a hand edit of a generated
file) fails here rather than at the next regeneration. Each runs into a copy: the case files into a
copy of tests/ (a merge keeps the cases kept by hand), the goldens into an empty folder.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from contract.goldens.authoring import AuthoringError, write_golden
from contract.wires.casefiles import CaseFiles, case
from contract.wires.stream_json.kit import cases as stream_json_cases
from contract.wires.stream_json.kit import goldens as stream_json_goldens
from contract.wires.subagent_stdio.kit import cases as subagent_stdio_cases
from contract.wires.subagent_stdio.kit import goldens as subagent_stdio_goldens
from tests.support.paths import ROOT, TESTS
from tests.support.seeds import SEED_DIGESTS, seed_bytes

CASE_FOLDERS = [TESTS / "cases" / "line", *sorted((TESTS / "wires").glob("*/cases"))]


def _files(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file() and "__pycache__" not in path.parts}


def test_the_case_generators_write_the_committed_case_files(tmp_path: Path) -> None:
    copy = tmp_path / "tests"
    for folder in CASE_FOLDERS:
        shutil.copytree(folder, copy / folder.relative_to(TESTS))
    files = CaseFiles(copy)
    stream_json_cases.write_cases(files)
    subagent_stdio_cases.write_cases(files)
    assert _files(copy) == {f"{folder.relative_to(TESTS).as_posix()}/{name}": data
                            for folder in CASE_FOLDERS for name, data in _files(folder).items()}


def test_a_written_case_file_is_rewritten_whole_and_a_merged_one_keeps_what_was_kept_by_hand(tmp_path: Path) -> None:
    files = CaseFiles(tmp_path)
    files.write("line", "line.x", "w", [case("old", True)])
    files.write("line", "line.x", "w", [case("new", False)])
    assert (tmp_path / "cases" / "line" / "line.x.json").read_text() == \
        '{"rule": "line.x", "wire": "w", "cases": [\n    {"description": "new", "fires": false}\n]}\n'
    files.write("w", "w.y", "w", [case("by hand", True), case("generated", True)])
    files.merge("w", "w.y", "w", [case("generated", False)])
    kept = (tmp_path / "wires" / "w" / "cases" / "w.y.json").read_text()
    assert kept.index('"by hand"') < kept.index('"generated", "fires": false')
    assert '"generated", "fires": true' not in kept


def test_the_golden_generators_write_the_committed_goldens(tmp_path: Path) -> None:
    """Every golden the generators write is committed as written. A golden recorded since (``milk-contract
    scenario``) is no generator's and stays out of it; so do the goldens of a wire whose schema an ADR
    evolved (``evolve`` migrates them: the generators write the seed's), said in a skip after the rest held."""
    stream_json_goldens.write_goldens(tmp_path)
    subagent_stdio_goldens.write_goldens(tmp_path)
    evolved = sorted(wire for wire in SEED_DIGESTS
                     if (ROOT / "schemas" / f"{wire}.schema.json").read_bytes() != seed_bytes(wire))
    made = {name: data for name, data in _files(tmp_path).items() if name.split("/")[0] not in evolved}
    committed = _files(ROOT / "goldens")
    assert made, "the generators wrote no golden of an unevolved wire"
    assert {name: committed.get(name) for name in made} == made
    if evolved:
        pytest.skip(f"the goldens of {', '.join(evolved)} are not compared: an ADR evolved the schema and "
                    "evolve migrated them (the generators write the seed's)")


def test_a_scenario_that_breaks_a_rule_is_not_written(tmp_path: Path) -> None:
    run = stream_json_goldens.sj_hello()
    del run.lines[-1]  # no result line: sj.result-last
    with pytest.raises(AuthoringError, match=r"sj\.result-last"):
        write_golden(tmp_path, "stream-json", "hello", run.lines, {})
    assert not (tmp_path / "stream-json").exists()
