"""Registered consumers: the file in a repository naming the consumers of milk's wires it cares about.

``milk-consumers.json`` (at the checkout's top, or ``--consumers FILE``) holds, per consumer, its
``name``, ``version``, the ``command`` that runs it (an argv, no shell), optionally its ``wire`` (a
stream wire; default the registry's first), whether it speaks the ``reading`` protocol and a
``timeout``; its shape is ``schemas/consumers.schema.json`` (shipped). ``milk-contract compat`` runs
each against every wire revision, and ``evolve`` names those an ADR would break.

The file is the user's, so it is untrusted: read through the bounded reader (at most
:data:`MAX_BYTES`), checked against the schema (counts, lengths, no control character in a name or
version), then for what a schema cannot say (a name and version registered twice, a wire that is
not a stream wire). Each problem is :class:`ConsumersError`, one line naming the place, its text
escaped: exit 2 at the command line, never a matrix over half a file.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contract.core import textsafe
from contract.core.resources import data_dir
from contract.core.userfiles import size_text
from contract.wires import NAMES, Live, first, get

FILE_NAME = "milk-consumers.json"
SCHEMA_NAME = "consumers.schema.json"
MAX_BYTES = 1024**2  # a registry of consumers is a few KiB; more is not one


class ConsumersError(Exception):
    """A consumers file that cannot be read or is not one: one line, exit 2."""


@dataclass(frozen=True, slots=True)
class Consumer:
    """One registered consumer: who it is, and how it runs."""

    name: str
    version: str
    command: tuple[str, ...]
    wire: str
    reading: bool = False
    timeout: float | None = None

    @property
    def label(self) -> str:
        """``name version`` as a person reads it (escaped)."""
        return textsafe.text(f"{self.name} {self.version}")

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "command": list(self.command), "wire": self.wire,
                "reading": self.reading, "timeout": self.timeout}


def _raw(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ConsumersError(f"cannot read the consumers file {textsafe.text(os.fspath(path))}: "
                             f"{exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise ConsumersError(f"the consumers file {textsafe.text(os.fspath(path))} holds more than "
                             f"{size_text(MAX_BYTES)} (a registry of consumers is a few KiB)")
    return data


def _place(error: Any) -> str:
    return "".join(f"/{part}" for part in error.absolute_path) or "/"


def load(path: str | os.PathLike[str]) -> list[Consumer]:
    """The consumers ``path`` registers, in its order (:class:`ConsumersError` on any problem)."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    where = Path(path)
    shown = textsafe.text(os.fspath(where))
    try:
        document = json.loads(_raw(where))
    except (ValueError, RecursionError) as exc:
        raise ConsumersError(f"the consumers file {shown} is not JSON: {textsafe.text(str(exc), 200)}") from None
    schema = json.loads((data_dir("schemas") / SCHEMA_NAME).read_text(encoding="utf-8"))
    error = best_match(Draft202012Validator(schema).iter_errors(document))
    if error is not None:
        # a pattern's message would print the pattern itself, escaped twice over: say what it asks
        banned = "NUL" if "command" in error.absolute_path else "control character"
        said = (f"expected no {banned}, found {textsafe.text(repr(error.instance), 100)}"
                if error.validator == "pattern" else textsafe.text(error.message, 200))
        raise ConsumersError(f"the consumers file {shown} at {textsafe.text(_place(error), 100)}: "
                             f"{said} (its shape: schemas/{SCHEMA_NAME})")
    out: list[Consumer] = []
    seen: set[tuple[str, str]] = set()
    default = first(Live.STREAM).name
    for index, entry in enumerate(document["consumers"]):
        wire = entry.get("wire", default)
        if wire not in NAMES or get(wire).live is not Live.STREAM:
            streams = ", ".join(name for name in NAMES if get(name).live is Live.STREAM)
            raise ConsumersError(f"the consumers file {shown} at /consumers/{index}/wire: "
                                 f"{textsafe.text(wire, 100)!r} is not a stream wire ({streams})")
        key = (entry["name"], entry["version"])
        if key in seen:
            raise ConsumersError(f"the consumers file {shown} at /consumers/{index}: "
                                 f"{textsafe.text(entry['name'] + ' ' + entry['version'], 200)} is registered twice")
        seen.add(key)
        out.append(Consumer(entry["name"], entry["version"], tuple(entry["command"]), wire,
                            bool(entry.get("reading", False)), entry.get("timeout")))
    return out


def found(root: Path, given: str | None) -> Path | None:
    """The consumers file: ``given`` (``--consumers``), else ``root``'s :data:`FILE_NAME` when there is one."""
    if given is not None:
        return Path(given)
    path = root / FILE_NAME
    return path if path.is_file() else None
