"""``milk-contract check``: captured streams and conversations, one file, many, or stdin."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from contract.cli.common import UsageError, basis_option, positive_int, report_options
from contract.cli.output import check_ignores, emit, judge_bases, refuse_nothing, settle_baseline, style_of, write
from contract.core.exitcodes import EXIT_OK, EXIT_USAGE, EXIT_VIOLATIONS
from contract.wires import AUTO, NAMES


def add_check(verbs: Any) -> None:
    """The ``check`` verb's parser."""
    chk = verbs.add_parser("check", help="check a captured stream or conversation")
    report_options(chk, wires=(*NAMES, AUTO))
    chk.add_argument("path", nargs="+", metavar="PATH|-",
                     help="transcript files and directories (every *.jsonl below, sorted), or - for stdin alone")
    chk.add_argument("--coverage", action="store_true",
                     help="also say what the capture showed of the wire's surface (line kinds, subtypes, "
                          "block types, fields) and what it never showed (always in --format json)")
    basis_option(chk)
    chk.add_argument("--jobs", type=positive_int, default=None, metavar="N",
                     help="processes: many files are spread over N; one large file is checked by two when N "
                          "is 2 or more and its wire gains from it (default: decide by size)")
    chk.set_defaults(handler=cmd_check)


def cmd_check(args: argparse.Namespace) -> int:
    check_ignores(args.ignore)
    paths: list[str] = args.path
    coverage = args.coverage or args.format == "json"  # JSON always carries it
    if "-" in paths:
        if len(paths) > 1:
            raise UsageError("- (stdin) cannot be checked together with other paths")
        from contract.checking.checker import check

        if sys.stdin is None:  # started with fd 0 closed (``<&-``): not an empty stream
            raise UsageError("- (stdin): stdin is closed, so there is nothing to read (not an empty stream)")
        report = check(sys.stdin.buffer, args.wire, source="<stdin>", strict=args.strict, ignore=args.ignore,
                       max_line_bytes=args.max_line_bytes, jobs=args.jobs, coverage=coverage, basis=args.basis)
        refuse_nothing([report])
        return emit(settle_baseline(report, args), args.format, style=style_of(args))
    from contract.checking import manyfiles

    options = manyfiles.Options(args.wire, args.strict, tuple(args.ignore), args.max_line_bytes, coverage)
    try:
        if len(paths) == 1 and not os.path.isdir(paths[0]):  # one file: the single-file report
            report = judge_bases(manyfiles.check_path(paths[0], options, jobs=args.jobs), args)
            refuse_nothing([report])
            return emit(settle_baseline(report, args), args.format, style=style_of(args))
        if args.baseline or args.baseline_write:
            raise UsageError("--baseline and --baseline-write take one transcript file (a baseline is per emitter)")
        found = manyfiles.check_many(manyfiles.expand(paths), options, jobs=args.jobs)
        reports = [judge_bases(r, args) for r in found]
    except manyfiles.PathError as exc:
        raise UsageError(str(exc)) from None
    refuse_nothing(reports)
    from contract.reporting.formats import REPORTERS

    reporter, style = REPORTERS[args.format], style_of(args)
    if not write(args.format, lambda: sys.stdout.write(reporter.many(reports, style))):
        return EXIT_USAGE
    return EXIT_OK if all(r.conformant for r in reports) else EXIT_VIOLATIONS
