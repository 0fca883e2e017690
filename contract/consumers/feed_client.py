"""Judging a subagent-stdio client: milk-contract plays the host, answering from the goldens.

``milk-contract feed --wire subagent-stdio -- CLIENT…`` starts the client with its stdin and stdout
on pipes. The client writes ``subagent_status`` commands; the suite answers each with the golden's
next response (its ``id`` the command's, or none when the command has none) followed by the events
the golden pushes after it; once the golden's responses are spent it answers with the last one
again. The host ends (the client's stdin is closed) ``QUIET_SECONDS`` after the last command or
host line, or after the golden's last answer, whichever is first (:func:`host_end`: the end never
depends on how many polls a client makes against a golden's length). The client must exit 0
before ``timeout``.

The conversation, both directions in order, is judged by the same reader and rules as
``check --wire subagent-stdio``: a client that sends a line that is not JSON, a command the schema
refuses (no ``version``, an unknown member, an id over 128 characters) fails with that rule
(``line.json``, ``sa.schema``, ...), and the findings name the scenario. How the client ended is
``consumer.crash`` (a status other than 0), ``consumer.hang`` (still running at the timeout:
killed with its process group and descendants, ``contract.live.harness.Process``) or
``consumer.early-exit`` (it exited 0 having sent no command: nothing of the wire was exercised).

With ``future``, the host's side of each golden is also transformed the ways the subagent-stdio
seed allows (the wire's ``Wire.future``): optional members it models added where the
golden has none, and events the client did not ask about. The seed states no open set (the node
status is an ``enum``, every object ``additionalProperties: false``), so no unknown value is sent:
a host that sent one would not be conformant (docs/consumers.md).

Every wait is bounded (``timeout`` per conversation) and every buffer: a client line is kept up to
the checker's line limit, the conversation up to ``max_output_bytes`` (a finding past it).

The wire is a parameter (``wire=``, a descriptor or a name) of every function that reads a line
type, looked up when called: by default the registry's conversation wire (``contract.wires.conversation``),
whose dialogue (``Wire.dialogue``) says which lines are commands, responses and events.
"""

from __future__ import annotations

import contextvars
import copy
import queue
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from contract.consumers.feed import (
    DEFAULT_EXAMPLES,
    DEFAULT_MAX_OUTPUT_BYTES,
    DEFAULT_PACE,
    DEFAULT_SHRINK_SECONDS,
    DEFAULT_TIMEOUT,
    Failure,
    Feed,
    FeedResult,
    Finding,
    Outcome,
    Search,
    control_label,
    note_failure,
)
from contract.core import textsafe
from contract.core.jsonvalue import clip
from contract.core.reader import DEFAULT_MAX_LINE_BYTES
from contract.core.rule import Level
from contract.live.harness import (
    GRACE_SECONDS,
    LimitedStream,
    Process,
    StartError,
    describe_status,
)
from contract.live.plan import dialogue
from contract.rules.catalog import CATALOG
from contract.rules.report import Collector
from contract.wires import Dialogue, Wire, conversation, resolve

# The catalog rules this module emits beside the wire's (the checker's, on the conversation).
RULES = frozenset({"consumer.crash", "consumer.hang", "consumer.early-exit", "run.start", "run.interrupted",
                   "run.output-limit", "checker.internal"})
MAX_COMMANDS = 10_000  # client lines answered in one conversation: past it the client is flooding
QUIET_SECONDS = 0.5  # this long without a command or a host line (or after the golden's last answer): the host ends

Line = dict[str, Any]
Found = tuple[str, int | None, str | None, str, str | None]  # (rule, line, pointer, message, hint)


def host_wire(wire: Wire | str | None = None) -> Wire:
    """The conversation wire the host plays: ``wire`` (a descriptor or a registered name), or the
    registry's conversation wire when None (looked up now: a wire registered later is seen)."""
    return conversation() if wire is None else resolve(wire)


@dataclass(frozen=True)
class HostScript:
    """The host's side of a conversation: per answer, the response and the events pushed after it."""

    name: str
    answers: tuple[tuple[Line, tuple[Line, ...]], ...]
    changes: str = "the golden as recorded"

    @property
    def key(self) -> bytes:
        return orjson.dumps([[r, list(e)] for r, e in self.answers])


def script_from(name: str, data: bytes, wire: Wire | str | None = None) -> HostScript:
    """The host lines of a golden conversation, grouped by the response each event follows."""
    types = dialogue(host_wire(wire))
    answers: list[tuple[Line, list[Line]]] = []
    early: list[Line] = []  # events before the first response go after it
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        line = orjson.loads(raw)
        if not isinstance(line, dict):
            continue
        if line.get("type") == types.response:
            answers.append((line, early))
            early = []
        elif line.get("type") == types.event:
            (answers[-1][1] if answers else early).append(line)
    if not answers:
        raise ValueError(f"{name}: the golden holds no response to play")
    return HostScript(name, tuple((r, tuple(e)) for r, e in answers))


def host_lines(script: HostScript) -> list[Line]:
    """The script as the host's lines in order (what the future-variant generator transforms)."""
    return [line for response, events in script.answers for line in (response, *events)]


def from_host_lines(name: str, lines: list[Line], changes: str, wire: Wire | str | None = None) -> HostScript:
    """The host's lines in order (:func:`host_lines`, perhaps transformed) as a script again."""
    response = dialogue(host_wire(wire)).response
    answers: list[tuple[Line, list[Line]]] = []
    for line in lines:
        if line.get("type") == response or not answers:
            answers.append((line, []))
        else:
            answers[-1][1].append(line)
    return HostScript(name, tuple((r, tuple(e)) for r, e in answers), changes)


def _snapshot(line: Line, response_type: str) -> Any:
    return line.get("data") if line.get("type") == response_type else line.get("snapshot")


def _remember(line: Any, shown: dict[str, int], response_type: str) -> None:
    snap = _snapshot(line, response_type) if isinstance(line, dict) else None
    if isinstance(snap, dict) and isinstance(snap.get("epoch"), str) and type(snap.get("revision")) is int:
        shown[snap["epoch"]] = max(shown.get(snap["epoch"], 0), snap["revision"])


def _catch_up(response: Line, shown: dict[str, int], response_type: str) -> None:
    """A repeated response shows the highest revision of its epoch (it may repeat, never go back)."""
    snap = _snapshot(response, response_type)
    if isinstance(snap, dict) and type(snap.get("revision")) is int and snap.get("epoch") in shown:
        snap["revision"] = max(snap["revision"], shown[snap["epoch"]])


def host_end(active: float | None, spent: float | None) -> float | None:
    """When the host ends the conversation (closes the client's stdin), or None: not yet known.

    The seed sets no number of polls and has no command that ends a conversation, so a client's
    only sign of the host's end is its input ending, and the host's end must not hang on how many
    polls a client makes against how long a golden is. The host ends ``QUIET_SECONDS`` after the
    last command or host line (a client that polled once and watches), or ``QUIET_SECONDS`` after
    the golden's last answer was written (a client polling on a timer is never quiet), whichever
    comes first; before its first answer it waits (a client may be slow to start).
    """
    ends = [moment + QUIET_SECONDS for moment in (active, spent) if moment is not None]
    return min(ends) if ends else None


def _dump(line: Line) -> bytes:
    return orjson.dumps(line) + b"\n"


def _read_client(stream: LimitedStream, max_line_bytes: int, inbox: queue.Queue[bytes | None]) -> None:
    """The client's lines into ``inbox`` (a line past the limit cut to its start); None at its end."""
    try:
        while piece := stream.readline(max_line_bytes + 1):
            if not piece.endswith(b"\n"):  # too long (judged line.limit) or the last line
                rest = b""
                while (rest := stream.readline(max_line_bytes + 1)) and not rest.endswith(b"\n"):
                    pass
                piece += b"\n" if rest else b""
            inbox.put(piece)
    finally:
        inbox.put(None)


class _Host:
    """The host's side of one conversation while it runs: what it answered, and when it ends."""

    def __init__(self, proc: Process, script: HostScript, types: Dialogue, deadline: float, pace: float) -> None:
        self.proc = proc
        self.script = script
        self.types = types
        self.deadline = deadline
        self.pace = pace
        self.inbox: queue.Queue[bytes | None] = queue.Queue()
        self.transcript: list[bytes] = []  # both directions, in order
        self.host_at: list[int] = []  # the transcript's host lines (1-based)
        self.answered = 0
        self.commands = 0  # client lines taken (commands or not)
        self.closed = False  # the host has ended: the client's stdin is closed
        self.active: float | None = None  # the last command or host line, from the first answer on
        self.spent: float | None = None  # when the golden's last answer was written
        self.shown: dict[str, int] = {}  # epoch -> highest revision the host showed (sa.revision-order)
        self.flooded = False

    def play(self) -> None:
        """Answer the client until its output ends, it floods, or the deadline comes; end the host on time."""
        while True:
            now = time.monotonic()
            if now >= self.deadline:
                return
            wait = self.deadline - now
            end = None if self.closed else host_end(self.active, self.spent)
            if end is not None and now >= end:
                self.proc.close_stdin()  # the host ends (docs/consumers.md: the host's closing rule)
                self.closed = True
                continue
            if end is not None:
                wait = min(wait, end - now)
            try:
                item = self.inbox.get(timeout=wait)
            except queue.Empty:
                continue
            if item is None:
                return
            if self.closed:  # the host has ended: what the client still writes reaches no host, and is not judged
                continue
            if not self._take(item):
                return

    def _take(self, item: bytes) -> bool:
        """One client line into the transcript, answered when it is a command; False once it floods."""
        self.transcript.append(item)
        self.commands += 1
        self.active = time.monotonic() if self.active is not None else None
        if self.commands > MAX_COMMANDS:
            self.flooded = True
            return False
        try:
            line = orjson.loads(item)
        except orjson.JSONDecodeError:
            return True  # not a command: nothing to answer (the judgement says what it is)
        if isinstance(line, dict) and line.get("type") == self.types.command and not self.closed:
            self._answer(line)
        return True

    def _answer(self, command: Line) -> None:
        """The script's next response (its id the command's) and, the first time round, its events."""
        answers = self.script.answers
        response, events = answers[min(self.answered, len(answers) - 1)]
        response = copy.deepcopy(response)
        if self.answered >= len(answers):  # a repeat: never behind what was shown since
            _catch_up(response, self.shown, self.types.response)
        response.pop("id", None)
        if isinstance(command.get("id"), str):
            response["id"] = command["id"]
        out = [_dump(response)] + ([_dump(e) for e in events] if self.answered < len(answers) else [])
        self.answered += 1
        for piece in out:
            if not self.proc.write(piece, timeout=max(self.deadline - time.monotonic(), 0.0)):
                break
            self.transcript.append(piece)
            self.host_at.append(len(self.transcript))
            _remember(orjson.loads(piece), self.shown, self.types.response)
            if self.pace:
                time.sleep(self.pace)
        self.active = time.monotonic()
        if self.spent is None and self.answered >= len(answers):
            self.spent = self.active

    def end(self, reader: threading.Thread) -> tuple[int | None, bool]:
        """Close the client's stdin, await its exit (killing its group at the deadline); (status, hung)."""
        if not self.closed:
            self.proc.close_stdin()
        status = None if self.flooded else self.proc.wait(self.deadline - time.monotonic())
        hung = status is None and not self.flooded
        if status is None:
            self.proc.kill()
            status = self.proc.popen.returncode
        else:
            self.proc.reap_group()
        reader.join(GRACE_SECONDS)
        while True:  # what the client wrote before it exited
            try:
                item = self.inbox.get_nowait()
            except queue.Empty:
                break
            if item is None or self.closed:
                break
            self.transcript.append(item)
        return status, hung


def converse(
    argv: Sequence[str],
    script: HostScript,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    pace: float = DEFAULT_PACE,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES * 64,
    wire: Wire | str | None = None,
) -> tuple[Outcome, bytes]:
    """Play the host to the client ``argv``; how the client ended, and the transcript (both directions).

    ``wire``: the conversation wire played (:func:`host_wire`): its dialogue says which client
    lines are commands to answer, and which host lines are responses."""
    types = dialogue(host_wire(wire))
    began = time.monotonic()
    try:
        proc = Process(argv, stdin=True)
    except StartError as exc:
        return Outcome(None, False, b"", 0, "", 0, 0, 0.0, start_error=str(exc)), b""
    host = _Host(proc, script, types, began + timeout, pace)
    stream = LimitedStream(proc.stdout, max_output_bytes)
    reader = threading.Thread(target=contextvars.copy_context().run,  # the caller's registry (contract.wires)
                              args=(_read_client, stream, max_line_bytes, host.inbox), daemon=True)
    with proc:
        try:
            reader.start()
            host.play()
            status, hung = host.end(reader)
        except BaseException as exc:
            proc.kill()
            if isinstance(exc, KeyboardInterrupt):  # the lines of the conversation so far count: "after N lines"
                exc.lines_fed = len(host.transcript)  # type: ignore[attr-defined]
            raise
    transcript = b"".join(host.transcript)
    outcome = Outcome(status, hung, b"", 0, proc.stderr_tail(), host.answered, host.commands,
                      time.monotonic() - began, host_lines=frozenset(host.host_at))
    if stream.exceeded or host.flooded:
        outcome.flooded = (f"expected at most {max_output_bytes} bytes" if stream.exceeded else
                           f"expected at most {MAX_COMMANDS} lines") + " from the client, found more; it was killed"
    return outcome, transcript


def judge(outcome: Outcome, transcript: bytes, label: str, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
          exercised: set[str] | None = None, wire: Wire | str | None = None, variant: bool = False) -> list[Found]:
    """Findings (rule, line, pointer, message, hint) on one conversation: the wire's rules, then the
    client's end; the rules the check judged are added to ``exercised``. ``wire``: the conversation
    wire it was held on (:func:`host_wire`). ``variant``: the host played a future variant, whose
    ``unknown-member`` changes put members today's schema does not name on host lines: the schema's
    finding on such a member of a host line is the host's own doing, never the client's."""
    from contract.checking.checker import check

    held = host_wire(wire)
    found: list[Found] = []
    report = check(transcript, held.name, max_line_bytes=max_line_bytes)
    if exercised is not None:
        exercised |= report.exercised
    for v in report.failing():  # MUST findings: SHOULD ones are not a client's failure (no --strict here)
        if variant and v.line in outcome.host_lines and v.rule == held.schema_rule \
                and "additionalProperties is false" in v.message:
            continue  # an unknown-member change of the host's (contract.wires.subagent_stdio.kit.future)
        found.append((v.rule, v.line, v.pointer, f"{label}: {v.message}", v.hint))
    for rule, count in report.counts.items():
        dropped = count - report.kept_counts().get(rule, 0)
        if dropped and report.violations and CATALOG[rule].level is Level.MUST:
            found.append((rule, None, None, f"{label}: {dropped} more {rule} {textsafe.number(dropped, 'finding')} "
                          "counted but not kept", None))
    from contract.consumers.feed import said_on_stderr

    said = said_on_stderr(outcome.stderr)
    if outcome.flooded is not None:  # the conversation was cut: it cannot pass
        found.append(("run.output-limit", None, None, f"{label}: {outcome.flooded}",
                      "a client sends a command and awaits its response"))
    elif outcome.hung:
        found.append(("consumer.hang", None, None,
                      f"expected the client to exit on {label}, found it still running after {outcome.elapsed:.3g}s "
                      f"({textsafe.counted(outcome.fed, 'answer')} sent); killed it and its process group{said}",
                      "a client exits when its work is done, or when the host's stdout (its stdin) ends"))
    elif outcome.status != 0:
        found.append(("consumer.crash", None, None,
                      f"expected exit status 0 on {label}, found {describe_status(outcome.status or 0)}{said}",
                      "answer-driven clients must tolerate events they did not ask for and members they do not read"))
    elif outcome.fed == 0:  # it exited 0 having asked nothing: its exit says nothing of how it reads the wire
        found.append(("consumer.early-exit", None, None,
                      f"expected the client to send at least one {dialogue(held).command} command on {label}, "
                      "found it exited 0 "
                      f"having sent none: nothing of the wire was exercised{said}",
                      "a client sends its commands and reads the answers before it exits"))
    return found


def _findings_of(found: list[Found]) -> list[Finding]:
    return [Finding(rule, message, hint) for rule, _, _, message, hint in found]


def feed_client(
    argv: Sequence[str],
    goldens: Iterable[Any],
    *,
    future: bool = False,
    examples: int = DEFAULT_EXAMPLES,
    seed: int | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    pace: float = DEFAULT_PACE,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES * 64,
    shrink_seconds: float = DEFAULT_SHRINK_SECONDS,
    wire: Wire | str | None = None,
) -> FeedResult:
    """Play the host of every golden (and, with ``future``, its variants) to the client; the verdict.

    ``wire``: the conversation wire played (:func:`host_wire`: by default the registry's)."""
    argv = list(argv)
    goldens = list(goldens)
    if not goldens:  # feeding nothing is never a pass
        raise ValueError("no golden conversation to play")
    held = host_wire(wire)
    feed = Feed(argv, seed, held.name)
    report, out, result = feed.report, feed.out, feed.result
    options: dict[str, Any] = {"timeout": timeout, "pace": pace, "max_output_bytes": max_output_bytes, "wire": held}

    def hold(script: HostScript) -> tuple[Outcome, bytes, list[Found]]:
        outcome, transcript = converse(argv, script, **options)
        result.streams += 1
        report.lines += transcript.count(b"\n")
        if outcome.start_error is not None:
            return outcome, transcript, []
        label = textsafe.text(script.name if script.changes == "the golden as recorded"
                              else f"{script.name} ({clip(script.changes, 400)})")
        if future and script.changes == "the golden as recorded":  # the control of its variants
            label = control_label(script.name, "its future host variants")
        return outcome, transcript, judge(outcome, transcript, label, exercised=report.exercised, wire=held,
                                          variant=script.changes != "the golden as recorded")

    with feed.guarded("client", f"{held.name} host double"):
        for golden in goldens:
            feed.doing = f"the golden {golden.name}"
            script = script_from(golden.name, golden.data(), held)
            outcome, transcript, found = hold(script)
            if outcome.start_error is not None:
                return feed.cannot_start(outcome.start_error, "client")
            feed.started = True
            report.notes.extend(f"{golden.name}: {note}" for note in outcome.notes)
            _emit(out, found)
            if found:
                result.failures.append(Failure(golden.name, golden.name, script.changes, transcript, outcome,
                                               _findings_of(found)))
                note_failure(out, result.failures[-1], saved=len(result.failures) == 1)
            elif future:
                feed.doing = f"the future variants of {golden.name}"
                _search(result, out, held, golden.name, script, hold, examples, shrink_seconds)
    feed.report.unasked["consumer.output"] = "a client's stdout is not judged (the expectations judge stream consumers)"
    feed.report.unasked["consumer.dishonest"] = ("judged only when a stream consumer is fed broken streams "
                                                 "(feed --broken)")
    return feed.end("consumer.early-exit")


def _emit(out: Collector, found: list[Found]) -> None:
    for rule, line, pointer, message, hint in found:
        out.emit(rule, line, pointer, message, hint)


@dataclass(frozen=True)
class _Candidate:
    """A host variant as :class:`contract.consumers.feed.Search` knows one: its bytes and its changes."""

    script: HostScript
    changes: tuple[str, ...]

    @property
    def data(self) -> bytes:
        return self.script.key


def _search(result: FeedResult, out: Collector, wire: Wire, name: str, script: HostScript, hold: Any,
            examples: int, shrink_seconds: float) -> None:
    future = wire.load_future()
    if future is None:
        out.note(f"{name}: the {wire.name} wire has no future variants (Wire.future)")
        return
    try:
        strategy = future.variants(host_lines(script)).map(
            lambda drawn: _Candidate(from_host_lines(name, drawn[0], "; ".join(drawn[1]), wire), tuple(drawn[1])))
    except ValueError as exc:
        out.note(f"{name}: {exc}")
        return

    def run(candidate: _Candidate) -> tuple[Outcome, Any]:
        outcome, transcript, found = hold(candidate.script)
        outcome.stdout = transcript  # the conversation is what a failure shows
        return outcome, found

    search = Search(run, examples, shrink_seconds)
    chosen = search.hunt(strategy, result.seed, result.report, name)
    if chosen is None:
        if search.broke:
            return
        out.note(f"{name}: the golden and {search.searched} future host variants answered (seed {result.seed})")
        return
    candidate, outcome, found = chosen
    _emit(out, found)
    result.failures.append(Failure(name, f"{name}+future", candidate.script.changes, outcome.stdout, outcome,
                                   _findings_of(found), search.shrink_runs, search.shrink_cut))
    note_failure(out, result.failures[-1], saved=len(result.failures) == 1)
    out.note(f"{name}: a failing future host variant found within {search.searched} generated ones (seed "
             f"{result.seed}), shrunk to {textsafe.counted(len(candidate.changes), 'change')} in "
             f"{textsafe.counted(search.shrink_runs, 'more conversation', 'more conversations')}"
             + (" (shrinking stopped at its budget)" if search.shrink_cut else ""))


__all__ = ["HostScript", "converse", "feed_client", "from_host_lines", "host_lines", "host_wire", "judge",
           "script_from"]
