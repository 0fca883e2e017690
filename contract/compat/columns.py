"""The matrix's columns: each wire revision (and each proposed ADR), with the streams fed under it.

A revision of a wire is its schema as taken in (``r1`` the seed; each ``evolve`` writes the next
requirement set, contract/rules/revisions.py, with the sha256 of the schema it stands on). A checkout
holds one set of goldens, written under the schema in force; it does not hold every revision's
goldens. So a revision's streams are the goldens as milk writes them under that revision's schema
(contract/evolution/adr_streams.py): the goldens themselves for the revision in force, and for another
the goldens migrated to its schema, a line of each kind it adds inserted. That is what a consumer
meets on that revision, and it is derived, never recorded: the report says so per column.

A revision's schema is the checkout's schema file when the digests match; else ``--revision-schema
rN=FILE`` (its digest must be the set's); else the schema file's git history (the last
:data:`GIT_COMMITS` commits that touched it). A revision whose schema is found nowhere is a column
of errors, never of passes. ``--adr FILE`` adds a column ``adr:NAME`` for a schema not taken in yet.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contract.core import textsafe
from contract.core.userfiles import read_whole
from contract.evolution.adr_streams import AdrError, Stream, goldens, read_schema, streams_under
from contract.rules import revisions
from contract.wires import get

GIT_COMMITS = 200  # of the schema file's history searched for a revision's schema
GIT_TIMEOUT = 30.0  # seconds, for the whole search


class CompatError(Exception):
    """Misuse or an input that cannot be used (a schema given that is not the revision's): one line, exit 2."""


@dataclass(frozen=True)
class Column:
    """One wire revision: its label, its schema's digest, the streams under it, or why there are none."""

    wire: str
    label: str  # r1, r2, ..., adr:NAME
    schema_sha256: str | None
    streams: tuple[Stream, ...] = ()
    error: str | None = None  # set: no stream could be made; every cell of the column is an error
    derived: bool = False  # the streams were migrated from the goldens, not recorded
    changes: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {"wire": self.wire, "revision": self.label, "schema_sha256": self.schema_sha256,
                "streams": len(self.streams), "derived": self.derived, "changes": list(self.changes),
                "error": self.error}


class Schemas:
    """A wire's schemas by digest: the checkout's file, those given (``--revision-schema``, ``--adr``), its
    git history (searched once, on the first digest not found elsewhere)."""

    def __init__(self, root: Path, relative: str, current: bytes) -> None:
        self.root, self.relative = root, relative
        self.known: dict[str, dict[str, Any]] = {hashlib.sha256(current).hexdigest(): json.loads(current)}
        self.searched = False

    def add(self, document: dict[str, Any], sha256: str) -> None:
        self.known.setdefault(sha256, document)

    def get(self, sha256: str) -> dict[str, Any] | None:
        if sha256 not in self.known and not self.searched:
            self.searched = True
            for raw in _history(self.root, self.relative):
                with contextlib.suppress(ValueError, RecursionError):
                    self.known.setdefault(hashlib.sha256(raw).hexdigest(), json.loads(raw))
        return self.known.get(sha256)


def _history(root: Path, relative: str) -> list[bytes]:
    """The schema file as each of the last :data:`GIT_COMMITS` commits that touched it held it (none without git)."""
    out: list[bytes] = []
    try:
        listed = subprocess.run(["git", "-C", str(root), "log", f"-n{GIT_COMMITS}", "--format=%H", "--", relative],
                                capture_output=True, timeout=GIT_TIMEOUT, check=False)
        for commit in listed.stdout.decode("ascii", "replace").split():
            shown = subprocess.run(["git", "-C", str(root), "show", f"{commit}:{relative}"], capture_output=True,
                                   timeout=GIT_TIMEOUT, check=False)
            if shown.returncode == 0:
                out.append(shown.stdout)
    except (OSError, subprocess.SubprocessError):
        return out
    return out


def _given(schemas: Schemas, wire: str, sets: Mapping[str, str], given: Mapping[str, str]) -> None:
    for label, path in given.items():
        if label not in sets:
            raise CompatError(f"--revision-schema {label}: {wire} has no requirement set {label}")
        try:
            document, digest = read_schema(path)
        except AdrError as exc:
            raise CompatError(f"--revision-schema {label}: {exc}") from None
        if digest != sets[label]:
            raise CompatError(f"--revision-schema {label}={textsafe.text(path)}: its sha256 is {digest[:12]}…, but "
                              f"{wire} {label}'s requirement set stands on {sets[label][:12]}… (another schema)")
        schemas.add(document, digest)


def _column(wire: str, label: str, sha256: str, schema: dict[str, Any],
            base: list[tuple[Stream, str]], schemas: Schemas) -> Column:
    """The column of one schema: each golden as recorded where it was written under it, else migrated."""
    streams: list[Stream] = []
    for stream, written in base:
        if written == sha256:
            streams.append(stream)
            continue
        before = schemas.get(written)
        if before is None:
            return Column(wire, label, sha256, error=(
                f"the schema the golden {textsafe.text(stream.name)} was written under (sha256 {written[:12]}…) is "
                "found neither in the checkout nor in its git history: give it with --revision-schema"))
        try:
            streams += streams_under([stream], before, schema, label=f"{wire} {label}'s schema")
        except AdrError as exc:
            return Column(wire, label, sha256, error=str(exc))
    said = tuple(sorted({stream.changes for stream in streams if stream.changes}))
    return Column(wire, label, sha256, tuple(streams), derived=any(s.changes for s in streams) or
                  any(written != sha256 for _, written in base), changes=said)


def columns(root: Path, wire: str, adrs: Sequence[str] = (), given: Mapping[str, str] | None = None) -> list[Column]:
    """Every revision of ``wire`` with a requirement set in ``root`` (``unfrozen`` when none), then each ADR."""
    relative = f"schemas/{get(wire).schema_file}"
    try:
        current_raw = read_whole(root / relative)
        schemas = Schemas(root, relative, current_raw)
    except (OSError, ValueError, RecursionError) as exc:
        said = textsafe.text(str(exc), 200)
        raise CompatError(f"cannot read {textsafe.text(str(root / relative))}: {said}") from None
    current_sha = hashlib.sha256(current_raw).hexdigest()
    sets: dict[str, str] = {}
    for number in revisions.numbers(wire, root):
        try:
            sets[f"r{number}"] = str(revisions.load(wire, f"r{number}", root)["schema_sha256"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            said = textsafe.text(str(exc), 200)
            raise CompatError(f"{wire} r{number}'s requirement set cannot be read: {said}") from None
    _given(schemas, wire, sets, given or {})
    first = sets.get("r1", current_sha)
    base = [(stream, written or first) for stream, written in goldens(root, wire)]
    if not base:
        raise CompatError(f"no {wire} goldens under {textsafe.text(str(root / 'goldens' / wire))}: nothing to feed")
    out: list[Column] = []
    for label, sha256 in sets.items() if sets else [("unfrozen", current_sha)]:
        schema = schemas.get(sha256)
        if schema is None:
            out.append(Column(wire, label, sha256, error=(
                f"the schema {label} stands on (sha256 {sha256[:12]}…) is neither {relative} nor in its git history: "
                f"give it with --revision-schema {label}=FILE")))
            continue
        out.append(_column(wire, label, sha256, schema, base, schemas))
    for path in adrs:
        try:
            schema, sha256 = read_schema(path)
        except AdrError as exc:
            raise CompatError(f"--adr: {exc}") from None
        out.append(_column(wire, f"adr:{Path(path).name}", sha256, schema, base, schemas))
    return out
