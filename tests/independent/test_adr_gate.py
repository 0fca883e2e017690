"""The independent reading of the ADR gate: `milk-contract diff OLD NEW` on schema pairs, as a black box.

OLD is a seed as it is (the pinned copies in ``tests/support/seeds/``, so that a checkout whose schema
an ADR evolved judges the same pairs), NEW the seed with a case's edits (cases/adr_gate.json),
both written to a temporary folder: the seeds stay untouched. Each case is judged by the exit
status and the JSON report (``breaking``, ``counts``, each change's ``kind`` and ``breaks``).
`evolve --dry-run` runs in a copy of the checkout (``--root``), which it must leave as it was. The
words each verdict rests on: READINGS.md, "The ADR gate".
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.independent.blackbox import ROOT, SCHEMAS, apply_edits, cli, load_cases, params, read_json, write_json

pytestmark = pytest.mark.process

DATA = load_cases("adr_gate")


SEEDS = ROOT / "tests" / "support" / "seeds"  # the seeds byte for byte (tests/support/seeds.py pins them)


def diff(wire: str, edits: list[dict[str, Any]], folder: Path) -> tuple[int, dict[str, Any], str]:
    """``diff --format json`` of the seed of ``wire`` against the seed with ``edits``."""
    seed = read_json(SEEDS / f"{wire}.schema.json")
    old = write_json(folder / "old.schema.json", seed)
    new = write_json(folder / "new.schema.json", apply_edits(seed, edits))
    done = cli("diff", "--format", "json", str(old), str(new))
    shown = f"exit {done.returncode}\nstdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-1500:]}"
    assert "Traceback" not in done.stderr, shown
    report: dict[str, Any] = json.loads(done.stdout) if done.returncode in (0, 1) else {}
    return done.returncode, report, shown


@pytest.mark.parametrize("case", params(DATA["cases"], every=3, by="expect"))
def test_case(case: dict[str, Any], tmp_path: Path) -> None:
    status, report, shown = diff(case["wire"], case["edits"], tmp_path)
    expect = case["expect"]
    if expect == "breaking":
        assert status == 1, shown
        assert report["breaking"] is True, shown
        if "breaks" in case:
            whom = {change.get("breaks") for change in report["changes"] if change["kind"] == "breaking"}
            assert case["breaks"] in whom, f"breaking for {sorted(map(str, whom))}\n{shown}"
        return
    assert status == 0, shown
    assert report["breaking"] is False, shown
    if expect == "none":
        assert report["changes"] == [], shown
    elif expect == "additive":
        assert report["counts"]["additive"] >= 1, shown
    else:
        assert expect == "not-breaking", f"unknown expectation {expect!r}"


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the checkout for `evolve` (no .git, no venv, no caches)."""
    copy = tmp_path_factory.mktemp("independent-evolve") / "checkout"
    ignored = shutil.ignore_patterns(".git", ".venv", ".tox", "__pycache__", "*.egg-info", ".hypothesis")
    shutil.copytree(ROOT, copy, ignore=ignored)
    return copy


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("case", params(DATA["evolve_cases"]))
def test_evolve_dry_run(case: dict[str, Any], checkout: Path, tmp_path: Path) -> None:
    """`evolve --dry-run` classifies as `diff` does, refuses what it must, and writes nothing."""
    seed = read_json(SCHEMAS / f"{case['wire']}.schema.json")
    new = write_json(tmp_path / "new.schema.json", apply_edits(seed, case["edits"]))
    watched = [checkout / "schemas", checkout / "requirements", checkout / "accepted-breaks.json"]
    before = [_snapshot(p) if p.is_dir() else p.read_bytes() for p in watched]
    done = cli("evolve", "--wire", case["wire"], "--dry-run", "--root", str(checkout), str(new), cwd=checkout)
    shown = f"exit {done.returncode}\nstdout:\n{done.stdout[-2000:]}\nstderr:\n{done.stderr[-1500:]}"
    assert "Traceback" not in done.stderr, shown
    assert done.returncode in case.get("exit_in", [case.get("exit")]), shown
    assert [_snapshot(p) if p.is_dir() else p.read_bytes() for p in watched] == before, "evolve --dry-run wrote"


def _stream_json_members() -> list[str]:
    seed = read_json(SEEDS / "stream-json.schema.json")
    return sorted(seed["properties"])


@pytest.mark.deep
@pytest.mark.parametrize("member", _stream_json_members())
def test_sweep_every_stream_json_member_removed_or_required(member: str, tmp_path: Path) -> None:
    """Every top-level member, removed (in both places) or made required: breaking, whichever it is.

    The seed: "Evolution is additive-only within capability stream_v1; any shape change requires a
    superseding ADR". A member removed breaks whoever reads it; one made required fails every line
    an emitter wrote without it.
    """
    removed = [{"op": "remove", "path": f"{base}/properties/{member}"} for base in ("", "/$defs/event")]
    status, report, shown = diff("stream-json", removed, tmp_path)
    assert status == 1, shown
    assert report["breaking"] is True, shown
    if member in read_json(SEEDS / "stream-json.schema.json")["required"]:
        return
    required = [{"op": "append", "path": f"{base}/required", "value": member} for base in ("", "/$defs/event")]
    status, report, shown = diff("stream-json", required, tmp_path)
    assert status == 1, shown
    assert report["breaking"] is True, shown
