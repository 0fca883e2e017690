"""What an ADR's schema does to the checkout, told before writing; record after an accepted break (issue 36).

``evolve`` names the goldens the new schema does not accept (each with its first finding), the
migration that fixes them, the volatile declaration and code that spell a changed member, and the
accepted-breaks entries the surface gate will need; ``--accept`` writes those with the schema.
The gate takes a corpus change that an accepted schema break implies (a renamed member no longer
seen) without an entry of its own, and no other. ``record`` reports an accepted break as
accepted, and a record that reports a breaking change rewrites nothing. The ADR schemas are made
here, in copies of the checkout; the repository's schemas are never touched.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from contract import cli
from contract.evolution.gate import Accepted, evaluate
from contract.evolution.surface import surface_of
from tests.support.paths import TESTS
from tests.support.project_copy import copy_project, git, run_in

pytestmark = pytest.mark.process  # copies of the checkout, emitters started (pyproject.toml: markers)

SCHEMA = Path("schemas") / "stream-json.schema.json"
EMITTERS = TESTS / "emitters"


@pytest.fixture(scope="module")
def _shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory.mktemp("consequences") / "milk-contract")


@pytest.fixture
def clean(_shared: Path) -> Iterator[Path]:
    yield _shared
    git(_shared, "checkout", "--", ".")
    git(_shared, "clean", "-fdq")


def _renamed(copy: Path, old: str, new: str) -> Path:
    """An ADR schema of this test's own: ``old`` renamed to ``new`` in both places that list it."""
    schema = json.loads((copy / SCHEMA).read_text(encoding="utf-8"))
    for where in (schema["properties"], schema["$defs"]["event"]["properties"]):
        where[new] = where.pop(old)
    path = copy.parent / f"rename-{old}.schema.json"
    path.write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
    return path


def _cli(capsys: pytest.CaptureFixture[str], verb: str, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli.run([verb, *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _goldens(copy: Path) -> list[Path]:
    return sorted((copy / "goldens" / "stream-json").glob("*.jsonl"))


def _showing(copy: Path, member: str) -> list[str]:
    return [p.stem for p in _goldens(copy)
            if any(member in json.loads(line) for line in p.read_text(encoding="utf-8").splitlines())]


# -- evolve tells the whole consequence ----------------------------------------------------------


def test_evolve_tells_a_renames_whole_consequence_and_writes_nothing(
        clean: Path, capsys: pytest.CaptureFixture[str]) -> None:
    adr = _renamed(clean, "num_turns", "turn_count")
    showing = _showing(clean, "num_turns")
    code, out, _ = _cli(capsys, "evolve", "--root", str(clean), "--wire", "stream-json", str(adr), "--adr", "ADR-0301")
    assert code == 1
    total = len(_goldens(clean))
    assert f"goldens   {len(showing)} of {total} stream-json goldens are not valid under the new schema" in out
    for name in showing:  # each golden, with its first finding
        assert f"            {name}: line " in out
    assert "'num_turns' was unexpected" in out
    assert '{"wire": "stream-json", "path": "num_turns", "code": "field-renamed", "adr": "ADR-0301"}' in out
    assert "corpus:" not in out  # the goldens' consequence is implied by the accepted rename
    assert f"next      milk-contract migrate --wire stream-json --schema {adr} --rename num_turns=turn_count" in out
    assert "code      num_turns is named in code: tests/" in out  # this checkout's tests spell it
    assert "volatile" not in out  # near miss: num_turns varies on no run
    assert git(clean, "status", "--porcelain") == ""


def test_evolve_names_the_volatile_declaration_of_a_changed_member(
        clean: Path, capsys: pytest.CaptureFixture[str]) -> None:
    declaration = clean / "contract" / "wires" / "stream_json" / "volatile.py"
    line = next(n for n, text in enumerate(declaration.read_text(encoding="utf-8").splitlines(), 1)
                if '"/duration_ms"' in text)
    adr = _renamed(clean, "duration_ms", "elapsed_ms")
    _, out, _ = _cli(capsys, "evolve", "--root", str(clean), "--dry-run", "--wire", "stream-json", str(adr))
    assert (f"volatile  duration_ms is volatile: the declaration in contract/wires/stream_json/volatile.py:{line} "
            "names it (/duration_ms); rename it there (to /elapsed_ms)") in out


def test_accept_needs_an_adr_and_a_schema_its_goldens_meet(clean: Path, capsys: pytest.CaptureFixture[str]) -> None:
    adr = _renamed(clean, "num_turns", "turn_count")
    code, _, err = _cli(capsys, "evolve", "--root", str(clean), "--wire", "stream-json", str(adr), "--accept")
    assert code == 2
    assert "--adr" in err
    code, out, _ = _cli(capsys, "evolve", "--root", str(clean), "--wire", "stream-json", str(adr), "--accept",
                        "--adr", "ADR-0301")
    assert code == 1  # the goldens are not migrated yet: nothing written, the migrate command named
    assert "would not be valid under the new schema; nothing was written" in out
    assert git(clean, "status", "--porcelain") == ""


def test_migrated_then_accepted_writes_the_entry_with_the_schema(
        clean: Path, capsys: pytest.CaptureFixture[str]) -> None:
    adr = _renamed(clean, "num_turns", "turn_count")
    root = ("--root", str(clean), "--wire", "stream-json")
    assert _cli(capsys, "migrate", *root, "--schema", str(adr), "--rename", "num_turns=turn_count")[0] == 0
    code, out, _ = _cli(capsys, "evolve", *root, str(adr), "--adr", "ADR-0301", "--accept")
    assert code == 0, out
    assert "1 accepted break in accepted-breaks.json" in out
    entries = json.loads((clean / "accepted-breaks.json").read_text(encoding="utf-8"))["accepted"]
    assert [(e["path"], e["code"]) for e in entries if e["adr"] == "ADR-0301"] == [("num_turns", "field-renamed")]


# -- the gate: a corpus change implied by an accepted break --------------------------------------


def _surfaces(tmp_path: Path, edit_schema: Callable[[dict[str, Any]], None],
              edit_line: Callable[[dict[str, Any]], None]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The stored surface (the checkout's) and one with the schema and the goldens edited."""
    from contract.core.resources import data_dir, schema_path

    schema = json.loads(schema_path("stream-json").read_text(encoding="utf-8"))
    stored = {**surface_of(schema, "stream-json", data_dir("goldens")), "accepted_breaks": []}
    shutil.copytree(data_dir("goldens") / "stream-json", tmp_path / "stream-json")
    for path in (tmp_path / "stream-json").glob("*.jsonl"):
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        for line in lines:
            edit_line(line)
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    edited = json.loads(json.dumps(schema))
    edit_schema(edited)
    return stored, surface_of(edited, "stream-json", tmp_path)


def _rename_in(where: dict[str, Any], old: str, new: str) -> None:
    if old in where:
        where[new] = where.pop(old)


def test_the_gate_takes_the_corpus_consequence_of_an_accepted_rename(tmp_path: Path) -> None:
    def schema(s: dict[str, Any]) -> None:
        for where in (s["properties"], s["$defs"]["event"]["properties"]):
            _rename_in(where, "num_turns", "turn_count")

    stored, current = _surfaces(tmp_path, schema, lambda line: _rename_in(line, "num_turns", "turn_count"))
    entry = Accepted("stream-json", "num_turns", "field-renamed", "ADR-0301")
    assert evaluate("stream-json", stored, current, [entry]).refused == []
    refused = evaluate("stream-json", stored, current, []).refused  # near miss: no entry
    assert {c.code for c in refused} == {"field-renamed", "field-no-longer-seen"}


def test_a_member_no_longer_seen_while_the_schema_keeps_it_needs_its_own_entry(tmp_path: Path) -> None:
    """The near miss: the goldens stopped showing a member the schema still has; an accepted break of
    another member implies nothing about it."""
    stored, current = _surfaces(tmp_path, lambda s: None, lambda line: line.pop("num_turns", None))
    unrelated = Accepted("stream-json", "ttft_ms", "field-renamed", "ADR-0301")
    refused = evaluate("stream-json", stored, current, [unrelated]).refused
    assert refused
    assert {c.code for c in refused} == {"field-no-longer-seen"}


# -- record after an accepted break --------------------------------------------------------------


def test_record_after_an_accepted_break_reports_it_accepted(clean: Path, capsys: pytest.CaptureFixture[str]) -> None:
    adr = _renamed(clean, "num_turns", "turn_count")
    # the schema first (the goldens re-recorded next, from a build that follows the ADR)
    code, out, _ = _cli(capsys, "evolve", "--root", str(clean), "--wire", "stream-json", str(adr), "--adr",
                        "ADR-0301", "--accept", "--then-record")
    assert code == 0, out
    assert "next: milk-contract record" in out
    build = ["--", sys.executable, str(EMITTERS / "rename_result_field.py"), "num_turns", "turn_count"]
    # in the copy's own process: record judges with the schema of the package it runs from
    done = run_in(clean, "-m", "contract", "record", "--wire", "stream-json", "--dry-run", *build)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 breaking, 1 accepted by ADR" in done.stdout
    assert "breaking removed" not in done.stdout
    done = run_in(clean, "-m", "contract", "record", "--wire", "stream-json", *build)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "re-recorded" in done.stdout
    assert _showing(clean, "num_turns") == []
    assert _showing(clean, "turn_count")


def test_a_record_that_reports_a_break_rewrites_nothing(clean: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No entry accepts it: every golden kept, even those whose runs were fine."""
    build = ["--", sys.executable, str(EMITTERS / "drop_result_field.py"), "num_turns"]
    code, out, _ = _cli(capsys, "record", "--goldens", str(clean / "goldens"), "--wire", "stream-json", *build)
    assert code == 1
    assert "breaking removed" in out
    assert "nothing rewritten" in out
    assert "would change" in out
    assert git(clean, "status", "--porcelain") == ""
