"""``milk-contract run``: an emitter or host run live and checked as it runs (``--provoke``: again
under a terminal and a slow reader)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from contract.cli.common import (
    LATE_GRACE,
    UsageError,
    basis_option,
    command_of,
    exit_status,
    flood_limits,
    liveness_of,
    liveness_options,
    positive_float,
    positive_int,
    report_options,
    seconds,
)
from contract.cli.output import check_ignores, emit, judge_bases, settle_baseline, style_of
from contract.wires import NAMES, Live, named

if TYPE_CHECKING:
    from contract.rules.report import Report

def add_run(verbs: Any) -> None:
    """The ``run`` verb's parser."""
    run = verbs.add_parser("run", help="run an emitter (default: the bundled reference) and check it live")
    report_options(run, wires=NAMES)
    basis_option(run)
    run.add_argument("--timeout", type=positive_float, default=60.0, metavar="SECONDS",
                     help="kill the emitter (and its process group) after this long (default 60)")
    run.add_argument("--expect-exit", type=exit_status, default=0, metavar="STATUS",
                     help="the exit status a conformant run ends with, 0 to 255 (default 0); a run ended by a "
                          "signal did not finish and is never conformant")
    run.add_argument("--max-output-bytes", type=positive_int, default=None, metavar="N",
                     help=f"stop a flooding emitter after this much output (default: {flood_limits()})")
    run.add_argument("--late-grace", type=seconds, default=LATE_GRACE, metavar="SECONDS",
                     help="after the emitter exits, how long its descendants may still hold stdout open: what "
                          "they write is judged as part of the stream, one still holding it then is "
                          "run.stdout-held (default 2; 0: stdout must close when the emitter exits)")
    liveness_options(run)
    run.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARG…",
                     help="the emitter command; without one, the bundled reference emitter")

    run.add_argument("--provoke", action="store_true",
                     help=f"{named(Live.STREAM)}: run the emitter again under a pseudo-terminal, with colour "
                          "forced, "
                          "and under a slow reader (contract.live.provoke)")
    run.set_defaults(handler=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    check_ignores(args.ignore)
    if args.baseline is not None:  # a baseline that is misuse is refused before the emitter runs
        from contract.rules import baseline

        try:
            baseline.load(args.baseline)
        except baseline.BaselineError as exc:
            raise UsageError(str(exc)) from None
    command = command_of(args.command)
    from contract.live.harness import Interrupted

    try:
        report = live_report(args, command)
    except Interrupted as exc:  # Ctrl-C, SIGTERM, SIGHUP: what was seen, with run.interrupted; no baseline
        return emit(judge_bases(exc.report, args), args.format, exc.signum, style_of(args))
    if not command:
        report.notes.append("emitter: the bundled reference emitter (pass -- CMD ARG… to check another)")
    return emit(settle_baseline(judge_bases(report, args), args), args.format, style=style_of(args))


def live_report(args: argparse.Namespace, command: list[str]) -> Report:
    """The run as ``contract.run`` makes it (the one path from Python and from the command line)."""
    from contract.api import run

    try:
        return run(command or None, wire=args.wire, timeout=args.timeout, expect_exit=args.expect_exit,
                   strict=args.strict, ignore=args.ignore, max_line_bytes=args.max_line_bytes,
                   max_output_bytes=args.max_output_bytes, late_grace=args.late_grace, provoke=args.provoke,
                   liveness=liveness_of(args))
    except ValueError as exc:  # misuse the options could not refuse alone (--provoke of a conversation wire)
        raise UsageError(f"--{exc}") from None
