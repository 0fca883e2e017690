"""The surface's ``rules`` section: the words in a schema's descriptions that rules stand on.

A wire is not only its JSON shape: the stream-json description states framing rules the schema
cannot express ("monotonic seq per run", "system/init first", ...) and documents known values of
open sets. Those words are the contract too, so the surface carries them as items of their own
and :func:`changes` classifies every edit to them (``contract.evolution.classify`` calls it):

* ``framing``: each clause of the top-level description's "Framing rules …:" paragraph, with the
  catalog rules that quote it. A clause removed, or with words removed ("monotonic seq per run" →
  "seq per run"), is breaking for consumers (they lose a guarantee); a clause added, or with words
  added, is breaking for emitters (a stream that was valid may no longer be); any other edit is
  breaking for both until an ADR accepts it.
* ``cited``: every catalog rule whose source quotes description words, one item per rule holding
  each quote, where it is (``properties.seq.description``, ``description``, or ``*`` for anywhere),
  whether the schema still says it, and the sentence it stands in. A quote no longer found is
  classified as above (weakened, tightened, or edited, from the closest words now there); a quote
  still found whose sentence changed is ``rule-sentence-edited``: breaking until reviewed, naming
  the rule, because the rest of a sentence can change what its words mean.
* ``known_values``: the values the top-level description documents for open sets ("result
  subtype known set: success | …"); fields' own lists are the ``open_set`` of their entry. Adding a
  known value is additive: the seed says "consumers must ignore values they don't recognize".
  Removing one is breaking for consumers: that sentence protects a consumer from values it never
  heard of, not from losing the documented meaning of one it relies on (rules read it: a
  ``refused`` result reports ``is_error`` false, sj.result-is-error).

Everything here is derived from the schema document and the rule catalog in code, never by hand.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping
from dataclasses import fields
from functools import cache
from typing import Any

from contract.core.jsonvalue import shown
from contract.evolution.changes import ADDITIVE, BREAKING, Change, Found
from contract.rules.catalog import CATALOG, Rule
from contract.wires import WIRES, Cites

_QUOTE = re.compile(r'(?:((?:[\w$]+(?:\[\d+\])?\.)*description):\s*)?"([^"]+)"')
_BOUNDARY = re.compile(r"[.;:](?=\s)")
_WORD = re.compile(r"[\w/.'|-]+")
_FRAMING = re.compile(r"Framing rules[^:]*:\s*(.*?)(?:\n\s*\n|$)", re.DOTALL)
_OPEN = re.compile(r"open[- ]sets?\b", re.IGNORECASE)
_ALTERNATION = re.compile(r"[\w./-]+(?:\s*\|\s*[\w./-]+)+")
_MIN_SIMILARITY = 0.5  # below it, the closest new words are a different sentence: the old one is gone

CODES = {  # code -> who it breaks (kind is breaking for all of these)
    "framing-rule-removed": "consumers",
    "framing-rule-added": "emitters",
    "framing-rule-weakened": "consumers",
    "framing-rule-tightened": "emitters",
    "framing-rule-edited": "both",
    "rule-words-removed": "consumers",
    "rule-words-added": "emitters",
    "rule-words-weakened": "consumers",
    "rule-words-tightened": "emitters",
    "rule-words-edited": "both",
    "rule-sentence-edited": "both",
    "known-value-removed": "consumers",
}

# The changes of the checker rather than of the wire: a rule of the catalog that starts or stops
# quoting words the schema says before and after (a rule added or removed, a source reworded).
# They are additive: no stream's meaning moved. ``tools/rules_doc.py`` records them in the surface
# snapshots, as it regenerates the other tables the catalog derives.
CATALOG_CODES = ("rule-cited", "rule-uncited")


def _collapse(text: str) -> str:
    return " ".join(text.split())


# -- derivation ----------------------------------------------------------------------------------


_BRANCHES = ("oneOf", "anyOf", "allOf")  # arrays whose members an ADR may insert or reorder


def _resolve(schema: Mapping[str, Any], at: str) -> list[str]:
    """The description texts at a catalog location such as ``properties.seq.description``.

    A location is read by content, not by position: the catalog names a branch of a ``oneOf``
    (``oneOf[4].description``) as the seed numbers it, and an ADR that inserts or reorders
    branches moves the words one index on without removing them. So an index into a list of
    branches yields the branch it names first (where the words stand when nothing moved) and
    then every sibling branch's text at the same place: the quote is found wherever it went.
    """
    nodes: list[Any] = [schema]
    parent = ""
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", at):
        step: list[Any] = []
        for node in nodes:
            if part.startswith("["):
                index = int(part[1:-1])
                if isinstance(node, list):
                    named = [node[index]] if index < len(node) else []
                    siblings = [b for i, b in enumerate(node) if i != index] if parent in _BRANCHES else []
                    step += named + siblings
            elif isinstance(node, Mapping) and part in node:
                step.append(node[part])
            elif isinstance(node, Mapping) and isinstance(node.get("properties"), Mapping) \
                    and part in node["properties"]:
                step.append(node["properties"][part])
        nodes, parent = step, part
    return [_collapse(node) for node in nodes if isinstance(node, str) and node.strip()]


def _descriptions(node: Any) -> Iterator[str]:
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                yield _collapse(value)
            else:
                yield from _descriptions(value)
    elif isinstance(node, list):
        for item in node:
            yield from _descriptions(item)


def quotes(rule: Rule) -> list[tuple[str, str]]:
    """(location, words) for each description quote in a rule's source; ``*`` when it names none."""
    return list(_quotes_in(rule.source))


def quotes_in(text: str) -> list[tuple[str, str]]:
    """(location, words) for each description quote in ``text`` (a rule's source, a wire's ``Cites``)."""
    return list(_quotes_in(text))


@cache  # every surface reads every rule's quotes: the catalog's sources are parsed once
def _quotes_in(source: str) -> tuple[tuple[str, str], ...]:
    found = []
    for match in _QUOTE.finditer(source):
        words = _collapse(match.group(2))
        if len(words.split()) >= 2:  # a single quoted word is a value, not a sentence to stand on
            found.append((match.group(1) or "*", words))
    return tuple(found)


def _fragments(words: str) -> list[str]:
    return [f.strip() for f in words.split("...") if f.strip()]


def _sentence(text: str, fragment: str) -> str:
    start = text.find(fragment)
    before = [m.end() for m in _BOUNDARY.finditer(text, 0, start)]
    after = _BOUNDARY.search(text, start + len(fragment))
    return text[before[-1] if before else 0: after.start() if after else len(text)].strip()


@cache
def _nearest(text: str, words: str) -> str | None:
    """The run of words in ``text`` most like ``words`` (None when nothing is alike enough)."""
    want = words.split()
    have = text.split()
    best, best_ratio = None, _MIN_SIMILARITY - 1e-9
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(words)  # difflib caches details of the second sequence: the fixed one
    for size in range(max(1, len(want) - 3), len(want) + 4):
        for start in range(max(0, len(have) - size + 1)):
            candidate = " ".join(have[start:start + size])
            matcher.set_seq1(candidate)
            # the cheap upper bounds first: most windows cannot beat the best so far
            if matcher.real_quick_ratio() <= best_ratio or matcher.quick_ratio() <= best_ratio:
                continue
            ratio = matcher.ratio()
            if ratio > best_ratio:
                best, best_ratio = candidate, ratio
    return best.strip(".;:,") if best is not None and best_ratio >= _MIN_SIMILARITY else None


def _cite(texts: list[str], at: str, words: str) -> dict[str, Any]:
    """Where ``words`` stand among ``texts`` (the descriptions at ``at``): found, and in which sentence."""
    fragments = _fragments(words)
    for text in texts:
        if all(f in text for f in fragments):
            return {"at": at, "words": words, "found": True, "sentence": _sentence(text, fragments[0])}
    return {"at": at, "words": words, "found": False}


def _with_nearest(cite: dict[str, Any], texts: list[str]) -> dict[str, Any]:
    """A quote not found, with the closest words now there (``near``) when any are alike enough."""
    near = [n for n in (_nearest(t, cite["words"]) for t in texts) if n]
    if near:
        cite["near"] = max(near, key=lambda n: difflib.SequenceMatcher(None, cite["words"], n).ratio())
    return cite


def _framing(description: str) -> list[str]:
    match = _FRAMING.search(description)
    if match is None:
        return []
    body = _collapse(match.group(1))
    return [c.strip().rstrip(".").strip() for c in re.split(r";\s", body) if c.strip()]


def _elsewhere(wire: str | None) -> tuple[frozenset[str], frozenset[str], frozenset[tuple[str, str]]]:
    """What a wire's surface leaves out: the other wires' own rules, and the quotes the common
    rules take from the other wires' seeds (``Wire.cites``). So a wire added beside the others, or
    a citation of its seed, never reaches their surfaces (their snapshots stay as they are, however
    its words read against their schemas). Returns (the other wires' rules, this wire's rules, the
    quotes to leave out of the common rules). Nothing is left out when no wire is named (two
    schemas compared alone, ``milk-contract diff``)."""
    if wire is None or wire not in WIRES:
        return frozenset(), frozenset(), frozenset()
    others = [w for w in WIRES.values() if w.name != wire]

    def quoted(cites: Cites) -> set[tuple[str, str]]:
        texts = [getattr(cites, f.name) for f in fields(Cites)]
        return {q for text in texts if isinstance(text, str) for q in quotes_in(text)}

    theirs = {q for w in others for q in quoted(w.cites)} - quoted(WIRES[wire].cites)
    return (frozenset(r.id for w in others for r in w.rules), frozenset(r.id for r in WIRES[wire].rules),
            frozenset(theirs))


def rules_surface(schema: Mapping[str, Any], wire: str | None = None) -> dict[str, Any]:
    """The ``rules`` section of a schema's surface (of ``wire``'s surface, when named)."""
    description = schema.get("description")
    top = description if isinstance(description, str) else ""
    everywhere: list[str] | None = None  # every description, for the quotes that name no place

    def texts_at(at: str) -> list[str]:
        nonlocal everywhere
        if at != "*":
            return _resolve(schema, at)
        if everywhere is None:  # walked once, not once per quote
            everywhere = [t for t in _descriptions(schema) if t]
        return everywhere

    foreign_rules, own_rules, foreign_quotes = _elsewhere(wire)
    cited: dict[str, Any] = {}
    for rule in CATALOG.values():
        if rule.id in foreign_rules:
            continue
        skip = frozenset() if rule.id in own_rules else foreign_quotes  # a common rule: this wire's words
        # each quote once: a common rule's source may quote the same words for two wires
        placed = [(texts_at(at), at, words) for at, words in dict.fromkeys(quotes(rule)) if (at, words) not in skip]
        cites = [_cite(texts, at, words) for texts, at, words in placed]
        if any(c["found"] for c in cites):  # a rule this schema grounds (the other wire's are not)
            # the closest words only for a rule kept: a search per quote the other wire's rules skip
            cites = [c if c["found"] else _with_nearest(c, texts)
                     for c, (texts, _, _) in zip(cites, placed, strict=True)]
            cited[rule.id] = {"level": rule.level.value, "basis": rule.basis.value, "cites": cites}
    clauses = _framing(top)
    framing = [{"words": clause,
                "rules": sorted(rid for rid, item in cited.items()
                                if any(c["found"] and any(f in clause for f in _fragments(c["words"]))
                                       for c in item["cites"]))}
               for clause in clauses]
    known: dict[str, Any] = {}
    if _OPEN.search(top):
        spans = [_collapse(m.group(0)) for m in _ALTERNATION.finditer(top)]
        if spans:
            known["description"] = {"words": spans,
                                    "values": sorted({v.strip() for s in spans for v in s.split("|")})}
    return {"framing": framing, "cited": cited, "known_values": known}


# -- classification ------------------------------------------------------------------------------


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _subsequence(short: list[str], long: list[str]) -> bool:
    it = iter(long)
    return all(any(word == other for other in it) for word in short)


def _moved(old: str, new: str) -> str:
    """weakened (words only removed), tightened (only added) or edited."""
    a, b = _tokens(old), _tokens(new)
    if _subsequence(b, a) and len(b) < len(a):
        return "weakened"
    if _subsequence(a, b) and len(a) < len(b):
        return "tightened"
    return "edited"


def _change(path: str, code: str, reason: str) -> Change:
    return Change(BREAKING, path, reason, CODES[code], code)


def _named(rules: list[str]) -> str:
    return f" (rules {', '.join(rules)})" if rules else " (no catalog rule quotes it yet)"


def _framing_changes(old: list[Any], new: list[Any]) -> Found:
    a = [str(x.get("words", "")) for x in old if isinstance(x, Mapping)]
    b = [str(x.get("words", "")) for x in new if isinstance(x, Mapping)]
    rules_a = {str(x.get("words", "")): list(x.get("rules", [])) for x in old if isinstance(x, Mapping)}
    rules_b = {str(x.get("words", "")): list(x.get("rules", [])) for x in new if isinstance(x, Mapping)}
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        left, right = list(a[i1:i2]), list(b[j1:j2])
        for clause in list(left):
            ratios = [(difflib.SequenceMatcher(None, clause, r, autojunk=False).ratio(), r) for r in right]
            best = max(ratios, default=(0.0, ""))
            if best[0] < _MIN_SIMILARITY:
                continue
            left.remove(clause)
            right.remove(best[1])
            how = _moved(clause, best[1])
            yield (), _change(f"framing:{clause}", f"framing-rule-{how}",
                              f"framing rule {how}: {shown(clause)} -> {shown(best[1])}"
                              + _named(sorted({*rules_a.get(clause, []), *rules_b.get(best[1], [])})))
        for clause in left:
            yield (), _change(f"framing:{clause}", "framing-rule-removed",
                              f"framing rule removed: {shown(clause)}" + _named(rules_a.get(clause, [])))
        for clause in right:
            yield (), _change(f"framing:{clause}", "framing-rule-added",
                              f"framing rule added: {shown(clause)}" + _named(rules_b.get(clause, [])))


def _said_at(schema: Mapping[str, Any], at: str) -> list[str]:
    """The descriptions a surface's ``schema`` section holds at a quote's location ``at``.

    The top-level ``description``, a line kind's (``oneOf[N]``: any kind's, the branches are read
    by content), a field's (by the last property the location names, as the surface keys fields by
    their paths), every one for ``*``; none for a location the section does not keep, so a quote
    there is never taken for words said before (fail closed).
    """
    if at == "*":
        return [t for t in _descriptions(schema) if t]
    if at == "description":
        top = schema.get("description")
        return [_collapse(top)] if isinstance(top, str) else []
    if at.startswith("oneOf["):
        return [t for t in _descriptions(schema.get("line_kinds", {})) if t]
    named = at.removesuffix(".description").rsplit(".", 1)[-1]
    fields_ = schema.get("fields", {})
    return [_collapse(entry["description"]) for path, entry in fields_.items()
            if isinstance(entry, Mapping) and isinstance(entry.get("description"), str)
            and re.split(r"[.\[\]{}]+", path.rstrip(".[]{}"))[-1] == named]


def _said(schema: Mapping[str, Any], at: str, words: str) -> bool:
    """Whether a surface's ``schema`` section says ``words`` at ``at``."""
    fragments = _fragments(words)
    return any(all(f in text for f in fragments) for text in _said_at(schema, at))


def _cite_changes(rule: str, old: Mapping[str, Any] | None, new: Mapping[str, Any] | None,
                  schemas: tuple[Mapping[str, Any], Mapping[str, Any]]) -> Iterator[Change]:
    """The changes of one rule's quotes; ``schemas``: the surfaces' ``schema`` sections, each side."""
    before = {(c["at"], c["words"]): c for c in (old or {}).get("cites", [])}
    after = {(c["at"], c["words"]): c for c in (new or {}).get("cites", [])}
    for key in sorted(before.keys() | after.keys()):
        a, b = before.get(key), after.get(key)
        was = bool(a and a.get("found"))
        now = bool(b and b.get("found"))
        at, words = key
        path = f"rule:{rule}:{at}"
        if was and not now and b is None and _said(schemas[1], at, words):
            yield Change(ADDITIVE, path, f"no rule quotes {shown(words)} at {at} now ({rule} did): the schema "
                         "still says it, so this is a change of the checker, not of the wire", None, "rule-uncited")
        elif was and not now:
            near = b.get("near") if b else None
            if not near:
                yield _change(path, "rule-words-removed",
                              f"{rule} stands on {shown(words)} at {at}, which the schema no longer says")
            else:
                how = _moved(words, near)
                yield _change(path, f"rule-words-{how}", f"{rule} stands on {shown(words)} at {at}; it now says "
                                                          f"{shown(near)} ({how}): review the rule")
        elif now and not was and a is None and _said(schemas[0], at, words):
            yield Change(ADDITIVE, path, f"{rule} now stands on {shown(words)} at {at}, which the schema already "
                         "said: a rule of the checker added or reworded, not a change of the wire", None, "rule-cited")
        elif now and not was:
            yield _change(path, "rule-words-added", f"{rule}'s words {shown(words)} at {at} are now in the schema "
                                                    "(a rule the checker enforces is now grounded there)")
        elif was and now and a is not None and b is not None and a.get("sentence") != b.get("sentence") \
                and not values_added_only(str(a.get("sentence")), str(b.get("sentence"))):
            yield _change(path, "rule-sentence-edited",
                          f"the sentence {rule} quotes at {at} changed: {shown(a.get('sentence'))} -> "
                          f"{shown(b.get('sentence'))}; review the rule, then accept the change by ADR")


def values_added_only(old: str, new: str) -> bool:
    """Whether two sentences differ only by values added to their ``a | b | c`` lists.

    A new value in an open set ("result subtype known set: success | … | refused") edits the
    sentence a rule quotes next to it, but not what the sentence says of the values already there:
    the addition is ``known-value-added`` (additive, the seed's "consumers must ignore values they
    don't recognize"), not a rule's sentence edited. A value removed or any other word changed
    is still the sentence edited.
    """
    spans_old, spans_new = _ALTERNATION.findall(old), _ALTERNATION.findall(new)
    if len(spans_old) != len(spans_new) or _ALTERNATION.sub("|", old) != _ALTERNATION.sub("|", new):
        return False
    values = [({v.strip() for v in a.split("|")}, {v.strip() for v in b.split("|")})
              for a, b in zip(spans_old, spans_new, strict=True)]
    return all(before <= after for before, after in values)


def _known_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> Found:
    for where in sorted(old.keys() | new.keys()):
        a = set((old.get(where) or {}).get("values", []))
        b = set((new.get(where) or {}).get("values", []))
        for value in sorted(b - a):
            yield (), Change("additive", f"known:{where}", f"known value {shown(value)} documented (consumers "
                             "must ignore values they don't recognize)", None, "known-value-added")
        for value in sorted(a - b):
            yield (), _change(f"known:{where}", "known-value-removed",
                              f"known value {shown(value)} no longer documented in the {where}: its documented "
                              "meaning is withdrawn (rules read it)")


def changes(old: Mapping[str, Any], new: Mapping[str, Any],
            schemas: tuple[Mapping[str, Any], Mapping[str, Any]] = ({}, {})) -> Found:
    """Every change between two ``rules`` sections (regions are inside the section).

    ``schemas``: the two surfaces' ``schema`` sections, whose descriptions tell a quote the schema
    newly says (``rule-words-added``: a wire change) from one a rule newly makes of words the
    schema said already (``rule-cited``: a checker change); without them every new quote is the
    former (fail closed).
    """
    if not old:  # a stored surface from before this section existed: the section is a new baseline
        if new:
            yield (), Change("additive", "rules", "the stored surface predates its rules section: recorded "
                             "as a baseline (review framing, cited and known_values)", None, "rules-baseline")
        return
    for region, change in _framing_changes(list(old.get("framing", [])), list(new.get("framing", []))):
        yield ("framing", *region), change
    yield ("framing",), None
    old_cited, new_cited = old.get("cited", {}), new.get("cited", {})
    for rule in sorted(old_cited.keys() | new_cited.keys()):
        for change in _cite_changes(rule, old_cited.get(rule), new_cited.get(rule), schemas):
            yield ("cited", rule), change
        yield ("cited", rule), None
    for region, change in _known_changes(old.get("known_values", {}), new.get("known_values", {})):
        yield ("known_values", *region), change
    yield ("known_values",), None
