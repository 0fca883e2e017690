"""``milk-contract record``: the goldens re-recorded from an emitter, each change reported.

``cmd_record`` reads as its steps (issue 29: short functions): the folder (``_folder``), the
goldens chosen (``_chosen``: every misuse refused before any emitter runs), the accepted breaks,
one run per golden, then the rewrite, only when no run showed a break or a finding.
"""

from __future__ import annotations

import argparse
import signal
import sys
from typing import TYPE_CHECKING, Any

from contract.cli.common import (
    LATE_GRACE,
    PROG,
    UsageError,
    command_of,
    liveness_of,
    liveness_options,
    positive_float,
    seconds,
)
from contract.core import textsafe
from contract.core.exitcodes import EXIT_OK, EXIT_VIOLATIONS, exit_interrupted
from contract.core.jsonvalue import quoted
from contract.wires import NAMES

if TYPE_CHECKING:
    from pathlib import Path

    from contract.goldens.store import Golden
    from contract.rules.report import Report

def add_record(verbs: Any) -> None:
    """The ``record`` verb's parser."""
    record = verbs.add_parser("record", help="re-record the goldens from an emitter and report each change")
    record.add_argument("--wire", choices=(*NAMES, "all"), default="all",
                        help="only the goldens of this wire (default all)")
    record.add_argument("--scenario", action="append", default=[], metavar="NAME",
                        help="only this scenario (repeatable)")
    record.add_argument("--timeout", type=positive_float, default=60.0, metavar="SECONDS",
                        help="kill a scenario's emitter (and its process group) after this long; the golden is "
                             "kept and no further scenario is run (default 60)")
    record.add_argument("--late-grace", type=seconds, default=LATE_GRACE, metavar="SECONDS",
                        help="as run's --late-grace (default 2)")
    liveness_options(record)
    record.add_argument("--dry-run", action="store_true", help="report the changes, rewrite nothing")
    record.add_argument("--format", choices=("text", "json"), default="text",
                        help="text (a line per scenario and a total) or json (a list of objects, for tools)")
    record.add_argument("--goldens", metavar="DIR", default=None,
                        help="the goldens folder to write (default: the checkout's goldens/)")
    record.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARG…",
                        help="the emitter (a milk build); without one, the bundled reference emitters")
    record.set_defaults(handler=cmd_record)


def cmd_record(args: argparse.Namespace) -> int:
    """Run each golden scenario through the emitter; rewrite it from a conformant run; say what changed.

    Where it writes, and why an unchanged golden is not touched: contract/goldens/recording.py.
    """
    from contract.core.progress import Progress
    from contract.evolution.accepting import with_accepted
    from contract.goldens import recording
    from contract.goldens.scenarios import rerecordable, run_scenario
    from contract.live.harness import Interrupted
    from contract.reporting.reporters import render_record

    command = command_of(args.command)
    folder = _folder(args.goldens)
    goldens = _chosen(args, folder)
    accepted = _accepted_for(folder)
    progress = Progress("record")  # on a terminal stderr only; erased before the report is written
    results: list[Any] = []
    runs: list[Any] = []
    for number, golden in enumerate(goldens, 1):
        progress.update(f"scenario {number} of {len(goldens)}: {golden.wire}/{golden.name}")
        try:
            run_ = run_scenario(golden, command or None, timeout=args.timeout, late_grace=args.late_grace,
                                liveness=liveness_of(args))
        except Interrupted as exc:  # Ctrl-C, SIGTERM, SIGHUP: keep this golden, start no other
            progress.close()
            return record_stopped(golden, exc.report, results, args, folder, exc.signum)
        if "run.interrupted" in run_.report.counts or recording.harness_failure(run_.report) is not None:
            progress.close()  # the emitter never really ran, or was stopped: a harness error, not a diff
            return record_stopped(golden, run_.report, results, args, folder, signal.SIGINT)
        # a golden is rewritten only from a complete, conformant run (rerecordable checks both)
        usable = args.dry_run or rerecordable(run_)
        results.append((golden, run_, with_accepted(run_.comparison, accepted) if usable else None, False))
        runs.append(run_)
    progress.close()
    failed = any(c is None or c.breaking for _, _, c, _ in results)
    if not args.dry_run and not failed:  # every run first: a record that reports a break writes nothing
        results = [_rewritten(run_, command, accepted) for run_ in runs]
    sys.stdout.write(render_record(results, args.format, args.dry_run, folder))
    if failed and not args.dry_run and args.format == "text":
        sys.stdout.write("nothing rewritten: a scenario above has a breaking change or a finding (every golden kept)\n")
    return EXIT_VIOLATIONS if failed else EXIT_OK


def _folder(goldens: str | None) -> Path:
    """The goldens folder to write (``--goldens``, else the checkout's), with a warning when the
    checkout is not the one around the working directory."""
    from contract.goldens import recording

    try:
        folder = recording.target(goldens)
    except recording.RecordingError as exc:
        raise UsageError(str(exc)) from None
    warning = recording.other_checkout_warning(folder) if goldens is None else None
    if warning is not None:  # an editable install of one clone run inside another: git diff here shows nothing
        sys.stderr.write(warning + "\n")
    return folder


def _chosen(args: argparse.Namespace, folder: Path) -> list[Golden]:
    """The goldens of ``folder`` that ``--wire`` and ``--scenario`` choose, each read once; misuse
    (UsageError) when one cannot be read, a scenario is unknown or nothing is chosen."""
    from contract.goldens import recording

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
    return goldens


def _accepted_for(folder: Any) -> list[Any]:
    """The accepted-breaks entries of the checkout the goldens folder is in (contract.evolution.accepting)."""
    from contract.evolution.accepting import entries_for
    from contract.evolution.gate import AcceptedBreaksError
    from contract.goldens import recording

    try:
        return entries_for(recording.project_root(folder))
    except AcceptedBreaksError as exc:
        raise UsageError(str(exc)) from None


def _rewritten(run_: Any, command: list[str], accepted: list[Any]) -> tuple[Any, Any, Any, bool]:
    from contract.evolution.accepting import with_accepted
    from contract.goldens.scenarios import rerecord_run

    recorded = rerecord_run(run_, command or None)
    if recorded is None:  # judged rerecordable above: the same run, the same verdict
        raise UsageError(f"{run_.golden.wire}/{run_.golden.name}: the run was not re-recordable; golden kept")
    return run_.golden, run_, with_accepted(recorded.comparison, accepted), recorded.written


def record_stopped(golden: Any, report: Report, results: list[Any], args: argparse.Namespace, folder: Any,
                    signum: int) -> int:
    """A scenario whose run was not a run (it did not start, hung, …) or was interrupted.

    The scenarios before it as usual, the emitter's stderr tail, then one line naming the rule,
    with no diff (a partial output's "missing lines" say nothing about the emitter), under
    ``--dry-run`` too: exit 2, or 128 + the signal for ``run.interrupted``.
    """
    from contract.goldens import recording
    from contract.reporting.reporters import render_record

    stopped = next((v for v in report.violations if v.rule == "run.interrupted"), None)
    harness = f"{stopped.rule}: {stopped.message}" if stopped is not None else recording.harness_failure(report)
    sys.stdout.write(render_record(results, args.format, args.dry_run, folder, stopped=f"{golden.wire}/{golden.name}"))
    sys.stderr.write("".join(line + "\n" for line in recording.stderr_lines(report)))
    failure = f"{golden.wire}/{golden.name}: {harness or 'run.interrupted'}; golden kept, no further scenario run"
    if stopped is None and harness is not None:
        raise UsageError(failure)
    sys.stderr.write(f"{PROG}: error: {textsafe.text(failure)}\n")  # as run() says misuse, but exit 128 + signal
    return exit_interrupted(signum)
