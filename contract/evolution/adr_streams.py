"""The streams a proposed schema lets milk write, made from the goldens: what ``feed --adr``, ``compat``
and ``evolve`` feed a consumer before the schema is taken in.

A golden is written under the schema in force. Under another schema (an ADR's, or a requirement-set
revision's) the same run is written as:

- the golden with the mechanical migration steps applied (``milk-contract migrate``'s steps,
  contract/evolution/migration.py: rename, remove, set), when any are given;
- one line of each line kind the other schema adds (``line-kind-added`` in the ADR gate's
  classification, contract/evolution/classify.py) inserted before the run's terminal line: the run's
  session, the ``ts`` of the line before, its ``seq`` renumbered; each member the new kind requires
  filled with the simplest value its schema allows (drawn by the project's compiler, or
  hypothesis-jsonschema where it cannot). That is the line a consumer meets first on the new revision,
  and the one that crashed SDKs when a producer added a kind (anthropics/claude-agent-sdk-python#599).

Fail closed: every stream made is checked line by line under the other schema (its own validator, as
``migrate`` checks, :func:`contract.evolution.migration.first_finding`); a golden that does not migrate,
a new kind no line can be made of, or a schema that cannot be read is :class:`AdrError` (one line, exit 2
at the command line), never a stream fed as if it were the new revision's.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contract.core import textsafe
from contract.core.userfiles import read_whole
from contract.evolution.migration import Step, first_finding, migrate_bytes
from contract.evolution.usable import problem
from contract.wires import Wire, get, resolve

FILLS = 12  # rounds of filling a new kind's missing members, at most
LINE_KIND_ADDED = "line-kind-added"


class AdrError(Exception):
    """A schema that cannot be read, or goldens that do not migrate to it: one line, exit 2."""


@dataclass(frozen=True, slots=True)
class Stream:
    """One golden as the other schema's milk writes it: fed as a golden is (``name``, ``data()``)."""

    name: str
    payload: bytes
    changes: str  # what differs from the golden, for a person ("" when nothing)
    wire: str = ""  # the golden's wire (its future variants are that wire's)
    path: Path | None = None  # no recorded pace of its own (feed --pace recorded feeds it at once)

    def data(self) -> bytes:
        return self.payload

    @property
    def descriptor(self) -> Wire:
        """The wire this stream is of, as its descriptor (as a golden's)."""
        return get(self.wire)


def read_schema(path: str | Path) -> tuple[dict[str, Any], str]:
    """A proposed schema and its sha256 (:class:`AdrError` when it cannot be read or is not a JSON Schema)."""
    raw, document = load_schema(path)
    return document, hashlib.sha256(raw).hexdigest()


def load_schema(path: str | Path) -> tuple[bytes, dict[str, Any]]:
    """A schema file's bytes and document, checked against the metaschema: :class:`AdrError`, one line,
    when it cannot be read, is not JSON, is no JSON Schema or is one no validator can use (a ``$ref``
    cycle, a ``$ref`` to nothing or outside the file: contract/evolution/usable.py) (``evolve`` too).
    The line is raw: the CLI escapes every error line it prints, so escaping here would print a hostile
    path escaped twice."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    shown = str(path)
    try:
        raw = read_whole(path)
    except OSError as exc:
        raise AdrError(f"cannot read {shown}: {exc.strerror or exc}") from None
    try:
        document = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise AdrError(f"{shown} is not valid JSON: {str(exc)[:200]}") from None
    if not isinstance(document, dict):
        raise AdrError(f"{shown} is not a JSON Schema (not an object)")
    try:
        Draft202012Validator.check_schema(document)
    except SchemaError as exc:
        raise AdrError(f"{shown} is not a valid JSON Schema: {exc.message[:200]}") from None
    except RecursionError:  # the metaschema check recurses once per level of nesting
        raise AdrError(f"{shown}: nested too deeply to be checked as a JSON Schema") from None
    why = problem(document)
    if why is not None:
        raise AdrError(f"{shown} is not a usable JSON Schema: {why}")
    return raw, document


def added_kinds(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The line kinds ``new`` adds to ``old``, as the ADR gate names them (in its order)."""
    from contract.evolution.classify import classify

    try:
        changes = classify(dict(old), dict(new))
    except Exception as error:  # a schema of no wire's shape (``{}``, say): one line, as ``diff`` says it
        from contract.checking.failsafe import describe

        raise AdrError(f"not a usable JSON Schema or surface ({describe(error)})") from None
    kinds = []
    for change in changes:
        if change.code == LINE_KIND_ADDED and change.path.startswith("kind:"):
            kinds.append(change.path[len("kind:"):])
    return kinds


def _branch(schema: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """The ``oneOf`` branch of ``kind`` (its ``$ref`` followed once), or an empty object."""
    for branch in schema.get("oneOf") or ():
        if isinstance(branch, dict) and isinstance(branch.get("$ref"), str):
            branch = _resolve(schema, branch["$ref"])
        props = branch.get("properties") if isinstance(branch, dict) else None
        if isinstance(props, dict) and isinstance(props.get("type"), dict) and props["type"].get("const") == kind:
            return _object(branch)
    return {}


def _resolve(schema: Mapping[str, Any], ref: str) -> dict[str, Any]:
    node: Any = schema
    for part in ref.removeprefix("#/").split("/") if ref.startswith("#/") else ["?"]:
        node = node.get(part) if isinstance(node, dict) else None
    return dict(node) if isinstance(node, dict) else {}


def _simplest(schema: Mapping[str, Any], member: Any) -> Any:
    """The simplest value ``member`` (a property schema) allows, with the root's ``$defs`` in reach."""
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis_jsonschema import from_schema

    from contract.strategies._compose import Compiler

    whole = {"$defs": schema.get("$defs", {}), **(member if isinstance(member, dict) else {})}
    shape = settings(max_examples=50, database=None, deadline=None, suppress_health_check=list(HealthCheck),
                     phases=(Phase.generate, Phase.shrink))
    try:
        strategy = Compiler(whole, ansi=False, depth=1).whole()
    except Exception:  # a keyword the compiler cannot honour: hypothesis-jsonschema draws it
        strategy = from_schema(whole)
    return find(strategy, lambda _value: True, settings=shape)


def _asked(errors: Any) -> list[str]:
    """The member names the ``required`` errors among ``errors`` (and their context) ask for, in order."""
    out: list[str] = []
    for error in errors:
        if error.validator == "required" and isinstance(error.validator_value, list):
            out += [name for name in error.validator_value if isinstance(name, str)]
        out += _asked(error.context or ())
    return out


def _member_schema(shared: Mapping[str, Any], own: Mapping[str, Any], name: str) -> Any:
    """What the schema asks of member ``name`` of the new kind: the shared object's and the branch's, both."""
    both = [found for found in (shared.get(name), own.get(name)) if isinstance(found, dict)]
    return both[0] if len(both) == 1 else {"allOf": both} if both else {}


def _object(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def kind_line(schema: Mapping[str, Any], kind: str, envelope: Mapping[str, Any]) -> dict[str, Any]:
    """A line of ``kind`` valid under ``schema``: ``envelope``'s members, every required one filled."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(dict(schema))
    branch = _branch(schema, kind)
    shared: dict[str, Any] = _object(schema.get("properties"))
    own: dict[str, Any] = _object(branch.get("properties"))
    line = {"type": kind, **{key: value for key, value in envelope.items() if key != "type"}}
    required = [*(schema.get("required") or ()), *(branch.get("required") or ())]
    for _ in range(FILLS):
        errors = list(validator.iter_errors(line))
        if not errors:
            return line
        missing = [name for name in [*required, *_asked(errors)]
                   if isinstance(name, str) and name not in line and (name in shared or name in own)]
        if not missing:
            break
        name = missing[0]
        try:
            line[name] = _simplest(schema, _member_schema(shared, own, name))
        except Exception:  # nothing drawn: said below, never a line the schema does not accept
            break
    error = first_finding(json.dumps(line).encode() + b"\n", dict(schema))
    raise AdrError(f"no line of the new kind {textsafe.text(kind)!r} valid under the schema could be made "
                   f"({textsafe.text(error or 'its members could not be filled', 300)})")


def _lines(data: bytes, name: str) -> list[dict[str, Any]]:
    out = []
    for number, raw in enumerate(data.splitlines(), 1):
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            raise AdrError(f"the golden {textsafe.text(name)} line {number} is not JSON") from None
        if not isinstance(value, dict):
            raise AdrError(f"the golden {textsafe.text(name)} line {number} is not a JSON object")
        out.append(value)
    return out


def _with_kinds(lines: list[dict[str, Any]], made: Sequence[dict[str, Any]], wire: Wire | None) -> list[dict[str, Any]]:
    """``lines`` with ``made`` before the last line: each new line takes the wire's envelope members
    (``Wire.envelope``) from the line before it, and the wire's counter (``Wire.counter``) is renumbered."""
    if len(lines) < 2 or not made:
        return lines
    envelope = wire.envelope if wire is not None else ()
    out = lines[:-1]
    for line in made:
        out.append({**line, **{key: out[-1][key] for key in envelope if key in out[-1] and key in line}})
    out.append(lines[-1])
    counter = wire.counter if wire is not None else None
    first = out[0].get(counter) if counter is not None else None
    if counter is not None and type(first) is int and all(counter in line for line in out):
        out = [{**line, counter: first + offset} for offset, line in enumerate(out)]
    return out


def _render(lines: Sequence[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
                    for line in lines)


def streams_under(goldens: Sequence[Any], old: Mapping[str, Any], new: Mapping[str, Any],
                  steps: Sequence[Step] = (), on: str | None = None, label: str = "the ADR's schema") -> list[Stream]:
    """Each golden (``name``, ``data()``, written under ``old``) as milk writes it under ``new``.

    :class:`AdrError` when one does not migrate (a line ``new`` does not accept, said with the golden,
    the line and why) or a new kind's line cannot be made.
    """
    try:
        kinds = added_kinds(old, new)
    except AdrError as error:
        raise AdrError(f"{label}: {error}") from None
    out = []
    for golden in goldens:
        data = golden.data()
        migrated = migrate_bytes(data, steps, on) if steps else data
        lines = _lines(migrated, golden.name)
        said = [f"migrated ({', '.join(str(step) for step in steps)})"] if migrated != data else []
        if kinds and len(lines) >= 2:
            wire = resolve(golden.wire) if getattr(golden, "wire", None) else None
            shared = (*wire.envelope, *([wire.counter] if wire.counter else [])) if wire is not None else ()
            template: dict[str, Any] = {key: copy.deepcopy(lines[-2][key]) for key in shared if key in lines[-2]}
            made = [kind_line(new, kind, template) for kind in kinds]
            lines = _with_kinds(lines, made, wire)
            said.append("a line of each new kind before the last (" + ", ".join(kinds) + ")")
        payload = _render(lines) if kinds else migrated
        finding = first_finding(payload, dict(new))
        if finding is not None:
            raise AdrError(f"the golden {textsafe.text(golden.name)} does not migrate to {label}: "
                           f"{textsafe.text(finding, 300)} (give the migration steps, or re-record it)")
        out.append(Stream(golden.name, payload, "; ".join(said), getattr(golden, "wire", "")))
    return out


def goldens(root: Path, wire: str) -> list[tuple[Stream, str | None]]:
    """The checkout's goldens of ``wire`` as streams, by name, each with the digest of the schema its meta
    says it was written under (None: the wire's first revision's)."""
    folder = root / "goldens" / wire
    out: list[tuple[Stream, str | None]] = []
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        name = path.name[: -len(".jsonl")]
        try:
            meta = json.loads(read_whole(path.with_name(name + ".meta.json")))
        except (OSError, ValueError, RecursionError):
            meta = None
        written = meta.get("schema_sha256") if isinstance(meta, dict) else None
        out.append((Stream(name, read_whole(path), "", wire), written if isinstance(written, str) else None))
    return out
