"""Docs that match behaviour: the README and the catalog say what the code does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from contract.catalog import CATALOG
from contract.cli import run

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
SOURCES = sorted((ROOT / "contract").rglob("*.py"))


def test_readme_names_every_rule() -> None:
    missing = [rule for rule in CATALOG if f"`{rule}`" not in README]
    assert not missing, f"README lacks rules: {missing}"


VERBS = sorted(set(re.findall(r"(?:^|[\s`/|])milk-contract ([a-z]+)\b", README, re.MULTILINE)))


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_in_the_readme_exists(verb: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run([verb, "--help"]) == 0
    assert "usage:" in capsys.readouterr().out


def test_every_catalogued_rule_says_where_it_comes_from() -> None:
    for rule in CATALOG.values():
        assert rule.source.strip(), rule.id
        assert rule.id.split(".")[0] in ("line", "sj", "sa", "run", "baseline", "checker", "consumer"), rule.id
