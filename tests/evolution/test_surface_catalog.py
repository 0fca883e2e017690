"""A change of the checker is not a change of the wire: the surface gate tells them apart.

A wire's surface carries the seed words each catalog rule quotes (contract/evolution/framing.py).
Two outside trials of docs/architecture.md's "Adding a rule" met the gate refusing a new rule
whose source double-quoted words the schema had always said, as a breaking ``rule-words-added``;
and a third wire's citations reached stream-json's surface. Here: a quote a rule starts or stops
making of words the schema says on both sides is ``rule-cited``/``rule-uncited`` (additive,
recorded by ``python tools/rules_doc.py``); a quote of words the schema newly says, or no longer
says, stays breaking whether or not its rule is new; and another wire's rules and citations
never enter a wire's surface.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import runpy
from pathlib import Path
from typing import Any

import pytest

from contract.core.resources import schema_path
from contract.core.rule import Basis, Level, Rule
from contract.evolution.classify import ADDITIVE, BREAKING, classify
from contract.evolution.gate import evaluate
from contract.evolution.surface import surface_of
from contract.wires import Cites
from tests.support.wires import registered, unregistered
from tests.wires.audit_log import AUDIT_LOG

ROOT = Path(__file__).resolve().parents[2]
SJ: dict[str, Any] = json.loads(schema_path("stream-json").read_text(encoding="utf-8"))
WORDS = "monotonic seq per run"  # sj.seq's quote of the framing paragraph


def _without_rule(surface: dict[str, Any], rule: str) -> dict[str, Any]:
    """``surface`` as it read before ``rule`` was in the catalog."""
    out = copy.deepcopy(surface)
    del out["rules"]["cited"][rule]
    for clause in out["rules"]["framing"]:
        clause["rules"] = [r for r in clause["rules"] if r != rule]
    return out


def _unsaid() -> dict[str, Any]:
    """The seed with the framing clause sj.seq quotes taken out of its description."""
    edited = copy.deepcopy(SJ)
    edited["description"] = " ".join(SJ["description"].split()).replace(WORDS + "; ", "")
    assert WORDS not in edited["description"]
    return edited


def test_a_new_rule_quoting_words_the_schema_already_said_is_additive() -> None:
    now = surface_of(SJ, "stream-json", with_corpus=False)
    before = _without_rule(now, "sj.seq")
    found = classify(before, now)
    assert {(c.kind, c.code) for c in found} == {(ADDITIVE, "rule-cited")}
    assert {c.path for c in found} >= {"rule:sj.seq:description"}
    assert all(c.path.startswith("rule:sj.seq:") and "not a change of the wire" in c.reason for c in found)
    verdict = evaluate("stream-json", before, now, [])
    assert (verdict.problems, verdict.refused) == ("", [])


def test_a_rule_removed_while_the_schema_still_says_its_words_is_additive() -> None:
    now = surface_of(SJ, "stream-json", with_corpus=False)
    found = classify(now, _without_rule(now, "sj.seq"))
    assert {(c.kind, c.code) for c in found} == {(ADDITIVE, "rule-uncited")}
    assert "rule:sj.seq:description" in {c.path for c in found}


def test_words_the_schema_newly_says_stay_breaking_for_a_rule_new_or_old() -> None:
    before = surface_of(_unsaid(), "stream-json", with_corpus=False)
    now = surface_of(SJ, "stream-json", with_corpus=False)
    for old in (before, _without_rule(before, "sj.seq") if "sj.seq" in before["rules"]["cited"] else before):
        codes = {(c.kind, c.code) for c in classify(old, now) if c.path == "rule:sj.seq:description"}
        assert codes == {(BREAKING, "rule-words-added")}


def test_words_the_schema_no_longer_says_stay_breaking_when_their_rule_goes_too() -> None:
    now = surface_of(SJ, "stream-json", with_corpus=False)
    after = surface_of(_unsaid(), "stream-json", with_corpus=False)
    gone = _without_rule(after, "sj.seq") if "sj.seq" in after["rules"]["cited"] else after
    codes = {(c.kind, c.code) for c in classify(now, gone) if c.path == "rule:sj.seq:description"}
    assert codes == {(BREAKING, "rule-words-removed")}


def test_without_the_schemas_every_new_quote_is_a_wire_change() -> None:
    # Fail closed: the rules section alone cannot say the words were there before.
    from contract.evolution.framing import changes

    now = surface_of(SJ, "stream-json", with_corpus=False)["rules"]
    before = _without_rule({"rules": now}, "sj.seq")["rules"]
    codes = {c.code for _, c in changes(before, now) if c is not None}
    assert codes == {"rule-words-added"}


def test_another_wire_s_rules_and_citations_never_reach_this_wire_s_surface() -> None:
    alone = surface_of(SJ, "stream-json", with_corpus=False)
    unknown = {**SJ, "$id": "https://example.invalid/another.schema.json"}  # a schema no wire is named by
    quoting = dataclasses.replace(
        AUDIT_LOG, name="echo-log",
        rules=(*AUDIT_LOG.rules, Rule("el.init", Level.MUST, "echo-log", "init first",
                                      f'echo seed, description: "{WORDS}" and "system/init first"',
                                      basis=Basis.WRITTEN)),
        # its framing quotes words stream-json's seed says too; its ANSI words are the very quote
        # stream-json's cites give line.ansi (a second copy of one quote, made once)
        cites=Cites(framing=f'echo seed, description: "{WORDS}"; description: "system/init first"',
                    ansi='echo seed, description: "never any ANSI escapes"'))
    with registered(quoting):
        beside = surface_of(SJ, "stream-json", with_corpus=False)
        named = surface_of(SJ, None, with_corpus=False)  # compared alone: known by its $id
        unscoped = surface_of(unknown, None, with_corpus=False)
    assert beside == alone
    assert named["rules"] == alone["rules"]
    assert "el.init" in unscoped["rules"]["cited"]  # near miss: named by no wire, every rule is read


def _tool(snapshots: Path) -> dict[str, Any]:
    tool = runpy.run_path(str(ROOT / "tools" / "surface_snapshots.py"))
    shipped = tool["snapshot_path"]("stream-json")
    (snapshots / shipped.name).write_text(shipped.read_text(encoding="utf-8"), encoding="utf-8")
    tool["main"].__globals__["SNAPSHOTS"] = snapshots  # the run_path module's own globals
    return tool


def test_rules_doc_records_a_new_rule_s_quotes_byte_for_byte(tmp_path: Path) -> None:
    tool = _tool(tmp_path)
    shipped = tool["snapshot_path"]("stream-json").read_text(encoding="utf-8")
    assert tool["due"]("stream-json") == (None, "")  # the shipped snapshot is current
    stored = _without_rule(json.loads(shipped), "sj.seq")  # as it read before sj.seq was a rule
    tool["snapshot_path"]("stream-json").write_text(json.dumps(stored), encoding="utf-8")
    assert tool["main"](["--check"]) == 1
    assert tool["main"]([]) == 0
    assert tool["snapshot_path"]("stream-json").read_text(encoding="utf-8") == shipped


def test_rules_doc_leaves_a_change_of_the_wire_to_its_review(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    tool = _tool(tmp_path)
    stored = _without_rule(json.loads(tool["snapshot_path"]("stream-json").read_text(encoding="utf-8")), "sj.seq")
    stored["schema"]["title"] = "an older title"  # the wire moved too: not the tool's to record
    written = json.dumps(stored)
    tool["snapshot_path"]("stream-json").write_text(written, encoding="utf-8")
    assert tool["main"]([]) == 0
    assert tool["snapshot_path"]("stream-json").read_text(encoding="utf-8") == written
    assert "left as it is" in capsys.readouterr().err


def test_rules_doc_refuses_a_quote_the_schema_does_not_say_where_its_rule_places_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A quote placed where the schema does not say it (``content_block.…`` for ``$defs.content_block.…``,
    an outside trial's) was left out of the surface without a word: the rule stood on nothing the gate
    tracked. The tool names the rule, the words and the place, and writes no snapshot."""
    tool = _tool(tmp_path)
    assert tool["unresolved"]("stream-json") == []  # every shipped quote is found where it is placed
    words = "free-form tool arguments (tool_use)"
    said = {}
    with unregistered("stream-json") as sj:
        for at in ("content_block.input.description", "$defs.content_block.input.description", "*"):
            rule = Rule("sj.trial-quote", Level.SHOULD, "stream-json", "a trial rule",
                        f'stream-json schema, {at}: "{words}"' if at != "*" else f'stream-json schema: "{words}"',
                        basis=Basis.DERIVED)
            with registered(dataclasses.replace(sj, rules=(*sj.rules, rule))):
                said[at] = tool["unresolved"]("stream-json")
    [line] = said["content_block.input.description"]
    assert line.startswith(f"sj.trial-quote: its source quotes '{words}'")
    assert "at content_block.input" in line
    assert said["$defs.content_block.input.description"] == said["*"] == []  # the near misses
    tool["main"].__globals__["unresolved"] = lambda wire: [line] if wire == "stream-json" else []
    shipped = tool["snapshot_path"]("stream-json").read_text(encoding="utf-8")
    stored = json.dumps(_without_rule(json.loads(shipped), "sj.seq"))  # a snapshot otherwise due
    tool["snapshot_path"]("stream-json").write_text(stored, encoding="utf-8")
    assert tool["main"]([]) == 1
    assert tool["snapshot_path"]("stream-json").read_text(encoding="utf-8") == stored
    err = capsys.readouterr().err
    assert line in err
    assert "not written while a quote is not found" in err
