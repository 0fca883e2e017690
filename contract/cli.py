"""The ``milk-contract`` command line. ``run(argv) -> int`` is the core; ``main`` only exits.

Exit codes: 0 conformant, 1 violations (or a breaking change), 2 usage or harness error, or a
reporter or a stdout that failed while writing (any verb's, ``--help`` too: the output is then
incomplete, never exit 0), 128 + the signal
when interrupted (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP: a live run still reports what it saw, as
``run.interrupted``; contract.interrupts turns SIGTERM and SIGHUP into Ctrl-C for every verb).
Misuse gets one line on stderr; no input, however hostile, gets a traceback.

Start-up is paid by every invocation (each pre-commit hook run, each CI step), so this module
imports only what building the parser needs (the wire registry, for ``--wire`` choices); each
verb imports its own machinery when it runs: ``check`` never loads the schema differ, the
surface, evolve, the live harness or hypothesis (tests/test_imports.py holds this).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TextIO, TypeVar

from contract import textsafe
from contract.exitcodes import EXIT_INTERRUPTED as EXIT_INTERRUPTED  # re-exported: tests name it cli's
from contract.exitcodes import EXIT_OK, EXIT_USAGE, EXIT_VIOLATIONS, exit_interrupted
from contract.jsonvalue import quoted
from contract.reader import DEFAULT_MAX_LINE_BYTES
from contract.userfiles import read_whole
from contract.userfiles import size_text as _size
from contract.wires import AUTO, DEFAULT, NAMES, WIRES, Live, get, named

if TYPE_CHECKING:
    from contract.report import Report

PROG = "milk-contract"
# the --format choices, without importing the reporters to learn them (the parser is built for
# every verb, --help included); tests/test_cli.py holds this equal to contract.ci_reports.FORMATS
FORMAT_NAMES = ("text", "json", "junit", "github", "sarif", "markdown")
# contract.harness.DEFAULT_LATE_GRACE, without importing the harness to learn it (as above);
# tests/test_signals.py holds the two equal
LATE_GRACE = 2.0


class UsageError(Exception):
    """Misuse: reported on one line, exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


# Why each live mode's flood limit is what it is (the --max-output-bytes help lists every wire's).
_FLOOD_WHY = {Live.STREAM: "which is checked as it streams",
              Live.CONVERSATION: "whose conversation is kept to be judged whole"}


def _flood_limits() -> str:
    return "; ".join(f"{_size(wire.max_output_bytes)} for {wire.name}, {_FLOOD_WHY[wire.live]}"
                     for wire in WIRES.values())


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description=f"Contract checks for milk's {' and '.join(NAMES)} wires.")
    parser.add_argument("--version", action=_VersionAction)
    verbs = parser.add_subparsers(dest="verb", required=True, parser_class=_Parser)

    chk = verbs.add_parser("check", help="check a captured stream or conversation")
    _report_options(chk, wires=(*NAMES, AUTO))
    chk.add_argument("path", nargs="+", metavar="PATH|-",
                     help="transcript files and directories (every *.jsonl below, sorted), or - for stdin alone")
    chk.add_argument("--coverage", action="store_true",
                     help="also say what the capture showed of the wire's surface (line kinds, subtypes, "
                          "block types, fields) and what it never showed (always in --format json)")
    _basis_option(chk)
    chk.add_argument("--jobs", type=_positive_int, default=None, metavar="N",
                     help="processes: many files are spread over N; one large file is checked by two when N "
                          "is 2 or more and its wire gains from it (default: decide by size)")

    run = verbs.add_parser("run", help="run an emitter (default: the bundled reference) and check it live")
    _report_options(run, wires=NAMES)
    _basis_option(run)
    run.add_argument("--timeout", type=_positive_float, default=60.0, metavar="SECONDS",
                     help="kill the emitter (and its process group) after this long (default 60)")
    run.add_argument("--expect-exit", type=_exit_status, default=0, metavar="STATUS",
                     help="the exit status a conformant run ends with, 0 to 255 (default 0); a run ended by a "
                          "signal did not finish and is never conformant")
    run.add_argument("--max-output-bytes", type=_positive_int, default=None, metavar="N",
                     help=f"stop a flooding emitter after this much output (default: {_flood_limits()})")
    run.add_argument("--late-grace", type=_seconds, default=LATE_GRACE, metavar="SECONDS",
                     help="after the emitter exits, how long its descendants may still hold stdout open: what "
                          "they write is judged as part of the stream, one still holding it then is "
                          "run.stdout-held (default 2; 0: stdout must close when the emitter exits)")
    run.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARG…",
                     help="the emitter command; without one, the bundled reference emitter")

    run.add_argument("--provoke", action="store_true",
                     help=f"{named(Live.STREAM)}: run the emitter again under a pseudo-terminal, with colour "
                          "forced, "
                          "and under a slow reader (contract.provoke)")
    chk.set_defaults(handler=cmd_check)
    run.set_defaults(handler=cmd_run)

    # fuzzing holds conversations: the wires whose live mode is one
    conversations = tuple(name for name, wire in WIRES.items() if wire.live is Live.CONVERSATION)
    fuzz = verbs.add_parser("fuzz", help=f"hold generated conversations with a live {named(Live.CONVERSATION)} host")
    _report_options(fuzz, wires=conversations, baseline=False)  # every conversation must be conformant
    fuzz.set_defaults(handler=cmd_fuzz)
    fuzz.add_argument("--examples", type=_positive_int, default=None, metavar="N",
                      help="generated conversations, at most (default 30), one host process each")
    fuzz.add_argument("--seed", type=_seed, default=None, metavar="S", help="find the same conversations again")
    fuzz.add_argument("--timeout", type=_positive_float, default=None, metavar="SECONDS",
                      help="bound on each conversation (default 10)")
    fuzz.add_argument("--shrink-seconds", type=_positive_float, default=None, metavar="SECONDS",
                      help="stop shrinking a failure after this long (default 60; the report says so)")
    fuzz.add_argument("--transcript", metavar="FILE", default=None,
                      help="write the shrunk failing conversation's transcript here (JSONL)")
    fuzz.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARG…",
                      help="the host command; without one, the bundled reference host")

    feed = verbs.add_parser("feed", help="feed a consumer the goldens (and --future variants) and judge how it copes")
    feed.add_argument("--wire", choices=NAMES, default=DEFAULT.name,
                      help=f"{named(Live.STREAM)}: the consumer reads a run on stdin; {named(Live.CONVERSATION)}: "
                           "the consumer is a client, and milk-contract plays the host")
    feed.add_argument("--format", choices=FORMAT_NAMES, default="text")
    feed.add_argument("--scenario", action="append", default=[], metavar="NAME",
                      help="only this golden scenario (repeatable; default: every one of the wire)")
    feed.add_argument("--future", action="store_true",
                      help="also feed each golden transformed the ways the seed lets a producer change it "
                           "(unknown types, subtypes, members, values; generated, shrunk on failure)")
    feed.add_argument("--examples", type=_positive_int, default=None, metavar="N",
                      help="future variants per scenario (default 10)")
    feed.add_argument("--seed", type=_seed, default=None, metavar="S", help="find the same variants again")
    feed.add_argument("--timeout", type=_positive_float, default=None, metavar="SECONDS",
                      help="bound on each consumer run (default 10)")
    feed.add_argument("--shrink-seconds", type=_positive_float, default=None, metavar="SECONDS",
                      help="stop shrinking a failure after this long (default 30; the report says so)")
    feed.add_argument("--pace", type=_pace, default=None, metavar="SECONDS",
                      help="pause between lines, as a live emitter writes (default 0.002)")
    feed.add_argument("--pty", action="store_true",
                      help=f"{named(Live.STREAM)}: the consumer's stdin is a pseudo-terminal instead of a pipe")
    feed.add_argument("--expect-stdout", metavar="FILE", default=None,
                      help="the consumer's stdout must be exactly FILE's bytes (one --scenario)")
    feed.add_argument("--expect-json", metavar="FILE", default=None,
                      help='the consumer\'s last stdout line is a JSON object whose members FILE names: '
                           '{"members": {"is_error": "/is_error", "text": "/result"}} (pointers into the '
                           "stream's result line)")
    feed.add_argument("--max-output-bytes", type=_positive_int, default=None, metavar="N",
                      help="the consumer's stdout kept for comparison (default 1 MiB; more is a finding when "
                           "an expectation is given)")
    feed.add_argument("--transcript", metavar="FILE", default=None,
                      help="write the first failing stream (or conversation) here (JSONL, replayable with check)")
    feed.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CONSUMER ARG…",
                      help="the consumer command (required)")
    feed.set_defaults(handler=cmd_feed)

    vectors = verbs.add_parser("vectors", help="the suite's knowledge as language-neutral test vectors")
    vector_verbs = vectors.add_subparsers(dest="action", required=True, parser_class=_Parser)
    export = vector_verbs.add_parser("export", help="write every vector (conformant, not conformant, "
                                                    "future-compatible) and their JSON Schema under DIR")
    export.add_argument("folder", metavar="DIR",
                        help="the folder to write (created; existing vector files overwritten)")
    export.set_defaults(handler=cmd_vectors_export)

    rules = verbs.add_parser("rules", help="print the rule catalog")
    rules.add_argument("--format", choices=("text", "json"), default="text")
    rules.add_argument("--wire", choices=(*NAMES, "all"), default="all")
    rules.set_defaults(handler=cmd_rules)

    record = verbs.add_parser("record", help="re-record the goldens from an emitter and report each change")
    record.add_argument("--wire", choices=(*NAMES, "all"), default="all")
    record.add_argument("--scenario", action="append", default=[], metavar="NAME",
                        help="only this scenario (repeatable)")
    record.add_argument("--timeout", type=_positive_float, default=60.0, metavar="SECONDS")
    record.add_argument("--late-grace", type=_seconds, default=LATE_GRACE, metavar="SECONDS",
                        help="as run's --late-grace (default 2)")
    record.add_argument("--dry-run", action="store_true", help="report the changes, rewrite nothing")
    record.add_argument("--format", choices=("text", "json"), default="text")
    record.add_argument("--goldens", metavar="DIR", default=None,
                        help="the goldens folder to write (default: the checkout's goldens/)")
    record.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARG…",
                        help="the emitter (a milk build); without one, the bundled reference emitters")
    record.set_defaults(handler=cmd_record)

    diff = verbs.add_parser("diff", help="classify the changes between two schemas or surfaces")
    diff.add_argument("--format", choices=("text", "json"), default="text", help="report format (default: text)")
    diff.add_argument("old", metavar="OLD", help="the earlier schema or surface (JSON file)")
    diff.add_argument("new", metavar="NEW", help="the later schema or surface (JSON file)")
    diff.set_defaults(handler=cmd_diff)

    surface = verbs.add_parser("surface", help="print a wire's surface (fields, types, bounds, values)")
    surface.add_argument("--wire", choices=NAMES, default=None, help="a bundled wire (schema plus goldens)")
    surface.add_argument("schema", metavar="SCHEMA", nargs="?", default=None,
                         help="a schema file instead of a bundled wire")
    surface.set_defaults(handler=cmd_surface)

    evolve = verbs.add_parser("evolve", help="take a new schema for a wire in: classify, gate, pin, snapshot")
    evolve.add_argument("--wire", choices=NAMES, required=True)
    evolve.add_argument("schema", metavar="NEW_SCHEMA", help="the new schema (e.g. from the ADR)")
    evolve.add_argument("--adr", default=None, metavar="ADR-NNNN", type=_adr,
                        help="the ADR this change implements (recorded in schemas/pins.json)")
    evolve.add_argument("--dry-run", action="store_true", help="classify and say what would happen; write nothing")
    evolve.add_argument("--accept", action="store_true",
                        help="write the accepted-breaks entries the change needs, with --adr, together with the schema")
    evolve.add_argument("--then-record", action="store_true",
                        help="take the schema in although the goldens are not valid under it (re-record them next)")
    evolve.add_argument("--root", default=None, metavar="DIR", help="the checkout (default: found as record finds it)")
    evolve.set_defaults(handler=cmd_evolve)

    from contract import migrate as migrate_verb  # its arguments live with its logic (contract/migrate.py)

    migrate_verb.add_parser(verbs, NAMES)
    verbs.choices["migrate"].set_defaults(handler=cmd_migrate)

    scenario = verbs.add_parser("scenario", help="add a golden scenario (transcript + meta) and update the snapshot")
    scenario.add_argument("--wire", choices=NAMES, required=True)
    scenario.add_argument("--name", required=True, metavar="NAME",
                          help="the scenario's name (goldens/<wire>/NAME.jsonl)")
    scenario.add_argument("--description", required=True, help="what the scenario covers, for reviewers")
    scenario.add_argument("--like", default=None, metavar="SCENARIO",
                          help="reproduce it as this existing scenario does (arguments, env, stdin, exit status)")
    scenario.add_argument("--arg", action="append", default=[], metavar="ARG",
                          help="one of the scenario's own emitter arguments (repeatable, in order; "
                               "--arg=--flag for one that starts with -)")
    scenario.add_argument("--exit-status", type=_exit_status, default=0, metavar="N",
                          help="the exit status the scenario ends with (default 0)")
    scenario.add_argument("--transcript", default=None, metavar="FILE", help="an authored transcript")
    scenario.add_argument("--timeout", type=_positive_float, default=60.0, metavar="SECONDS")
    scenario.add_argument("--root", default=None, metavar="DIR",
                          help="the checkout (default: found as record finds it)")
    scenario.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARG…",
                          help=f"the emitter to record from ({named(Live.STREAM)}); it runs with "
                               "MILK_CONTRACT_SCENARIO=NAME "
                               "and without MILK_CONTRACT_GOLDEN (the golden does not exist yet)")
    scenario.set_defaults(handler=cmd_scenario)
    return parser


class _VersionAction(argparse.Action):
    """``--version``: the installed version, looked up only when asked for.

    (importlib.metadata costs about as much start-up time as the checker itself.)
    """

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show program's version number and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        sys.stdout.write(f"{parser.prog} {_version()}\n")  # stdout, as argparse's own version action
        parser.exit()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(PROG)
    except PackageNotFoundError:  # a checkout on sys.path that was never installed
        return "0+unknown (not installed)"


def _report_options(parser: argparse.ArgumentParser, wires: Sequence[str], baseline: bool = True) -> None:
    default = DEFAULT.name if DEFAULT.name in wires else wires[0]  # the registry's first, if the verb takes it
    parser.add_argument("--wire", choices=wires, default=default,
                        help=f"the wire to judge by (default {default}"
                             + ("; auto: picked per file from its first object lines)" if AUTO in wires else ")"))
    parser.add_argument("--format", choices=FORMAT_NAMES, default="text",
                        help="text (people), json (tools), junit, github (workflow annotations), "
                             "sarif (code scanning), markdown (a step summary)")
    parser.add_argument("--strict", action="store_true", help="SHOULD findings fail too")
    parser.add_argument("--ignore", action="append", default=[], metavar="RULE",
                        help="skip a rule by id (repeatable)")
    parser.add_argument("--max-line-bytes", type=_positive_int, default=DEFAULT_MAX_LINE_BYTES,
                        metavar="N", help="longest line the checker reads (default 64 MiB)")
    if not baseline:
        return
    parser.add_argument("--baseline", metavar="FILE", default=None,
                        help="accept the findings FILE lists; new ones fail, so do listed ones no longer found")
    parser.add_argument("--baseline-write", metavar="FILE", default=None,
                        help="write FILE from this run's findings (with --baseline: only what it listed and "
                             "still occurs; a baseline never grows). Writing records the findings, it does not "
                             "accept them: without --baseline the run still reports them and exits by them")


BASIS_NAMES = ("written", "derived", "policy")  # contract.rules.Basis, without importing the catalog


def _basis_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--basis", action="append", default=None, type=_basis, metavar="|".join(BASIS_NAMES),
                        help="judge only the findings of rules of this basis (repeatable, cumulative; default all): "
                             "written (the seed's words say it), derived (its structure or a stated purpose), "
                             "policy (our choice where it is silent). The others are listed, not failing; "
                             "checker, run and baseline findings, unreadable lines and runs not whole always "
                             "fail (docs/rules.md)")


def _basis(text: str) -> str:
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [name for name in names if name not in BASIS_NAMES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"expected {', '.join(BASIS_NAMES)}, found {quoted(text)}")
    return ",".join(names)


def _judge_bases(report: Report, args: argparse.Namespace) -> Report:
    """The report with the bases --basis names (all when not given): what fails it."""
    from contract.rules import bases

    report.bases = bases(args.basis)
    return report


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, found {quoted(text)}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, found {quoted(text)}")
    return value


def _exit_status(text: str) -> int:
    """An exit status a process can choose (0 to 255): an end by a signal is never the expected one."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, found {quoted(text)}") from None
    if not 0 <= value <= 255:
        raise argparse.ArgumentTypeError(
            f"expected an exit status from 0 to 255, found {quoted(text)} (a run ended by a signal is never "
            "conformant)")
    return value


def _positive_float(text: str) -> float:
    return _checked_seconds(text, zero=False)


def _seconds(text: str) -> float:
    """Zero or more seconds (a grace that may be none)."""
    return _checked_seconds(text, zero=True)


def _checked_seconds(text: str, zero: bool) -> float:
    """Seconds as the plugin's options take them too (contract.options: the one check)."""
    from contract.options import seconds_problem

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, found {quoted(text)}") from None  # run() escapes it
    problem = seconds_problem(value, zero=zero)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"{problem}, found {quoted(text)}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, found {quoted(text)}") from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"expected a seed from 0 to 2**64-1, found {quoted(text)}")
    return value


def _check_ignores(ignores: Sequence[str]) -> None:
    from contract.report import ignore_problem

    problem = ignore_problem(ignores)
    if problem is not None:
        raise UsageError(f"--ignore: {problem} (see `{PROG} rules`)")  # run() escapes it


def _baseline(report: Report, args: argparse.Namespace) -> Report:
    if args.baseline is None and args.baseline_write is None:
        return report  # nothing to settle: the baseline machinery (and its schema) stays unloaded
    from contract import baseline

    try:
        return baseline.settle(report, baseline=args.baseline, write_to=args.baseline_write, ignore=args.ignore)
    except baseline.BaselineError as exc:
        raise UsageError(str(exc)) from None


def _write(fmt: str, write: Callable[[], object]) -> bool:
    """Write a report; False (after one line on stderr) when the reporter failed.

    Fail closed: a report that could not be written is no verdict, so the caller exits 2.
    """
    try:
        write()
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except Exception as exc:
        if output_failed(exc):  # stdout itself failed, not the reporter: run() says so, for every verb alike
            raise
        from contract.failsafe import describe

        sys.stderr.write(f"{PROG}: error: the {fmt} reporter failed ({textsafe.text(describe(exc))}); "
                         "the report is incomplete, so no verdict was given\n")
        return False
    return True


def _emit(report: Report, fmt: str, signum: int = signal.SIGINT) -> int:
    from contract.ci_reports import FORMATS
    from contract.reporters import STREAMING

    if fmt == "text" and set(report.counts) == {"run.start"}:  # nothing ran, so nothing was judged: a harness
        # error, said in one line as misuse is (the machine formats keep the run.start finding)
        why = next((v.message for v in report.violations if v.rule == "run.start"), "the emitter did not start")
        sys.stderr.write(f"{PROG}: error: {textsafe.text(why)} (run.start: nothing was checked)\n")
        return EXIT_USAGE
    streaming = STREAMING.get(fmt)  # json: written as it is serialised (memory flat in the findings)
    if streaming is not None:
        written = _write(fmt, lambda: streaming(report, sys.stdout))
    else:
        written = _write(fmt, lambda: sys.stdout.write(FORMATS[fmt].one(report)))
    if not written:
        return EXIT_USAGE
    if "run.interrupted" in report.counts:
        return exit_interrupted(signum)  # 128 + the signal that interrupted the run
    if "run.start" in report.counts:  # nothing was judged: a harness error, not a verdict
        return EXIT_USAGE
    return EXIT_OK if report.conformant else EXIT_VIOLATIONS


def cmd_check(args: argparse.Namespace) -> int:
    _check_ignores(args.ignore)
    paths: list[str] = args.path
    coverage = args.coverage or args.format == "json"  # JSON always carries it
    if "-" in paths:
        if len(paths) > 1:
            raise UsageError("- (stdin) cannot be checked together with other paths")
        from contract.checker import check

        if sys.stdin is None:  # started with fd 0 closed (``<&-``): not an empty stream
            raise UsageError("- (stdin): stdin is closed, so there is nothing to read (not an empty stream)")
        report = check(sys.stdin.buffer, args.wire, source="<stdin>", strict=args.strict, ignore=args.ignore,
                       max_line_bytes=args.max_line_bytes, jobs=args.jobs, coverage=coverage, basis=args.basis)
        _refuse_nothing([report])
        return _emit(_baseline(report, args), args.format)
    from contract import manyfiles

    options = manyfiles.Options(args.wire, args.strict, tuple(args.ignore), args.max_line_bytes, coverage)
    try:
        if len(paths) == 1 and not os.path.isdir(paths[0]):  # one file: the single-file report
            report = _judge_bases(manyfiles.check_path(paths[0], options, jobs=args.jobs), args)
            _refuse_nothing([report])
            return _emit(_baseline(report, args), args.format)
        if args.baseline or args.baseline_write:
            raise UsageError("--baseline and --baseline-write take one transcript file (a baseline is per emitter)")
        found = manyfiles.check_many(manyfiles.expand(paths), options, jobs=args.jobs)
        reports = [_judge_bases(r, args) for r in found]
    except manyfiles.PathError as exc:
        raise UsageError(str(exc)) from None
    _refuse_nothing(reports)
    from contract.ci_reports import FORMATS
    if not _write(args.format, lambda: sys.stdout.write(FORMATS[args.format].many(reports))):
        return EXIT_USAGE
    return EXIT_OK if all(r.conformant for r in reports) else EXIT_VIOLATIONS


SHOWN_EMPTY = 5  # empty files named in the misuse line; the rest are counted


def _refuse_nothing(reports: Sequence[Report]) -> None:
    """Misuse (one line, exit 2) when an input held no line at all and its wire's rules found
    nothing in that: checking nothing is never reported as conformant, as for a directory with
    no *.jsonl (contract.manyfiles). A wire that judges emptiness (stream-json: sj.init-first)
    keeps its findings, and the report stands."""
    empty = [r.source for r in reports if r.lines == 0 and not r.counts]
    if not empty:
        return
    why = "checking nothing is never reported as conformant"
    if len(reports) == 1:
        raise UsageError(f"{empty[0]}: no line to check (an empty input, judged {reports[0].wire}): {why}")
    named = ", ".join(empty[:SHOWN_EMPTY]) + (f" and {len(empty) - SHOWN_EMPTY} more" if len(empty) > SHOWN_EMPTY
                                             else "")
    raise UsageError(f"no line to check in {len(empty)} of {len(reports)} files ({named}): {why}")


def cmd_run(args: argparse.Namespace) -> int:
    _check_ignores(args.ignore)
    if args.baseline is not None:  # a baseline that is misuse is refused before the emitter runs
        from contract import baseline

        try:
            baseline.load(args.baseline)
        except baseline.BaselineError as exc:
            raise UsageError(str(exc)) from None
    command = _command(args.command)
    from contract.harness import Interrupted

    try:
        report = _live(args, command)
    except Interrupted as exc:  # Ctrl-C, SIGTERM, SIGHUP: what was seen, with run.interrupted; no baseline
        return _emit(_judge_bases(exc.report, args), args.format, exc.signum)
    if not command:
        report.notes.append("emitter: the bundled reference emitter (pass -- CMD ARG… to check another)")
    return _emit(_baseline(_judge_bases(report, args), args), args.format)


def _live(args: argparse.Namespace, command: list[str]) -> Report:
    wire = get(args.wire)
    # the flood limit is the wire's: a stream is checked as it streams (memory flat), a
    # conversation is kept whole to be judged (about twice its bytes in memory)
    max_output_bytes = args.max_output_bytes or wire.max_output_bytes
    if args.provoke:
        if wire.live is not Live.STREAM:
            raise UsageError(f"--provoke runs {named(Live.STREAM)} emitters ({named(Live.CONVERSATION)} hosts: "
                             "use the fuzz verb)")
        from contract.provoke import provoke

        return provoke(command or None, timeout=args.timeout, expect_exit=args.expect_exit,
                       strict=args.strict, ignore=args.ignore, max_line_bytes=args.max_line_bytes,
                       max_output_bytes=max_output_bytes, late_grace=args.late_grace)
    if wire.live is Live.CONVERSATION:
        from contract.driver import run_subagent

        return run_subagent(command or None, timeout=args.timeout, strict=args.strict,
                            ignore=args.ignore, expect_exit=args.expect_exit,
                            max_line_bytes=args.max_line_bytes, max_output_bytes=max_output_bytes,
                            late_grace=args.late_grace, wire=wire)
    from contract.harness import default_command, run_stream

    return run_stream(command or default_command(wire), wire=wire.name, timeout=args.timeout,
                      expect_exit=args.expect_exit, strict=args.strict, ignore=args.ignore,
                      max_line_bytes=args.max_line_bytes, max_output_bytes=max_output_bytes,
                      late_grace=args.late_grace)


@contextlib.contextmanager
def _hypothesis_storage_apart() -> Iterator[None]:
    """Hypothesis' storage in a temporary folder, removed after, for a verb that draws with it.

    The verbs use no example database (``database=None``: ``--seed`` is how a run is found again),
    but hypothesis also caches the constants it collects from local modules in its storage
    folder, ``.hypothesis/`` in the working directory, and a command line writes nothing there
    unasked. The cache only saves re-reading sources: what is drawn from a seed is the same.
    The previous storage folder is restored (the tests call verbs in their own process).
    """
    import tempfile

    from hypothesis import configuration

    previous = configuration.storage_directory(intent_to_write=False).home_directory
    with tempfile.TemporaryDirectory(prefix="milk-contract-hypothesis-") as home:
        configuration.set_hypothesis_home_dir(home)
        try:
            yield
        finally:
            configuration.set_hypothesis_home_dir(previous)


def _save_transcript(path: str | None, data: bytes | None) -> None:
    """Write ``--transcript FILE`` (the first failure's bytes); with nothing failed, say on stderr
    that nothing was written, so a file left there by an earlier run is not taken for this one's."""
    if path is None:
        return
    if data is None:
        before = " (the file there is from before this run)" if os.path.lexists(path) else ""
        print(f"{PROG}: --transcript {textsafe.text(path)}: nothing failed, so nothing was written{before}",
              file=sys.stderr)
        return
    try:
        with open(path, "wb") as handle:
            handle.write(data)
    except OSError as exc:
        raise UsageError(f"--transcript: cannot write {path}: {exc.strerror or exc}") from None


def cmd_fuzz(args: argparse.Namespace) -> int:
    """Fuzz a live host; a failure is printed with its shrunk conversation and the seed."""
    _check_ignores(args.ignore)
    command = _command(args.command)
    from contract import fuzz
    from contract.harness import Interrupted

    options: dict[str, Any] = {"strict": args.strict, "ignore": args.ignore, "max_line_bytes": args.max_line_bytes,
                               "seed": args.seed}
    if args.examples is not None:
        options["examples"] = args.examples
    if args.timeout is not None:
        options["timeout"] = args.timeout
    if args.shrink_seconds is not None:
        options["shrink_seconds"] = args.shrink_seconds
    try:
        with _hypothesis_storage_apart():
            result = fuzz.fuzz_host(command or None, **options)
    except Interrupted as exc:
        return _emit(exc.report, args.format, exc.signum)
    _save_transcript(args.transcript, result.transcript if result.failed else None)
    code = _emit(result.report, args.format)
    import shlex

    examples = str(args.examples or fuzz.DEFAULT_EXAMPLES)
    replay = shlex.join([PROG, "fuzz", "--wire", args.wire, "--seed", str(result.seed), "--examples", examples,
                         *(["--", *command] if command else [])])
    text = fuzz.describe(result, textsafe.text(replay))
    if text:  # machine formats keep stdout parseable: the conversation goes to stderr there
        (sys.stdout if args.format == "text" else sys.stderr).write(text)
    return code


def _pace(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, found {quoted(text)}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected 0 to 1 seconds between lines, found {quoted(text)}")
    return value


def cmd_feed(args: argparse.Namespace) -> int:
    """Feed a consumer streams (contract.feed) or, on subagent-stdio, play the host to a client."""
    command = _command(args.command)
    if not command:
        raise UsageError("feed needs the consumer: milk-contract feed [OPTIONS] -- CONSUMER ARG…")
    from contract import feed
    from contract.goldens import scenarios
    from contract.harness import Interrupted

    goldens = [g for g in scenarios(args.wire) if not args.scenario or g.name in args.scenario]
    unknown = sorted(set(args.scenario) - {g.name for g in goldens})
    if unknown:
        raise UsageError(f"--scenario: no {args.wire} golden named {quoted(unknown[0])} (see goldens/)")
    if not goldens:
        raise UsageError(f"no {args.wire} goldens to feed (see goldens/)")
    expect = _expectation(args, goldens)
    options: dict[str, Any] = {"future": args.future, "seed": args.seed, "expect": expect}
    for name in ("examples", "timeout", "pace", "max_output_bytes", "shrink_seconds"):
        if getattr(args, name) is not None:
            options[name] = getattr(args, name)
    if wire_live(args.wire) is Live.CONVERSATION:
        if args.pty:
            raise UsageError(f"--pty feeds {named(Live.STREAM)} consumers (a {named(Live.CONVERSATION)} client "
                             "talks over pipes)")
        if expect.given:
            raise UsageError(f"--expect-stdout and --expect-json judge {named(Live.STREAM)} consumers")
        from contract import feed_client

        options.pop("expect")

        def run_feed() -> feed.FeedResult:
            return feed_client.feed_client(command, goldens, **options)
    else:
        def run_feed() -> feed.FeedResult:
            return feed.feed_stream(command, goldens, pty=args.pty, **options)
    try:
        with _hypothesis_storage_apart() if args.future else contextlib.nullcontext():
            result = run_feed()
    except Interrupted as exc:  # Ctrl-C, SIGTERM, SIGHUP: what was seen, exit 128 + the signal
        return _emit(exc.report, args.format, exc.signum)
    _save_transcript(args.transcript, result.failures[0].data if result.failures else None)
    code = _emit(result.report, args.format)
    import shlex

    replay = shlex.join([PROG, "feed", "--wire", args.wire, *(["--future"] if args.future else []),
                         "--seed", str(result.seed), *(["--examples", str(args.examples)] if args.examples else []),
                         *(f"--scenario={name}" for name in args.scenario), "--", *command])
    text = feed.describe(result, textsafe.text(replay))
    if text:  # machine formats keep stdout parseable: the failing streams go to stderr there
        (sys.stdout if args.format == "text" else sys.stderr).write(text)
    return code


def wire_live(name: str) -> Live:
    return get(name).live


def _expectation(args: argparse.Namespace, goldens: Sequence[Any]) -> Any:
    from contract.feed import Expectation, ExpectationError, load_members, members_problem

    stdout = members = None
    if args.expect_stdout is not None:
        if len(goldens) != 1:
            raise UsageError("--expect-stdout compares one scenario's output: pick it with --scenario NAME")
        try:
            stdout = read_whole(args.expect_stdout)
        except OSError as exc:
            raise UsageError(f"--expect-stdout: cannot read {args.expect_stdout}: {exc.strerror or exc}") from None
    if args.expect_json is not None:
        import json

        try:
            members = load_members(json.loads(read_whole(args.expect_json)))
        except OSError as exc:
            raise UsageError(f"--expect-json: cannot read {args.expect_json}: {exc.strerror or exc}") from None
        except (ValueError, RecursionError, ExpectationError) as exc:
            raise UsageError(f"--expect-json: {args.expect_json}: {exc}") from None
        problem = members_problem(members, goldens) if wire_live(args.wire) is Live.STREAM else None
        if problem is not None:  # (a conversation wire refuses --expect-json itself, below)
            raise UsageError(f"--expect-json: {args.expect_json}: {problem}")
    return Expectation(stdout, members)


def cmd_vectors_export(args: argparse.Namespace) -> int:
    """Write the test vectors (contract.vectors); a vector whose verdict disagrees is no file, but exit 2."""
    from contract import vectors

    if os.path.exists(args.folder) and not os.path.isdir(args.folder):
        raise UsageError(f"{args.folder} exists and is not a folder")
    try:
        with _hypothesis_storage_apart():
            counts = vectors.export(args.folder)
    except OSError as exc:
        raise UsageError(f"cannot write {args.folder}: {exc.strerror or exc}") from None
    except vectors.VectorError as exc:  # a bug: a vector would state a verdict check does not give
        sys.stderr.write(f"{PROG}: error: {textsafe.text(str(exc))}; the export is incomplete\n")
        return EXIT_USAGE
    total = sum(counts.values())
    sys.stdout.write(f"{textsafe.text(args.folder)}: {total} vectors ("
                     + ", ".join(f"{group} {count}" for group, count in counts.items())
                     + f"), index.json and {vectors.SCHEMA_FILE}\n")
    return EXIT_OK


def cmd_record(args: argparse.Namespace) -> int:
    """Run each golden scenario through the emitter; rewrite it from a conformant run; say what changed.

    Where it writes, and why an unchanged golden is not touched: contract/recording.py.
    """
    from contract import recording
    from contract.accepting import with_accepted
    from contract.harness import Interrupted
    from contract.progress import Progress
    from contract.reporters import render_record
    from contract.scenarios import rerecordable, run_scenario

    command = _command(args.command)
    try:
        folder = recording.target(args.goldens)
    except recording.RecordingError as exc:
        raise UsageError(str(exc)) from None
    warning = recording.other_checkout_warning(folder) if args.goldens is None else None
    if warning is not None:  # an editable install of one clone run inside another: git diff here shows nothing
        sys.stderr.write(warning + "\n")
    try:  # a goldens folder given with --goldens is input: a meta or transcript that cannot be read is misuse
        goldens = [g for g in recording.all_in(folder)
                   if args.wire in ("all", g.wire) and (not args.scenario or g.name in args.scenario)]
        for golden in goldens:
            golden.data()
    except (OSError, ValueError, RecursionError) as exc:
        why = f"{exc.filename}: {exc.strerror}" if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UsageError(f"--goldens {folder}: {why}") from None
    unknown = set(args.scenario) - {g.name for g in goldens}
    if unknown:
        raise UsageError(f"--scenario: no golden named {quoted(sorted(unknown)[0])} (see goldens/)")
    if not goldens:  # re-recording nothing is never reported as done
        wire = "" if args.wire == "all" else f" of the {args.wire} wire"
        raise UsageError(f"{folder}: no golden{wire} to record in this folder (nothing to run)")
    accepted = _accepted_for(folder)
    results: list[Any] = []
    failed = False
    progress = Progress("record")  # on a terminal stderr only; erased before the report is written
    runs: list[Any] = []
    for number, golden in enumerate(goldens, 1):
        progress.update(f"scenario {number} of {len(goldens)}: {golden.wire}/{golden.name}")
        try:
            run_ = run_scenario(golden, command or None, timeout=args.timeout, late_grace=args.late_grace)
        except Interrupted as exc:  # Ctrl-C, SIGTERM, SIGHUP: keep this golden, start no other
            progress.close()
            return _record_stopped(golden, exc.report, results, args, folder, exc.signum)
        if "run.interrupted" in run_.report.counts or recording.harness_failure(run_.report) is not None:
            progress.close()  # the emitter never really ran, or was stopped: a harness error, not a diff
            return _record_stopped(golden, run_.report, results, args, folder, signal.SIGINT)
        # a golden is rewritten only from a complete, conformant run (rerecord_run checks both)
        usable = args.dry_run or rerecordable(run_)
        comparison = with_accepted(run_.comparison, accepted) if usable else None
        failed |= comparison is None or bool(comparison.breaking)
        runs.append(run_)
        results.append((golden, run_, comparison, False))
    progress.close()
    if not args.dry_run and not failed:  # every run first: a record that reports a break writes nothing
        results = [_rewritten(run_, command, accepted) for run_ in runs]
    sys.stdout.write(render_record(results, args.format, args.dry_run, folder))
    if failed and not args.dry_run and args.format == "text":
        sys.stdout.write("nothing rewritten: a scenario above has a breaking change or a finding (every golden kept)\n")
    return EXIT_VIOLATIONS if failed else EXIT_OK


def _accepted_for(folder: Any) -> list[Any]:
    """The accepted-breaks entries of the checkout the goldens folder is in (contract.accepting)."""
    from contract import recording
    from contract.accepting import entries_for
    from contract.gate import AcceptedBreaksError

    try:
        return entries_for(recording.project_root(folder))
    except AcceptedBreaksError as exc:
        raise UsageError(str(exc)) from None


def _rewritten(run_: Any, command: list[str], accepted: list[Any]) -> tuple[Any, Any, Any, bool]:
    from contract.accepting import with_accepted
    from contract.scenarios import rerecord_run

    recorded = rerecord_run(run_, command or None)
    if recorded is None:  # judged rerecordable above: the same run, the same verdict
        raise UsageError(f"{run_.golden.wire}/{run_.golden.name}: the run was not re-recordable; golden kept")
    return run_.golden, run_, with_accepted(recorded.comparison, accepted), recorded.written


def _record_stopped(golden: Any, report: Report, results: list[Any], args: argparse.Namespace, folder: Any,
                    signum: int) -> int:
    """A scenario whose run was not a run (it did not start, hung, …) or was interrupted.

    The scenarios before it as usual, the emitter's stderr tail, then one line naming the rule,
    with no diff (a partial output's "missing lines" say nothing about the emitter), under
    ``--dry-run`` too: exit 2, or 128 + the signal for ``run.interrupted``.
    """
    from contract import recording
    from contract.reporters import render_record

    stopped = next((v for v in report.violations if v.rule == "run.interrupted"), None)
    harness = f"{stopped.rule}: {stopped.message}" if stopped is not None else recording.harness_failure(report)
    sys.stdout.write(render_record(results, args.format, args.dry_run, folder))
    sys.stderr.write("".join(line + "\n" for line in recording.stderr_lines(report)))
    failure = f"{golden.wire}/{golden.name}: {harness or 'run.interrupted'}; golden kept, no further scenario run"
    if stopped is None and harness is not None:
        raise UsageError(failure)
    sys.stderr.write(f"{PROG}: error: {textsafe.text(failure)}\n")  # as run() says misuse, but exit 128 + signal
    return exit_interrupted(signum)


def cmd_evolve(args: argparse.Namespace) -> int:
    """Take a new schema for a wire in (contract.evolve): classify, gate, pin, snapshot."""
    from contract import evolve

    try:
        return evolve.cmd_evolve(args)
    except evolve.EvolveError as exc:
        raise UsageError(str(exc)) from None


def cmd_migrate(args: argparse.Namespace) -> int:
    """Rewrite the goldens for a mechanical ADR change (contract.migrate)."""
    from contract import evolve, migrate

    try:
        return migrate.cmd_migrate(args)
    except (migrate.MigrateError, evolve.EvolveError) as exc:
        raise UsageError(str(exc)) from None


def cmd_scenario(args: argparse.Namespace) -> int:
    """Add a golden scenario (contract.evolve): transcript and meta, authored or recorded."""
    from contract import evolve

    try:
        return evolve.cmd_scenario(args)
    except evolve.EvolveError as exc:
        raise UsageError(str(exc)) from None


def _adr(text: str) -> str:
    if not re.fullmatch(r"ADR-[0-9]{4,}", text):
        raise argparse.ArgumentTypeError(f"expected ADR-NNNN, found {quoted(text)}")  # run() escapes the message
    return text


def _command(argv: Sequence[str]) -> list[str]:
    command = list(argv)
    if command == ["--"]:  # `-- ` and nothing: a command was meant and is missing (not the default)
        raise UsageError("-- must be followed by a command (leave out -- for the bundled reference)")
    return command[1:] if command[:1] == ["--"] else command


def cmd_rules(args: argparse.Namespace) -> int:
    from contract.catalog import CATALOG, rules_for
    from contract.reporters import render_rules

    wires = (args.wire,) if args.wire in WIRES else NAMES  # or "all"
    seen: dict[str, None] = {}
    for wire in wires:
        for rule in rules_for(wire):
            seen.setdefault(rule.id)
    sys.stdout.write(render_rules([CATALOG[rule_id] for rule_id in seen], args.format))
    return EXIT_OK


def cmd_diff(args: argparse.Namespace) -> int:
    """Classify the changes between two schemas or surfaces: exit 1 when any is breaking."""
    from contract.classify import classify, is_breaking
    from contract.failsafe import describe
    from contract.reporters import render_diff

    old, new = _surface_file(args.old), _surface_file(args.new)
    try:
        changes = classify(old, new)
    except Exception as error:  # a hand-edited surface of the wrong shape, say
        raise UsageError(f"cannot compare {args.old} with {args.new}: {describe(error)}") from None
    sys.stdout.write(render_diff(args.old, args.new, changes, args.format))
    return EXIT_VIOLATIONS if is_breaking(changes) else EXIT_OK


def cmd_surface(args: argparse.Namespace) -> int:
    """Print a bundled wire's surface (schema plus goldens) or a schema file's."""
    from contract.reporters import render_surface
    from contract.surface import surface_for

    if (args.wire is None) == (args.schema is None):
        raise UsageError("give either --wire or a SCHEMA file")
    surface = surface_for(args.wire) if args.wire else _surface_file(args.schema)
    sys.stdout.write(render_surface(surface))
    return EXIT_OK


def _surface_file(path: str) -> dict[str, Any]:
    """A surface from a JSON file holding a schema or a surface; UsageError when it is neither."""
    import json

    from contract.surface import as_surface

    try:
        document = json.loads(read_whole(path))
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror or error}") from None
    except (ValueError, RecursionError) as error:
        raise UsageError(f"{path} is not valid JSON: {error}") from None
    try:
        return as_surface(document)
    except Exception as error:  # any malformed schema shape ends here, never as a traceback
        raise UsageError(f"{path}: not a usable JSON Schema or surface ({error})") from None


_T = TypeVar("_T")


class _Output:
    """stdout for the length of one :func:`run`, remembering the first write that failed.

    A full disk (``> /dev/full``), a closed terminal, a quota: any verb's output can fail to be
    written, inside a reporter, in argparse's ``--help`` (which swallows the error and exits 0)
    or in the final flush. What failed is stdout, and only this wrapper can tell that apart
    from an OSError of the verb's own work, so :func:`run` turns it into one line and exit 2
    for every verb: output that was not written is never a success, and a verdict that was
    not written is no verdict. A reader that left (``| head``) is a BrokenPipeError, run()'s
    own case (:func:`_reader_left`): exit 2 as well, with its own words.
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.failed: OSError | None = None

    def write(self, text: str) -> int:
        return self._guard(lambda: self.stream.write(text))

    def writelines(self, lines: Iterable[str]) -> None:
        self._guard(lambda: self.stream.writelines(lines))

    def flush(self) -> None:
        self._guard(self.stream.flush)

    def _guard(self, call: Callable[[], _T]) -> _T:
        try:
            return call()
        except BrokenPipeError:
            raise
        except OSError as exc:
            if self.failed is None:
                self.failed = exc
            raise

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, buffer…: the stream's own
        return getattr(self.stream, name)


def output_failed(exc: BaseException) -> bool:
    """True when ``exc`` is the failure to write stdout during this run (a reporter lets it through)."""
    output = sys.stdout
    return isinstance(output, _Output) and output.failed is not None and exc is output.failed


def _output_failure(output: _Output) -> int:
    failed = output.failed
    why = (failed.strerror or str(failed)) if failed is not None else "unknown"
    sys.stderr.write(f"{PROG}: error: cannot write to stdout ({textsafe.text(why)}); the output is incomplete, "
                     "so no result or verdict was given\n")
    if output.stream is sys.__stdout__:  # what is still buffered would fail again at exit, as a traceback
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, output.stream.fileno())
            os.close(devnull)
    return EXIT_USAGE


def _reader_left() -> int:
    """stdout's reader left (``| head``, ``| true``) before the output was written whole: exit 2,
    never 0. Fail closed: under ``set -o pipefail`` a 0 here read as "conformant" whatever the
    verdict was (an outside review: ``check truncated.jsonl | true`` exited 0)."""
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(f"{PROG}: error: stdout's reader left before the output was written whole; "
                         "no result or verdict was given\n")
    stream = getattr(sys.stdout, "stream", sys.stdout)  # under run(): the _Output wrapper's own
    if stream is sys.__stdout__:  # the process's stdout (not a caller's): the rest would fail again at exit
        with contextlib.suppress(OSError, ValueError, AttributeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, stream.fileno())  # type: ignore[union-attr]  # not None: it is stdout
            os.close(devnull)
    return EXIT_USAGE


def run(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run the verb; returns the exit code.

    SIGINT, SIGTERM and SIGHUP take the interruption's path while it runs (``contract.interrupts``):
    the first one is reported, a later one only noted; the handlers found are put back after.
    """
    from contract.interrupts import as_interrupts

    with as_interrupts():
        return _written(argv)


def _written(argv: Sequence[str] | None) -> int:
    """:func:`_run` with stdout watched: a stdout that failed is one line and exit 2 (:class:`_Output`)."""
    output = _Output(sys.stdout)
    sys.stdout = output  # a TextIO in all it is asked for
    code = EXIT_USAGE
    try:
        code = _run(argv)
        if output.failed is None:
            with contextlib.suppress(OSError):  # recorded by the wrapper when it is stdout's
                output.flush()
    except OSError as exc:
        if exc is not output.failed:
            raise
    finally:
        sys.stdout = output.stream
    return code if output.failed is None else _output_failure(output)


def _run(argv: Sequence[str] | None) -> int:
    """The verb, inside an ``as_interrupts`` block its caller holds."""
    from contract.interrupts import name as signal_name
    from contract.interrupts import signal_of

    try:
        args = _build_parser().parse_args(argv)
        handler: Callable[[argparse.Namespace], int] = args.handler  # every verb sets one
        return handler(args)
    except SystemExit as exc:  # --help and --version end here
        return int(exc.code or 0) if not isinstance(exc.code, str) else EXIT_USAGE
    except UsageError as exc:
        sys.stderr.write(f"{PROG}: error: {textsafe.text(str(exc))}\n")  # paths and names are input too
        return EXIT_USAGE
    except BrokenPipeError:  # `milk-contract check x | head`: the reader left before the output was whole
        return _reader_left()
    except KeyboardInterrupt as exc:
        signum = signal_of(exc)
        sys.stderr.write(f"{PROG}: interrupted ({signal_name(signum)})\n")
        return exit_interrupted(signum)


def _closed_standard_descriptors() -> set[int]:
    """Which of fds 0-2 the process was started without (``>&-``, ``<&-``); each is opened on
    /dev/null, so no file or pipe the run opens later takes its number (an emitter's pipe read as
    our stdin, a report written into a golden). Python leaves ``sys.stdin``/``sys.stdout`` None
    for them: ``check -`` says stdin is closed, and a closed stdout ends the run at once."""
    closed = set()
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            closed.add(fd)
    for _fd in sorted(closed):
        os.open(os.devnull, os.O_RDWR)  # the lowest free number: this one
    if 2 in closed or sys.stderr is None:
        sys.stderr = open(2, "w", errors="backslashreplace", closefd=False)  # noqa: SIM115  # to /dev/null
    return closed


def main() -> NoReturn:
    """The ``milk-contract`` process: the verb, with the signals handled from here to its exit.

    The handlers are installed first thing, so the whole run, the report's printing and the exit
    are covered; once a signal was received they are left ignoring (``ending``), so a second
    one cannot end the process with another status. A signal that arrives after the verb
    returned (its output written) still ends the process as interrupted, 128 + the signal.
    """
    from contract.interrupts import as_interrupts, signal_of
    from contract.interrupts import name as signal_name

    closed = _closed_standard_descriptors()
    if 1 in closed:  # ``>&-``: no result or verdict can reach anyone
        with contextlib.suppress(OSError, ValueError, AttributeError):
            sys.stderr.write(f"{PROG}: error: stdout is closed, so no result or verdict could be given\n")
        sys.exit(EXIT_USAGE)
    try:
        with as_interrupts(ending=True):
            # a terminal or pipe that is not UTF-8 (PYTHONIOENCODING=ascii, a latin-1 locale) gets
            # escapes for what it cannot show, never a UnicodeEncodeError traceback
            for stream in (sys.stdout, sys.stderr):
                reconfigure = getattr(stream, "reconfigure", None)
                if reconfigure is not None:
                    reconfigure(errors="backslashreplace")
            code = _written(None)
            with contextlib.suppress(OSError, ValueError):  # the report out while the handlers still hold
                sys.stdout.flush()
    except KeyboardInterrupt as exc:  # the first signal, after the verb was done
        signum = signal_of(exc)
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(f"{PROG}: interrupted ({signal_name(signum)})\n")
        code = exit_interrupted(signum)
    sys.exit(code)


if __name__ == "__main__":  # ``python -m contract.cli`` as ``python -m contract`` (it did nothing, exit 0)
    main()
