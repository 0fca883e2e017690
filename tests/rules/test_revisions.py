"""Frozen requirement sets (contract.rules.revisions): the latest revision of each wire equals the
catalog, stands on the pinned schema, and evolve writes the next one beside it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from contract.checking.checker import check
from contract.core.resources import data_dir
from contract.rules import revisions
from contract.rules.catalog import rules_for
from contract.wires import WIRES
from tests.support.paths import ROOT

BUNDLED = ("stream-json", "subagent-stdio")


@pytest.mark.parametrize("wire", BUNDLED)
def test_the_latest_set_is_the_catalog(wire: str) -> None:
    revision = revisions.current(wire)
    assert revision.startswith("r")
    path = revisions.folder(wire) / f"{revision}.json"
    assert path.read_text(encoding="utf-8") == revisions.render(revisions.generated(wire, revision)), (
        "stale: run python tools/requirement_sets.py")
    frozen = revisions.load(wire, revision)
    assert [r["id"] for r in frozen["rules"]] == [r.id for r in rules_for(wire)]
    pins = json.loads((data_dir("schemas") / "pins.json").read_text(encoding="utf-8"))
    assert frozen["schema_sha256"] == pins["sha256"][wire]  # the revision stands on the pinned schema


def test_every_bundled_wire_has_a_set() -> None:
    assert set(BUNDLED) <= set(WIRES)
    for wire in BUNDLED:  # (a synthetic wire a test registers has none: it is "unfrozen")
        assert revisions.numbers(wire), wire


def test_the_tool_check_finds_a_stale_set(tmp_path: Path) -> None:
    import subprocess
    import sys

    assert subprocess.run([sys.executable, str(ROOT / "tools" / "requirement_sets.py"), "--check"],
                          cwd=ROOT, capture_output=True, check=False).returncode == 0
    shutil.copytree(ROOT / "requirements", tmp_path / "requirements")
    latest = revisions.current("stream-json")  # r1 as shipped; later after an ADR's evolve
    path = revisions.folder("stream-json", tmp_path) / f"{latest}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["rules"][0]["level"] = "SHOULD" if data["rules"][0]["level"] == "MUST" else "MUST"
    path.write_text(revisions.render(data), encoding="utf-8")
    assert path.read_text(encoding="utf-8") != revisions.render(revisions.generated("stream-json", latest))
    revisions.write_latest("stream-json", tmp_path)
    assert path.read_text(encoding="utf-8") == revisions.render(revisions.generated("stream-json", latest))


def test_write_next_adds_a_revision_beside_the_previous(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "requirements", tmp_path / "requirements")
    shipped = revisions.numbers("stream-json", tmp_path)  # [1] as shipped; more after an ADR's evolve
    last = f"r{shipped[-1]}.json"
    before = (revisions.folder("stream-json", tmp_path) / last).read_bytes()
    schema = tmp_path / "new.schema.json"
    schema.write_bytes(b'{"type": "object"}\n')
    written = revisions.write_next("stream-json", tmp_path, schema)
    assert written.name == f"r{shipped[-1] + 1}.json"
    assert (revisions.folder("stream-json", tmp_path) / last).read_bytes() == before  # frozen
    assert revisions.numbers("stream-json", tmp_path) == [*shipped, shipped[-1] + 1]
    assert revisions.load("stream-json", written.stem, tmp_path)["schema_sha256"] != json.loads(before)["schema_sha256"]


def test_a_report_names_the_revision_it_judged_by() -> None:
    report = check(data_dir("goldens") / "stream-json" / "hello.jsonl")
    assert report.to_json()["revision"] == revisions.current("stream-json")
