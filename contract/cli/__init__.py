"""The ``milk-contract`` command line. ``run(argv) -> int`` is the core; ``main`` only exits.

Exit codes: 0 conformant, 1 violations (or a breaking change), 2 usage or harness error, or a
reporter or a stdout that failed while writing (any verb's, ``--help`` too: the output is then
incomplete, never exit 0), 128 + the signal
when interrupted (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP: a live run still reports what it saw, as
``run.interrupted``; contract.core.interrupts turns SIGTERM and SIGHUP into Ctrl-C for every verb).
Misuse gets one line on stderr; no input, however hostile, gets a traceback.

Start-up is paid by every invocation (each pre-commit hook run, each CI step), so this module
imports only what building the parser needs (the wire registry, for ``--wire`` choices); each
verb imports its own machinery when it runs: ``check`` never loads the schema differ, the
surface, evolve, the live harness or hypothesis (tests/architecture/test_imports.py holds this).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from contract.cli.common import FORMAT_NAMES as FORMAT_NAMES  # re-exported: the public names of the command line
from contract.cli.common import LATE_GRACE as LATE_GRACE
from contract.cli.common import PROG, Parser, UsageError, VersionAction
from contract.cli.output import Output, closed_standard_descriptors, output_failure, reader_left
from contract.core import textsafe
from contract.core.exitcodes import EXIT_INTERRUPTED as EXIT_INTERRUPTED  # re-exported: tests name it cli's
from contract.core.exitcodes import EXIT_USAGE, exit_interrupted
from contract.wires import NAMES, WireRegistry, entry


def build_parser() -> argparse.ArgumentParser:
    """The whole command line: each verb's module adds its own parser, in the order --help lists them."""
    from contract.cli import check, compat, evolution, feed, fuzz, live, record, rules, statement, vectors

    parser = Parser(prog=PROG, description=f"Contract checks for milk's {' and '.join(NAMES)} wires.")
    parser.add_argument("--version", action=VersionAction)
    verbs = parser.add_subparsers(dest="verb", required=True, parser_class=Parser)
    check.add_check(verbs)
    live.add_run(verbs)
    fuzz.add_fuzz(verbs)
    feed.add_feed(verbs)
    vectors.add_vectors(verbs)
    rules.add_rules(verbs)
    record.add_record(verbs)
    for add in (evolution.add_diff, evolution.add_surface, evolution.add_evolve, evolution.add_migrate,
                evolution.add_scenario):
        add(verbs)
    statement.add_statement(verbs)
    statement.add_matrix(verbs)
    compat.add_compat(verbs)
    return parser


@entry
def run(argv: Sequence[str] | None = None, *, registry: WireRegistry | None = None) -> int:
    """Parse ``argv`` and run the verb; returns the exit code. ``registry``: the wires the verb knows
    (``--wire``'s choices among them; a ``contract.wires.WireRegistry``, the bundled ones by default).

    SIGINT, SIGTERM and SIGHUP take the interruption's path while it runs (``contract.core.interrupts``):
    the first one is reported, a later one only noted; the handlers found are put back after.
    """
    from contract.core.interrupts import as_interrupts

    with as_interrupts():
        return written(argv)


def written(argv: Sequence[str] | None) -> int:
    """:func:`run_verb` with stdout watched: a stdout that failed is one line and exit 2 (:class:`Output`)."""
    output = Output(sys.stdout)
    sys.stdout = output  # a TextIO in all it is asked for
    code = EXIT_USAGE
    try:
        code = run_verb(argv)
        if output.failed is None:
            with contextlib.suppress(OSError):  # recorded by the wrapper when it is stdout's
                output.flush()
    except OSError as exc:
        if exc is not output.failed:
            raise
    finally:
        sys.stdout = output.stream
    return code if output.failed is None else output_failure(output)


def run_verb(argv: Sequence[str] | None) -> int:
    """The verb, inside an ``as_interrupts`` block its caller holds."""
    from contract.core.interrupts import name as signal_name
    from contract.core.interrupts import signal_of

    try:
        args = build_parser().parse_args(argv)
        handler: Callable[[argparse.Namespace], int] = args.handler  # every verb sets one
        return handler(args)
    except SystemExit as exc:  # --help and --version end here
        return int(exc.code or 0) if not isinstance(exc.code, str) else EXIT_USAGE
    except UsageError as exc:
        sys.stderr.write(f"{PROG}: error: {textsafe.text(str(exc))}\n")  # paths and names are input too
        return EXIT_USAGE
    except BrokenPipeError:  # `milk-contract check x | head`: the reader left before the output was whole
        return reader_left()
    except KeyboardInterrupt as exc:
        signum = signal_of(exc)
        sys.stderr.write(f"{PROG}: interrupted ({signal_name(signum)})\n")
        return exit_interrupted(signum)


def main() -> NoReturn:
    """The ``milk-contract`` process: the verb, with the signals handled from here to its exit.

    The handlers are installed first thing, so the whole run, the report's printing and the exit
    are covered; once a signal was received they are left ignoring (``ending``), so a second
    one cannot end the process with another status. A signal that arrives after the verb
    returned (its output written) still ends the process as interrupted, 128 + the signal.
    """
    from contract.core.interrupts import as_interrupts, signal_of
    from contract.core.interrupts import name as signal_name

    closed = closed_standard_descriptors()
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
            code = written(None)
            with contextlib.suppress(OSError, ValueError):  # the report out while the handlers still hold
                sys.stdout.flush()
    except KeyboardInterrupt as exc:  # the first signal, after the verb was done
        signum = signal_of(exc)
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(f"{PROG}: interrupted ({signal_name(signum)})\n")
        code = exit_interrupted(signum)
    sys.exit(code)
