"""Wire evolution in one step: take a new schema for a wire in, or add a golden scenario.

``milk-contract evolve --wire W NEW_SCHEMA [--adr ADR-NNNN] [--dry-run]`` classifies NEW_SCHEMA
against the checkout's current schema (exactly as ``milk-contract diff`` does, the rules section
included), refuses a breaking change that ``accepted-breaks.json`` does not name with an ADR
(printing the entries to add), and otherwise, in one step: copies NEW_SCHEMA's bytes to
``schemas/W.schema.json``, writes its sha256 to the pin file ``schemas/pins.json`` (which the
pinning test reads, and which also proves the bundled schemas equal their pins), and updates
the wire's surface snapshot through the surface gate (``pytest --snapshot-update`` on
``contract/tests/test_surface.py``, so the snapshot is written exactly as the gate writes it).
It also says which other places of the schema the change must be mirrored in
(:func:`mirror_notes`: a definition nothing references that duplicates another object, such as
stream-json's ``$defs/event`` and the top-level object, read from the schema, not from names).
Before writing anything it tells the rest of the consequence (contract/evolution/consequences.py): the
goldens the new schema does not accept, each with its first finding, and the ``migrate`` command
that fixes them when the change is mechanical; the accepted-breaks entries the surface gate will
need; the volatile declaration and the code that spell a renamed or removed member. It refuses a
schema its goldens do not meet (``--then-record`` takes it in to re-record them next), and with
``--accept --adr`` writes the entries the gate needs together with the schema. A change no ADR
can accept (``REFUSED_CODES`` in contract/evolution/changes.py: a ``$schema`` other than the
seeds') is refused up front, in one line. The writes are all or none (contract/evolution/takein.py).

``milk-contract scenario --wire W --name NAME --description TEXT [--like SCENARIO] [--arg=ARG …]
[--exit-status N]
(--transcript FILE | -- CMD ARG…)`` adds a golden scenario: its meta (checked against
``schemas/golden-meta.schema.json``) and its transcript, either authored (FILE, which must be
conformant) or recorded from a complete, conformant stream-json run of CMD. CMD runs with the
scenario's arguments and environment and ``MILK_CONTRACT_SCENARIO=NAME``; ``MILK_CONTRACT_GOLDEN``
is not set (removed if inherited), because the golden it would name does not exist yet: that
variable, wherever the suite sets it, names a golden that is there. The surface snapshot then
takes the new corpus in the same way. ``cmd_scenario`` reads as those steps, one short helper each
(issue 29): the name (``_refuse_name``), stdin and the reproduction (``_stdin``,
contract/evolution/reproduction.py),
the transcript (``_authored``, or ``_recorded`` from ``_record_run``), the strict check
(``_strictly_conformant``), then the writes.

Both work on a checkout (found as ``record`` finds one, contract/goldens/recording.py) or ``--root DIR``;
an installed copy without one is a usage error. Both write nothing when they refuse.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from contract.core import textsafe
from contract.core.exitcodes import EXIT_OK, EXIT_VIOLATIONS
from contract.core.resources import installed_copy
from contract.core.userfiles import read_whole
from contract.evolution.classify import BREAKING, BREAKING_CODES, REFUSED_CODES, Change, classify
from contract.evolution.gate import ACCEPTED_NAME, AcceptedBreaksError, load_accepted
from contract.evolution.surface import as_surface
from contract.evolution.takein import PINS as PINS
from contract.evolution.takein import SNAPSHOT_TEST as SNAPSHOT_TEST
from contract.evolution.takein import EvolveError as EvolveError
from contract.evolution.takein import entry, refresh_snapshot, take_in
from contract.evolution.takein import read_pins as read_pins
from contract.evolution.takein import sha256 as sha256
from contract.evolution.takein import write_atomically as write_atomically
from contract.evolution.takein import write_pins as write_pins
from contract.wires import Live, get

if TYPE_CHECKING:
    from contract.rules.report import Report

EXIT_REFUSED = EXIT_VIOLATIONS  # a break no accepted-breaks entry names


# -- the pin file --------------------------------------------------------------------------------


# -- where ---------------------------------------------------------------------------------------


def project_root(root: str | None) -> Path:
    """The checkout to evolve: ``--root``, the package's own checkout, or the one around the cwd."""
    from contract.goldens.recording import other_checkout, source_tree

    if installed_copy():  # its data is its own bundled copy, not the checkout's it is about to change
        sys.stderr.write("warning: this milk-contract is an installed (non-editable) copy: it judges with its own "
                         "bundled schemas and goldens, not the checkout's, so its check and scenario will not see "
                         "this change; for an ADR walk install the checkout editable (pip install -e .) or run "
                         "python -m contract from it\n")
    if root is not None:
        folder = Path(root)
    elif not installed_copy():
        folder = Path(__file__).resolve().parents[2]  # the checkout: this module is contract/evolution/evolve.py
        elsewhere = other_checkout(folder)
        if elsewhere is not None:  # an editable install of one clone run inside another
            sys.stderr.write(f"warning: writing to {textsafe.text(str(folder))}, the checkout this milk-contract "
                             f"runs from, not to {textsafe.text(str(elsewhere))}, the checkout the working directory "
                             f"is in (for that one: --root {textsafe.text(str(elsewhere))})\n")
    else:
        found = source_tree()
        if found is None:
            raise EvolveError("this is an installed copy of milk-contract and the working directory is not inside "
                              "a checkout: run from a clone of the repository, or pass --root DIR")
        folder = found
    for needed in ("schemas", "goldens", SNAPSHOT_TEST):
        if not (folder / needed).exists():
            raise EvolveError(f"--root: {folder} is not a milk-contract checkout "
                              f"(no {needed})")
    return folder


# -- evolve --------------------------------------------------------------------------------------


def _load_schema(path: Path) -> tuple[bytes, dict[str, Any]]:
    from contract.evolution.adr_streams import AdrError, load_schema

    try:
        return load_schema(path)
    except AdrError as exc:
        raise EvolveError(str(exc)) from None


def _classified(current: dict[str, Any], new: dict[str, Any], path: str) -> list[Change]:
    """The changes from the current schema to the new one, as ``diff`` finds them.

    A schema can pass the metaschema and still be no wire's schema (``{"$ref": "#"}``, a ``$ref``
    to a place or a document that is not there): that is an unusable input, one line, exit 2.
    """
    old_surface = as_surface(current)
    try:
        return classify(old_surface, as_surface(new))
    except Exception as error:  # any malformed schema shape ends here, as diff's does, never as a traceback
        raise EvolveError(f"{path}: not a usable JSON Schema or surface ({error})") from None


def _refusal(wire: str, refused: list[Change], adr: str | None) -> str:
    lines = [f"BREAKING change to the {wire} wire, not accepted by any ADR ({len(refused)}); nothing was written."]
    lines += [f"  ! {textsafe.text(c.path)}: {textsafe.text(c.reason)} [{c.code}; breaks {c.breaks}]"
              for c in refused]
    entries = [{"wire": wire, "path": c.path, "code": c.code, "adr": adr or "ADR-NNNN"} for c in refused]
    lines.append(f"If a superseding ADR decided this, add these entries to {ACCEPTED_NAME} (\"accepted\") and "
                 "run evolve again:")
    lines += [f"  {json.dumps(e, ensure_ascii=False)}," for e in entries]
    return "\n".join(lines) + "\n"


# -- mirrored places -----------------------------------------------------------------------------

MIRROR_NAMES_SHOWN = 8  # members named per note; the rest are counted


def _pointer(parts: tuple[str, ...]) -> str:
    return "".join("/" + part.replace("~", "~0").replace("/", "~1") for part in parts)


def _place(parts: tuple[str, ...]) -> str:
    return textsafe.text(_pointer(parts)) if parts else "the top-level object (/)"


def _objects(schema: Any) -> dict[tuple[str, ...], dict[str, Any]]:
    """Every subschema with ``properties`` (an object's members), by its path in the document."""
    found: dict[tuple[str, ...], dict[str, Any]] = {}
    stack: list[tuple[tuple[str, ...], Any]] = [((), schema)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("properties"), dict):
                found[path] = node
            stack.extend(((*path, str(key)), value) for key, value in node.items())
        elif isinstance(node, list):
            stack.extend(((*path, str(index)), value) for index, value in enumerate(node))
    return found


def _members(node: dict[str, Any]) -> str:
    """An object's members and required list as canonical JSON text (1, 1.0 and true stay apart)."""
    return json.dumps([node.get("properties"), node.get("required")], sort_keys=True)


def _unreferenced(schema: dict[str, Any]) -> list[tuple[str, ...]]:
    """The ``$defs`` entries no ``$ref`` anywhere in the schema names."""
    text = json.dumps(schema)
    defs = schema.get("$defs")
    return [("$defs", name) for name in (defs if isinstance(defs, dict) else {})
            if json.dumps(f"#/$defs/{name}") not in text]


def _changed_members(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    before, after = old.get("properties") or {}, new.get("properties") or {}
    names = sorted(k for k in before.keys() | after.keys()
                   if json.dumps(before.get(k), sort_keys=True) != json.dumps(after.get(k), sort_keys=True))
    if json.dumps(old.get("required")) != json.dumps(new.get("required")):
        names.append("(required)")
    return names


def mirror_notes(current: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Where the new schema changes one of two places the current schema keeps identical.

    A definition nothing references validates nothing, so the classifier rightly calls its drift
    no wire change; but when it duplicates another object (stream-json's ``$defs/event`` and the
    top-level properties), it exists to say the same thing, and an ADR that changes one place
    and not the other has forgotten one. Both places are found in the current schema: every
    unreferenced definition, and every other object whose members and required list are the same.
    """
    objects, changed_objects = _objects(current), _objects(new)
    notes: list[str] = []
    for spare in _unreferenced(current):
        if spare not in objects:
            continue
        twins = [path for path, node in objects.items()
                 if path != spare and _members(node) == _members(objects[spare])]
        for twin in twins:
            moved = {path: path in changed_objects and _members(changed_objects[path]) != _members(objects[path])
                     for path in (spare, twin)}
            if moved[spare] == moved[twin]:  # both kept, or both changed (then they must still agree)
                if moved[spare] and _members(changed_objects[spare]) != _members(changed_objects[twin]):
                    notes.append(f"{_place(spare)} mirrors {_place(twin)} in the current schema; the new schema "
                                 "changes both, differently: make them the same")
                continue
            edited, kept = (spare, twin) if moved[spare] else (twin, spare)
            names = (_changed_members(objects[edited], changed_objects[edited]) if edited in changed_objects
                     else ["(removed)"])
            shown = ", ".join(textsafe.text(name) for name in names[:MIRROR_NAMES_SHOWN])
            more = f" and {len(names) - MIRROR_NAMES_SHOWN} more" if len(names) > MIRROR_NAMES_SHOWN else ""
            notes.append(f"{_place(kept)} mirrors {_place(edited)} (the same properties and required) in the "
                         f"current schema; the new schema changes {_place(edited)} ({shown}{more}) but not "
                         f"{_place(kept)}: make the same change there too")
    return notes


def _tell(wire: str, told: Any, adr: str | None, schema_arg: str) -> None:
    """The consequences of the new schema for the checkout (contract.evolution.consequences), before any write."""
    out = sys.stdout
    if told.nonconformant:
        out.write(f"goldens   {len(told.nonconformant)} of {told.goldens} {wire} goldens are not valid under the "
                  "new schema (the first finding of each):\n")
        out.write("".join(f"            {textsafe.text(name)}: {textsafe.text(finding)}\n"
                          for name, finding in told.nonconformant))
    for note in told.volatile:
        out.write(f"volatile  {note}\n")
    for note in told.code:
        out.write(f"code      {note}\n")
    if told.needed:
        out.write(f"gate      the surface gate will need {textsafe.counted(len(told.needed), 'accepted-breaks entry')}"
                  + (" once the goldens are migrated" if told.migration else "") + f" ({ACCEPTED_NAME}; "
                  "--accept writes them with the schema):\n")
        out.write("".join(f"            {json.dumps(entry(wire, c, adr), ensure_ascii=False)}\n" for c in told.needed))
    if told.nonconformant:
        migrate = " ".join(str(step) for step in told.migration)
        if told.migration and not told.after_migration:
            out.write(f"next      milk-contract migrate --wire {wire} --schema {textsafe.text(schema_arg)} {migrate}\n")
        else:
            out.write("next      no mechanical migration makes every golden valid: re-record them from a build "
                      "after taking the schema in (evolve --then-record, then milk-contract record -- ./bin/milk)\n")


def _name_broken_consumers(root: Path, wire: str, current: dict[str, Any], new: dict[str, Any],
                           given: str | None) -> None:
    """The registered consumers the new schema would break, before anything is written
    (contract/evolution/breaking_consumers.py)."""
    from contract.evolution.adr_streams import goldens
    from contract.evolution.breaking_consumers import broken, tell

    streams = [stream for stream, _ in goldens(root, wire)]
    if streams:
        tell(sys.stdout, wire, *broken(root, wire, streams, current, new, given))


def cmd_evolve(args: argparse.Namespace) -> int:
    from contract.evolution.consequences import consequences

    root = project_root(args.root)
    wire: str = args.wire
    current_path = root / "schemas" / f"{wire}.schema.json"
    new_data, new_schema = _load_schema(Path(args.schema))
    _, current = _load_schema(current_path)
    changes = _classified(current, new_schema, args.schema)
    for change in changes:  # a change no ADR entry can accept: refused before anything is printed or written
        if change.code in REFUSED_CODES:
            raise EvolveError(f"{args.schema}: {REFUSED_CODES[change.code]} ({change.code} at "
                              f"{textsafe.text(change.path)}); nothing was written")
    try:
        accepted = load_accepted(root / ACCEPTED_NAME)
    except AcceptedBreaksError as exc:
        raise EvolveError(str(exc)) from None
    mine = [e for e in accepted if e.wire == wire]
    breaking = [c for c in changes if c.kind == BREAKING]
    refused = [c for c in breaking if not any(e.matches(wire, c) for e in mine)]
    out = sys.stdout
    for change in changes:
        mark = "accepted" if change in breaking and change not in refused else change.kind
        out.write(f"{mark:<9} {textsafe.text(change.path)}: {textsafe.text(change.reason)} [{change.code}]\n")
    for note in mirror_notes(current, new_schema):  # not a wire change: a forgotten copy in the ADR's schema
        out.write(f"mirror    {note}\n")
    if args.accept and not args.adr:
        raise EvolveError("--accept writes accepted-breaks entries: name the ADR that decided them (--adr ADR-NNNN)")
    told = consequences(root, wire, new_schema, changes, accepted)
    # without a stored snapshot the gate takes a baseline; the schema's own breaks still need entries
    told.needed = told.needed or refused
    unacceptable = sorted({c.code for c in told.needed if c.code not in BREAKING_CODES})
    if unacceptable:  # the table (contract/evolution/changes.py) has every code; this holds it to that
        raise EvolveError(f"{wire}: the change needs entries no ADR can accept (codes {', '.join(unacceptable)}); "
                          "nothing was written")
    _tell(wire, told, args.adr, args.schema)
    _name_broken_consumers(root, wire, current, new_schema, getattr(args, "consumers", None))
    if told.needed and not args.accept:
        if refused:
            out.write(_refusal(wire, refused, args.adr))
        else:
            out.write(f"the surface gate would refuse the goldens' changes above; nothing was written (add the "
                      f"entries to {ACCEPTED_NAME}, or pass --accept with --adr)\n")
        return EXIT_REFUSED
    if told.nonconformant and not args.then_record:
        out.write(f"{wire}: the goldens above would not be valid under the new schema; nothing was written "
                  "(migrate them first, or pass --then-record to re-record them from a build next)\n")
        return EXIT_REFUSED
    if not changes and new_data == current_path.read_bytes():
        out.write(f"{wire}: the schema is already this one; nothing to do\n")
        return EXIT_OK
    if args.dry_run:
        changed = textsafe.counted(len(changes), "change")
        out.write(f"{wire}: would take the new schema in ({changed}); nothing written (--dry-run)\n")
        return EXIT_OK
    return take_in(root, wire, new_data, told.needed, args)


# -- scenario ------------------------------------------------------------------------------------


MAX_NAME_BYTES = 100  # a scenario name, in UTF-8: NAME.meta.json stays far inside any file system's 255


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a scenario, or None: a plain, printable file name within a bound.

    It becomes two file names (``NAME.jsonl``, ``NAME.meta.json``), ``MILK_CONTRACT_SCENARIO``'s
    value and a line of every report about the golden: no separator, no leading dot, nothing
    that is not printable (controls, bidirectional and other format characters, line
    separators: ``str.isprintable``), and at most :data:`MAX_NAME_BYTES` bytes.
    """
    if not name:
        return "it is empty"
    if "/" in name or "\\" in name:  # before the dot: ../evil is refused for what makes it a path
        return "it holds a path separator"
    if name.startswith("."):
        return "it starts with a dot"
    if name.endswith((".jsonl", ".json")):  # NAME.jsonl.jsonl: the suffix is added, not given
        return "it ends in a file suffix (give the name alone: the .jsonl and .meta.json files are named from it)"
    if not name.isprintable():
        unprintable = next(ch for ch in name if not ch.isprintable())
        return f"it holds U+{ord(unprintable):04X}, which is not printable"
    size = len(name.encode("utf-8", "surrogatepass"))
    if size > MAX_NAME_BYTES:
        return f"{size} bytes long, at most {MAX_NAME_BYTES}"
    return None


def cmd_scenario(args: argparse.Namespace) -> int:
    """``milk-contract scenario``: a new golden, authored or recorded, written only once its meta
    and its strict check pass (the module docstring); every refusal is before the first write."""
    from contract.evolution.reproduction import explicit_argv, reproduction, transcript_argv
    from contract.goldens.store import META, TRANSCRIPT, meta_errors, schema_sha256

    root = project_root(args.root)
    wire: str = args.wire
    name: str = args.name
    _refuse_name(name)
    folder = root / "goldens" / wire
    transcript, meta_path = folder / (name + TRANSCRIPT), folder / (name + META)
    if transcript.exists() or meta_path.exists():
        raise EvolveError(f"{wire}/{name} exists already (re-record it with milk-contract record)")
    command = list(args.command[1:] if args.command[:1] == ["--"] else args.command)
    if bool(command) == bool(args.transcript):
        raise EvolveError("give either --transcript FILE or -- CMD ARG… (the emitter to record from)")
    stdin = _stdin(wire, command)
    today = datetime.date.today().isoformat()
    reproduce = reproduction(args, folder, stdin)
    meta: dict[str, Any] = {"description": args.description, "reproduce": reproduce}
    if args.transcript:
        data = _authored(args.transcript)
        meta["provenance"] = {"authored": f"to the schema, {today}"}
    else:
        data, meta = _recorded(command, meta, args.timeout, root, wire, name, today)
    meta["schema_sha256"] = schema_sha256(wire, root)  # the schema it is checked under (record reads it)
    errors = meta_errors(meta)
    if errors:
        raise EvolveError(f"{wire}/{name} meta: " + "; ".join(errors))
    if not _strictly_conformant(data, wire, name):
        return EXIT_REFUSED
    if args.transcript and explicit_argv(args) is None:
        meta["reproduce"]["argv"] = transcript_argv(args, folder, data, meta["reproduce"]["argv"])
    folder.mkdir(parents=True, exist_ok=True)
    write_atomically(transcript, data)
    write_atomically(meta_path, (json.dumps(meta, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    ok, said = refresh_snapshot(root, wire)
    if not ok:
        sys.stdout.write(said + "\n")
        raise EvolveError(f"{wire}/{name}: golden written, but the surface snapshot did not update (see above)")
    sys.stdout.write(f"{wire}/{textsafe.text(name)}: golden and meta written to goldens/{wire}/, surface snapshot "
                     "updated\n")
    return EXIT_OK


def _refuse_name(name: str) -> None:
    """EvolveError when ``name`` cannot name a scenario (:func:`name_problem`), the name shown clipped."""
    problem = name_problem(name)
    if problem is not None:
        shown = name if len(name) <= MAX_NAME_BYTES else f"{name[:MAX_NAME_BYTES]}…({len(name) - MAX_NAME_BYTES} more)"
        raise EvolveError(f"scenario name '{shown}': a plain file name is needed ({problem})")  # run() escapes it


def _stdin(wire: str, command: list[str]) -> Any:
    """The scenario's stdin: a conversation's comes from its transcript, so it is authored, never recorded."""
    if get(wire).live is not Live.CONVERSATION:
        return None
    if command:  # the client's commands are part of the transcript
        raise EvolveError(f"a {wire} scenario is authored (--transcript): its commands come from it")
    return {"from": "transcript"}


def _authored(path: str) -> bytes:
    """An authored transcript's bytes (``--transcript``)."""
    try:
        return read_whole(path)
    except OSError as exc:
        raise EvolveError(f"cannot read {path}: {exc.strerror or exc}") from None


def _recorded(command: list[str], meta: dict[str, Any], timeout: float, root: Path, wire: str, name: str,
              today: str) -> tuple[bytes, dict[str, Any]]:
    """A transcript recorded from a complete, conformant run of ``command``, and the meta with its
    provenance and the run's pace (as record keeps it, contract.goldens.pacing); else EvolveError."""
    from contract.goldens.pacing import with_timing
    from contract.goldens.recording import emitter_label
    from contract.goldens.store import emitter_version

    report, data = _record_run(command, meta["reproduce"], timeout, wire, name)
    meta["provenance"] = {"recorded": {"emitter": emitter_label(command, root),
                                       "version": emitter_version(data, wire) or "unknown", "date": today}}
    return data, with_timing(meta, getattr(report.timeline, "arrivals", []), report.lines)


def _record_run(command: list[str], reproduce: dict[str, Any], timeout: float, wire: str,
                name: str) -> tuple[Report, bytes]:
    """The run of ``command`` as the scenario will run it, its report and transcript; EvolveError (what
    it said shown) when it was no run or not a complete, conformant one."""
    from contract.goldens.recording import harness_failure, stderr_lines
    from contract.goldens.scenarios import ENV_GOLDEN, ENV_SCENARIO, complete
    from contract.live.harness import record_stream

    # MILK_CONTRACT_GOLDEN names an existing golden or is not set: this one is not written yet, so a
    # replaying emitter finds its script by MILK_CONTRACT_SCENARIO (never a path that is not there)
    env = {key: value for key, value in os.environ.items() if key != ENV_GOLDEN}
    env[ENV_SCENARIO] = name
    env.update(reproduce.get("env") or {})
    report, data = record_stream([*command, *reproduce["argv"]], wire=wire, timeout=timeout, env=env,
                                 expect_exit=reproduce["exit_status"], keep=True)
    failure = harness_failure(report)
    if failure is not None:
        sys.stderr.write("".join(line + "\n" for line in stderr_lines(report)))
        raise EvolveError(f"{wire}/{name}: {failure}; nothing written")
    if not (report.conformant and complete(report)):
        sys.stdout.write("".join(f"  {v.rule}: {textsafe.text(v.message)}\n" for v in report.failing()[:20]))
        sys.stdout.write("".join(line + "\n" for line in stderr_lines(report, "  ")))
        raise EvolveError(f"{wire}/{name}: the run is not conformant; nothing written")
    return report, data


def _strictly_conformant(data: bytes, wire: str, name: str) -> bool:
    """Whether the transcript is conformant under --strict and not empty; else its findings are printed."""
    from contract.checking.checker import check

    report = check(data, wire, strict=True)
    if report.conformant and data:
        return True
    sys.stdout.write("".join(f"  {'' if v.line is None else f'line {v.line}: '}{v.rule}: "
                             f"{textsafe.text(v.message)}\n" for v in report.failing()[:20]))
    sys.stdout.write(f"{wire}/{textsafe.text(name)}: the transcript is not conformant (strict); nothing written\n")
    if any(v.rule.endswith(".schema") for v in report.failing()):  # the wire's schema rule
        sys.stdout.write("  a member the ADR renamed or removed still in the transcript? migrate it as the goldens "
                         f"were: milk-contract migrate --wire {wire} … --transcript FILE (docs/adr-walk.md)\n")
    return False
