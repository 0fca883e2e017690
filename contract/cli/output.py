"""What a verb writes and how a run's stdout is guarded: a report (by its format, streaming
where it can), the baseline settled, misuse for checking nothing, and stdout that failed or
whose reader left (one line, exit 2: output not written is never a success)."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from contract.cli.common import PROG, UsageError
from contract.core import textsafe
from contract.core.exitcodes import EXIT_OK, EXIT_USAGE, EXIT_VIOLATIONS, exit_interrupted

if TYPE_CHECKING:
    from contract.reporting.terminal import Style
    from contract.rules.report import Report


def judge_bases(report: Report, args: argparse.Namespace) -> Report:
    """The report with the bases --basis names (all when not given): what fails it."""
    from contract.core.rule import bases

    report.bases = bases(args.basis)
    return report


def check_ignores(ignores: Sequence[str]) -> None:
    from contract.rules.report import ignore_problem

    problem = ignore_problem(ignores)
    if problem is not None:
        raise UsageError(f"--ignore: {problem} (see `{PROG} rules`)")  # run() escapes it


def settle_baseline(report: Report, args: argparse.Namespace) -> Report:
    if args.baseline is None and args.baseline_write is None:
        return report  # nothing to settle: the baseline machinery (and its schema) stays unloaded
    from contract.rules import baseline

    try:
        return baseline.settle(report, baseline=args.baseline, write_to=args.baseline_write, ignore=args.ignore)
    except baseline.BaselineError as exc:
        raise UsageError(str(exc)) from None


def write(fmt: str, write: Callable[[], object]) -> bool:
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
        from contract.checking.failsafe import describe

        sys.stderr.write(f"{PROG}: error: the {fmt} reporter failed ({textsafe.text(describe(exc))}); "
                         "the report is incomplete, so no verdict was given\n")
        return False
    return True


def style_of(args: argparse.Namespace) -> Style:
    """The text report's style from ``--color``, ``-q``/``-v`` and stdout (contract.reporting.terminal)."""
    from contract.reporting.terminal import style_for

    return style_for(sys.stdout, getattr(args, "color", "auto"), getattr(args, "verbosity", 0))


def emit(report: Report, fmt: str, signum: int = signal.SIGINT, style: Style | None = None) -> int:
    """Write one report in ``fmt`` (its reporter from contract.reporting.formats.REPORTERS) and give
    the exit status it earns: 0 conformant, 1 not, 2 when nothing was judged or the report could not
    be written, 128 + the signal for an interrupted run."""
    from contract.reporting.formats import REPORTERS
    from contract.reporting.terminal import PLAIN

    if fmt == "text" and set(report.counts) == {"run.start"}:  # nothing ran, so nothing was judged: a harness
        # error, said in one line as misuse is (the machine formats keep the run.start finding)
        why = next((v.message for v in report.violations if v.rule == "run.start"), "the emitter did not start")
        sys.stderr.write(f"{PROG}: error: {textsafe.text(why)} (run.start: nothing was checked)\n")
        return EXIT_USAGE
    reporter = REPORTERS[fmt]  # json streams, as it is serialised (memory flat in the findings)
    if not write(fmt, lambda: reporter.write(report, sys.stdout, style or PLAIN)):
        return EXIT_USAGE
    if "run.interrupted" in report.counts:
        return exit_interrupted(signum)  # 128 + the signal that interrupted the run
    if "run.start" in report.counts:  # nothing was judged: a harness error, not a verdict
        return EXIT_USAGE
    return EXIT_OK if report.conformant else EXIT_VIOLATIONS


SHOWN_EMPTY = 5  # empty files named in the misuse line; the rest are counted


def refuse_nothing(reports: Sequence[Report]) -> None:
    """Misuse (one line, exit 2) when an input held no line at all and its wire's rules found
    nothing in that: checking nothing is never reported as conformant, as for a directory with
    no *.jsonl (contract.checking.manyfiles). A wire that judges emptiness (stream-json: sj.init-first)
    keeps its findings, and the report stands."""
    empty = [r.source for r in reports if r.lines == 0 and not r.counts]
    if not empty:
        return
    why = "checking nothing is never reported as conformant"
    if len(reports) == 1:
        raise UsageError(f"{empty[0]}: no line to check (an empty input, judged {reports[0].wire}): {why}")
    named = ", ".join(empty[:SHOWN_EMPTY]) + (f" and {len(empty) - SHOWN_EMPTY} more" if len(empty) > SHOWN_EMPTY
                                             else "")
    raise UsageError(f"no line to check in {len(empty)} of {textsafe.counted(len(reports), 'file')} ({named}): {why}")


@contextlib.contextmanager
def hypothesis_storage_apart() -> Iterator[None]:
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


def save_transcript(path: str | None, data: bytes | None) -> None:
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


_T = TypeVar("_T")


class Output:
    """stdout for the length of one :func:`run`, remembering the first write that failed.

    A full disk (``> /dev/full``), a closed terminal, a quota: any verb's output can fail to be
    written, inside a reporter, in argparse's ``--help`` (which swallows the error and exits 0)
    or in the final flush. What failed is stdout, and only this wrapper can tell that apart
    from an OSError of the verb's own work, so :func:`run` turns it into one line and exit 2
    for every verb: output that was not written is never a success, and a verdict that was
    not written is no verdict. A reader that left (``| head``) is a BrokenPipeError, run()'s
    own case (:func:`reader_left`): exit 2 as well, with its own words.
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
    return isinstance(output, Output) and output.failed is not None and exc is output.failed


def output_failure(output: Output) -> int:
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


def reader_left() -> int:
    """stdout's reader left (``| head``, ``| true``) before the output was written whole: exit 2,
    never 0. Fail closed: under ``set -o pipefail`` a 0 here read as "conformant" whatever the
    verdict was (an outside review: ``check truncated.jsonl | true`` exited 0)."""
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(f"{PROG}: error: stdout's reader left before the output was written whole; "
                         "no result or verdict was given\n")
    stream = getattr(sys.stdout, "stream", sys.stdout)  # under run(): the Output wrapper's own
    process = sys.__stdout__  # None when the process was started without one
    # the process's stdout (not a caller's): the rest would fail again at exit
    if process is not None and stream is process:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, process.fileno())
            os.close(devnull)
    return EXIT_USAGE


def closed_standard_descriptors() -> set[int]:
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
