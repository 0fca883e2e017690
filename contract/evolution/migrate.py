"""Mechanical golden migrations after an ADR: ``milk-contract migrate``.

An ADR that renames a member, removes an optional one or adds a required one with a stated value
changes every golden that shows it, the same way in each. Hand-editing eleven transcripts is
where mistakes come from, so this step does it:

``milk-contract migrate --wire W [--schema NEW] [--on KIND] (--rename OLD=NEW | --remove NAME |
--set NAME=JSON)… [--dry-run] [--root DIR]``

rewrites the top-level members of every golden line of the wire (of line type ``KIND``, or
``type/subtype``, with ``--on``), in the order the steps are given; checks every rewritten golden
line by line under NEW (the ADR's schema, before ``evolve`` takes it in; default: the schema in
force); and shows the change as a unified diff. A line the steps do not change keeps its stored
bytes exactly; a changed line is written as the recorder writes lines (compact JSON, UTF-8, the
members in their order, a renamed member where the old one stood). It writes nothing when any
rewritten golden is not valid under NEW, when a rename would overwrite a member the line has
already, or under ``--dry-run``; each file is replaced atomically. A migrated golden's meta
keeps what reproduces the scenario and now names the sha256 of NEW (``schema_sha256``: the schema
it stands under). ``--transcript FILE`` (repeatable) migrates an ADR's own transcripts with the
goldens, checked the same way and rewritten in place, so ``scenario`` takes them under NEW.
Re-recording from a real build stays the other way (``milk-contract record``); this is for the
changes that need no build.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from contract.core import textsafe
from contract.core.exitcodes import EXIT_OK, EXIT_VIOLATIONS
from contract.core.userfiles import read_json, read_whole
from contract.evolution.migration import MigrateError, Step, first_finding, migrate_bytes, remove, rename, set_value

__all__ = ["MigrateError", "Step", "cmd_migrate", "remove", "rename", "set_value"]

DIFF_LINES_SHOWN = 400  # per golden; the rest is counted (a golden's diff is a few lines a member)


def _diff(name: str, old: bytes, new: bytes) -> list[str]:
    lines = list(difflib.unified_diff(old.decode("utf-8", "replace").splitlines(),
                                      new.decode("utf-8", "replace").splitlines(),
                                      f"a/{name}", f"b/{name}", lineterm="", n=0))
    shown = [textsafe.text(line) for line in lines[:DIFF_LINES_SHOWN]]
    if len(lines) > DIFF_LINES_SHOWN:
        shown.append(f"… {len(lines) - DIFF_LINES_SHOWN} more diff lines")
    return shown


def planned(folder: Path, steps: Sequence[Step], on: str | None) -> list[tuple[Path, bytes, bytes]]:
    """(transcript, old bytes, new bytes) for every golden in ``folder`` the steps change."""
    out = []
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else ():
        old = read_whole(path)
        new = migrate_bytes(old, steps, on)
        if new != old:
            out.append((path, old, new))
    return out


def _schema(root: Path, wire: str, given: str | None) -> tuple[dict[str, Any], str]:
    """The schema the migrated goldens are checked under, and its sha256 (their metas record it)."""
    import hashlib

    from contract.wires import get

    path = Path(given) if given else root / "schemas" / get(wire).schema_file
    document = read_json(path, MigrateError)
    if not isinstance(document, dict):
        raise MigrateError(f"{path} is not a JSON Schema (not an object)")
    return document, hashlib.sha256(read_whole(path)).hexdigest()


def _transcripts(given: Sequence[str], steps: Sequence[Step], on: str | None) -> list[tuple[Path, bytes, bytes]]:
    """(path, old bytes, new bytes) for every ``--transcript`` the steps change (an ADR's own transcripts)."""
    out = []
    for name in given:
        path = Path(name)
        try:
            old = read_whole(path)
        except OSError as exc:
            raise MigrateError(f"--transcript {name}: {exc.strerror or exc}") from None
        new = migrate_bytes(old, steps, on)
        if new != old:
            out.append((path, old, new))
    return out


def _meta_under(transcript: Path, sha256: str) -> bytes | None:
    """The meta beside a migrated golden, naming the schema it now stands under; None when it says so already."""
    from contract.goldens.store import META, TRANSCRIPT

    meta_path = transcript.with_name(transcript.name[: -len(TRANSCRIPT)] + META)
    meta = json.loads(read_whole(meta_path))
    if not isinstance(meta, dict) or meta.get("schema_sha256") == sha256:
        return None
    meta["schema_sha256"] = sha256
    return (json.dumps(meta, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def cmd_migrate(args: argparse.Namespace) -> int:
    from contract.evolution.evolve import project_root, write_atomically

    steps: list[Step] = list(args.steps or [])
    if not steps:
        raise MigrateError("give at least one of --rename OLD=NEW, --remove NAME, --set NAME=JSON")
    root = project_root(args.root)
    wire: str = args.wire
    schema, sha256 = _schema(root, wire, args.schema)
    goldens = planned(root / "goldens" / wire, steps, args.on)
    plan = goldens + _transcripts(args.transcript, steps, args.on)
    golden_paths = {path for path, _, _ in goldens}
    out = sys.stdout
    said = ", ".join(str(s) for s in steps) + (f" on {args.on} lines" if args.on else "")
    if not plan:
        out.write(f"{wire}: no golden{' or transcript' if args.transcript else ''} has a line these steps change "
                  f"({textsafe.text(said)}); nothing to migrate\n")
        return EXIT_OK
    failing = [(path, finding) for path, _, new in plan if (finding := first_finding(new, schema)) is not None]
    for path, old, new in plan:
        shown = f"goldens/{wire}/{path.name}" if path in golden_paths else str(path)
        out.write("\n".join(_diff(shown, old, new)) + "\n")
    under = textsafe.text(args.schema) if args.schema else f"schemas/{wire}.schema.json"
    what = _counted(len(goldens), len(plan) - len(goldens))
    if failing:
        out.write("".join(f"  {textsafe.text(path.stem)}: {textsafe.text(finding)}\n" for path, finding in failing))
        out.write(f"{wire}: {len(failing)} of {len(plan)} migrated files would not be valid under {under}; "
                  "nothing written\n")
        return EXIT_VIOLATIONS
    if args.dry_run:
        out.write(f"{wire}: would migrate {what} ({textsafe.text(said)}), each valid under {under}; nothing written "
                  "(--dry-run)\n")
        return EXIT_OK
    metas = [(path, meta) for path, _, _ in goldens if (meta := _meta_under(path, sha256)) is not None]
    for path, _, new in plan:
        write_atomically(path, new)
    for path, meta in metas:  # the schema each migrated golden now stands under (record reads it)
        write_atomically(path.with_name(path.name[: -len(".jsonl")] + ".meta.json"), meta)
    out.write(f"{wire}: migrated {what} ({textsafe.text(said)}), each valid under {under}; review with git diff "
              "goldens/" + (" (the transcripts were rewritten in place: scenario takes them now)" if
                            len(plan) > len(goldens) else "") + "\n")
    return EXIT_OK


def _counted(goldens: int, transcripts: int) -> str:
    """``2 goldens``, ``2 goldens and 1 transcript``."""
    said = textsafe.counted(goldens, "golden")
    return said + (f" and {textsafe.counted(transcripts, 'transcript')}" if transcripts else "")
