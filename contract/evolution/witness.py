"""A witness for a breaking schema change: one line valid under one schema and invalid under the other.

The classifier judges a change by structure (a const added, a dialect changed...); a witness shows
it on a line. :func:`search` tries a bounded number of candidate lines, in a fixed order from a
fixed seed (the same answer on every run): the named wire's golden lines, lines drawn from each
schema with hypothesis-jsonschema, and edits of both (a member dropped, set to a value of another
type or another value, an unknown member added), each judged by both schemas' own validators
(each in the dialect its ``$schema`` names). Where none of them tells the schemas apart the
answer says so, and whether the budget ran out: "breaking by structure, no witness found" is not
"equivalent".
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from contract.core.jsonvalue import clip

BUDGET = 300  # candidate lines judged at most: a few seconds, no deadline
DRAWS = 10  # lines drawn from each schema, only when no golden line nor edit told them apart
EDITS = 6  # edits tried of each line
SEED = 0
_VALUES: tuple[Any, ...] = (None, 0, -1, 99, 1.5, "", "x", True, [], {})


@dataclass(frozen=True, slots=True)
class Witness:
    """The outcome of a search: ``line`` passes the schema ``valid_under`` names ("old" or "new")
    and fails the other; ``line`` None when no candidate told them apart (``exhausted``: the
    budget ran out before the candidates did)."""

    line: Any
    valid_under: str | None
    tried: int
    exhausted: bool
    budget: int = BUDGET

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "valid_under": self.valid_under, "tried": self.tried,
                "budget": self.budget, "budget_reached": self.exhausted}

    def text(self) -> str:
        """One line for the report (the caller escapes it)."""
        if self.valid_under is not None:
            other = "new" if self.valid_under == "old" else "old"
            return (f"witness: valid under the {self.valid_under} schema, invalid under the {other}: "
                    f"{clip(json.dumps(self.line, ensure_ascii=False, sort_keys=True), 400)}")
        budget = f"the budget of {self.budget} reached" if self.exhausted else "every candidate tried"
        return f"breaking by structure, no witness found ({self.tried} lines tried, {budget})"


def _validity(schema: Mapping[str, Any]) -> Callable[[Any], bool | None]:
    """Whether a line passes ``schema`` in the dialect its ``$schema`` names (None: not judged)."""
    from jsonschema import Draft202012Validator
    from jsonschema.validators import validator_for

    try:
        validator = validator_for(schema, default=Draft202012Validator)(schema)
    except Exception:
        return lambda _line: None

    def judge(line: Any) -> bool | None:
        try:
            return bool(validator.is_valid(line))
        except Exception:  # a pattern the engine cannot compile, a $ref it cannot resolve
            return None
    return judge


def _drawn(schema: Mapping[str, Any], seed: int) -> list[Any]:
    """Up to :data:`DRAWS` lines hypothesis-jsonschema draws from ``schema`` (none when it cannot)."""
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import NoSuchExample
    from hypothesis_jsonschema import from_schema

    from contract.strategies._schemas import ecma_patterns, unroll

    seen: list[Any] = []

    def keep(line: Any) -> bool:
        seen.append(line)
        return False

    shape = settings(max_examples=DRAWS, database=None, deadline=None, suppress_health_check=list(HealthCheck),
                     phases=(Phase.generate,))
    unrolled = unroll(dict(schema), 1)
    try:  # the project's compiler first: built in milliseconds where hypothesis-jsonschema takes seconds
        from contract.strategies._compose import Compiler

        strategy = Compiler(dict(schema), ansi=True, depth=1).whole()
    except Exception:  # a keyword it cannot honour: hypothesis-jsonschema, slower, draws it
        strategy = from_schema(ecma_patterns(unrolled))
    try:
        find(strategy, keep, settings=shape, random=random.Random(seed))
    except NoSuchExample:
        pass
    except Exception:  # a schema hypothesis-jsonschema cannot draw from: the other candidates still count
        return seen
    return seen


def _places(line: Any, at: tuple[Any, ...] = (), depth: int = 3) -> Iterator[tuple[Any, ...]]:
    """The paths of the members and items of ``line`` (down to ``depth``)."""
    if depth == 0:
        return
    if isinstance(line, dict):
        for key, value in line.items():
            yield (*at, key)
            yield from _places(value, (*at, key), depth - 1)
    elif isinstance(line, list) and line:
        yield (*at, 0)
        yield from _places(line[0], (*at, 0), depth - 1)


def _edited(line: Any, rng: random.Random) -> Any:
    """A copy of ``line`` with one member dropped, set to another value, or an unknown one added."""
    out = json.loads(json.dumps(line))
    places = list(_places(out))
    if not places:
        return rng.choice(_VALUES)
    place = rng.choice(places)
    holder = out
    for part in place[:-1]:
        holder = holder[part]
    last = place[-1]
    roll = rng.random()
    if roll < 0.2 and isinstance(holder, dict):
        del holder[last]
    elif roll < 0.35 and isinstance(holder[last], dict):
        holder[last]["x_unknown"] = 0
    elif roll < 0.5 and isinstance(holder[last], int | float) and not isinstance(holder[last], bool):
        holder[last] = holder[last] + rng.choice((1, -1, 100))
    else:
        holder[last] = rng.choice(_VALUES)
    return out


def _candidates(old: Mapping[str, Any], new: Mapping[str, Any], lines: list[Any], seed: int) -> Iterator[Any]:
    rng = random.Random(seed)
    bases = list(lines)
    yield from bases
    for base in bases:
        for _ in range(EDITS):
            yield _edited(base, rng)
    for schema in (old, new):
        for drawn in _drawn(schema, seed):
            yield drawn
            for _ in range(EDITS):
                yield _edited(drawn, rng)


def search(old: Mapping[str, Any], new: Mapping[str, Any], lines: list[Any] | None = None,
           seed: int = SEED, budget: int = BUDGET) -> Witness:
    """A line that passes one of ``old`` and ``new`` and fails the other, from ``lines`` (the wire's
    goldens, say), draws and edits, within ``budget`` candidates."""
    before, after = _validity(old), _validity(new)
    tried = 0
    for line in _candidates(old, new, lines or [], seed):
        if tried >= budget:
            return Witness(None, None, tried, True, budget)
        tried += 1
        a, b = before(line), after(line)
        if a is None or b is None or a == b:
            continue
        return Witness(line, "old" if a else "new", tried, False, budget)
    return Witness(None, None, tried, False, budget)


def golden_lines(schema: Mapping[str, Any], most: int = 60) -> list[Any]:
    """Up to ``most`` lines of the goldens of the wire ``schema`` is a version of (none for another
    schema): two of each kind of line (``type``/``subtype``) the goldens show."""
    from contract.core.resources import data_dir
    from contract.evolution.surface import named_by

    wire = named_by(schema)
    folder = data_dir("goldens") / wire if wire else None
    if folder is None or not folder.is_dir():
        return []
    out: list[Any] = []
    kinds: dict[str, int] = {}
    for file in sorted(folder.glob("*.jsonl")):
        for raw in file.read_bytes().splitlines():
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            kind = json.dumps([line.get("type"), line.get("subtype")]) if isinstance(line, dict) else "?"
            if kinds.get(kind, 0) < 2 and len(out) < most:
                kinds[kind] = kinds.get(kind, 0) + 1
                out.append(line)
    return out
