"""The golden corpus: the scenarios of each wire, loaded from ``goldens/<wire>/``.

A golden is ``goldens/<wire>/<scenario>.jsonl`` under the wire's data root (``Wire.goldens_dir``:
the bundled ``goldens/`` for a bundled wire), the transcript, valid wire data, with
``<scenario>.meta.json`` beside it (description, how to reproduce, provenance; its format is
``schemas/golden-meta.schema.json``). :func:`scenarios` lists them as frozen dataclasses.

Comparing an emitter's output with a golden is ``contract.goldens.compare``; re-recording one
from an emitter's output is ``contract.goldens.rewrite``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs

from contract.core.jsonline import parse
from contract.core.jsonvalue import pointer as pointer_of
from contract.core.resources import data_dir
from contract.core.userfiles import read_whole
from contract.wires import NAMES, Wire, get, resolve

WIRES = NAMES  # the wires with goldens: every registered wire

META_SCHEMA = "golden-meta.schema.json"
TRANSCRIPT, META = ".jsonl", ".meta.json"


@dataclass(frozen=True)
class Reproduce:
    """How an emitter reproduces the scenario."""

    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...]  # pairs, so the dataclass stays hashable
    stdin_from_transcript: bool  # write the transcript's command lines (subagent-stdio)
    exit_status: int

    def environ(self) -> dict[str, str]:
        return dict(self.env)


@dataclass(frozen=True)
class Provenance:
    """Authored to the schema (``authored`` says how and when) or recorded from an emitter."""

    authored: str | None = None
    emitter: str | None = None
    version: str | None = None
    date: str | None = None

    @property
    def recorded(self) -> bool:
        return self.emitter is not None


@dataclass(frozen=True)
class Golden:
    """One scenario of one wire."""

    wire: str
    name: str
    path: Path  # the transcript
    description: str
    reproduce: Reproduce
    provenance: Provenance
    schema_sha256: str | None = None  # the schema it was written under; None: the wire's first revision

    @property
    def descriptor(self) -> Wire:
        """The wire this golden belongs to, as its descriptor."""
        return get(self.wire)

    @property
    def meta_path(self) -> Path:
        return self.path.with_name(self.name + META)

    def data(self) -> bytes:
        return read_whole(self.path)  # a --goldens folder is the user's: bounded as every file read whole

    def commands(self) -> list[bytes]:
        """The client's lines of a conversation (each with its LF), in order (none on a stream wire)."""
        kind = self._command_type()
        lines = self.data().split(b"\n")
        return [line + b"\n" for line in lines if kind is not None and _line_type(line) == kind]

    def _command_type(self) -> str | None:
        """The type of the client's lines on this golden's wire (``Wire.dialogue``), if it has any."""
        dialogue = self.descriptor.dialogue
        return dialogue.command if dialogue is not None else None

    def command_groups(self) -> list[tuple[dict[str, Any], ...]]:
        """The client's commands grouped as written: consecutive ones were pipelined.

        A live driver sends each group at once and awaits its answers before the next.
        """
        groups: list[list[dict[str, Any]]] = []
        previous: Any = None
        command = self._command_type()
        for body in self.data().split(b"\n") if command is not None else ():
            value, _ = parse(body) if body else (None, ())
            kind = value.get("type") if isinstance(value, dict) else None
            if kind == command and isinstance(value, dict):
                if previous == command:
                    groups[-1].append(value)
                else:
                    groups.append([value])
            previous = kind
        return [tuple(group) for group in groups]


def _line_type(body: bytes) -> Any:
    value, _ = parse(body) if body else (None, ())
    return value.get("type") if isinstance(value, dict) else None


def goldens_dir() -> Path:
    """The bundled goldens (a wire's own are ``Wire.goldens_dir``: ``goldens/<wire>/`` under its data root)."""
    return data_dir("goldens")


def scenarios(wire: str) -> list[Golden]:
    """Every golden of a wire, sorted by name."""
    folder = get(wire).goldens_dir  # ValueError for an unknown wire
    paths = sorted(folder.glob("*" + TRANSCRIPT)) if folder.is_dir() else []
    return [load(wire, path.name[: -len(TRANSCRIPT)]) for path in paths]


def all_scenarios() -> list[Golden]:
    return [golden for wire in NAMES for golden in scenarios(wire)]


def load(wire: str, name: str) -> Golden:
    """One golden by wire and scenario name (raises FileNotFoundError when absent)."""
    path = get(wire).goldens_dir / (name + TRANSCRIPT)
    if not path.is_file():
        raise FileNotFoundError(f"no golden {wire}/{name} (looked for {path})")
    meta = read_meta(path.with_name(name + META))
    return Golden(wire, name, path, meta["description"], _reproduce(meta["reproduce"]),
                  _provenance(meta["provenance"]), meta.get("schema_sha256"))


def find(path: Path | str) -> Golden:
    """The golden whose transcript is ``path`` (as MILK_CONTRACT_GOLDEN names it)."""
    path = Path(path)
    name = path.name[: -len(TRANSCRIPT)] if path.name.endswith(TRANSCRIPT) else path.stem
    wire = path.parent.name
    if wire not in WIRES:
        raise ValueError(f"{path} is not inside goldens/<wire>/ for a known wire")
    meta = read_meta(path.with_name(name + META))
    return Golden(wire, name, path, meta["description"], _reproduce(meta["reproduce"]),
                  _provenance(meta["provenance"]), meta.get("schema_sha256"))


def read_meta(path: Path) -> dict[str, Any]:
    """A metadata file, checked against the metadata schema (ValueError naming the fault)."""
    try:
        meta = json.loads(read_whole(path))
    except (ValueError, RecursionError) as exc:  # not JSON: say which file
        raise ValueError(f"{path}: not JSON: {exc}") from None
    errors = meta_errors(meta)
    if errors:
        raise ValueError(f"{path}: " + "; ".join(errors))
    result: dict[str, Any] = meta
    return result


@cache
def _meta_validator() -> Any:
    schema = json.loads((data_dir("schemas") / META_SCHEMA).read_text(encoding="utf-8"))
    return jsonschema_rs.validator_for(schema)


def meta_errors(meta: Any) -> list[str]:
    """What is wrong with a metadata value, one message per fault (empty when valid)."""
    errors = _meta_validator().iter_errors(meta)
    return sorted(f"{pointer_of(list(e.instance_path))}: {e.message}" for e in errors)


def _reproduce(raw: dict[str, Any]) -> Reproduce:
    stdin = raw["stdin"]
    return Reproduce(
        argv=tuple(raw["argv"]),
        env=tuple(sorted(raw["env"].items())),
        stdin_from_transcript=isinstance(stdin, dict) and stdin.get("from") == "transcript",
        exit_status=raw["exit_status"],
    )


def _provenance(raw: dict[str, Any]) -> Provenance:
    recorded = raw.get("recorded")
    if isinstance(recorded, dict):
        return Provenance(emitter=recorded["emitter"], version=recorded["version"],
                          date=recorded.get("date"))
    return Provenance(authored=raw["authored"])


def emitter_version(data: bytes, wire: Wire | str) -> str | None:
    """The version an emitter reports in its own output, where its wire carries one (``Wire.version``)."""
    version = resolve(wire).version
    return version(data) if version is not None else None


# -- the schema a golden stands under ------------------------------------------------------------


def schema_sha256(wire: str, root: Path | None = None) -> str:
    """The sha256 of ``wire``'s schema in force: the checkout's at ``root`` when it has one, else the bundled."""
    own = root / "schemas" / get(wire).schema_path.name if root is not None else None
    path = own if own is not None and own.is_file() else get(wire).schema_path
    return hashlib.sha256(path.read_bytes()).hexdigest()


def recorded_under(golden: Golden, root: Path | None = None) -> str | None:
    """The sha256 of the schema ``golden`` was written under: its meta's, else the wire's first
    revision's (requirements/<wire>/r1.json), else None (a wire with no frozen revision)."""
    if golden.schema_sha256 is not None:
        return golden.schema_sha256
    from contract.rules import revisions

    own = root is not None and revisions.folder(golden.wire, root).is_dir()
    try:  # as for the schema: the checkout's own revisions when it has them, else the bundled
        first: str = revisions.load(golden.wire, "r1", root if own else None)["schema_sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return first


def schema_changed(golden: Golden, root: Path | None = None) -> bool:
    """Whether the schema in force differs from the one ``golden`` was written under: only then can a
    difference from it be a wire change an ADR decided (unknown counts as changed: the advice stays)."""
    under = recorded_under(golden, root)
    return under is None or under != schema_sha256(golden.wire, root)
