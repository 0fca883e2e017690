"""Judging a stream-json consumer: feed it the goldens (and their future variants) and watch it.

``milk-contract feed -- CONSUMER…`` runs the consumer once per stream, the stream on its stdin
written line by line with a pause between lines (as a live emitter writes; through a pipe or,
with ``pty``, a pseudo-terminal), each line once the consumer has taken the one before (so a
consumer that stops early has not pulled the rest into a buffer of its own), and judges how it
ended:

- ``consumer.crash``: it exited with a status other than 0, or was killed by a signal;
- ``consumer.hang``: it was still running ``timeout`` seconds after it started (its process group
  and descendants are killed, as ``contract.live.harness.Process`` kills an emitter's);
- ``consumer.early-exit``: it exited 0 with some of the stream unread (through a pipe the suite holds
  a copy of the read end, so what is left in it is known; through a terminal only what was never
  written);
- ``consumer.output``: an expectation was given and its stdout does not meet it (or its stdout
  passed the capture bound, so it could not be compared: fail closed).

With ``future``, each golden is also transformed the ways the seed lets a producer change a stream
without a new ADR (the wire's ``Wire.future``), drawn by hypothesis; the first failing variant
of a golden is shrunk to the fewest, simplest changes that still fail, and reported with its
changes and its stream. Every variant is conformant under ``check --strict`` (tests hold it), so
a consumer that fails one fails on a stream a conformant milk may write.

Every wait is bounded (``timeout`` per stream, the shrink budget per golden) and every buffer too:
the consumer's stdout is kept up to ``max_output_bytes`` (read on, and dropped, beyond it), its
stderr as the harness keeps an emitter's (a bounded tail).

This module is the feed loop and what every loop shares (``Feed``, ``Search``, the failing
streams); one run is held by ``contract.consumers.holding`` (``hold``, ``Outcome``) and judged by
``contract.consumers.judging`` (``judge``, ``Expectation``). Their public names are imported here
too, so ``from contract.consumers.feed import hold`` keeps working (and the feed loops call
``hold`` through this module: a test may replace it here).
"""

from __future__ import annotations

import contextlib
import random
import shlex
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from contract.consumers.holding import (
    DEFAULT_MAX_OUTPUT_BYTES,
    DEFAULT_PACE,
    DEFAULT_TIMEOUT,
    PTY_LINE_BYTES,
    Outcome,
    hold,
)
from contract.consumers.judging import (
    Expectation,
    ExpectationError,
    Finding,
    crash_hint,
    hang_detail,
    judge,
    load_members,
    members_problem,
    said_on_stderr,
    spoken_on,
)
from contract.consumers.reading import NO_READING, READING_RULES
from contract.consumers.reading import RULES as READING_RULES_ALL
from contract.core import textsafe
from contract.core.interrupts import signal_of
from contract.core.jsonvalue import clip
from contract.live.harness import Interrupted, internal, interrupted
from contract.rules.report import Collector, Report
from contract.rules.requirements import CHECKER_RULES, Scope
from contract.wires import Live, Wire, first, get, resolve

RULES = frozenset({"consumer.crash", "consumer.hang", "consumer.early-exit", "consumer.output", "run.start",
                   "run.interrupted", "checker.internal"}) | READING_RULES_ALL
# The bundled default stream wire, for the loops that do not take a wire yet (contract.consumers.broken_feed,
# contract.consumers.transport); feed_stream takes its wire from the caller (fed_wire).
WIRE = first(Live.STREAM).name
DEFAULT_EXAMPLES = 10  # future variants per golden
DEFAULT_SHRINK_SECONDS = 30.0
MAX_SHRINK_RUNS = 200
SHOWN_LINES = 200  # of a failing stream, after a text report (--transcript FILE saves the first one whole)
SHOWN_LINE_CHARS = 300  # of each of those lines
NO_EXPECTATION = Expectation()  # the default: only how the consumer ended is judged


# -- the feed loops: their result, what they share, the search over future variants -------------


@dataclass
class Failure:
    """A stream the consumer failed on: what it was, how it ended, what was found."""

    scenario: str
    variant: str  # its name
    changes: str  # what was changed, for a person
    data: bytes
    outcome: Outcome
    findings: list[Finding]
    shrink_runs: int = 0
    shrink_cut: bool = False


@dataclass
class FeedResult:
    """What feeding found: the report to print, and each failing stream (or conversation)."""

    report: Report
    seed: int
    failures: list[Failure] = field(default_factory=list)
    streams: int = 0  # consumer runs in all
    broken: bool = False  # the streams fed are broken on purpose (feed --broken): none is conformant
    readings: int = 0  # runs whose consumer wrote a reading (the reading protocol): its rules judged them


BROKEN_ONLY = "judged only when the consumer is fed broken streams (feed --broken)"


class Feed:
    """What every feed loop shares (a consumer's streams, a client's conversations): the report and
    its collector, the result, how a party that cannot start, an interruption and a fault of the
    feeder end it, and which rules a loop that ran to its end judged."""

    def __init__(self, argv: Sequence[str], seed: int | None, wire: str) -> None:
        self.seed = seed if seed is not None else random.SystemRandom().randrange(2**32)
        self.report = Report(wire=wire, source=shlex.join(argv), scope=Scope.FEED)
        self.out = Collector(self.report)
        self.out.exercised("run.start")
        self.result = FeedResult(self.report, self.seed)
        self.started = False  # a party ran: the loop's rules judged something
        self.faulted = False
        self.doing = ""  # what the loop is feeding now (a scenario, its future variants): an interruption says it
        # The goldens whose control run wrote a reading, each with why one is now due on the streams made
        # from it (Expectation.reading_why): a consumer that speaks the protocol is held to it.
        self.spoke: dict[str, str] = {}

    def held(self, outcome: Outcome, who: str = "consumer") -> FeedResult | None:
        """Count one stream held (and its lines); the feed's end when ``who`` could not start, else None."""
        self.result.streams += 1
        self.report.lines += outcome.lines
        if outcome.start_error is not None:
            return self.cannot_start(outcome.start_error, who)
        self.started = True
        return None

    def cannot_start(self, error: str, who: str) -> FeedResult:
        self.out.emit("run.start", None, None, f"expected a {who} that starts, found: {error}",
                      "check the command and PATH")
        return self.result

    @contextlib.contextmanager
    def guarded(self, who: str, feeder: str) -> Iterator[None]:
        """Ctrl-C, SIGTERM or SIGHUP: ``run.interrupted`` naming the signal, then
        :class:`contract.live.harness.Interrupted`; any other fault of the feeder is ``checker.internal``
        (never a pass, never a traceback) and ends the loop."""
        try:
            yield
        except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM/SIGHUP (contract.core.interrupts)
            signum = signal_of(exc)
            fed = getattr(exc, "lines_fed", 0)  # the lines of the run cut short (contract.consumers.holding)
            self.report.lines += fed if isinstance(fed, int) else 0
            interrupted(self.report, f"the {who}", signum)
            doing = f" while feeding {self.doing}" if self.doing else ""
            self.report.notes.append(f"feed: interrupted{doing} (seed {self.seed}: --seed {self.seed} feeds the "
                                     "same variants again)")
            raise Interrupted(self.report, signum=signum) from None
        except Exception as exc:
            internal(self.report, feeder, exc)
            self.faulted = True

    def end(self, *judged: str) -> FeedResult:
        """The result; a loop that ran to its end judged these rules, and ``judged`` too."""
        if get(self.report.wire).live is Live.STREAM:  # a stream consumer's loop (a client speaks no reading)
            # the silent misparse is judged on every run without a reading; a reading's rules on one with it
            judged = (*judged, "consumer.silent", *(READING_RULES if self.result.readings else ()))
            if not self.result.readings:
                for rule in READING_RULES:
                    self.report.unasked.setdefault(rule, NO_READING)
        if self.started and not self.faulted:
            for rule in ("consumer.crash", "consumer.hang", "run.interrupted", *judged):
                self.out.exercised(rule)
            # the feeder finished and hit no bound it did not report: checker.* by declaration, as
            # every check (contract.rules.requirements.CHECKER_RULES)
            self.report.exercised.update(CHECKER_RULES)
        return self.result


class ShrinkSpent(BaseException):
    """Ends hypothesis' search once the shrink budget is spent (contract.live.fuzz says why a BaseException)."""


class Search:
    """The condition hypothesis searches with: feed the variant, does the consumer fail on it?

    A variant has ``data`` (the bytes it is known by) and ``changes`` (a sequence: fewer is
    smaller); ``run(variant)`` returns (outcome, findings), no findings being a pass. Shared by
    the stream-json and the subagent-stdio client modes (``contract.consumers.feed_client``).
    """

    def __init__(self, run: Any, examples: int, shrink_seconds: float) -> None:
        self.run = run
        self.examples = examples
        self.shrink_seconds = shrink_seconds
        self.searched = 0
        self.shrink_runs = 0
        self.shrink_until: float | None = None
        self.shrink_cut = False
        self.failures: dict[bytes, tuple[Any, Outcome, Any]] = {}
        self.verdicts: dict[bytes, bool] = {}
        self.broke = False  # the search broke or varied nothing (``hunt``): a checker.internal finding, no pass

    def __call__(self, variant: Any) -> bool:
        key = variant.data
        if key in self.verdicts:
            return self.verdicts[key]
        if self.shrink_until is None:
            if self.searched >= self.examples:
                return False
            self.searched += 1
        else:
            if time.monotonic() >= self.shrink_until or self.shrink_runs >= MAX_SHRINK_RUNS:
                self.shrink_cut = True
                raise ShrinkSpent
            self.shrink_runs += 1
        outcome, findings = self.run(variant)
        failed = bool(findings)
        self.verdicts[key] = failed
        if failed:
            if self.shrink_until is None:
                self.shrink_until = time.monotonic() + self.shrink_seconds
            self.failures[key] = (variant, outcome, findings)
            if len(self.failures) > 50:  # bounded: drop the largest
                del self.failures[max(self.failures, key=len)]
        return failed

    def smallest(self, answer: Any) -> tuple[Any, Outcome, Any] | None:
        if answer is not None and answer.data in self.failures:
            return self.failures[answer.data]
        if not self.failures:
            return None
        return min(self.failures.values(), key=lambda f: (len(f[0].changes), len(f[0].data)))

    def hunt(self, strategy: Any, seed: int, report: Report, name: str) -> tuple[Any, Outcome, Any] | None:
        """Let hypothesis draw from ``strategy`` (seeded by ``seed``) until a variant fails, then shrink
        it within the budget; the smallest failing (variant, outcome, findings), or None.

        Fail closed: a search that broke with nothing failing, or that varied nothing, is a
        ``checker.internal`` finding on ``report`` (``broke`` is then True), never a pass."""
        from hypothesis import HealthCheck, Phase, find, settings
        from hypothesis.errors import NoSuchExample

        shape = settings(max_examples=self.examples, deadline=None, database=None, derandomize=False,
                         suppress_health_check=list(HealthCheck), phases=(Phase.generate, Phase.shrink))
        answer = None
        trouble: Exception | None = None
        try:
            answer = find(strategy, self, settings=shape, random=random.Random(seed))
        except (NoSuchExample, ShrinkSpent):
            pass
        except Exception as exc:  # hypothesis gave up: what was held still counts, and a search that broke is no pass
            trouble = exc
        found = self.smallest(answer)
        if found is None and (trouble is not None or self.searched == 0):
            # nothing was varied: no pass can be claimed for --future
            internal(report, "future-variant search", trouble or RuntimeError(f"no variant of {name} was generated"))
            self.broke = True
        return found


def fed_wire(wire: Wire | str | None = None) -> str:
    """The name of the stream wire fed: ``wire`` (a descriptor or a registered name), or the registry's
    first stream wire when None (looked up now, not when this module was imported)."""
    return first(Live.STREAM).name if wire is None else resolve(wire).name


def _paced(options: dict[str, Any], golden: Any, data: bytes, out: Collector) -> dict[str, Any]:
    """``options`` for one golden: ``pace="recorded"`` becomes its own recorded delays (--pace
    recorded), the meta read once; a golden with none for its lines is fed at once, and said so."""
    if options.get("pace") != "recorded":
        return options
    from contract.goldens.pacing import recorded_gaps

    lines = data.count(b"\n")
    path = getattr(golden, "path", None)
    gaps = recorded_gaps(path) if path is not None else None
    if gaps is None or len(gaps) != lines:  # no silent limit: say it was fed at once
        out.note(f"{textsafe.text(golden.name)}: --pace recorded, but its meta holds no recorded pace for its "
                 f"{textsafe.counted(lines, 'line')} (timing.gaps_ms: `record` keeps it): fed at once")
        return {**options, "pace": 0.0}
    return {**options, "pace": [*(gap / 1000.0 for gap in gaps[1:]), 0.0]}  # the pause after each line


def feed_stream(
    argv: Sequence[str],
    goldens: Iterable[Any],
    *,
    future: bool = False,
    examples: int = DEFAULT_EXAMPLES,
    seed: int | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    pace: float | str = DEFAULT_PACE,
    pty: bool = False,
    expect: Expectation = NO_EXPECTATION,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    shrink_seconds: float = DEFAULT_SHRINK_SECONDS,
    wire: Wire | str | None = None,
) -> FeedResult:
    """Feed the consumer every golden (and, with ``future``, its variants); the verdict as a Report.

    ``wire``: the stream wire the report is of (:func:`fed_wire`: by default the registry's first).
    Ctrl-C raises :class:`contract.live.harness.Interrupted` with what was found so far (``run.interrupted``).
    """
    argv = list(argv)
    goldens = list(goldens)
    if not goldens:  # feeding nothing is never a pass
        raise ValueError("no golden to feed")
    feed = Feed(argv, seed, fed_wire(wire))
    result, out = feed.result, feed.out
    options: dict[str, Any] = {"timeout": timeout, "pace": pace, "pty": pty, "max_output_bytes": max_output_bytes}
    with feed.guarded("consumer", "consumer feeder"):
        for golden in goldens:
            feed.doing = f"the golden {golden.name}"
            data = golden.data()
            outcome = hold(argv, data, **_paced(options, golden, data, out))
            stopped = feed.held(outcome)
            if stopped is not None:
                return stopped
            feed.report.notes.extend(f"{golden.name}: {note}" for note in outcome.notes)
            # with future, the golden is the control of its variants: failed, they are not fed
            label = (control_label(golden.name, "its future variants") if future
                     else f"the golden {textsafe.text(golden.name)}")
            findings = judge(outcome, data, expect, label, golden=True, wire=golden.wire)
            _record(result, out, Failure(golden.name, golden.name, "the golden as recorded", data, outcome,
                                         findings))
            if future and not findings:
                feed.doing = f"the future variants of {golden.name}"
                held = expect.spoken(textsafe.text(golden.name)) if outcome.reading is not None else expect
                _search_future(result, out, argv, golden, data, options, held, examples, shrink_seconds)
    # consumer.early-exit is judged through a pipe and a terminal alike (each has its witness)
    if not expect.given:
        feed.report.unasked["consumer.output"] = "no --expect-stdout or --expect-json was given"
    feed.report.unasked["consumer.dishonest"] = BROKEN_ONLY
    return feed.end(*(("consumer.output",) if expect.given else ()), "consumer.early-exit")


def _record(result: FeedResult, out: Collector, failure: Failure) -> None:
    if failure.outcome.reading is not None:
        result.readings += 1
    for finding in failure.findings:
        out.emit(finding.rule, None, None, finding.message, finding.hint)
    if failure.findings:
        result.failures.append(failure)
        note_failure(out, failure, saved=len(result.failures) == 1)


record = _record  # for the other feed loops (contract.consumers.broken_feed, contract.consumers.transport)


def control_label(name: str, what: str) -> str:
    """How a golden fed as the control before ``what`` is named in a finding (``name`` escaped here)."""
    return (f"the golden {textsafe.text(name)} as recorded (the control, fed before {what}: a consumer that fails "
            f"it is not judged on them, its verdicts there would mean nothing)")


def controls(feed: Feed, argv: Sequence[str], goldens: Sequence[Any], options: dict[str, Any],
             expect: Expectation, what: str) -> list[Any] | FeedResult:
    """Feed each golden as recorded before the streams of a mode (``what``: "its broken streams", ...).

    A verdict on how a consumer copes with broken, future or hostile streams means something only
    once the same consumer passed the goldens (a consumer that cannot start its work, ``/bin/false``,
    "did not report success" on every broken stream). One run per golden: its findings are the
    golden's, as a plain feed gives them, and say that it was the control. Returns the goldens the
    consumer passed (the only ones the mode's streams are then made from), or the feed's end when the
    consumer could not start.
    """
    passed: list[Any] = []
    for golden in goldens:
        feed.doing = f"the golden {golden.name} as recorded (the control)"
        data = golden.data()
        outcome = hold(list(argv), data, **options)
        stopped = feed.held(outcome)
        if stopped is not None:
            return stopped
        findings = judge(outcome, data, expect, control_label(golden.name, what), golden=True, wire=golden.wire)
        _record(feed.result, feed.out, Failure(golden.name, f"{golden.name} (control)",
                                               "the golden as recorded, fed as the control", data, outcome,
                                               findings))
        if outcome.reading is not None and not findings:
            feed.spoke[golden.name] = spoken_on(textsafe.text(golden.name))
        if findings:
            feed.out.note(f"{textsafe.text(golden.name)}: the consumer failed the golden as recorded (the control): "
                          f"{what} made from it were not fed, none counts as passed")
        else:
            passed.append(golden)
    return passed


def note_failure(out: Collector, failure: Failure, saved: bool) -> None:
    """Say in the report itself (every format) which stream failed and where to see it.

    ``saved``: it is the first failing stream, the one ``--transcript FILE`` writes (the CLI saves
    that one only); a later one is shown, not saved.
    """
    lines = failure.data.count(b"\n")
    where = ("saved whole by --transcript FILE" if saved
             else "not saved by --transcript FILE, which saves the first failing stream")
    out.note(f"failing stream {textsafe.text(failure.variant)} ({textsafe.counted(lines, 'line')}): "
             f"{textsafe.text(clip(failure.changes, 400))}; shown after a text report (on stderr for "
             f"the other formats; up to {SHOWN_LINES} lines of up to {SHOWN_LINE_CHARS} characters), {where}")


def _search_future(result: FeedResult, out: Collector, argv: list[str], golden: Any, data: bytes,
                   options: dict[str, Any], expect: Expectation, examples: int, shrink_seconds: float) -> None:
    future = golden.descriptor.load_future()
    if future is None:
        out.note(f"{golden.name}: the {golden.wire} wire has no future variants (Wire.future)")
        return
    golden_lines = [orjson.loads(raw) for raw in data.split(b"\n") if raw.strip()]
    try:
        strategy = future.variants(golden.name, golden_lines)
    except ValueError as exc:
        out.note(f"{golden.name}: {exc}")
        return

    def run(variant: Any) -> tuple[Outcome, list[Finding]]:
        outcome = hold(argv, variant.data, **options)
        result.streams += 1
        result.report.lines += outcome.lines
        label = f"{textsafe.text(variant.name)} ({textsafe.text(clip(variant.describe(), 400))})"
        return outcome, judge(outcome, variant.data, expect, label, wire=golden.wire)

    search = Search(run, examples, shrink_seconds)
    found = search.hunt(strategy, result.seed, result.report, golden.name)
    if found is None:
        if search.broke:
            return
        out.note(f"{golden.name}: the golden and {search.searched} future variants accepted (seed {result.seed})"
                 + (f"; {examples - search.searched} generated variants repeated earlier ones and were not fed again"
                    if search.searched < examples else ""))
        return
    variant, outcome, findings = found
    failure = Failure(golden.name, variant.name, variant.describe(), variant.data, outcome, findings,
                      search.shrink_runs, search.shrink_cut)
    _record(result, out, failure)
    out.note(f"{golden.name}: a failing future variant found within {search.searched} generated ones (seed "
             f"{result.seed}), shrunk to {textsafe.counted(len(variant.changes), 'change')} in "
             f"{textsafe.counted(search.shrink_runs, 'more run', 'more runs')}"
             + (" (shrinking stopped at its budget: the smallest failing variant found so far)"
                if search.shrink_cut else ""))


def describe(result: FeedResult, replay: str, max_line_chars: int = SHOWN_LINE_CHARS) -> str:
    """Each failing stream as text: the variant, its changes, the stream fed, how to find it again."""
    if not result.failures:
        return ""
    out: list[str] = []
    for number, failure in enumerate(result.failures):
        out += ["", f"failing stream: {textsafe.text(failure.variant)}",
                f"changes: {textsafe.text(clip(failure.changes, 2000))}",
                _heading(result.report.wire, saved=number == 0, max_line_chars=max_line_chars,
                         broken=result.broken, unknown_member="+unknown-member" in failure.variant)]
        lines = failure.data.split(b"\n")
        if lines and not lines[-1]:
            lines.pop()
        for index, raw in enumerate(lines[:SHOWN_LINES], 1):
            out.append(f"{index:>4} {textsafe.json_line(clip(raw.decode('utf-8', 'replace'), max_line_chars))}")
        if len(lines) > SHOWN_LINES:
            out.append(f"     … {textsafe.counted(len(lines) - SHOWN_LINES, 'more line', 'more lines')} not shown")
    out += ["", f"seed: {result.seed}; find it again with: {replay}"]
    return "\n".join(out) + "\n"


def _heading(wire: str, saved: bool, max_line_chars: int, broken: bool = False, unknown_member: bool = False) -> str:
    """What the lines below are, and what ``--transcript FILE`` holds and how to use it (first failure only);
    ``unknown_member``: the stream holds a member no schema names yet, which check names (and only that)."""
    clipped = f"each line shown up to {max_line_chars} characters"
    if broken:
        return (f"broken stream fed ({clipped}; " + ("--transcript FILE saves it whole: `milk-contract check FILE` "
                "finds it not conformant, as meant, and `CONSUMER < FILE` feeds it again):" if saved else
                "--transcript FILE saves the first failing stream, not this one):"))
    if get(wire).live is Live.STREAM:
        if not saved:
            return f"stream fed ({clipped}; --transcript FILE saves the first failing stream, not this one):"
        verdict = (f"finds it conformant but for the member no schema names yet ({get(wire).schema_rule}: the next "
                   "additive revision's)" if unknown_member else "finds it conformant")
        return (f"stream fed ({clipped}; --transcript FILE saves it whole, byte for byte as fed: "
                f"`milk-contract check --strict FILE` {verdict}, and `CONSUMER < FILE` feeds it again):")
    if not saved:
        return (f"conversation, both directions in order ({clipped}; --transcript FILE saves the first failing "
                "conversation, not this one):")
    return (f"conversation, both directions in order ({clipped}; --transcript FILE saves it whole: "
            f"`milk-contract check --wire {wire} FILE` gives its {wire} findings again; how the client ended "
            "is not in it):")


__all__ = ["DEFAULT_EXAMPLES", "DEFAULT_MAX_OUTPUT_BYTES", "DEFAULT_PACE", "DEFAULT_TIMEOUT", "PTY_LINE_BYTES",
           "Expectation", "ExpectationError", "FeedResult", "Finding", "Outcome", "crash_hint", "describe",
           "fed_wire", "feed_stream", "hang_detail", "hold", "judge", "load_members", "members_problem",
           "said_on_stderr"]
