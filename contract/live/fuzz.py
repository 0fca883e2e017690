"""Stateful fuzzing of a live subagent-stdio host: generated conversations, shrunk failures.

``fuzz_host(argv, examples=…, seed=…)`` holds many generated conversations with a live host,
one host process per conversation (``contract.live.driver.record``: every wait bounded, the host's
process group and every descendant killed at the end). A conversation is a sequence of steps,
each a burst of ``subagent_status`` commands (a single command, or up to five pipelined) with
an optional pause before it, or a pause alone during which pushed events are read. A burst is
written in one ``write`` or cut into several (``contract.live.driver.Split``): one command cut inside
a string, inside a UTF-8 character or just before its LF, one write per command, or byte by
byte, with a pause at the first cut (mid-line). How it is written is drawn like the
rest, so a shrunk failure keeps the cut that broke it, the conversation printed says how each
step was written, and the same seed writes it the same way. Only what a conformant client may
send is generated: no cut adds a byte (no CR before an LF: ``line.newline`` forbids CR on both
wires). Command ids take every legal shape: absent, empty, exactly 128 characters, holding
quotes, backslashes, U+2028, ESC or astral characters, reused, and arbitrary text without CR or
LF.

Every transcript is judged by the same reader and rule machines as ``milk-contract check
--wire subagent-stdio`` (plus the ``run.*`` rules only a live run has). A conversation ends at
the first line that makes it non-conformant (``contract.live.driver.record(stop_early=True)``): the
question each conversation answers is only "does it fail?", and after such a line it cannot
pass, so waiting for more (a response the driver could not read as one, the host's exit) would
only cost time. The first non-conformant conversation is shrunk by hypothesis to the shortest
conversation that still fails; the result carries its report, its transcript (replayable:
``check`` gives the same verdict, and ``contract.live.driver.plan_from`` turns it back into a plan)
and the seed that finds it again.

Bounds, all reported when reached: ``examples`` conversations at most while searching; each
conversation within ``timeout`` (plus the driver's exit grace); each response within
``response_timeout``; shrinking stops after ``shrink_seconds`` or ``MAX_SHRINK_RUNS``
conversations, and the report then says the conversation shown is the smallest found so far.
On a terminal stderr, which conversation is held (n of N, then shrinking) is shown
(``contract.core.progress``).

The code follows a fuzzing run's steps, one short function each (issue 29): ``_Search`` is the
condition hypothesis searches with, ``_find`` the search, then what it found: ``_no_failure`` (a
pass, or a search that broke), or a failure ``_confirmed`` with the full timeouts and its notes
(``_say_the_failure``).
"""

from __future__ import annotations

import json
import os
import random
import shlex
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from contract.core import textsafe
from contract.core.jsonvalue import clip
from contract.core.progress import Progress
from contract.core.reader import DEFAULT_MAX_LINE_BYTES
from contract.live import driver
from contract.live.driver import CUTS, MID_LINE_PAUSE, Conversation, Split, Step, command, cuts
from contract.live.harness import Interrupted, default_command, internal
from contract.rules.report import Report, ignore_problem
from contract.rules.requirements import Scope
from contract.wires import conversation

WIRE = conversation().name  # the registry's conversation wire: commands from its Wire.dialogue
_DIALOGUE = driver.dialogue(conversation())
DEFAULT_EXAMPLES = 30
DEFAULT_TIMEOUT = 10.0  # one conversation; a conformant one takes well under a second
DEFAULT_RESPONSE_TIMEOUT = 3.0  # a host answers in milliseconds; this covers start-up on a loaded machine
DEFAULT_SHRINK_SECONDS = 60.0
# While shrinking, a response gets less time: a host that never answers (a dropped command)
# costs this per candidate instead of the full response timeout: twice the longest whole
# conformant conversation seen (start-up included), within these bounds. The shrunk
# conversation is then held once more with the full timeouts, so a shorter wait never decides
# the verdict shown.
SHRINK_RESPONSE_TIMEOUT = (0.5, 1.5)
MAX_SHRINK_RUNS = 200  # conversations spent shrinking, at most
MAX_ID_LENGTH = 128  # $defs.command.id.maxLength (code points)
MAX_BURST = 5
MAX_STEPS = 6
PAUSES = (0.0, 0.0, 0.0, 0.01, 0.05)  # mostly none: pauses cost wall time
MAX_KEPT_FAILURES = 64  # failing conversations kept while shrinking (the smallest win)
# The host's environment while fuzzing (docs/milk-ci.md, "Fuzzing mode"): the caller's, except that
# no golden is replayed, so MILK_CONTRACT_GOLDEN is removed (also when the caller's environment has
# one: a stale golden would script answers to commands it never held), and MILK_CONTRACT_SCENARIO
# says so with a name no golden has. The names are contract.goldens.scenarios' ENV_GOLDEN and ENV_SCENARIO.
FUZZ_SCENARIO = "fuzz"


def host_env() -> dict[str, str]:
    """The environment every fuzzed conversation's host starts with."""
    env = dict(os.environ)
    env.pop("MILK_CONTRACT_GOLDEN", None)
    env["MILK_CONTRACT_SCENARIO"] = FUZZ_SCENARIO
    return env


# Characters an id may hold that break naive hosts: JSON's two escapes, line separators that
# are not JSON line breaks, an astral character (a surrogate pair in UTF-16), non-ASCII.
_TRICKY = '"\\\u2028\u2029\U0001f600\U00010348é /\t'
EDGE_IDS: tuple[str, ...] = (
    "",
    "x" * MAX_ID_LENGTH,
    "\U0001f600" * MAX_ID_LENGTH,  # 128 characters, 512 bytes of UTF-8
    '"',
    '\\',
    'a\\',  # a trailing backslash escapes the closing quote when not escaped itself
    '\\"',
    "\u2028",
    "line\u2028sep\u2029",
    "\U00010348",
    f'{{"type":"{_DIALOGUE.response}"}}',  # an id that reads as a host's answer
    "\\u0041",
    "\t",
    "\x1b[31mred\x1b[0m",  # an ANSI sequence: escaped as \u001b on the wire
)


def _id_text() -> st.SearchStrategy[str]:
    """Legal ids, weighted towards the tricky ones.

    Legal: ``^[^\\r\\n]*$`` and at most 128 characters (``$defs.command.id``). ESC is legal
    too (``line.ansi`` is a stream-json rule), and a host that colours or strips ids shows it.
    """
    anything = st.characters(blacklist_characters="\r\n", blacklist_categories=["Cs"])
    mixed = st.one_of(st.sampled_from(_TRICKY), anything)
    return st.one_of(
        st.sampled_from(EDGE_IDS),
        st.text(mixed, max_size=12),
        st.text(mixed, min_size=MAX_ID_LENGTH - 8, max_size=MAX_ID_LENGTH),  # long: truncation shows
        st.text(anything, max_size=MAX_ID_LENGTH),
    )


@dataclass(frozen=True)
class _Reuse:
    """An id to be taken from earlier in the conversation (resolved once the steps are drawn)."""

    back: int


_ABSENT = _Reuse(-1)  # no id member at all


def _ident() -> st.SearchStrategy[str | _Reuse]:
    return st.one_of(st.just(_ABSENT), _id_text(), st.integers(0, 7).map(_Reuse))


def _split() -> st.SearchStrategy[Split | None]:
    """How a burst is written: in one write (first: what shrinking goes to), or cut.

    The cut is part of the drawn conversation, so a shrunk failure keeps the cut that broke
    it (hypothesis drops it only when the conversation still fails without), and the same
    seed writes it the same way again. Every cut is followed by a pause (mid-line for all but
    ``per-line``): two writes back to back usually land in one read, so a host that loses a
    command split across reads would lose it only by chance, and a shrunk conversation that
    failed by chance would pass when held again. The pause makes each cut one the host sees.
    """
    return st.one_of(st.none(), st.builds(
        Split, cut=st.sampled_from(CUTS), command=st.integers(0, MAX_BURST - 1), at=st.integers(0, 1023),
        pause=st.just(MID_LINE_PAUSE)))


Drawn = tuple[float, tuple[str | _Reuse, ...], Split | None]


def _burst() -> st.SearchStrategy[Drawn]:
    return st.tuples(st.sampled_from(PAUSES), st.lists(_ident(), min_size=1, max_size=MAX_BURST).map(tuple),
                     _split())


def _read() -> st.SearchStrategy[Drawn]:
    return st.sampled_from(PAUSES[-2:]).map(lambda pause: (pause, (), None))


def _resolve(drawn: list[Drawn]) -> tuple[Step, ...]:
    used: list[str] = []
    steps = []
    for pause, idents, split in drawn:
        burst = []
        for ident in idents:
            if isinstance(ident, _Reuse):
                reused = used[-1 - ident.back % len(used)] if ident.back >= 0 and used else None
                burst.append(command(reused))
            else:
                used.append(ident)
                burst.append(command(ident))
        steps.append(Step(tuple(burst), pause=pause, split=split))
    return tuple(steps)


def conversations() -> st.SearchStrategy[tuple[Step, ...]]:
    """Conversation plans: pipelined bursts (in one write or cut), pauses, and pause-only reads.

    An id is absent, drawn fresh, or reused from earlier in the conversation (duplicates are
    legal: the host must still answer in order). A burst is written in one write or cut into
    several (:class:`contract.live.driver.Split`). A list of steps, so hypothesis shrinks by
    dropping whole steps and commands, then towards no pause, one write and the first edge id.
    """
    return st.lists(st.one_of(_burst(), _read()), min_size=1, max_size=MAX_STEPS).map(_resolve)


def _size(plan: Sequence[Step]) -> tuple[int, int, int]:
    commands = sum(len(step.commands) for step in plan)
    return (commands, len(plan), len(_key(plan)))


def _key(plan: Sequence[Step]) -> str:
    # the cut in words: the same bytes written the same way (positions, pause) give the same key
    return json.dumps([[step.pause, list(step.commands), cuts(step)[1]] for step in plan], ensure_ascii=False)


@dataclass
class FuzzResult:
    """What a fuzzing run found: the report to print, and the failing conversation if any."""

    report: Report
    seed: int
    examples: int  # conversations held while searching
    shrink_runs: int = 0  # conversations held while shrinking
    elapsed: float = 0.0
    plan: tuple[Step, ...] | None = None  # the shrunk failing conversation
    transcript: bytes = b""

    @property
    def failed(self) -> bool:
        return self.plan is not None


class _ShrinkSpent(BaseException):
    """Ends hypothesis' search once the shrink budget is spent.

    Returning "no failure" instead would not end it: hypothesis goes on proposing candidates,
    hundreds of them at about 15 ms each, which cost more than shrinking fully. A BaseException
    that is not an Exception leaves ``find`` at once (hypothesis neither shrinks nor retries it).
    """


class _Search:
    """The condition hypothesis searches with: hold the conversation, is it non-conformant?"""

    def __init__(self, argv: Sequence[str], options: dict[str, Any], examples: int, shrink_seconds: float,
                 progress: Progress | None = None) -> None:
        self.argv = list(argv)
        self.progress = progress if progress is not None else Progress("fuzz")
        self.options = options
        self.examples = examples
        self.shrink_seconds = shrink_seconds
        self.searched = 0
        self.shrink_runs = 0
        self.shrink_until: float | None = None  # set at the first failure
        self.shrink_cut = False
        self.slowest_pass = 0.0  # seconds: the longest conformant conversation
        self.lines = 0  # transcript lines judged, over every conversation held
        self.exercised: set[str] = set()  # rules judged, over every conversation held
        self.failures: dict[str, tuple[tuple[Step, ...], Conversation]] = {}
        self.first: tuple[tuple[Step, ...], Conversation] | None = None  # held with the full timeouts
        self.fatal: Conversation | None = None  # a host that cannot start: nothing to shrink
        self.verdicts: dict[str, bool] = {}

    def __call__(self, plan: tuple[Step, ...]) -> bool:
        if self.fatal is not None:
            return True  # end at once: every candidate "fails", hypothesis settles on the smallest
        key = _key(plan)
        if key in self.verdicts:  # hypothesis asks again (its final replay): the same answer, no run
            return self.verdicts[key]
        verdict = self._hold(plan)
        if self.shrink_cut:
            raise _ShrinkSpent  # what was found so far stands (the smallest failure kept)
        if verdict is not None:
            self.verdicts[key] = verdict  # at most examples + MAX_SHRINK_RUNS entries
        return bool(verdict)

    def _hold(self, plan: tuple[Step, ...]) -> bool | None:
        """Hold the conversation: True when it fails; None when a budget forbids holding it."""
        if self.shrink_until is None:
            if self.searched >= self.examples:
                return None
            self.searched += 1
        else:
            if time.monotonic() >= self.shrink_until or self.shrink_runs >= MAX_SHRINK_RUNS:
                self.shrink_cut = True
                return None  # no new run: what was found so far stands
            self.shrink_runs += 1
        self.progress.update(self.doing() if self.shrink_until is None else
                             f"{self.doing()}, {max(self.shrink_until - time.monotonic(), 0.0):.0f}s left")
        options = dict(self.options)
        if self.shrink_until is not None:
            low, high = SHRINK_RESPONSE_TIMEOUT
            wait = min(max(2 * self.slowest_pass, low), high) if self.slowest_pass else high
            options["response_timeout"] = min(options["response_timeout"], wait)
        began = time.monotonic()
        conversation = driver.record(self.argv, plan=plan, **options)
        self.lines += conversation.report.lines
        self.exercised |= conversation.report.exercised  # for the requirement verdicts of a pass
        if "run.start" in conversation.report.counts:
            self.fatal = conversation
            return True
        if conversation.report.conformant:
            self.slowest_pass = max(self.slowest_pass, time.monotonic() - began)
            return False
        if self.shrink_until is None:
            self.shrink_until = time.monotonic() + self.shrink_seconds
            self.first = (plan, conversation)
        self._keep(plan, conversation)
        return True

    def doing(self) -> str:
        """The conversation being held now, as the progress line and an interruption's note say it."""
        if self.shrink_until is None:
            return f"conversation {self.searched} of {self.examples}"
        return (f"shrinking the failure of conversation {self.searched}: candidate {self.shrink_runs} of at most "
                f"{MAX_SHRINK_RUNS}")

    def _keep(self, plan: tuple[Step, ...], conversation: Conversation) -> None:
        self.failures[_key(plan)] = (plan, conversation)
        if len(self.failures) > MAX_KEPT_FAILURES:  # bounded: drop the largest
            largest = max(self.failures, key=lambda k: _size(self.failures[k][0]))
            del self.failures[largest]

    def smallest(self, plan: tuple[Step, ...] | None) -> tuple[tuple[Step, ...], Conversation] | None:
        """The conversation for hypothesis' answer, else the smallest failing one kept."""
        found = self.failures.get(_key(plan)) if plan is not None else None
        if found is not None:
            return found
        if not self.failures:
            return None
        return min(self.failures.values(), key=lambda pc: _size(pc[0]))


def fuzz_host(
    argv: Sequence[str] | None = None,
    *,
    examples: int = DEFAULT_EXAMPLES,
    seed: int | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    response_timeout: float = DEFAULT_RESPONSE_TIMEOUT,
    shrink_seconds: float = DEFAULT_SHRINK_SECONDS,
    strict: bool = False,
    ignore: Iterable[str] = (),
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_output_bytes: int = 64 * 1024**2,
) -> FuzzResult:
    """Fuzz the host ``argv`` (the bundled reference host when empty or None).

    Ctrl-C raises :class:`contract.live.harness.Interrupted` with the report of the conversation
    that was running (``run.interrupted``), as a live run does.
    """
    if examples <= 0:
        raise ValueError(f"examples must be positive, found {examples}")
    problem = ignore_problem(ignore := tuple(ignore))  # before any host starts (docs/unjudged.md)
    if problem is not None:
        raise ValueError(f"ignore: {problem}")
    command_argv = list(argv) if argv else default_command(WIRE)
    seed = seed if seed is not None else random.SystemRandom().randrange(2**32)
    options: dict[str, Any] = {
        "timeout": timeout, "response_timeout": min(response_timeout, timeout), "strict": strict,
        "ignore": tuple(ignore), "max_line_bytes": max_line_bytes, "max_output_bytes": max_output_bytes,
        "stop_early": True, "env": host_env(),
    }
    with Progress("fuzz") as progress:  # on a terminal stderr only (contract.core.progress)
        return _fuzz(command_argv, options, examples, seed, shrink_seconds, progress)


def _fuzz(command_argv: list[str], options: dict[str, Any], examples: int, seed: int, shrink_seconds: float,
          progress: Progress) -> FuzzResult:
    """The search, then what it found: a host that cannot start, no failure (a pass, or a search
    that broke: fail closed), or the shrunk failure, confirmed with the full timeouts."""
    search = _Search(command_argv, options, examples, shrink_seconds, progress)
    began = time.monotonic()
    answer, trouble = _find(search, seed)
    elapsed = time.monotonic() - began
    if search.fatal is not None:  # the host cannot start: its report, nothing to shrink
        return FuzzResult(search.fatal.report, seed, search.searched, 0, elapsed)
    found = search.smallest(answer)
    if found is None:
        return _no_failure(search, seed, elapsed, trouble)
    plan, conversation, confirmed = _confirmed(search, *found)
    report = conversation.report
    report.source = shlex.join(command_argv)
    _say_the_failure(report, search, seed, elapsed, plan, confirmed)
    return FuzzResult(report, seed, search.searched, search.shrink_runs, elapsed, plan,
                      conversation.transcript)


def _find(search: _Search, seed: int) -> tuple[tuple[Step, ...] | None, Exception | None]:
    """hypothesis' search with ``search`` as its condition: its answer (None: no failure, or the
    shrink budget ended it) and what broke the search, if anything."""
    shape = settings(
        max_examples=search.examples, deadline=None, database=None, derandomize=False,
        suppress_health_check=list(HealthCheck), phases=(Phase.generate, Phase.shrink),
    )
    try:
        return find(conversations(), search, settings=shape, random=random.Random(seed)), None
    except Interrupted as exc:  # Ctrl-C, SIGTERM, SIGHUP: say which conversation it stopped, and the seed
        exc.report.notes.append(f"fuzz: interrupted while holding {search.doing()} (seed {seed}: --seed {seed} "
                                "generates the same conversations again)")
        raise
    except (NoSuchExample, _ShrinkSpent):
        return None, None
    except Exception as exc:  # hypothesis gave up (flaky, unsatisfiable…): what was held still counts
        return None, exc


def _no_failure(search: _Search, seed: int, elapsed: float, trouble: Exception | None) -> FuzzResult:
    """No failing conversation kept: every one conformant, or a search that broke (``checker.internal``:
    fail closed, no search that broke is a pass)."""
    report = Report(wire=WIRE, strict=search.options["strict"], source=shlex.join(search.argv), lines=search.lines,
                    scope=Scope.LIVE)
    if trouble is not None:
        internal(report, "fuzzer's search", trouble)
        return FuzzResult(report, seed, search.searched, search.shrink_runs, elapsed)
    report.exercised |= search.exercised
    report.ignored = tuple(sorted(search.options["ignore"]))
    report.notes.append(
        f"fuzz: {search.searched} generated conversations (seed {seed}), every one conformant, "
        f"in {elapsed:.1f}s")
    if search.searched < search.examples:
        report.notes.append(f"fuzz: {search.examples - search.searched} of the {search.examples} conversations "
                            "hypothesis generated repeated an earlier one, which was not held again")
    return FuzzResult(report, seed, search.searched, 0, elapsed)


def _confirmed(search: _Search, plan: tuple[Step, ...],
               conversation: Conversation) -> tuple[tuple[Step, ...], Conversation, bool]:
    """The shrunk failure held again with the full timeouts, so the verdict shown is never one of the
    shorter waits of shrinking; if it passes then, the first failure instead (and False)."""
    if search.first is None or plan is search.first[0]:
        return plan, conversation, True
    search.progress.update("holding the shrunk conversation again with the full timeouts")
    again = driver.record(search.argv, plan=plan, **search.options)
    if again.report.conformant:
        first_plan, first_conversation = search.first
        return first_plan, first_conversation, False
    return plan, again, True


def _say_the_failure(report: Report, search: _Search, seed: int, elapsed: float, plan: tuple[Step, ...],
                     confirmed: bool) -> None:
    """The notes of a failure: how it was found and shrunk, and what held it back from the smallest."""
    commands = sum(len(step.commands) for step in plan)
    report.notes.append(
        f"fuzz: seed {seed}; a failing conversation found within {search.searched} generated ones, "
        f"shrunk to {textsafe.counted(len(plan), 'step')} and {textsafe.counted(commands, 'command')} in "
        f"{textsafe.counted(search.shrink_runs, 'more conversation', 'more conversations')} "
        f"({elapsed:.1f}s in all)")
    if not confirmed:
        report.notes.append(
            "fuzz: the shrunk conversation passed when held again with the full response timeout "
            "(a slow host, or a fault that depends on timing): the first failing conversation is shown")
    if search.shrink_cut:
        report.notes.append(
            f"fuzz: shrinking stopped at its budget ({search.shrink_seconds:g}s or {MAX_SHRINK_RUNS} "
            "conversations): the conversation shown is the smallest failing one found, maybe not the smallest")


def describe_plan(plan: Sequence[Step]) -> list[str]:
    """The client's side of a conversation, step by step, each line escaped for a terminal."""
    lines = []
    for number, step in enumerate(plan, 1):
        pause = f"after a {step.pause:g}s pause, " if step.pause else ""
        if not step.commands:
            lines.append(f"step {number}: {pause}read what the host pushes")
            continue
        how = cuts(step)[1] if step.split is not None else "in one write" if len(step.commands) > 1 else "alone"
        commands = textsafe.counted(len(step.commands), "command")
        lines.append(f"step {number}: {pause}write {commands} {how}, await each response")
        for line in step.commands:
            lines.append("  > " + textsafe.json_safe(json.dumps(line, ensure_ascii=False, separators=(",", ":"))))
    return lines


def describe(result: FuzzResult, replay: str, max_line_chars: int = 300) -> str:
    """The failing conversation as text: the plan, the transcript, how to replay it."""
    if result.plan is None:
        return ""
    out = ["", "shrunk failing conversation (the client's side):", *describe_plan(result.plan), "",
           "transcript (both directions, in order; replay it with `milk-contract check --wire "
           f"{WIRE} FILE`):"]
    lines = result.transcript.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()  # the part after the final LF
    for number, raw in enumerate(lines[:200], 1):
        shown = clip(raw.decode("utf-8", "replace"), max_line_chars)
        out.append(f"{number:>4} {textsafe.json_line(shown)}")  # a line shown whole can be pasted back
    if len(lines) > 200:
        out.append(f"     … {textsafe.counted(len(lines) - 200, 'more line', 'more lines')} not shown")
    out.append("")
    out.append(f"seed: {result.seed}; find it again with: {replay}")
    return "\n".join(out) + "\n"


__all__ = [
    "DEFAULT_EXAMPLES", "EDGE_IDS", "FuzzResult", "Interrupted", "conversations", "describe",
    "describe_plan", "fuzz_host",
]
