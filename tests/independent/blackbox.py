"""What the independent reading's runners share: the CLI driven as a black box, and cases as data.

The cases under ``tests/independent/cases/`` were written from the seeds (``schemas/``), README.md
and ``docs/`` alone, by a reader who did not open ``contract/``; READINGS.md beside this file gives
the words each case rests on. The runners only start ``python -m contract ...`` (the interpreter
running the tests) and read what it prints, its exit status and the files it writes.

A case is a JSON object with a readable ``id``. ``xfail_reason`` marks a case the code of its day
gets wrong (a strict xfail: it fails the run once the code agrees, so that the mark is removed;
the removed mark is kept as ``xfailed_before``, the record of what the code did when the case was written);
``deep`` puts a heavier case in the deep run only. Edits of a JSON document are data too
(:func:`apply_edits`): ``set``, ``remove``, ``append``, ``move`` (from ``from``), ``other_revision``
(a revision other than the one there: a checkout an ADR evolved is at r2 already), ``replace_text``
and ``remove_items`` (the items of a list equal to ``equal``, or whose members match ``where``),
each at a JSON pointer, optionally after ``select`` steps that pick one item of a list by its
members.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import pytest

from tests.support.depth import sample

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CASES = HERE / "cases"
SCHEMAS = ROOT / "schemas"
GOLDENS = ROOT / "goldens"

Json = Any


def cli(*args: str, cwd: Path = ROOT, timeout: float = 300.0) -> subprocess.CompletedProcess[str]:
    """``python -m contract ARGS`` from ``cwd``, its stdout and stderr as text."""
    return subprocess.run(
        [sys.executable, "-m", "contract", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        check=False,
    )


def load_cases(name: str) -> dict[str, Any]:
    """The case file ``cases/NAME.json``."""
    with (CASES / f"{name}.json").open(encoding="utf-8") as handle:
        return cast(dict[str, Any], json.load(handle))


def params(
    cases: Sequence[Mapping[str, Any]],
    raises: Mapping[str, type[BaseException]] | None = None,
    every: int = 1,
    by: str | None = None,
) -> list[Any]:
    """One pytest parameter per case, named by its id, strict-xfailed or deep as the case says.

    ``raises`` maps an ``xfail_reason`` to the one exception that xfail expects: a case failing
    in any other way then fails the run (the reason no longer holds, and something else is wrong).
    ``every`` samples the cases by depth (:func:`tests.support.depth.sample`: every case in the
    deep run, every ``every``-th in the default run, always the first and last), within each group
    of cases that share the member ``by`` (each verdict or verb keeps a case in the default run).
    """
    groups: dict[str, list[int]] = {}
    for at, case in enumerate(cases):
        groups.setdefault(str(case.get(by)) if by else "", []).append(at)
    kept = {at for members in groups.values() for at in sample(members, every)}
    out: list[Any] = []
    for at, case in enumerate(cases):
        if at not in kept:
            continue
        marks: list[Any] = []
        if case.get("xfail_reason"):
            reason = str(case["xfail_reason"])
            expected = (raises or {}).get(reason)
            marks.append(pytest.mark.xfail(reason=reason, strict=True, raises=expected))
        if case.get("deep"):
            marks.append(pytest.mark.deep)
        out.append(pytest.param(case, id=str(case["id"]), marks=marks))
    return out


def canonical_sha256(statement: Mapping[str, Any]) -> str:
    """A statement's checksum by the recipe of docs/statements.md.

    "over the canonical content (sorted keys, compact, ASCII), without ``generated`` and ``sha256``".
    """
    content = {key: value for key, value in statement.items() if key not in ("generated", "sha256")}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def reseal(statement: dict[str, Any]) -> dict[str, Any]:
    """The statement with its ``sha256`` recomputed (what anyone who edits one by hand can do)."""
    statement["sha256"] = canonical_sha256(statement)
    return statement


def _tokens(pointer: str) -> list[str]:
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"not a JSON pointer: {pointer!r}")
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer[1:].split("/")]


def _step(node: Json, token: str) -> Json:
    if isinstance(node, list):
        return node[int(token)]
    return node[token]


def resolve(doc: Json, pointer: str) -> Json:
    """The value at ``pointer`` (RFC 6901) in ``doc``."""
    node = doc
    for token in _tokens(pointer):
        node = _step(node, token)
    return node


def _select(doc: Json, steps: Sequence[Sequence[Any]]) -> Json:
    """Walk ``[pointer, {member: value}]`` steps: at each, the one list item with those members."""
    node = doc
    for pointer, where in steps:
        items = resolve(node, pointer)
        found = [item for item in items if all(item.get(k) == v for k, v in where.items())]
        if len(found) != 1:
            raise LookupError(f"{len(found)} items at {pointer} match {where}")
        node = found[0]
    return node


def apply_edits(doc: Json, edits: Sequence[Mapping[str, Any]]) -> Json:
    """A deep copy of ``doc`` with each edit applied in turn."""
    out = copy.deepcopy(doc)
    for edit in edits:
        base = _select(out, edit.get("select", []))
        tokens = _tokens(edit["path"])
        parent = base
        for token in tokens[:-1]:
            parent = _step(parent, token)
        last = tokens[-1]
        op = edit["op"]
        if op == "set":
            if isinstance(parent, list):
                parent[int(last)] = copy.deepcopy(edit["value"])
            else:
                parent[last] = copy.deepcopy(edit["value"])
        elif op == "remove":
            del parent[int(last) if isinstance(parent, list) else last]
        elif op == "append":
            _step(parent, last).append(copy.deepcopy(edit["value"]))
        elif op == "move":  # the value at `from` (of the selected base) to `path`
            source = _tokens(edit["from"])
            holder = base
            for token in source[:-1]:
                holder = _step(holder, token)
            value = holder.pop(int(source[-1]) if isinstance(holder, list) else source[-1])
            if isinstance(parent, list):
                parent.insert(int(last), value)
            else:
                parent[last] = value
        elif op == "other_revision":  # a requirement-set revision other than the one there (r1 always exists)
            parent[last] = "r2" if parent[last] == "r1" else "r1"
        elif op == "remove_items":
            items = _step(parent, last)
            if "where" in edit:
                kept = [i for i in items if not all(i.get(k) == v for k, v in edit["where"].items())]
            else:
                kept = [i for i in items if i != edit["equal"]]
            if len(kept) == len(items):
                raise LookupError(f"nothing to remove at {edit['path']}")
            items[:] = kept
        elif op == "replace_text":
            key: Any = int(last) if isinstance(parent, list) else last
            text = parent[key]
            if edit["old"] not in text:
                raise LookupError(f"{edit['old']!r} is not in {edit['path']}")
            parent[key] = text.replace(edit["old"], edit["new"])
        else:
            raise ValueError(f"unknown edit {op!r}")
    return out


def transcript(case: dict[str, Any]) -> bytes:
    """The case's stream: the golden with its inserts, edits, renumbering and raw byte edits.

    ``golden`` names ``goldens/WIRE/NAME`` without ``.jsonl``; ``insert`` puts ``line`` after the 1-based
    line ``at`` (its session_id and ts copied from that line, seq 0 until renumbered); ``edits`` are
    :func:`apply_edits` on the list of lines (0-based); ``renumber_seq`` numbers seq on from the first
    line's; ``ts_in_order`` gives a line that would step back in time the stamp before it; ``raw``
    edits the serialized 1-based ``line`` (``spaced``; ``old`` to ``new``; ``prefix``, ``suffix``;
    its ``newline``).
    """
    text = (GOLDENS / f"{case['golden']}.jsonl").read_text(encoding="utf-8")
    lines: list[dict[str, Any]] = [json.loads(line) for line in text.splitlines()]
    for insert in case.get("insert", []):
        before = lines[insert["at"] - 1]
        line = {"type": "", "session_id": before["session_id"], "seq": 0, "ts": before["ts"]}
        line.update(copy.deepcopy(insert["line"]))
        lines.insert(insert["at"], line)
    lines = apply_edits(lines, case.get("edits", []))
    if case.get("renumber_seq"):
        for index, line in enumerate(lines):
            line["seq"] = lines[0]["seq"] + index
    if case.get("ts_in_order"):  # a moved line takes the stamp before it (one format: the strings order as times)
        for before, line in itertools.pairwise(lines):
            line["ts"] = max(before["ts"], line["ts"])
    compact = (",", ":")
    raw = [json.dumps(line, ensure_ascii=False, separators=compact) for line in lines]
    newlines = ["\n"] * len(raw)
    for edit in case.get("raw", []):
        at = edit["line"] - 1
        if edit.get("spaced"):
            raw[at] = json.dumps(lines[at], ensure_ascii=False, separators=(", ", ": "))
        if "old" in edit:  # a byte-level replacement: what no JSON value can spell (a lone surrogate escape)
            if edit["old"] not in raw[at]:
                raise LookupError(f"{edit['old']!r} is not in line {edit['line']}")
            raw[at] = raw[at].replace(edit["old"], edit["new"])
        raw[at] = edit.get("prefix", "") + raw[at] + edit.get("suffix", "")
        newlines[at] = edit.get("newline", "\n")
    return "".join(line + end for line, end in zip(raw, newlines, strict=True)).encode("utf-8")


def write_json(path: Path, doc: Json) -> Path:
    """Write ``doc`` as JSON (UTF-8) at ``path`` and return the path."""
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def read_json(path: Path) -> Json:
    """The JSON document at ``path``."""
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)
