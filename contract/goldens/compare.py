"""Comparing an emitter's output with a golden, and classifying each difference.

:func:`compare` normalizes both sides (``contract.goldens.normalize``), pairs their lines (a sequence
alignment on each line's kind, so one missing or extra line, a banner included, is one
difference instead of shifting every later line: issue 47), diffs each pair with deepdiff, and
classifies every difference:

- additive: a member present only in the actual output and not required where it appears
  (per the wire schema), i.e. a new optional field;
- breaking: anything else (a member the schema forbids where it appears, a member removed, a
  value or a JSON type changed, an array item added or removed, a line missing, extra or
  unparsable).

A subagent-stdio conversation is compared in a canonical order, each command just before the
response answering it, because where a command lands among pushed events is timing
(``Wire.canonical``).

deepdiff compares equal-looking containers with ``==`` and so misses ``1`` vs ``1.0`` and
``true`` vs ``1`` inside lists; a type-aware pass finds those too.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson
from deepdiff import DeepDiff

from contract.checking.schemawalk import walker
from contract.core import textsafe
from contract.core.jsonline import parse
from contract.core.jsonvalue import clip, shown, type_name
from contract.core.jsonvalue import pointer as pointer_of
from contract.goldens.normalize import normalize
from contract.wires import Wire, resolve

if TYPE_CHECKING:
    from contract.goldens.store import Golden

ADDITIVE, BREAKING = "additive", "breaking"
ACCEPTED = "accepted"  # breaking, and named by an accepted-breaks entry with its ADR (record says so)


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()


@dataclass(frozen=True)
class Difference:
    """One difference between a golden and an actual transcript, after normalization."""

    kind: str  # ADDITIVE or BREAKING
    change: str  # added, removed, changed, type, item added, item removed, missing line, ...
    golden_line: int | None  # 1-based; None for an extra line
    actual_line: int | None  # 1-based; None for a missing line
    pointer: str  # JSON pointer inside the line ("" for the whole line)
    golden: Any = field(default=MISSING)  # normalized values
    actual: Any = field(default=MISSING)
    reason: str = ""

    @property
    def line(self) -> int | None:
        return self.actual_line if self.actual_line is not None else self.golden_line

    @property
    def breaking(self) -> bool:
        return self.kind == BREAKING

    def __str__(self) -> str:
        where = f"line {self.line}" if self.golden_line == self.actual_line or \
            None in (self.golden_line, self.actual_line) else \
            f"golden line {self.golden_line} / actual line {self.actual_line}"
        at = f" {self.pointer}" if self.pointer else ""
        values = ""
        if self.golden is not MISSING:
            values += f" golden {_show(self.golden)}"
        if self.actual is not MISSING:
            values += f" actual {_show(self.actual)}"
        return f"{where}{at}: {self.kind} {self.change} ({self.reason}){values}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "change": self.change,
                               "golden_line": self.golden_line, "actual_line": self.actual_line,
                               "pointer": self.pointer, "reason": self.reason}
        if self.golden is not MISSING:
            out["golden"] = self.golden
        if self.actual is not MISSING:
            out["actual"] = self.actual
        return out


@dataclass(frozen=True)
class Comparison:
    """Every difference between a golden and an actual transcript of one scenario."""

    wire: str
    differences: tuple[Difference, ...]

    @property
    def equal(self) -> bool:
        return not self.differences

    @property
    def breaking(self) -> tuple[Difference, ...]:
        return tuple(d for d in self.differences if d.breaking)

    @property
    def additive(self) -> tuple[Difference, ...]:
        return tuple(d for d in self.differences if d.kind == ADDITIVE)

    @property
    def accepted(self) -> tuple[Difference, ...]:
        return tuple(d for d in self.differences if d.kind == ACCEPTED)

    def to_json(self) -> dict[str, Any]:
        return {"wire": self.wire, "equal": self.equal, "breaking": len(self.breaking),
                "accepted": len(self.accepted), "additive": len(self.additive),
                "differences": [d.to_json() for d in self.differences]}

    def first_break(self) -> Difference | None:
        """The first breaking difference in the order of the lines (the alignment's), or None."""
        return next(iter(self.breaking), None)

    def changed_stream(self) -> str | None:
        """"the build changed the stream" with the first differing line, or None when nothing breaks."""
        first = self.first_break()
        if first is None:
            return None
        where = f"golden line {first.golden_line}" if first.actual_line is None else f"line {first.actual_line}"
        return f"the build changed the stream, first at {where} ({first.change})"

    def summary(self) -> str:
        if self.equal:
            return "no differences"
        additive = textsafe.counted(len(self.additive), "additive difference")
        accepted = f"{len(self.accepted)} accepted by ADR, " if self.accepted else ""
        head = f"{len(self.breaking)} breaking, {accepted}{additive}"
        # the values and pointers come from the emitter's output: escaped, one line each
        return "\n".join([head, *(f"  {textsafe.text(str(d))}" for d in self.differences)])


@dataclass(frozen=True)
class _Line:
    number: int
    value: Any  # the parsed, normalized value; the raw text when the line is not JSON
    parsed: bool


def compare(golden: bytes, actual: bytes, wire: Wire | str) -> Comparison:
    """Normalize both transcripts, pair their lines and classify every difference."""
    wire = resolve(wire).name
    old, new = _lines(golden, wire), _lines(actual, wire)
    found: list[Difference] = []
    names = _Names()
    for was, now in _aligned(old, new):
        if was is None:
            found.append(_extra(now))  # type: ignore[arg-type]  # one side is always there
        elif now is None:
            found.append(_missing(was))
        else:
            if now.parsed and was.parsed:
                now = _Line(now.number, names.renamed(was.value, now.value), True)
            found += _diff_pair(was, now, wire)
    return Comparison(wire, tuple(found))


def likeness(golden: bytes, actual: bytes, wire: Wire | str) -> float:
    """How much of two transcripts is one run, from 0 to 1: twice the lines paired with no breaking
    difference, over both sides' lines (a member added to a line, additive, keeps it paired)."""
    name = resolve(wire).name
    old, new = _lines(golden, name), _lines(actual, name)
    if not old or not new:
        return 0.0
    differing = {d.golden_line for d in compare(golden, actual, name).breaking if d.golden_line is not None}
    return 2 * (len(old) - len(differing)) / (len(old) + len(new))


def origin(data: bytes, goldens: Sequence[Golden], wire: Wire | str, prefer: str | None = None) -> Golden | None:
    """The golden ``data`` was made from: the most alike (:func:`likeness`), at least half alike, ``prefer``
    among equals (else the first by name); None when no golden is (an ADR transcript made from scratch)."""
    scored = [(likeness(golden.data(), data, wire), golden.name == prefer, golden) for golden in goldens]
    alike = [entry for entry in scored if entry[0] >= 0.5]
    if not alike:
        return None
    best = max(score for score, _, _ in alike)
    tied = [entry for entry in alike if entry[0] == best]
    return next((golden for _, preferred, golden in tied if preferred), tied[0][2])


def _aligned(old: list[_Line], new: list[_Line]) -> list[tuple[_Line | None, _Line | None]]:
    """The lines of both sides paired, in order (None: a line only one side has).

    Two passes of difflib's alignment: over the normalised lines themselves (ids by their kind
    only, as their numbers shift after a missing line), so a line dropped from a run of lines of
    one kind is found where it was; then, inside each stretch that differs, over the lines' kinds
    (:func:`_signature`), so a changed line is paired with the line it was and diffed member by member.
    """
    out: list[tuple[_Line | None, _Line | None]] = []
    content = difflib.SequenceMatcher(None, [_key(x) for x in old], [_key(x) for x in new], autojunk=False)
    for tag, i1, i2, j1, j2 in content.get_opcodes():
        if tag == "equal":
            out += zip(old[i1:i2], new[j1:j2], strict=True)
            continue
        kinds = difflib.SequenceMatcher(None, [_signature(x) for x in old[i1:i2]],
                                        [_signature(x) for x in new[j1:j2]], autojunk=False)
        for _, k1, k2, l1, l2 in kinds.get_opcodes():
            pairs = min(k2 - k1, l2 - l1)
            out += zip(old[i1 + k1:i1 + k1 + pairs], new[j1 + l1:j1 + l1 + pairs], strict=True)
            out += [(x, None) for x in old[i1 + k1 + pairs:i1 + k2]]
            out += [(None, x) for x in new[j1 + l1 + pairs:j1 + l2]]
    return out


def _key(line: _Line) -> str:
    """A line as the first alignment pass sees it: its normalised value, each id by its kind only."""
    if not line.parsed:
        return "\0" + str(line.value)
    text = json.dumps(line.value, sort_keys=True, ensure_ascii=False, default=repr)
    return _PLACEHOLDER_NUMBER.sub(r"\1>", text)


_PLACEHOLDER = re.compile(r"<[A-Za-z_]+:[0-9]+>")  # a MAP field's value, normalised (contract.goldens.normalize)
_PLACEHOLDER_NUMBER = re.compile(r"(<[A-Za-z_]+):[0-9]+>")


class _Names:
    """Which generated id of the run is which of the golden's, learnt along the aligned lines.

    Normalisation numbers ids by first appearance, so a line missing or extra before an id's first
    use would renumber every later one (``<message:3>`` against ``<message:2>``): one dropped line,
    a difference on every later line. Ids are matched instead where the aligned lines hold them, one
    to one: an id of the run always stands for the same id of the golden, so a wrong reference (a
    result naming another call than the golden's) is still a difference.
    """

    def __init__(self) -> None:
        self.forward: dict[str, str] = {}  # golden placeholder -> run placeholder
        self.backward: dict[str, str] = {}

    def renamed(self, golden: Any, actual: Any) -> Any:
        """``actual`` with each id placeholder written as the golden's name for the same id."""
        if type(actual) is str and _PLACEHOLDER.fullmatch(actual):
            return self._name(golden, actual)
        if type(actual) is dict:
            members: dict[str, Any] = golden if type(golden) is dict else {}
            return {key: self.renamed(members.get(key), value) for key, value in actual.items()}
        if type(actual) is list:
            items: list[Any] = golden if type(golden) is list else []
            return [self.renamed(items[i] if i < len(items) else None, value) for i, value in enumerate(actual)]
        return actual

    def _name(self, golden: Any, actual: str) -> str:
        known = self.backward.get(actual)
        if known is not None:
            return known
        fits = type(golden) is str and _PLACEHOLDER.fullmatch(golden) and golden not in self.forward \
            and golden.split(":")[0] == actual.split(":")[0]
        if fits:
            self.forward[golden], self.backward[actual] = actual, golden
            return str(golden)
        return actual if actual not in self.forward else f"{actual[:-1]}'>"  # never another id's golden name


def _lines(data: bytes, wire: str) -> list[_Line]:
    bodies = data.split(b"\n")
    if bodies and bodies[-1] == b"":
        bodies.pop()
    raw: list[_Line] = []
    for number, body in enumerate(bodies, start=1):
        value, faults = parse(body.rstrip(b"\r"))
        ok = value is not None and not faults
        raw.append(_Line(number, value if ok else body.decode("utf-8", "replace"), ok))
    canonical = resolve(wire).canonical
    if canonical is not None:
        raw = [raw[i] for i in canonical([x.value if x.parsed and isinstance(x.value, dict) else None
                                           for x in raw])]
    # a line that cannot be read but opens as an object ({…) stands for an object line: it counts
    # toward the line numbers seq is normalised against, as a banner or a log line does not
    normal = normalize(wire, [x.value if x.parsed else ({} if x.value.lstrip().startswith("{") else None)
                              for x in raw])
    return [_Line(x.number, normal[i] if x.parsed else x.value, x.parsed)
            for i, x in enumerate(raw)]


def _signature(line: _Line) -> tuple[Any, ...]:
    """What kind of line this is, for alignment: type, subtype, payload and block types."""
    value = line.value
    if not line.parsed or not isinstance(value, dict):
        return ("<not an object>",)
    event, message = _obj(value.get("event")), _obj(value.get("message"))
    content = message.get("content")
    blocks = tuple(_hashable(b.get("type")) for b in content if isinstance(b, dict)) \
        if isinstance(content, list) else ()
    return (_hashable(value.get("type")), _hashable(value.get("subtype")),
            _hashable(event.get("type")), blocks)


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _hashable(value: Any) -> Any:
    return value if isinstance(value, str | int | float | bool | type(None)) else repr(value)


def _missing(line: _Line) -> Difference:
    return Difference(BREAKING, "missing line", line.number, None, "", golden=line.value,
                      reason="a line of the golden is not in the actual output")


def _extra(line: _Line) -> Difference:
    return Difference(BREAKING, "extra line", None, line.number, "", actual=line.value,
                      reason="a line not in the golden")


def _diff_pair(old: _Line, new: _Line, wire: str) -> list[Difference]:
    if not (old.parsed and new.parsed):
        if old.parsed == new.parsed and old.value == new.value:
            return []
        return [Difference(BREAKING, "unparsable line", old.number, new.number, "",
                           golden=old.value, actual=new.value,
                           reason="a line that is not one JSON value on one side")]
    if _identical(old.value, new.value):
        return []
    diff = DeepDiff(old.value, new.value, verbose_level=2)
    found: list[Difference] = []
    seen: set[str] = set()
    for report_type, levels in diff.tree.items():
        for level in levels:
            path = level.path(output_format="list")
            pointer = pointer_of(path)
            seen.add(pointer)
            found.append(_classify(report_type, path, pointer, level.t1, level.t2,
                                   old, new, wire))
    for path, a, b in _type_mismatches(old.value, new.value, []):
        pointer = pointer_of(path)
        if pointer not in seen:
            found.append(Difference(BREAKING, "type", old.number, new.number, pointer, a, b,
                                    f"JSON type changed from {_json_type(a)} to {_json_type(b)}"))
    return sorted(found, key=lambda d: d.pointer)


def _classify(report_type: str, path: list[Any], pointer: str, t1: Any, t2: Any,
              old: _Line, new: _Line, wire: str) -> Difference:
    t1 = MISSING if _absent(t1) else t1
    t2 = MISSING if _absent(t2) else t2

    def diff(kind: str, change: str, reason: str) -> Difference:
        return Difference(kind, change, old.number, new.number, pointer, t1, t2, reason)

    if report_type == "dictionary_item_added":
        return _added(path, new, wire, diff)
    if report_type == "dictionary_item_removed":
        return diff(BREAKING, "removed", f"member {_name(path)} removed")
    if report_type == "type_changes":
        return diff(BREAKING, "type", f"JSON type changed from {_json_type(t1)} to "
                                      f"{_json_type(t2)}")
    if report_type == "values_changed":
        return diff(BREAKING, "changed", "value changed")
    if report_type == "iterable_item_added":
        return diff(BREAKING, "item added", "array item added")
    if report_type == "iterable_item_removed":
        return diff(BREAKING, "item removed", "array item removed")
    return diff(BREAKING, report_type, f"deepdiff reported {report_type}")


def _added(path: list[Any], new: _Line, wire: str, diff: Callable[[str, str, str], Difference]) -> Difference:
    parent, key = path[:-1], path[-1]
    walk = walker(wire)
    if not isinstance(key, str):
        return diff(BREAKING, "added", "unexpected addition")
    if key in walk.required(new.value, parent):
        return diff(BREAKING, "added",
                    f"member {shown(key)} is required there: the golden lacked a required member")
    if walk.forbidden(new.value, parent, key):  # not drift: the schema says no such member may be there
        return diff(BREAKING, "added",
                    f"member {shown(key)} is forbidden there (the schema's additionalProperties is false)")
    if walk.modelled(new.value, parent, key):
        return diff(ADDITIVE, "added",
                    f"new optional member {shown(key)}")
    return diff(ADDITIVE, "added",
                f"new member {shown(key)}, not modelled by the schema (check reports it)")


def _identical(a: Any, b: Any) -> bool:
    """The fast path for the common case, a line that did not change at all.

    Equal orjson bytes mean the same members in the same order with the same values of the same
    Python types (1, 1.0 and true serialize apart), so DeepDiff would find nothing. Anything
    orjson refuses (a Decimal, an integer over 64 bits, nesting past its limit) takes the slow
    path, as does a line whose members merely moved.
    """
    try:
        return orjson.dumps(a) == orjson.dumps(b)
    except orjson.JSONEncodeError:
        return False


def _type_mismatches(a: Any, b: Any, path: list[Any]) -> list[tuple[list[Any], Any, Any]]:
    """Places where both sides hold equal-comparing values of different JSON types."""
    if type(a) is dict and type(b) is dict:
        return [m for k in a if k in b for m in _type_mismatches(a[k], b[k], [*path, k])]
    if type(a) is list and type(b) is list:
        return [m for i, (x, y) in enumerate(zip(a, b, strict=False))
                for m in _type_mismatches(x, y, [*path, i])]
    if type(a) is not type(b) and a == b:
        return [(path, a, b)]
    return []


def _absent(value: Any) -> bool:
    return type(value).__name__ == "NotPresent"


def _name(path: list[Any]) -> str:
    return repr(path[-1]) if path else "line"


def _json_type(value: Any) -> str:
    return "nothing" if value is MISSING else type_name(value)


def _show(value: Any, limit: int = 80) -> str:
    return clip(json.dumps(value, ensure_ascii=False) if not isinstance(value, _Missing) else "-", limit)
