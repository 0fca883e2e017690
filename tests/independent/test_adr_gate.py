"""The independent reading of the ADR gate: `milk-contract diff OLD NEW` on schema pairs, as a black box.

OLD is a seed as it is (``schemas/``), NEW the seed with a case's edits (cases/adr_gate.json),
both written to a temporary folder: the seeds stay untouched. Each case is judged by the exit
status and the JSON report (``breaking``, ``counts``, each change's ``kind`` and ``breaks``). The
words each verdict rests on: READINGS.md, "The ADR gate".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.independent.blackbox import SCHEMAS, apply_edits, cli, load_cases, params, read_json, write_json

pytestmark = pytest.mark.process

DATA = load_cases("adr_gate")


def diff(wire: str, edits: list[dict[str, Any]], folder: Path) -> tuple[int, dict[str, Any], str]:
    """``diff --format json`` of the seed of ``wire`` against the seed with ``edits``."""
    seed = read_json(SCHEMAS / f"{wire}.schema.json")
    old = write_json(folder / "old.schema.json", seed)
    new = write_json(folder / "new.schema.json", apply_edits(seed, edits))
    done = cli("diff", "--format", "json", str(old), str(new))
    shown = f"exit {done.returncode}\nstdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-1500:]}"
    assert "Traceback" not in done.stderr, shown
    report: dict[str, Any] = json.loads(done.stdout) if done.returncode in (0, 1) else {}
    return done.returncode, report, shown


@pytest.mark.parametrize("case", params(DATA["cases"]))
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
