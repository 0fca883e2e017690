"""A space of stream-json ADRs, drawn from a seed: what an ADR author can do to the wire, with a transcript.

Each draw is one :class:`Adr`: the ADR's schema (the schema in force, changed in one of the ways
an ADR can change it), a transcript that shows the change (a golden, edited so it stays valid
under the new schema: the golden's own ids are kept, so two goldens share them), and what the
docs promise for that kind: ``additive`` (taken in as it is), ``breaking`` (refused until the
ADR's break is accepted, then taken in with ``--accept``) or ``either`` (a change whose verdict
depends on the schema's words, such as a bound: the walk must end green either way).

The kinds (docs/adr-walk.md walks one of each by hand):

- an optional member added at the top level, in a ``$defs`` object, or in a free-form holder;
- a new line kind inserted anywhere in the ``oneOf``, with members of its own that it requires;
- a new value in an open set (a result or system subtype);
- a member renamed, removed, or made required of one line kind;
- a member's type widened, a bound added, a keyword the surface does not read added.

A rename, removal, widening or bound is drawn among the members no code of the package spells
(:func:`free_members`: the strategies, which follow the schema in force, and the volatile
declaration, which evolve names, aside). A member a rule reads (``is_error``, ``usage``,
``parent_tool_use_id``...) changes what the rule checks: that is a change of the suite's code, not
an ADR walk, and ``evolve`` names every place that spells it before anything is written
(tests/evolution/test_adr_consequences.py holds that).

Nothing here runs anything: ``tests/evolution/test_adr_space.py`` walks each draw in a copy of
the project. A draw is a pure function of its seed and the checkout's schema and goldens, so a
failing seed is found again by ``MILK_CONTRACT_ADR_SEED``.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

JSON = Any
ENVELOPE = ("type", "session_id", "seq", "ts")  # every line's members: never renamed, removed or retyped here
WORDS = ("quota", "latency", "trace", "budget", "region", "shard", "cost", "origin", "tier", "probe")

# value makers by the JSON type an ADR gives a new member
VALUES: dict[str, Callable[[random.Random], JSON]] = {
    "integer": lambda rng: rng.randrange(0, 10_000),
    "string": lambda rng: rng.choice(("eu-west", "alpha", "x", "a b c", "ünïcode")),
    "boolean": lambda rng: rng.random() < 0.5,
    "number": lambda rng: rng.randrange(0, 1000) / 8,
    "object": lambda rng: {"k": rng.randrange(0, 9)},
    "array": lambda rng: [rng.choice(("a", "b"))] * rng.randrange(0, 3),
}


@dataclass
class Adr:
    """One drawn ADR: its schema, a transcript showing it, and what the walk must meet."""

    seed: int
    kind: str
    summary: str
    number: int
    schema: dict[str, JSON]
    transcript: list[dict[str, JSON]]
    like: str  # the golden the transcript was made from (its reproduction, for `scenario --like`)
    expect: str  # additive | breaking | either
    migrate: list[str] = field(default_factory=list)  # migrate's arguments, where the goldens must follow
    renamed_volatile: tuple[str, str] | None = None  # (old, new) of a member the volatile declaration names

    @property
    def adr(self) -> str:
        return f"ADR-{self.number:04d}"

    @property
    def scenario(self) -> str:
        return f"adr_{self.number:04d}_{self.kind.replace('-', '_')}"

    def describe(self) -> str:
        return f"seed {self.seed}: {self.kind}: {self.summary} (transcript from {self.like}, expect {self.expect})"


def load_goldens(root: Path) -> dict[str, list[dict[str, JSON]]]:
    """The stream-json goldens under ``root``, by scenario name, each a list of line objects."""
    folder = root / "goldens" / "stream-json"
    return {path.stem: [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
            for path in sorted(folder.glob("*.jsonl"))}


def _mirrors(schema: dict[str, JSON]) -> list[dict[str, JSON]]:
    """The places that list the top-level members: ``properties`` and ``$defs/event`` repeating it."""
    places = [schema["properties"]]
    event = schema.get("$defs", {}).get("event", {})
    if isinstance(event.get("properties"), dict):
        places.append(event["properties"])
    return places


def _fresh(rng: random.Random, taken: set[str]) -> str:
    while True:
        name = f"{rng.choice(WORDS)}_{rng.choice(('ms', 'id', 'hint', 'note', 'level'))}_{rng.randrange(100)}"
        if name not in taken:
            return name


def _names(schema: dict[str, JSON]) -> set[str]:
    """Every member name the schema knows anywhere (a new one must be none of them)."""
    found: set[str] = set()

    def walk(node: JSON) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("properties"), dict):
                found.update(node["properties"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return found


def _member_schema(rng: random.Random, adr: str) -> tuple[dict[str, JSON], str]:
    kind = rng.choice(sorted(VALUES))
    member: dict[str, JSON] = {"type": kind, "description": f"added by {adr}"}
    if kind == "array":
        member["items"] = {"type": "string"}
    return member, kind


def _kinds_of(lines: list[dict[str, JSON]]) -> list[str]:
    return sorted({str(line.get("type")) for line in lines})


def _valid(schema: dict[str, JSON]) -> Callable[[dict[str, JSON]], bool]:
    validator = jsonschema.Draft202012Validator(schema)
    return lambda line: validator.is_valid(line)


def _objects(node: JSON) -> Iterator[dict[str, JSON]]:
    """Every object nested in ``node`` (not ``node`` itself)."""
    stack = [v for v in node.values()] if isinstance(node, dict) else list(node) if isinstance(node, list) else []
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _renumbered(lines: list[dict[str, JSON]]) -> list[dict[str, JSON]]:
    """``lines`` with ``seq`` contiguous from the first line's."""
    start = lines[0]["seq"]
    return [{**line, "seq": start + i} for i, line in enumerate(lines)]


# -- the kinds --------------------------------------------------------------------------------------


def optional_top(rng: random.Random, adr: Adr) -> None:
    name = _fresh(rng, _names(adr.schema))
    member, kind = _member_schema(rng, adr.adr)
    for place in _mirrors(adr.schema):
        place[name] = dict(member)
    on = rng.choice(_kinds_of(adr.transcript))
    for line in adr.transcript:
        if line.get("type") == on and rng.random() < 0.8:
            line[name] = VALUES[kind](rng)
    adr.summary = f"optional {kind} member {name} on {on} lines"


def optional_in_def(rng: random.Random, adr: Adr, goldens: dict[str, list[dict[str, JSON]]]) -> None:
    defs = adr.schema["$defs"]
    candidates = sorted(k for k, v in defs.items() if k != "event" and isinstance(v.get("properties"), dict))
    target = rng.choice(candidates)
    name = _fresh(rng, _names(adr.schema))
    member, kind = _member_schema(rng, adr.adr)
    defs[target]["properties"][name] = member
    shape = defs[target]
    known, required = set(shape["properties"]) - {name}, set(shape.get("required", ()))
    valid = _valid(adr.schema)

    def placed(lines: list[dict[str, JSON]]) -> list[dict[str, JSON]]:
        """``lines`` with the member on each object shaped like the def's where the line stays valid."""
        out = []
        for line in lines:
            edited = copy.deepcopy(line)
            for obj in _objects(edited):
                if set(obj) <= known and required <= set(obj):
                    obj[name] = VALUES[kind](rng)
            out.append(edited if edited != line and valid(edited) else line)
        return out

    # the transcript must show the member (the goldens cover the catalog): a golden with such an object
    for like in [adr.like, *sorted(goldens)]:
        shown = placed(goldens[like])
        if shown != goldens[like]:
            adr.like, adr.transcript = like, shown
            break
    adr.summary = f"optional {kind} member {name} in $defs/{target}"


def optional_in_free_form(rng: random.Random, adr: Adr) -> None:
    holders = sorted(k for k, v in adr.schema["properties"].items()
                     if isinstance(v, dict) and set(v) <= {"description"} and k not in ENVELOPE)
    holder = rng.choice(holders)
    name = _fresh(rng, _names(adr.schema))
    member, kind = _member_schema(rng, adr.adr)
    for place in _mirrors(adr.schema):
        place[holder] = {**place[holder], "properties": {name: member}}
    on = rng.choice(_kinds_of(adr.transcript))
    lines = [line for line in adr.transcript if line.get("type") == on]
    holding = [line for line in lines if isinstance(line.get(holder), dict)] or lines[:1]
    for line in holding:  # shown at least once (the goldens cover the catalog)
        before = line.get(holder)
        line[holder] = {**(before if isinstance(before, dict) else {}), name: VALUES[kind](rng)}
    adr.summary = f"optional {kind} member {name} declared in the free-form {holder} on {on} lines"
    adr.expect = "either"  # a free-form holder given a typed member is narrowed for emitters


def line_kind(rng: random.Random, adr: Adr) -> None:
    taken = _names(adr.schema) | {b["properties"]["type"].get("const") for b in adr.schema["oneOf"]}
    kind_name = _fresh(rng, {str(t) for t in taken})
    own: dict[str, tuple[dict[str, JSON], str]] = {}
    for _ in range(rng.randrange(1, 3)):
        own[_fresh(rng, _names(adr.schema) | set(own) | {kind_name})] = _member_schema(rng, adr.adr)
    required = [n for n in own if rng.random() < 0.7] or [next(iter(own))]
    branch = {"description": f"{kind_name} notices ({adr.adr}; open set)",
              "properties": {"type": {"const": kind_name}}, "required": ["type", *required]}
    at = rng.randrange(0, len(adr.schema["oneOf"]) + 1)
    adr.schema["oneOf"].insert(at, branch)
    for place in _mirrors(adr.schema):
        for name, (member, _) in own.items():
            place[name] = dict(member)
    lines = adr.transcript
    where = rng.randrange(1, len(lines))  # after the init line, before or at the result's place
    base = lines[where - 1]
    line = {"type": kind_name, "session_id": base["session_id"], "seq": base["seq"] + 1, "ts": base["ts"]}
    line.update({name: VALUES[kind](rng) for name, (_, kind) in own.items()})  # shown: the goldens cover the catalog
    adr.transcript = _renumbered([*lines[:where], line, *lines[where:]])
    adr.summary = (f"line kind {kind_name} at oneOf[{at}] requiring {', '.join(required)}, "
                   f"a line of it at {where + 1}")


def open_value(rng: random.Random, adr: Adr) -> None:
    value = _fresh(rng, _names(adr.schema))
    family = rng.choice(("result", "system"))
    anchor = "interrupted | refused" if family == "result" else "permission_denied | error"
    # every description that lists the family's known set (the top-level one lists the result family only)
    holders = (adr.schema, *[place["subtype"] for place in _mirrors(adr.schema)])
    texts = [h for h in holders if anchor in h["description"]]
    assert texts, f"no description lists the {family} family as this draw expects"
    for holder in texts:
        holder["description"] = holder["description"].replace(anchor, f"{anchor} | {value}")
    lines = adr.transcript
    if family == "result":
        lines[-1].update(subtype=value, is_error=rng.random() < 0.5)
    else:
        where = rng.randrange(1, len(lines))
        base = lines[where - 1]
        notice = {"type": "system", "subtype": value, "session_id": base["session_id"], "seq": base["seq"] + 1,
                  "ts": base["ts"]}
        adr.transcript = _renumbered([*lines[:where], notice, *lines[where:]])
    adr.summary = f"{family} subtype {value} documented"


FOLLOWS_THE_SCHEMA = ("strategies.py", "volatile.py")  # code that reads names from the schema or that evolve names


def free_members(root: Path, schema: dict[str, JSON]) -> list[str]:
    """The top-level members outside the envelope that no module of the package spells as a string."""
    sources = [p.read_text(encoding="utf-8") for p in sorted((root / "contract").rglob("*.py"))
               if p.name not in FOLLOWS_THE_SCHEMA]
    text = "\n".join(sources)
    return sorted(k for k in schema["properties"] if k not in ENVELOPE
                  and not any(q in text for q in (f'"{k}"', f"'{k}'", f'"/{k}')))


def _present(goldens: dict[str, list[dict[str, JSON]]], schema: dict[str, JSON]) -> list[str]:
    """The members a rename, removal, widening or bound may touch (:func:`free_members`)."""
    return list(FREE)


FREE: list[str] = []  # set by draw() from the checkout it draws for


def rename(rng: random.Random, adr: Adr) -> None:
    old = rng.choice(_present({}, adr.schema))
    new = _fresh(rng, _names(adr.schema))
    for place in _mirrors(adr.schema):
        place[new] = place.pop(old)
    for line in adr.transcript:
        if old in line:
            line[new] = line.pop(old)
    adr.migrate = ["--rename", f"{old}={new}"]
    adr.renamed_volatile = (old, new)
    adr.expect = "breaking"
    adr.summary = f"top-level member {old} renamed to {new}"


def removal(rng: random.Random, adr: Adr) -> None:
    required = {n for b in adr.schema["oneOf"] for n in b.get("required", ())} | set(adr.schema["required"])
    name = rng.choice([n for n in _present({}, adr.schema) if n not in required])
    for place in _mirrors(adr.schema):
        del place[name]
    for line in adr.transcript:
        line.pop(name, None)
    adr.migrate = ["--remove", name]
    adr.renamed_volatile = (name, "")
    adr.expect = "breaking"
    adr.summary = f"optional member {name} removed"


def made_required(rng: random.Random, adr: Adr, goldens: dict[str, list[dict[str, JSON]]]) -> None:
    """A member every golden line of a kind already carries, made required there (no golden moves)."""
    choices: list[tuple[str, str]] = []
    for branch in adr.schema["oneOf"]:
        kind_name = branch["properties"]["type"].get("const")
        seen = [line for lines in goldens.values() for line in lines if line.get("type") == kind_name]
        if seen:
            always = set.intersection(*(set(line) for line in seen)) - set(ENVELOPE) - set(branch.get("required", ()))
            choices += [(kind_name, name) for name in sorted(always)]
    kind_name, name = rng.choice(choices)
    branch = next(b for b in adr.schema["oneOf"] if b["properties"]["type"].get("const") == kind_name)
    branch["required"] = [*branch.get("required", ()), name]
    adr.expect = "breaking"
    adr.summary = f"{name} made required on {kind_name} lines"


def _typed(schema: dict[str, JSON], kind: str) -> list[str]:
    return sorted(k for k in FREE if schema["properties"][k].get("type") == kind)


def widened(rng: random.Random, adr: Adr) -> None:
    name = rng.choice(_typed(adr.schema, "integer"))
    for place in _mirrors(adr.schema):
        place[name] = {**place[name], "type": ["integer", "string"]}
    adr.expect = "breaking"
    adr.summary = f"{name} widened from integer to integer or string"


def bound(rng: random.Random, adr: Adr, goldens: dict[str, list[dict[str, JSON]]]) -> None:
    kind = rng.choice(("integer", "string"))
    name = rng.choice(_typed(adr.schema, kind))
    seen = [line[name] for lines in goldens.values() for line in lines if name in line] + \
        [line[name] for line in adr.transcript if name in line]
    if kind == "integer":
        keyword, value = rng.choice((("minimum", min([0, *seen])), ("maximum", max([10**9, *seen]))))
    else:
        keyword, value = "maxLength", max([4096, *(len(s) for s in seen if isinstance(s, str))])
    for place in _mirrors(adr.schema):
        place[name] = {**place[name], keyword: value}
    adr.expect = "either"  # a bound every golden meets: breaking for emitters by structure
    adr.summary = f"{name}: {keyword} {value} added"


def unread_keyword(rng: random.Random, adr: Adr) -> None:
    defs = adr.schema["$defs"]
    target = rng.choice(sorted(k for k, v in defs.items() if k != "event" and v.get("type") == "object"))
    keyword, value = rng.choice((("minProperties", 0), ("maxProperties", 10_000),
                                 ("propertyNames", {"minLength": 1}),
                                 ("$comment", f"noted by {adr.adr}")))
    defs[target] = {**defs[target], keyword: value}
    adr.expect = "either"
    adr.summary = f"$defs/{target}: {keyword} added"


KINDS: dict[str, Callable[..., None]] = {
    "optional-top": optional_top, "optional-def": optional_in_def, "optional-free-form": optional_in_free_form,
    "line-kind": line_kind, "open-value": open_value, "rename": rename, "removal": removal,
    "made-required": made_required, "widened": widened, "bound": bound, "unread-keyword": unread_keyword,
}
EXPECT = {"optional-top": "additive", "optional-def": "additive", "line-kind": "additive", "open-value": "additive"}
NEEDS_GOLDENS = {"made-required", "bound", "optional-def"}


def draw(seed: int, root: Path, schema: dict[str, JSON], goldens: dict[str, list[dict[str, JSON]]],
         kind: str | None = None) -> Adr:
    """The ADR of ``seed`` (of ``kind`` when given), its transcript valid under its schema."""
    rng = random.Random(seed)
    FREE[:] = free_members(root, schema)
    kind = kind or rng.choice(sorted(KINDS))
    like = rng.choice(sorted(goldens))
    adr = Adr(seed=seed, kind=kind, summary="", number=9000 + seed % 1000, schema=copy.deepcopy(schema),
              transcript=copy.deepcopy(goldens[like]), like=like, expect=EXPECT.get(kind, "either"))
    maker = KINDS[kind]
    if kind in NEEDS_GOLDENS:
        maker(rng, adr, goldens)
    else:
        maker(rng, adr)
    _keep_valid(adr, goldens[like])
    return adr


def _keep_valid(adr: Adr, original: list[dict[str, JSON]]) -> None:
    """Each transcript line the new schema refuses put back as the golden had it (edits are a best guess).

    Lines the draw inserted have no original; they are made to be valid and are kept (the walk's
    ``scenario`` step judges the whole transcript and fails loudly if one is not).
    """
    valid = _valid(adr.schema)
    if len(adr.transcript) != len(original):
        return
    adr.transcript = [line if valid(line) else before for line, before in zip(adr.transcript, original, strict=True)]


def dumps(lines: list[dict[str, JSON]]) -> str:
    return "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines)
