"""The golden corpus itself: every golden is clean wire data, described, and together complete.

Ships in the package (``pytest --pyargs contract``), so it runs against the installed goldens.
"""

from __future__ import annotations

import json

import pytest

import contract
from contract.checking import coverage
from contract.goldens import compare as golden_compare
from contract.goldens import store as goldens
from contract.wires import WIRES, Live, get

SCENARIOS = goldens.all_scenarios()
IDS = [f"{g.wire}/{g.name}" for g in SCENARIOS]


def test_every_wire_has_its_goldens() -> None:
    """Each wire ships at least the goldens its descriptor says (``Coverage.goldens``), and one."""
    counts = {name: len(goldens.scenarios(name)) for name in WIRES}
    assert all(counts[name] >= max(1, wire.coverage.goldens) for name, wire in WIRES.items()), counts


@pytest.mark.parametrize("golden", SCENARIOS, ids=IDS)
def test_golden_is_conformant_strict(golden: goldens.Golden) -> None:
    report = contract.check(golden.data(), wire=golden.wire, strict=True)
    found = [f"{v.line}:{v.pointer} {v.rule} {v.message}" for v in report.violations]
    assert found == [], f"{golden.wire}/{golden.name} is not clean:\n" + "\n".join(found)


@pytest.mark.parametrize("golden", SCENARIOS, ids=IDS)
def test_golden_meta_validates(golden: goldens.Golden) -> None:
    meta = json.loads(golden.meta_path.read_text(encoding="utf-8"))
    assert goldens.meta_errors(meta) == []
    assert golden.reproduce.argv, "a scenario names its own emitter arguments"
    if golden.descriptor.live is Live.CONVERSATION:
        assert golden.reproduce.stdin_from_transcript
        assert golden.commands(), "a subagent conversation holds the client's commands"


@pytest.mark.parametrize("wire", goldens.WIRES)
def test_every_transcript_has_meta_and_back(wire: str) -> None:
    folder = get(wire).goldens_dir
    transcripts = {p.name[: -len(goldens.TRANSCRIPT)] for p in folder.glob("*.jsonl")}
    metas = {p.name[: -len(goldens.META)] for p in folder.glob("*" + goldens.META)}
    assert transcripts == metas


@pytest.mark.parametrize("golden", SCENARIOS, ids=IDS)
def test_golden_compares_equal_to_itself(golden: goldens.Golden) -> None:
    comparison = golden_compare.compare(golden.data(), golden.data(), golden.wire)
    assert comparison.equal, comparison.summary()


@pytest.mark.parametrize("wire", goldens.WIRES)
def test_goldens_cover_the_catalog(wire: str) -> None:
    gaps = coverage.gaps(wire, (g.data() for g in goldens.scenarios(wire)))
    assert gaps == [], f"{wire} goldens leave {len(gaps)} catalog item(s) uncovered:\n" + \
        "\n".join(f"  {item}" for item in gaps)
