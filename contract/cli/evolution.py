"""The ADR author's verbs: ``diff`` and ``surface`` (what a schema change is), ``evolve`` (take a new
schema in), ``migrate`` (rewrite the goldens for a mechanical change) and ``scenario`` (add a golden)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from contract.cli.common import UsageError, adr, exit_status, positive_float
from contract.core.exitcodes import EXIT_OK, EXIT_VIOLATIONS
from contract.core.userfiles import read_json
from contract.wires import NAMES, Live, named


def add_diff(verbs: Any) -> None:
    """The ``diff`` verb's parser."""
    diff = verbs.add_parser("diff", help="classify the changes between two schemas or surfaces")
    diff.add_argument("--format", choices=("text", "json"), default="text", help="report format (default: text)")
    diff.add_argument("old", metavar="OLD", help="the earlier schema or surface (JSON file)")
    diff.add_argument("new", metavar="NEW", help="the later schema or surface (JSON file)")
    diff.set_defaults(handler=cmd_diff)


def add_surface(verbs: Any) -> None:
    """The ``surface`` verb's parser."""
    surface = verbs.add_parser("surface", help="print a wire's surface (fields, types, bounds, values)")
    surface.add_argument("--wire", choices=NAMES, default=None, help="a bundled wire (schema plus goldens)")
    surface.add_argument("schema", metavar="SCHEMA", nargs="?", default=None,
                         help="a schema file instead of a bundled wire")
    surface.set_defaults(handler=cmd_surface)


def add_evolve(verbs: Any) -> None:
    """The ``evolve`` verb's parser."""
    evolve = verbs.add_parser("evolve", help="take a new schema for a wire in: classify, gate, pin, snapshot")
    evolve.add_argument("--wire", choices=NAMES, required=True, help="the wire whose schema the new one replaces")
    evolve.add_argument("schema", metavar="NEW_SCHEMA", help="the new schema (e.g. from the ADR)")
    evolve.add_argument("--adr", default=None, metavar="ADR-NNNN", type=adr,
                        help="the ADR this change implements (recorded in schemas/pins.json)")
    evolve.add_argument("--dry-run", action="store_true", help="classify and say what would happen; write nothing")
    evolve.add_argument("--accept", action="store_true",
                        help="write the accepted-breaks entries the change needs, with --adr, together with the schema")
    evolve.add_argument("--then-record", action="store_true",
                        help="take the schema in although the goldens are not valid under it (re-record them next)")
    evolve.add_argument("--root", default=None, metavar="DIR", help="the checkout (default: found as record finds it)")
    evolve.add_argument("--consumers", default=None, metavar="FILE",
                        help="the registered consumers to name when the new schema breaks them (default: "
                             "milk-consumers.json in the checkout, when there is one)")
    evolve.set_defaults(handler=cmd_evolve)


def add_migrate(verbs: Any) -> None:
    """The ``migrate`` verb's parser (its logic: contract.evolution.migrate)."""
    migrate = verbs.add_parser("migrate", help="rewrite the goldens for a mechanical ADR change, checked under "
                                               "the new schema, shown as a diff")
    migrate.add_argument("--wire", choices=NAMES, required=True, help="the wire whose goldens are migrated")
    migrate.add_argument("--schema", default=None, metavar="NEW_SCHEMA",
                         help="check the migrated goldens under this schema (the ADR's; default: the one in force)")
    migrate.add_argument("--on", default=None, metavar="KIND",
                         help="only lines of this type (or type/subtype), e.g. result")
    for option, parse, metavar, said in (
            ("--rename", "rename", "OLD=NEW", "rename a top-level member (repeatable; steps apply in the order given)"),
            ("--remove", "remove", "NAME", "remove a top-level member"),
            ("--set", "set_value", "NAME=JSON", "add a member with this JSON value where a line lacks it "
                                                "(a new required member)")):
        migrate.add_argument(option, dest="steps", action="append", type=_step(parse), metavar=metavar, help=said)
    migrate.add_argument("--transcript", action="append", default=[], metavar="FILE",
                         help="an ADR transcript to migrate with the goldens, in place (repeatable): "
                              "then scenario takes it under the new schema")
    migrate.add_argument("--dry-run", action="store_true", help="show the diff and the check; write nothing")
    migrate.add_argument("--root", default=None, metavar="DIR", help="the checkout (default: found as record finds it)")
    migrate.set_defaults(handler=cmd_migrate)


def _step(name: str) -> Any:
    """An argparse type for one migration step (contract.evolution.migration parses it)."""
    def convert(text: str) -> Any:
        from contract.evolution import migration

        try:
            return getattr(migration, name)(text)
        except migration.MigrateError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    convert.__name__ = name  # argparse names the option's type in its error
    return convert


def add_scenario(verbs: Any) -> None:
    """The ``scenario`` verb's parser."""
    scenario = verbs.add_parser("scenario", help="add a golden scenario (transcript + meta) and update the snapshot")
    scenario.add_argument("--wire", choices=NAMES, required=True, help="the wire the scenario is of")
    scenario.add_argument("--name", required=True, metavar="NAME",
                          help="the scenario's name (goldens/<wire>/NAME.jsonl)")
    scenario.add_argument("--description", required=True, help="what the scenario covers, for reviewers")
    scenario.add_argument("--like", default=None, metavar="SCENARIO",
                          help="reproduce it as this existing scenario does (its env, stdin and exit status, and "
                               "its arguments when recording from -- CMD); with --transcript the arguments are "
                               "the ones of the golden the transcript was made from (found by its lines), or "
                               "--argv; a transcript made from no golden needs --argv")
    scenario.add_argument("--arg", action="append", default=[], metavar="ARG",
                          help="one of the scenario's own emitter arguments (repeatable, in order; "
                               "--arg=--flag for one that starts with -)")
    scenario.add_argument("--argv", default=None, metavar="'ARG …'",
                          help="the scenario's own emitter arguments as one shell-quoted string "
                               "(instead of --arg), e.g. --argv \"'say hi' --verbose\"")
    scenario.add_argument("--exit-status", type=exit_status, default=0, metavar="N",
                          help="the exit status the scenario ends with (default 0)")
    scenario.add_argument("--transcript", default=None, metavar="FILE", help="an authored transcript")
    scenario.add_argument("--timeout", type=positive_float, default=60.0, metavar="SECONDS",
                          help="kill the emitter recorded from (and its process group) after this long (default 60)")
    scenario.add_argument("--root", default=None, metavar="DIR",
                          help="the checkout (default: found as record finds it)")
    scenario.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARG…",
                          help=f"the emitter to record from ({named(Live.STREAM)}); it runs with "
                               "MILK_CONTRACT_SCENARIO=NAME "
                               "and without MILK_CONTRACT_GOLDEN (the golden does not exist yet)")
    scenario.set_defaults(handler=cmd_scenario)


def cmd_diff(args: argparse.Namespace) -> int:
    """Classify the changes between two schemas or surfaces: exit 1 when any is breaking."""
    from contract.checking.failsafe import describe
    from contract.evolution.classify import classify, is_breaking
    from contract.evolution.consequences import rejected_by
    from contract.reporting.reporters import render_diff

    old_document, new_document = read_json(args.old, UsageError), read_json(args.new, UsageError)
    old, new = surface_file(args.old, old_document), surface_file(args.new, new_document)
    try:
        changes = classify(old, new)
    except Exception as error:  # a hand-edited surface of the wrong shape, say
        raise UsageError(f"cannot compare {args.old} with {args.new}: {describe(error)}") from None
    try:  # today's goldens under the new schema: one it rejects makes the change breaking, whatever it is called
        rejections = rejected_by(old_document, new_document)
    except Exception as error:  # a pattern or keyword the validator cannot compile: no verdict, exit 2
        raise UsageError(f"{args.new}: the schema cannot be compiled to validate the goldens "
                         f"({describe(error)})") from None
    found = witness_for(old_document, new_document, changes)
    sys.stdout.write(render_diff(args.old, args.new, changes, args.format, found, rejections))
    rejected = rejections is not None and bool(rejections.rejected)
    return EXIT_VIOLATIONS if is_breaking(changes) or rejected else EXIT_OK


def cmd_surface(args: argparse.Namespace) -> int:
    """Print a bundled wire's surface (schema plus goldens) or a schema file's."""
    from contract.evolution.surface import surface_for
    from contract.reporting.reporters import render_surface

    if (args.wire is None) == (args.schema is None):
        raise UsageError("give either --wire or a SCHEMA file")
    surface = surface_for(args.wire) if args.wire else surface_file(args.schema)
    sys.stdout.write(render_surface(surface))
    return EXIT_OK


def witness_for(old: Any, new: Any, changes: list[Any]) -> Any:
    """For two schemas (not surfaces) that a change breaks by structure, the witness search's outcome
    (contract.evolution.witness); None otherwise (the words rules stand on are no line's validity)."""
    from contract.evolution.classify import BREAKING
    from contract.evolution.framing import CODES as RULE_CODES
    from contract.evolution.surface import is_surface
    from contract.evolution.witness import golden_lines, search

    if is_surface(old) or is_surface(new) or not isinstance(old, dict) or not isinstance(new, dict):
        return None
    if not any(c.kind == BREAKING and c.code not in RULE_CODES for c in changes):
        return None
    return search(old, new, golden_lines(old))


def surface_file(path: str, document: Any = None) -> dict[str, Any]:
    """A surface from a JSON file holding a schema or a surface (``document``: its content, read
    already); UsageError when it is neither."""
    from contract.evolution.surface import as_surface, is_surface
    from contract.evolution.usable import problem

    if document is None:
        document = read_json(path, UsageError)
    why = problem(document) if isinstance(document, dict) and not is_surface(document) else None
    if why is not None:
        raise UsageError(f"{path}: not a usable JSON Schema ({why})")
    try:
        return as_surface(document)
    except Exception as error:  # any malformed schema shape ends here, never as a traceback
        raise UsageError(f"{path}: not a usable JSON Schema or surface ({error})") from None


def cmd_evolve(args: argparse.Namespace) -> int:
    """Take a new schema for a wire in (contract.evolution.evolve): classify, gate, pin, snapshot."""
    from contract.evolution import evolve

    try:
        return evolve.cmd_evolve(args)
    except evolve.EvolveError as exc:
        raise UsageError(str(exc)) from None


def cmd_migrate(args: argparse.Namespace) -> int:
    """Rewrite the goldens for a mechanical ADR change (contract.evolution.migrate)."""
    from contract.evolution import evolve, migrate

    try:
        return migrate.cmd_migrate(args)
    except (migrate.MigrateError, evolve.EvolveError) as exc:
        raise UsageError(str(exc)) from None


def cmd_scenario(args: argparse.Namespace) -> int:
    """Add a golden scenario (contract.evolution.evolve): transcript and meta, authored or recorded."""
    from contract.evolution import evolve, reproduction

    try:
        return evolve.cmd_scenario(args)
    except (evolve.EvolveError, reproduction.ReproductionError) as exc:
        raise UsageError(str(exc)) from None
