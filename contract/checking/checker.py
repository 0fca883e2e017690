"""The public entry to the pipeline (reader → schema → rule machines → report): ``check``.

The CLI, the many-file checker and the pytest plugin call it; the steps themselves are
``contract.checking.pipeline``. Nothing here raises on bad input: every fault becomes a finding in the
report (misuse of the API, such as an unknown wire or rule id, raises).
"""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Iterable

from contract.checking import capture_coverage, cores
from contract.checking.pipeline import SchemaStep, check_stream, measured, no_cycle_collection, pick_wire, run_rules
from contract.core.reader import DEFAULT_MAX_LINE_BYTES, Source
from contract.core.rule import Basis, bases
from contract.rules.catalog import CATALOG
from contract.rules.report import Collector, Report, ignore_problem
from contract.wires import AUTO, DEFAULT, NAMES, Wire, WireRegistry, entry, get, is_auto

__all__ = ["AUTO", "SchemaStep", "check", "no_cycle_collection", "pick_wire", "run_rules"]

INPUT_CHANGED = "checker.input-changed"
RULES = frozenset({INPUT_CHANGED})  # what this module emits (tests/rules/test_rule_emitters.py)


@entry
def check(
    data: Source | os.PathLike[str],
    wire: Wire | str = DEFAULT.name,
    *,
    strict: bool = False,
    ignore: Iterable[str] = (),
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    source: str = "-",
    jobs: int | None = None,
    coverage: bool = False,
    basis: Iterable[str] | None = None,
    registry: WireRegistry | None = None,
) -> Report:
    """Check a whole stream (bytes, a binary file, a ``pathlib.Path``, or an iterable of byte chunks).

    A ``Path`` (any ``os.PathLike``) is opened and read as a file. A ``str`` is refused with
    a ``TypeError``: it could be a path or the stream's text, and guessing wrong would check
    the wrong bytes; pass ``Path("run.jsonl")`` or ``data.encode()``. A text-mode file is
    refused too (the checker judges bytes: UTF-8 and line endings are part of the contract).
    An unknown rule id in ``ignore`` raises ``ValueError`` naming the known ones.

    ``jobs``: 1 checks in this process; 2 splits the work of a regular file over two
    processes (``contract.checking.parallel``); None (auto) does so for files large enough to gain
    when a second core is free at the start (``contract.checking.cores``: a quick probe of the
    machine's load), and the report's notes say which was used. The report is the same either
    way, that note apart.

    ``coverage``: also measure what the capture showed of the wire's surface
    (``report.coverage``, from a bounded sample: ``contract.checking.capture_coverage``).

    ``basis``: the bases whose findings fail the report (``"written"``, ``"derived"``,
    ``"policy"``; default all). Findings of the others are still counted and listed; the
    checker's, harness' and baseline rules, an unreadable line, ``line.limit`` and a run that is
    not whole (the rules that are not filterable: ``catalog.always_judged``) always fail. An
    unknown name raises ``ValueError``.

    ``registry``: the wires the check knows (``contract.wires.WireRegistry``; None: the current one, the
    bundled wires by default): a wire named, and ``auto``'s candidates, are looked up there.
    """
    descriptor, ignore, judged = _arguments(data, wire, strict, ignore, max_line_bytes, source, jobs, coverage,
                                            basis)
    if isinstance(data, os.PathLike):
        path = str(os.fspath(data))
        with open(path, "rb") as handle:
            return check(handle, descriptor, strict=strict, ignore=ignore, max_line_bytes=max_line_bytes,
                         source=path if source == "-" else source, jobs=jobs, coverage=coverage, basis=basis)
    _refuse_text(data)
    sample = capture_coverage.Sample() if coverage else None
    before = _state(data)
    report, choice = _checked(data, descriptor, jobs, sample, strict=strict, ignore=ignore,
                              max_line_bytes=max_line_bytes, source=source)
    if choice is not None:
        report.notes.append(choice.note)
    _judge_unchanged(report, before, _state(data))
    report.bases = judged
    return measured(report, sample)


def _arguments(data: object, wire: Wire | str, strict: object, ignore: Iterable[str], max_line_bytes: object,
               source: object, jobs: object, coverage: object, basis: Iterable[str] | None,
               ) -> tuple[Wire | str, tuple[str, ...], tuple[Basis, ...]]:
    """``check``'s arguments judged, in the order a misuse is reported: the wire as its descriptor
    (or ``AUTO``), the rules to ignore, and the bases whose findings fail the report."""
    _check_types(data, wire, strict, max_line_bytes, source, jobs, coverage)
    judged = bases(basis)
    # the edge: the name is resolved to the descriptor here, once, and the descriptor passed on
    name = wire.name if isinstance(wire, Wire) else wire
    if not is_auto(name) and name not in NAMES:
        raise ValueError(f"unknown wire {name!r}; expected one of {', '.join(NAMES)} or {AUTO}")
    descriptor: Wire | str = AUTO if is_auto(name) else get(name)
    return descriptor, _known_rules(ignore), judged


def _checked(data: Source, descriptor: Wire | str, jobs: int | None, sample: capture_coverage.Sample | None, *,
             strict: bool, ignore: tuple[str, ...], max_line_bytes: int, source: str,
             ) -> tuple[Report, cores.Choice | None]:
    """The report of two processes (``contract.checking.parallel``) where they pay, else of one
    (``check_stream``), and the default's choice when ``jobs`` was left to it (its note is the report's)."""
    choice = None
    if jobs != 1:
        from contract.checking import parallel

        if parallel.worth_it(data, jobs, descriptor):
            # --jobs unset: two processes only when a second core is free now (contract.checking.cores)
            choice = None if jobs is not None else cores.choose(_usable_cores())
            if choice is None or choice.two:
                with no_cycle_collection():
                    report = parallel.check_file(data, descriptor, strict=strict, ignore=ignore,
                                                 max_line_bytes=max_line_bytes, source=source, sample=sample)
                return report, choice
    return check_stream(data, descriptor, strict=strict, ignore=ignore, max_line_bytes=max_line_bytes,
                        source=source, sample=sample), choice


def _usable_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _state(data: object) -> tuple[int, int] | None:
    """A regular file's size and modification time (None for anything else: a pipe is read as it comes)."""
    fileno = getattr(data, "fileno", None)
    if not callable(fileno):
        return None
    try:
        info = os.fstat(fileno())
    except (OSError, ValueError, TypeError, io.UnsupportedOperation):
        return None
    return (info.st_size, info.st_mtime_ns) if stat.S_ISREG(info.st_mode) else None


def _judge_unchanged(report: Report, before: tuple[int, int] | None, after: tuple[int, int] | None) -> None:
    """checker.input-changed when the file changed under the check: its verdict is on bytes the
    file does not hold alone (``--jobs 1`` and ``--jobs 2`` would judge different ones)."""
    report.exercised.add(INPUT_CHANGED)  # judged on every input: bytes and a pipe are what came, never changed
    if before is None or after is None or before == after:
        return  # not a regular file (read as it comes: no size to hold it to), or unchanged
    grew = (f"{before[0]:,} bytes when the check began, {after[0]:,} at its end" if before[0] != after[0]
            else f"rewritten in place ({before[0]:,} bytes, a new modification time)")
    Collector(report).emit(INPUT_CHANGED, None, None,
                           f"the file changed while it was checked: {grew}; the verdict cannot stand for the file",
                           "check it again once it is complete (a capture still being written is a run not finished)")



def _check_types(data: object, wire: object, strict: object, max_line_bytes: object, source: object,
                 jobs: object, coverage: object) -> None:
    """Misuse of the API is a ``TypeError`` (or ``ValueError``) here, at the edge: deeper in, any
    exception is a ``checker.internal`` finding, which would blame the stream for the caller's bug."""
    if not isinstance(data, (bytes, bytearray, memoryview, os.PathLike, str, io.TextIOBase)) \
            and not hasattr(data, "read") and not hasattr(data, "readline"):  # a live pipe may have only readline
        if isinstance(data, dict) or not isinstance(data, Iterable):
            raise TypeError(f"check() takes bytes, a binary file, a pathlib.Path or byte chunks, "
                            f"not {type(data).__name__}")
        if isinstance(data, (list, tuple)) and not all(isinstance(chunk, (bytes, bytearray, memoryview))
                                                         for chunk in data):
            raise TypeError("check(): every chunk of a list or tuple of chunks must be bytes")
    if not isinstance(wire, str | Wire):
        raise TypeError(f"wire must be a str or a Wire, not {type(wire).__name__}")
    if not isinstance(source, str):
        raise TypeError(f"source must be a str, not {type(source).__name__}")
    for name, value in (("strict", strict), ("coverage", coverage)):
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be a bool, not {type(value).__name__}")
    for name, value, optional in (("max_line_bytes", max_line_bytes, False), ("jobs", jobs, True)):
        if optional and value is None:
            continue
        if type(value) is not int:  # bool is an int subclass, and True is no byte count
            raise TypeError(f"{name} must be an int, not {type(value).__name__}")
        if value <= 0:
            raise ValueError(f"{name} must be positive, found {value}")


def _known_rules(ignore: Iterable[str]) -> tuple[str, ...]:
    if isinstance(ignore, str):
        raise TypeError(f"ignore must be a collection of rule ids, not the str {ignore!r}: "
                        f"pass [{ignore!r}]")
    if not isinstance(ignore, Iterable):
        raise TypeError(f"ignore must be a collection of rule ids, not {type(ignore).__name__}")
    rules = tuple(ignore)
    if not all(isinstance(rule, str) for rule in rules):
        raise TypeError("ignore: every rule id must be a str")
    problem = ignore_problem(rules)
    if problem is not None:
        known = f"; known rules: {', '.join(CATALOG)}" if problem.startswith("unknown") else ""
        raise ValueError(f"ignore: {problem}{known}")
    return rules


def _refuse_text(data: object) -> None:
    if isinstance(data, str):
        raise TypeError("check() takes bytes, a binary file, a pathlib.Path or byte chunks, not a str "
                        "(a path or the text?): pass pathlib.Path(path) for a file, or text.encode()")
    if isinstance(data, io.TextIOBase):
        raise TypeError("check() needs a binary file: open it with open(path, 'rb'), not in text mode "
                        "(the checker judges the bytes: UTF-8 and line endings are part of the contract)")
