"""The words rules stand on are surface items: every edit to them is caught and named (issue 13).

Held-out style: each framing clause of the stream-json description is edited in turn (a word
dropped, a word added, a word replaced, the clause removed) and must be classified breaking,
naming the clause and the rules that quote it; an edit elsewhere in the description is the near
miss that stays additive. ``milk-contract diff`` calls dropping "monotonic" breaking, and the
snapshot gate refuses it without an ADR.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from contract import cli
from contract.core.resources import schema_path
from contract.evolution.classify import BREAKING, classify
from contract.evolution.framing import quotes, quotes_in, rules_surface
from contract.evolution.gate import Accepted, evaluate
from contract.evolution.surface import surface_of
from contract.rules.catalog import CATALOG
from contract.wires import WIRES, Cites
from tests.support.wires import registered
from tests.wires.audit_log import AUDIT_LOG

SJ: dict[str, Any] = json.loads(schema_path("stream-json").read_text(encoding="utf-8"))
CLAUSES = [c["words"] for c in rules_surface(SJ, "stream-json")["framing"]]


def _with_description(text: str) -> dict[str, Any]:
    edited = copy.deepcopy(SJ)
    edited["description"] = text
    return edited


def _edits(clause: str) -> list[tuple[str, str]]:
    words = clause.split()
    return [
        ("word dropped", " ".join(words[1:])),
        ("word added", "strictly " + clause),
        ("word replaced", " ".join([*words[:-1], "sometimes"])),
        ("clause removed", ""),
    ]


def test_the_framing_paragraph_is_read_clause_by_clause() -> None:
    assert CLAUSES == [
        "one UTF-8 JSON object per line with one trailing newline and nothing else on stdout",
        "system/init first",
        "exactly one terminal result last",
        "monotonic seq per run",
        "never any ANSI escapes",
        "provider detail confined to the extension/_meta reserved fields (or free-form payloads such as "
        "tool_use.input and tool_use_result)",
    ]


@pytest.mark.parametrize("clause", CLAUSES)
def test_each_framing_clause_edited_in_turn_is_caught(clause: str) -> None:
    described = SJ["description"]
    assert " ".join(described.split()).count(clause) == 1
    for how, replacement in _edits(clause):
        text = " ".join(described.split()).replace(clause + ";", replacement + ";" if replacement else "") \
            if clause + ";" in " ".join(described.split()) else " ".join(described.split()).replace(clause, replacement)
        changes = classify(SJ, _with_description(text))
        framing = [c for c in changes if c.path.startswith("framing:") and c.kind == BREAKING]
        assert framing, f"{how} in {clause!r} was not caught: {changes}"
        assert all("rules " in c.reason or "no catalog rule" in c.reason for c in framing)


def test_dropping_monotonic_is_weakening_for_consumers() -> None:
    changes = classify(SJ, _with_description(SJ["description"].replace("monotonic seq per run", "seq per run")))
    codes = {(c.code, c.breaks) for c in changes if c.kind == BREAKING}
    assert codes == {("framing-rule-weakened", "consumers"), ("rule-words-weakened", "consumers")}
    assert any("sj.seq" in c.reason for c in changes if c.kind == BREAKING)


def test_an_edit_outside_every_rule_sentence_is_additive() -> None:
    changes = classify(SJ, _with_description(SJ["description"].replace("Evolution is additive-only",
                                                                       "Evolution stays additive-only")))
    assert [(c.kind, c.code) for c in changes] == [("additive", "schema-edited")]


@pytest.mark.parametrize(("before", "after", "kind", "code"), [
    # (no comma after refused: an ADR's schema may have documented more values after it)
    ("interrupted | refused", "interrupted", BREAKING, "known-value-removed"),
    ("interrupted | refused", "interrupted | refused | paused_for_review", "additive", "known-value-added"),
])
def test_top_level_known_values(before: str, after: str, kind: str, code: str) -> None:
    changes = classify(SJ, _with_description(SJ["description"].replace(before, after)))
    assert (kind, code) in {(c.kind, c.code) for c in changes if c.path == "known:description"}


def test_a_field_known_value_removed_is_breaking_and_added_is_additive() -> None:
    edited = copy.deepcopy(SJ)
    stop = edited["properties"]["stop_reason"]
    stop["description"] = stop["description"].replace(", error)", ")")
    assert ("breaking", "known-value-removed", "consumers") in {(c.kind, c.code, c.breaks)
                                                                for c in classify(SJ, edited)}
    assert ("additive", "open-set-value-added") in {(c.kind, c.code) for c in classify(edited, SJ)}


def test_a_field_sentence_a_rule_quotes_fails_until_reviewed() -> None:
    edited = copy.deepcopy(SJ)
    edited["properties"]["seq"]["description"] += " Relays may renumber."
    changes = [c for c in classify(SJ, edited) if c.kind == BREAKING]
    assert [(c.code, c.path) for c in changes] == [("rule-sentence-edited", "rule:sj.seq:properties.seq.description")]


def _quoting_its_seed(wire: str) -> set[str]:
    """The catalog rules that quote ``wire``'s seed: a common rule's source holds every wire's clause
    (``Wire.cites``), so another wire's double-quoted words are not this one's."""
    theirs = {q for other in WIRES.values() if other.name != wire for f in fields(Cites)
              if isinstance(text := getattr(other.cites, f.name), str) for q in quotes_in(text)}
    return {r.id for r in CATALOG.values()
            if f"{wire} schema" in r.source and any(q not in theirs for q in quotes(r))}


def _holds_every_quote(wire: str, schema: dict[str, Any]) -> None:
    cited = rules_surface(schema, wire)["cited"]
    assert _quoting_its_seed(wire) <= set(cited)
    for rule, item in cited.items():
        assert item["level"] == CATALOG[rule].level.value
        assert all(c["found"] for c in item["cites"]), rule  # a catalog quote the seed does not say fails here


def test_every_quoted_rule_is_a_surface_item_and_the_seed_says_its_words() -> None:
    _holds_every_quote("stream-json", SJ)


def test_another_wire_s_double_quoted_cite_is_not_counted_as_this_seed_s() -> None:
    """The ninth add-a-wire trial: a wire whose ``Cites.consumer`` double-quotes its own seed made
    consumer.crash count as a rule quoting stream-json's (whose clause quotes nothing)."""
    cites = Cites(consumer='audit-log schema, description: "consumers must ignore kinds they do not know"')
    with registered(dataclasses.replace(AUDIT_LOG, cites=cites)):
        assert "consumer.crash" in {r.id for r in CATALOG.values() if quotes(r)}  # the quote is in the source
        _holds_every_quote("stream-json", SJ)


def test_diff_calls_dropping_monotonic_breaking(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new = tmp_path / "new.schema.json"
    new.write_text(json.dumps(_with_description(SJ["description"].replace("monotonic seq per run",
                                                                          "seq per run"))), encoding="utf-8")
    code = cli.run(["diff", str(schema_path("stream-json")), str(new)])
    out = capsys.readouterr().out
    assert code == 1
    assert "framing-rule-weakened" in out
    assert "sj.seq" in out
    assert "BREAKING" in out


def test_the_gate_refuses_a_weakened_rule_without_an_adr() -> None:
    stored = surface_of(SJ, "stream-json")
    current = surface_of(_with_description(SJ["description"].replace("monotonic seq per run", "seq per run")),
                         "stream-json")
    verdict = evaluate("stream-json", stored, current, [])
    assert verdict.refused
    assert verdict.value == stored
    accepted = [Accepted("stream-json", c.path, c.code, "ADR-0101") for c in verdict.refused]
    assert not evaluate("stream-json", stored, current, accepted).refused  # near miss: accepted by an ADR


def test_a_surface_from_before_the_rules_section_is_a_baseline() -> None:
    stored = surface_of(SJ, "stream-json")
    del stored["rules"]
    changes = classify(stored, surface_of(SJ, "stream-json"))
    assert [(c.kind, c.code) for c in changes] == [("additive", "rules-baseline")]


# -- words located by content, not by position (issue 36) ----------------------------------------

def _fresh(name: str, taken: set[str]) -> str:
    """``name``, or the first free ``name_N``: a schema an ADR evolved may have the name already."""
    n, fresh = 1, name
    while fresh in taken:
        n += 1
        fresh = f"{name}_{n}"
    return fresh


_NEW_TYPE = _fresh("rate_limit", {str(b.get("properties", {}).get("type", {}).get("const")) for b in SJ["oneOf"]})
_RATE_LIMIT = {"description": "rate limit notices while a provider throttles the run (open set)",
               "properties": {"type": {"const": _NEW_TYPE}}, "required": ["type"]}


def _branch_at(schema: dict[str, Any], words: str) -> int:
    return next(i for i, b in enumerate(schema["oneOf"]) if words in b.get("description", ""))


@pytest.mark.parametrize("where", ["first", "before the quoted branch", "after it", "last"])
def test_a_branch_inserted_anywhere_in_the_oneof_is_additive(where: str) -> None:
    """sj.result-once quotes the result branch as the seed numbers it (oneOf[N]); a new line type
    inserted before it moves the words one index on, which is not removing them."""
    quoted = _branch_at(SJ, "exactly one terminal line")
    at = {"first": 0, "before the quoted branch": quoted, "after it": quoted + 1, "last": len(SJ["oneOf"])}[where]
    edited = copy.deepcopy(SJ)
    edited["oneOf"].insert(at, _RATE_LIMIT)
    found = classify(surface_of(SJ), surface_of(edited))
    assert [c.code for c in found] == ["line-kind-added"], found
    cited = rules_surface(edited)["cited"]
    assert all(c["found"] for item in cited.values() for c in item["cites"]
               if c["at"].startswith("oneOf["))


def test_branches_reordered_and_descriptions_reflowed_move_no_rule_words() -> None:
    edited = copy.deepcopy(SJ)
    edited["oneOf"].reverse()
    for branch in edited["oneOf"]:  # the same words, wrapped differently
        branch["description"] = "\n  ".join(branch["description"].split(" "))
    found = classify(surface_of(SJ), surface_of(edited))
    assert {c.code for c in found} <= {"description-edited"}, found  # a text edit, additive: no rule moved


def test_words_really_removed_from_a_moved_branch_are_still_breaking() -> None:
    """The near miss: the branch moved and its quoted words changed; the change is still named."""
    edited = copy.deepcopy(SJ)
    edited["oneOf"].insert(0, _RATE_LIMIT)
    branch = edited["oneOf"][_branch_at(edited, "exactly one terminal line")]
    branch["description"] = "the terminal line of a run"
    codes = {c.code for c in classify(surface_of(SJ), surface_of(edited)) if c.kind == BREAKING}
    assert codes & {"rule-words-removed", "rule-words-weakened", "rule-words-edited"}, codes


def _known_result_subtypes(text: str) -> str:
    words: list[str] = rules_surface(_with_description(text))["known_values"]["description"]["words"]
    return next(span for span in words if "refused" in span)


def test_a_value_added_to_an_open_set_a_rule_sentence_lists_is_additive() -> None:
    """A new result subtype in the top-level known set edits the sentence sj.result-is-error quotes;
    the addition is known-value-added, not the rule's sentence edited."""
    span = _known_result_subtypes(SJ["description"])
    value = _fresh("budget_exceeded", {v.strip() for v in span.split("|")})
    edited = _with_description(SJ["description"].replace(span, f"{span} | {value}"))
    found = classify(surface_of(SJ), surface_of(edited))
    assert not [c for c in found if c.kind == BREAKING], found
    assert "known-value-added" in {c.code for c in found}


@pytest.mark.parametrize(("edit", "code"), [
    (lambda span: span.replace(" | refused", ""), "known-value-removed"),  # a value removed
    (lambda span: span + " | budget_overrun, never", "rule-sentence-edited"),  # a word added beside it
])
def test_a_value_removed_or_a_word_changed_beside_the_list_is_still_breaking(edit: Any, code: str) -> None:
    span = _known_result_subtypes(SJ["description"])
    edited = _with_description(SJ["description"].replace(span, edit(span)))
    codes = {c.code for c in classify(surface_of(SJ), surface_of(edited)) if c.kind == BREAKING}
    assert code in codes, codes
