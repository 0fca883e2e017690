"""Docs that match behaviour: the README and the catalog say what the code does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from contract.cli import run
from contract.rules.catalog import CATALOG
from contract.wires import WIRES
from tests.support.paths import ROOT
from tests.support.wires import bundled_only

README = (ROOT / "README.md").read_text(encoding="utf-8")
SOURCES = sorted((ROOT / "contract").rglob("*.py"))


def test_the_rules_page_names_every_rule() -> None:
    """The README names the families and links the rules page, whose table has a row per rule
    (tests/rules/test_basis.py holds each row's level and basis to the catalog)."""
    page = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    with bundled_only():  # the page describes the shipped catalog, not the tests' synthetic wire
        shipped = list(CATALOG)
        own = {rule.id.split(".")[0] for wire in WIRES.values() for rule in wire.rules}  # each wire's families
    missing = [rule for rule in shipped if f"| `{rule}` |" not in page]
    assert not missing, f"docs/rules.md lacks rules: {missing}"
    assert "[docs/rules.md](docs/rules.md)" in README
    families = {rule.split(".")[0] for rule in shipped}
    for family in families - own:  # the families every wire shares; a wire's own are on the page
        assert f"`{family}." in README, family
    named = set(re.findall(r"`([a-z]+)\.\*`", README))
    assert named, "the README names the families as `<family>.*`"
    assert named <= families, f"the README names families the catalog has not: {sorted(named - families)}"


def test_a_new_wire_s_first_pin_is_written_and_no_pin_rewritten(tmp_path: Path) -> None:
    """tools/rules_doc.py pins a shipped wire that has none (a new wire: docs/development.md) and
    never touches a pin that is there: a changed schema still fails its pin test until evolved."""
    import hashlib
    import json
    import runpy

    from contract.wires import BUNDLED_REGISTRY

    first_pins = runpy.run_path(str(ROOT / "tools" / "rules_doc.py"))["first_pins"]
    new, *kept = list(BUNDLED_REGISTRY)
    wrong = {w.name: "0" * 64 for w in kept}
    before = {"description": "d", "sha256": wrong, "evolved": {w.name: None for w in kept}}
    (tmp_path / "pins.json").write_text(json.dumps(before), encoding="utf-8")
    assert first_pins(["--check"], tmp_path) == 1  # stale, and nothing written
    assert json.loads((tmp_path / "pins.json").read_text(encoding="utf-8")) == before
    assert first_pins([], tmp_path) == 0
    after = json.loads((tmp_path / "pins.json").read_text(encoding="utf-8"))
    assert after["sha256"] == {**wrong, new.name: hashlib.sha256(new.schema_path.read_bytes()).hexdigest()}
    assert after["evolved"][new.name] is None
    assert first_pins(["--check"], tmp_path) == 0  # every wire pinned: nothing to do, the wrong pins kept


def test_the_rules_table_is_the_one_generated_from_the_catalog() -> None:
    """docs/rules.md's table is written from the rules' declarations (tools/rules_doc.py): a rule
    added, retitled or rebased in its wire's rules.py makes it stale until the tool runs again."""
    import runpy

    tool = runpy.run_path(str(ROOT / "tools" / "rules_doc.py"))
    page = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert tool["rewritten"](page) == page, "the rules table is stale: run python tools/rules_doc.py"
    edited = page.replace("| no empty or whitespace-only lines |", "| no blank lines |")  # a row edited by hand
    assert edited != page
    assert tool["rewritten"](edited) == page  # is stale: the tool puts the declaration's words back


VERBS = sorted(set(re.findall(r"(?:^|[\s`/|])milk-contract ([a-z]+)\b", README, re.MULTILINE)))


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_in_the_readme_exists(verb: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run([verb, "--help"]) == 0
    assert "usage:" in capsys.readouterr().out


def test_every_catalogued_rule_says_where_it_comes_from() -> None:
    """Every rule cites its source, and its id names its family: one of the common families, or its
    wire's own prefix (one per wire, shared by no other wire and no common family)."""
    common = {"line", "run", "baseline", "checker", "consumer"}
    prefixes = {name: {rule.id.split(".")[0] for rule in wire.rules} for name, wire in WIRES.items()}
    for name, found in prefixes.items():
        assert len(found) == 1, (name, found)
        assert not found & common, (name, found)
        assert all(not found & other for key, other in prefixes.items() if key != name), (name, found)
    for rule in CATALOG.values():
        assert rule.source.strip(), rule.id
        family = rule.id.split(".")[0]
        assert family in common or {family} == prefixes.get(rule.wire), rule.id
