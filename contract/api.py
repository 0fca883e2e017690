"""The Python API of every verb: ``contract.run``, ``contract.feed``, ``contract.fuzz``, ``contract.record``
(``contract.check`` is the checker's own, ``contract.checking.checker.check``).

Each takes what its verb's options take, as keyword arguments with the CLI's defaults, and
returns the objects the CLI renders (``registry``: the wires it knows, a ``contract.wires.WireRegistry``;
the bundled ones by default): a :class:`~contract.rules.report.Report` (``run``), a
result carrying one (``feed``, ``fuzz``: ``.report``, the seed, the failing streams) or one
:class:`Recorded` per scenario (``record``). Render any report with
``contract.reporting.formats.REPORTERS[fmt].one(report)`` (any ``--format``, by name) as the CLI does.

Fail closed as the CLI is: a run that did not finish, an emitter that did not start, a checker
that raised are findings in a report that is not conformant, never an exception that could be
mistaken for a pass nor a passing report; what the CLI calls misuse (exit 2: an unknown
scenario or wire, a count below one) raises ``ValueError`` or ``TypeError`` before anything runs;
Ctrl-C (SIGTERM and SIGHUP under ``contract.core.interrupts.as_interrupts``) raises
:class:`contract.live.harness.Interrupted`, a KeyboardInterrupt carrying the report of what was seen.

The conformance statement is ``contract.conformance_statement`` (``contract.statement`` is the
package's statement layer, so the function has the longer name).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from contract.core.reader import DEFAULT_MAX_LINE_BYTES
from contract.wires import DEFAULT, WIRES, Live, Wire, WireRegistry, entry, get, named

if TYPE_CHECKING:
    from contract.consumers.feed import FeedResult
    from contract.goldens.compare import Comparison
    from contract.goldens.store import Golden
    from contract.live.fuzz import FuzzResult
    from contract.live.timeline import Liveness
    from contract.rules.report import Report

LATE_GRACE = 2.0  # contract.live.harness.DEFAULT_LATE_GRACE (the CLI's default; tests hold them equal)


@entry
def run(command: Sequence[str] | None = None, *, wire: str = DEFAULT.name, timeout: float = 60.0,
        expect_exit: int = 0, strict: bool = False, ignore: Iterable[str] = (), basis: Sequence[str] | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, max_output_bytes: int | None = None,
        late_grace: float = LATE_GRACE, provoke: bool = False, liveness: Liveness | None = None,
        registry: WireRegistry | None = None) -> Report:
    """``milk-contract run``: the emitter ``command`` (None: the wire's bundled reference) run live
    and checked as it runs; with ``provoke``, again under terminals, forced colour and a slow reader.
    ``liveness``: the thresholds of the liveness rules (``contract.live.timeline.Liveness``; None:
    their defaults, docs/limits.md)."""
    from contract.rules.report import ignore_problem

    descriptor = _wire(wire)
    ignore = tuple(ignore)
    problem = ignore_problem(ignore)
    if problem is not None:
        raise ValueError(f"ignore: {problem}")
    limit = max_output_bytes or descriptor.max_output_bytes
    options: dict[str, Any] = {"timeout": timeout, "expect_exit": expect_exit, "strict": strict, "ignore": ignore,
                               "max_line_bytes": max_line_bytes, "max_output_bytes": limit, "late_grace": late_grace}
    argv = list(command) if command else None
    timed: dict[str, Any] = {} if liveness is None else {"liveness": liveness}
    if provoke:
        if descriptor.live is not Live.STREAM:
            raise ValueError(f"provoke runs {named(Live.STREAM)} emitters "
                             f"({named(Live.CONVERSATION)} hosts: use the fuzz verb)")
        from contract.live.provoke import provoke as provoked

        return _judged(provoked(argv, wire=descriptor.name, **options, **timed), basis)
    if descriptor.live is Live.CONVERSATION:
        from contract.live.driver import run_subagent

        answered: dict[str, Any] = {} if liveness is None else {"response_within": liveness.response_within}
        return _judged(run_subagent(argv, wire=descriptor, **options, **answered), basis)
    from contract.live.harness import default_command, run_stream

    return _judged(run_stream(argv or default_command(descriptor), wire=descriptor.name, **options, **timed),
                   basis)


@entry
def feed(command: Sequence[str], *, wire: str = DEFAULT.name, scenarios: Iterable[str] = (), future: bool = False,
         examples: int | None = None, seed: int | None = None, timeout: float | None = None,
         pace: float | None = None, pty: bool = False, expect_stdout: bytes | None = None,
         expect_json: Mapping[str, str] | None = None, max_output_bytes: int | None = None,
         shrink_seconds: float | None = None,
         registry: WireRegistry | None = None) -> FeedResult:
    """``milk-contract feed``: the consumer ``command`` fed the wire's goldens (``scenarios``: only
    these) and, with ``future``, their future variants; on a conversation wire it is a client
    and the suite plays the host. ``expect_json`` maps member names to pointers into the result
    line (``--expect-json``'s ``members``). ``.report`` is the verdict, ``.failures`` each failing
    stream with its bytes, ``.seed`` what finds the variants again."""
    from contract.consumers import feed as feeding

    if not command:
        raise ValueError("feed needs the consumer's command")
    descriptor = _wire(wire)
    goldens = _goldens(descriptor.name, scenarios)
    options = _FeedOptions(future=future, seed=seed)
    if examples is not None:  # None: the verb's own default (each feed has its own)
        options["examples"] = examples
    if timeout is not None:
        options["timeout"] = timeout
    if pace is not None:
        options["pace"] = pace
    if max_output_bytes is not None:
        options["max_output_bytes"] = max_output_bytes
    if shrink_seconds is not None:
        options["shrink_seconds"] = shrink_seconds
    if descriptor.live is Live.CONVERSATION:
        if pty or expect_stdout is not None or expect_json is not None:
            raise ValueError(f"pty, expect_stdout and expect_json feed {named(Live.STREAM)} consumers")
        from contract.consumers.feed_client import feed_client

        return feed_client(list(command), goldens, wire=descriptor, **options)
    members = None
    if expect_json is not None:
        members = feeding.load_members({"members": dict(expect_json)})
        problem = feeding.members_problem(members, goldens)
        if problem is not None:
            raise ValueError(f"expect_json: {problem}")
    if expect_stdout is not None and len(goldens) != 1:
        raise ValueError("expect_stdout compares one scenario's output: name it in scenarios")
    expect = feeding.Expectation(expect_stdout, members)
    return feeding.feed_stream(list(command), goldens, pty=pty, expect=expect, wire=descriptor, **options)


@entry
def fuzz(command: Sequence[str] | None = None, *, wire: str | None = None, examples: int | None = None,
         seed: int | None = None, timeout: float | None = None, shrink_seconds: float | None = None,
         strict: bool = False, ignore: Iterable[str] = (), max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
         registry: WireRegistry | None = None) -> FuzzResult:
    """``milk-contract fuzz``: generated conversations held with the host ``command`` (None: the
    bundled reference host), the first failure shrunk. ``.report`` is the verdict, ``.plan`` and
    ``.transcript`` the shrunk failing conversation, ``.seed`` what finds it again."""
    from contract.live import fuzz as fuzzing

    if wire is not None and _wire(wire).live is not Live.CONVERSATION:
        raise ValueError(f"fuzz holds {named(Live.CONVERSATION)} conversations, not {wire}")
    options = _FuzzOptions(strict=strict, ignore=tuple(ignore), max_line_bytes=max_line_bytes, seed=seed)
    if examples is not None:  # None: fuzz_host's own default
        options["examples"] = examples
    if timeout is not None:
        options["timeout"] = timeout
    if shrink_seconds is not None:
        options["shrink_seconds"] = shrink_seconds
    return fuzzing.fuzz_host(list(command) if command else None, **options)


class _FeedOptions(TypedDict, total=False):
    """The keywords ``feed`` passes on to the feeder, each only when given: typed, so mypy holds
    them to ``feed_stream``'s and ``feed_client``'s parameters."""

    future: bool
    seed: int | None
    examples: int
    timeout: float
    pace: float
    max_output_bytes: int
    shrink_seconds: float


class _FuzzOptions(TypedDict, total=False):
    """The keywords ``fuzz`` passes on to ``fuzz_host``, each only when given (as ``_FeedOptions``)."""

    strict: bool
    ignore: tuple[str, ...]
    max_line_bytes: int
    seed: int | None
    examples: int
    timeout: float
    shrink_seconds: float


@dataclass(frozen=True)
class Recorded:
    """One scenario of :func:`record`: its run's report, what changed, whether its golden was rewritten."""

    scenario: str  # wire/name
    report: Report
    comparison: Comparison | None  # None when the run was not conformant (the golden is kept)
    rewritten: bool

    @property
    def breaking(self) -> bool:
        """A finding, or a breaking change: what makes ``milk-contract record`` exit 1."""
        return self.comparison is None or bool(self.comparison.breaking)


@entry
def record(command: Sequence[str] | None = None, *, wire: str = "all", scenarios: Iterable[str] = (),
           timeout: float = 60.0, late_grace: float = LATE_GRACE, dry_run: bool = False,
           goldens: str | Path | None = None,
           registry: WireRegistry | None = None) -> list[Recorded]:
    """``milk-contract record``: each golden scenario run through the emitter ``command`` (None: the
    bundled references) and, from a complete conformant run unless ``dry_run``, rewritten.

    A scenario whose run was not a run (it did not start, timed out, was flooded) stops the
    recording there, as the CLI's does: it is the last item, its golden kept (``comparison``
    None), and no later scenario is run.
    """
    from contract.goldens import recording
    from contract.goldens.scenarios import rerecord_run, run_scenario

    if wire != "all":
        _wire(wire)
    try:
        folder = recording.target(None if goldens is None else str(goldens))
    except recording.RecordingError as exc:
        raise ValueError(str(exc)) from None
    names = set(scenarios)
    chosen = [g for g in recording.all_in(folder)
              if wire in ("all", g.wire) and (not names or g.name in names)]
    _refuse_unknown(names, chosen)
    if not chosen:  # re-recording nothing is never reported as done
        raise ValueError(f"{folder}: no golden to record")
    out: list[Recorded] = []
    for golden in chosen:
        run_ = run_scenario(golden, list(command) if command else None, timeout=timeout, late_grace=late_grace)
        label = f"{golden.wire}/{golden.name}"
        if "run.interrupted" in run_.report.counts or recording.harness_failure(run_.report) is not None:
            out.append(Recorded(label, run_.report, None, False))
            break
        recorded = None if dry_run else rerecord_run(run_, list(command) if command else None)
        comparison = run_.comparison if dry_run else (recorded.comparison if recorded else None)
        out.append(Recorded(label, run_.report, comparison, recorded is not None and recorded.written))
    return out


def _wire(name: str) -> Wire:
    if name not in WIRES:
        raise ValueError(f"no wire named {name!r} (the wires: {', '.join(WIRES)})")
    return get(name)


@entry
def conformance_statement(command: Sequence[str] | None = None, *, timeout: float = 60.0, provoke: bool = False,
                          shard: tuple[int, int] | None = None, captures: str | Path | None = None,
                          generated: str | None = None,
                          registry: WireRegistry | None = None) -> dict[str, Any]:
    """A build's conformance statement (docs/statements.md), as ``milk-contract statement`` makes it.

    ``command``: the build to run every scenario against (None: the bundled reference emitters);
    ``captures``: a folder of ``*.jsonl`` captures to judge instead (no command, provoke or shard
    with it); ``shard``: ``(I, N)``, only shard I of N of the scenarios (``statement merge`` joins
    them). Returns the sealed JSON document (``schemas/statement.schema.json``); its
    ``level["must_complete"]`` is what the CLI's exit status says. ``generated`` is the timestamp
    written (now, in UTC, when None). Misuse is a ``ValueError`` before anything runs.
    (Not ``contract.statement``: that name is the package's statement layer.)
    """
    import datetime

    from contract.statement import collect, model

    if timeout <= 0:
        raise ValueError(f"timeout: expected seconds above 0, found {timeout!r}")
    if shard is not None and not 1 <= shard[0] <= shard[1]:
        raise ValueError(f"shard: expected (I, N) with 1 <= I <= N, found {shard!r}")
    suite = suite_version()
    now = generated or datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if captures is not None:
        if command or provoke or shard:
            raise ValueError("captures judges files: no command, provoke or shard with it")
        from contract.checking.manyfiles import PathError

        try:
            runs = collect.capture_runs(Path(captures))
        except PathError as exc:
            raise ValueError(str(exc)) from None
        build = {"command": None, "name": f"captures in {captures}", "version": None}
        return model.statement(runs, build, suite=suite, generated=now, provoked=False, source=model.CAPTURE)
    argv = list(command) if command else None
    runs = collect.scenario_runs(argv, timeout=timeout, provoke=provoke, shard=shard)
    return model.statement(runs, collect.build_info(argv, suite), suite=suite, generated=now, provoked=provoke,
                           shard=shard)


def suite_version() -> str:
    """The installed milk-contract's version (``--version``, a statement's ``suite``)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("milk-contract")
    except PackageNotFoundError:  # a checkout on sys.path that was never installed
        return "0+unknown (not installed)"


def _goldens(wire: str, scenarios: Iterable[str]) -> list[Golden]:
    from contract.goldens.store import scenarios as all_of

    names = set(scenarios)
    chosen = [g for g in all_of(wire) if not names or g.name in names]
    _refuse_unknown(names, chosen)
    if not chosen:
        raise ValueError(f"no {wire} goldens to feed")
    return chosen


def _refuse_unknown(names: set[str], chosen: Sequence[Golden]) -> None:
    unknown = sorted(names - {g.name for g in chosen})
    if unknown:
        raise ValueError(f"no golden scenario named {unknown[0]!r}")
    if names and not chosen:
        raise ValueError("no golden to run")


def _judged(report: Report, basis: Sequence[str] | None) -> Report:
    """The report with the bases ``basis`` names (all when None): what fails it, as --basis."""
    from contract.core.rule import bases

    report.bases = bases(basis)
    return report


__all__ = ["Recorded", "conformance_statement", "feed", "fuzz", "record", "run", "suite_version"]
