"""The rule catalog: every check milk-contract makes, as data.

Each rule has a stable id that users see in reports and pass to ``--ignore``, a level
(MUST comes from a seed schema: its words where it has them, its structure where it has none,
as in the subagent-stdio schema, which carries no descriptions; SHOULD is inferred consistency,
failing only under ``--strict``), ``source``: what it comes from, or why it is inferred,
``basis``: written, derived or policy (``contract.core.rule.Basis``, docs/rules.md; one per rule and
wire, so a rule that would mix two is split) and ``observed``: where its findings come from (the
stream, the live process, a baseline, the checker itself).

The catalog is the framing, checker, harness and baseline rules below plus each registered
wire's own rules (``Wire.rules``, kept in the wire's package next to its machines), in that
order. ``milk-contract rules`` prints it; every emitter of findings declares the rule ids it
emits, and a test checks that their union is exactly the catalog.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from contract.core.jsonline import ANSI_RULES
from contract.core.rule import Basis, Level, Observed, Rule, Unjudged
from contract.wires import WIRES, Live, WireRegistry, derived, named

# The common rules' sources cite each registered wire's seed through its descriptor (``Wire.cites``),
# in registry order; a wire whose seed has nothing to add to a rule adds nothing to its source.


def _cited(clause: str) -> list[str]:
    return [text for wire in WIRES.values() if (text := getattr(wire.cites, clause)) is not None]


def _framing_source() -> str:
    return "; ".join(_cited("framing"))


def _framing_basis_on() -> tuple[tuple[str, Basis], ...]:
    # Written where the seed says it; each wire whose framing is policy (or derived) says so.
    return tuple((wire.name, wire.cites.framing_basis) for wire in WIRES.values()
                 if wire.cites.framing is not None and wire.cites.framing_basis is not Basis.WRITTEN)


# A line that fails framing (line.utf8, line.json, line.object, line.duplicate-key, line.limit) is
# opaque: no schema or content rule judges it, but it keeps its place in the stream (it counts as
# a line for the wires' positional rules, each wire naming its own). Lead's decision, issue 12.
def _opaque() -> str:
    places = "; ".join(_cited("opaque"))
    return ("a line that fails it is opaque: no schema or content rule judges it, but it keeps its place in the "
            "stream" + (f" ({places})" if places else ""))


def _ansi_wire() -> str:
    """The wire line.ansi is listed under (its ``wire`` column): the first whose seed says it."""
    return next((wire.name for wire in WIRES.values() if wire.ansi), "line")


def _ansi_source() -> str:
    says = [wire.cites.ansi for wire in WIRES.values() if wire.ansi and wire.cites.ansi is not None]
    silent = [wire.cites.ansi for wire in WIRES.values() if not wire.ansi and wire.cites.ansi is not None]
    applies = ", ".join(wire.name for wire in WIRES.values() if wire.ansi)
    ecma = ("ESC (U+001B) is the escape character itself: written, raw or in any decoded string. The C1 "
            "controls are line.c1's (derived). BEL, DEL and other C0 controls are no escape.")
    only = f" {applies[:1].upper()}{applies[1:]} only: {'; '.join(silent)}" if silent else ""
    return " ".join([*says, ecma]) + only


def _c1_source() -> str:
    applies = ", ".join(wire.name for wire in WIRES.values() if wire.ansi)
    return (f"{applies}: 'never any ANSI escapes' read through ECMA-48 §5.3 (derived: each C1 control "
            "function is coded either as one 8-bit character or, in 7-bit form, as the escape sequence ESC Fe, "
            "so U+009B 3 1 m is the control sequence ESC [ 3 1 m and NEL U+0085 is ESC E; the words forbid "
            "the escapes, this equivalence carries it to their one-character forms, raw (C2 9B: valid JSON, "
            "RFC 8259 §7 asks only U+0000 to U+001F to be escaped) or escaped (\\u009b), payloads included. "
            "Issue 31: no sentence says it, so it is not written; it applies where line.ansi does)")


def _framing_rules() -> tuple[Rule, ...]:
    framing, on, opaque = _framing_source(), _framing_basis_on(), _opaque()
    return (
        # -- framing, both wires ------------------------------------------------------------
        # line.utf8, line.json and line.object: a line the checker could not read, judged under
        # any --basis (fail closed: an unreadable line cannot pass because its rule's basis was
        # left out). line.newline stays filterable: a last line without LF that parses as an object
        # holds the whole object (one cut inside it is not JSON: line.json fails it too).
        Rule("line.utf8", Level.MUST, "line", "each line is valid UTF-8 with no byte order mark", framing,
             basis=Basis.WRITTEN, basis_on=on, filterable=False),
        Rule("line.newline", Level.MUST, "line",
             "each line ends in exactly one LF, with no CR, and the stream ends with LF", framing,
             basis=Basis.WRITTEN, basis_on=on),
        Rule("line.blank", Level.MUST, "line", "no empty or whitespace-only lines", framing,
             basis=Basis.WRITTEN, basis_on=on),
        Rule("line.json", Level.MUST, "line",
             "each line is one strict RFC 8259 JSON text (no NaN/Infinity, nothing after it)",
             f"{framing}; a raw control byte (ESC included) is not JSON (RFC 8259 §7); numbers outside float "
             "range (1e400) are valid JSON; a lone surrogate escape is JSON by RFC 8259 §8.2 (line.surrogate's, "
             f"policy); {opaque}",
             basis=Basis.WRITTEN, basis_on=on, filterable=False),
        Rule("line.object", Level.MUST, "line", "each line's JSON value is an object", framing,
             basis=Basis.WRITTEN, basis_on=on, filterable=False),
        Rule("line.surrogate", Level.MUST, "line", "no string or member name holds a lone surrogate escape",
             "policy, beside the framing sentence (UTF-8 JSON text): RFC 8259 §8.2 admits an unpaired surrogate "
             "escape (\\udc00) in the grammar and calls "
             "software behaviour on it unpredictable: the line is JSON, and rejecting it is policy (it cannot "
             "be encoded in UTF-8, so a consumer writing it on breaks; Python decodes it and then cannot encode "
             f"it). The line is still an object, read as line.duplicate-key's: {opaque}; its place is read from "
             "its type", basis=Basis.POLICY),
        Rule("line.duplicate-key", Level.MUST, "line", "no object repeats a member name",
             f"{framing}; RFC 8259 §4: names SHOULD be unique, and parsers disagree on which duplicate wins, "
             f"so neither first-wins nor last-wins is judged: {opaque}. The line is still a JSON object: its "
             "place in the run is read from its type wherever every reading agrees (an init that repeats a "
             "member of extension is the init), so this finding never fails a run through another rule; only "
             "a type repeated with different values cannot be read, and the place rules say so",
             basis=Basis.POLICY),
        Rule("line.ansi", Level.MUST, _ansi_wire(),
             "no ANSI escapes: no raw ESC byte, no ESC (U+001B) in any decoded string or member name, payloads "
             "included", _ansi_source(), basis=Basis.WRITTEN),
        Rule("line.c1", Level.MUST, _ansi_wire(),
             "no C1 control (U+0080-U+009F, CSI U+009B and NEL U+0085 included), raw or escaped, in any decoded "
             "string or member name, payloads included: ESC's one-character forms", _c1_source(),
             basis=Basis.DERIVED),
        Rule("line.limit", Level.MUST, "line",
             "a line stays within the checker's limits (length, nesting depth, integer digits)",
             "checker limit: a line the checker cannot judge cannot be declared conformant; "
             f"raise the limit with --max-line-bytes where the line is legitimate; {opaque}",
             basis=Basis.POLICY, filterable=False),
    )


CHECKER: tuple[Rule, ...] = (
    # -- the checker's own integrity, both wires -------------------------------------------
    Rule("checker.internal", Level.MUST, "checker",
         "the checker finished every check it started (an internal error is a finding, never a pass)",
         "fail closed: a check that raised cannot vouch for the stream, so the stream is not conformant",
         observed=Observed.CHECKER, unjudged=Unjudged.ALWAYS, basis=Basis.POLICY, filterable=False),
    Rule("checker.limit", Level.MUST, "checker",
         "no internal bound of the checker was reached (a check that could not be completed is a finding)",
         "fail closed, no silent limits: the message names the check that stopped, the bound and the line "
         "(e.g. a seq of more than 4300 digits, such as 1e5000: the seq check stops for that line, the "
         "line is otherwise judged)",
         observed=Observed.CHECKER, unjudged=Unjudged.ALWAYS, basis=Basis.POLICY, filterable=False),
    Rule("checker.input-changed", Level.MUST, "checker",
         "the input file did not change while it was checked",
         "fail closed: a file still being written, or rewritten, was judged on bytes it no longer holds "
         "alone, so the verdict cannot stand for the file (one process reads to the end it meets, two stop "
         "at the size the check began with); check it again once it is complete",
         observed=Observed.CHECKER, unjudged=Unjudged.ALWAYS, basis=Basis.POLICY, filterable=False),
)

def _harness_rules() -> tuple[Rule, ...]:
    return (
        # -- live runs -----------------------------------------------------------------------
        Rule("run.timeout", Level.MUST, "run", "the emitter finishes within --timeout (plus a short exit grace)",
             "harness: a hung emitter is killed with its process group; a conversation whose --timeout ends it "
             "before its plan is done (a command not yet sent, a response wait cut short of the response timeout) "
             "is this rule too, never run.no-response: the suite stopped it, so it was not judged to the end",
             observed=Observed.PROCESS, unjudged=Unjudged.ALWAYS, basis=Basis.POLICY, filterable=False),
        Rule("run.exit-status", Level.MUST, "run", "the emitter exits with the expected status",
             "harness: a run that crashes or is killed is not a conformant run (an emitter ended by a signal "
             "did not finish its run: that finding is not judged to the end, so no --ignore or baseline drops it)",
             observed=Observed.PROCESS, unjudged=Unjudged.KILLED, basis=Basis.POLICY, filterable=False),
        Rule("run.start", Level.MUST, "run", "the emitter command can be started",
             "harness: the command must exist and be executable",
             observed=Observed.PROCESS, unjudged=Unjudged.ALWAYS, basis=Basis.POLICY, filterable=False),
        Rule("run.no-response", Level.MUST, "run", "a host answers each command before its deadline",
             f"harness, {named(Live.CONVERSATION)}: a read-only request gets a response",
             observed=Observed.PROCESS, basis=Basis.POLICY, filterable=False, live=Live.CONVERSATION.value),
        Rule("run.output-limit", Level.MUST, "run", "the emitter's output stays within --max-output-bytes",
             "harness: a flooding emitter is stopped so that the checker's memory stays bounded",
             observed=Observed.PROCESS, unjudged=Unjudged.ALWAYS, basis=Basis.POLICY, filterable=False),
        Rule("run.interrupted", Level.MUST, "run",
             "the run is not interrupted (Ctrl-C, SIGINT; SIGTERM; SIGHUP) before it ends",
             "harness: an interrupted run did not finish, so it cannot be judged conformant; the emitter's "
             "process group and descendants are killed and the findings seen so far are reported (exit 128 + "
             "the signal: 130, 143, 129)",
             observed=Observed.PROCESS, unjudged=Unjudged.ALWAYS, basis=Basis.POLICY, filterable=False),
        Rule("run.stdout-held", Level.MUST, "run",
             "no descendant of the emitter holds its stdout open past --late-grace after the emitter exits",
             # the seed's words are paraphrased, not quoted: the framing rules quote them already, and a
             # quote here would be a new surface item (contract/evolution/framing.py), breaking for emitters
             "; ".join(["harness", *_cited("stdout_held"), "the holder is killed at the grace, so what it would "
                                                            "still have written was not seen (not judged to the end)"]),
             observed=Observed.PROCESS, unjudged=Unjudged.ALWAYS, basis=Basis.POLICY, filterable=False),
        *_liveness_rules(),
    )


# Time is part of the contract (docs/live-runs.md, "Liveness"): the seeds say nothing of when a
# line must come, so these are policy, each with a threshold the user can move (docs/limits.md).
_LIVE = ("harness, liveness: a consumer shows a run as it streams, so a line held back is a line it cannot "
         "show; the seed is silent on time, so this is policy, its threshold an option")


def _liveness_rules() -> tuple[Rule, ...]:
    return (
        Rule("run.first-line", Level.MUST, "run",
             "the emitter writes its first line within --first-line-within of its start (default 10 s)",
             f"{_LIVE}; judged only on a run that ended by itself (a run still silent at --timeout is run.timeout)",
             observed=Observed.PROCESS, basis=Basis.POLICY, filterable=False,
             live=Live.STREAM.value),
        Rule("run.stall", Level.MUST, "run",
             "no gap between lines longer than --max-gap while the emitter runs with no result written "
             "(default 30 s)",
             f"{_LIVE}; the start counts as a line end (a silent emitter stalls too); judged when the silence "
             "passes --max-gap, the emitter killed there; a stall past --timeout stays run.timeout",
             observed=Observed.PROCESS, basis=Basis.POLICY, filterable=False,
             live=Live.STREAM.value),
        Rule("run.buffered", Level.MUST, "run",
             "the lines arrive as they are written, not in bursts the stream did not ask for (a block-buffered "
             "stdout on a pipe)",
             f"{_LIVE}; seen as reads cut at a block size (4 KiB multiples) mid-line followed by silence, or as "
             "a burst after a silence that a twin run with stdout a pseudo-terminal streamed (a burst no twin "
             "confirms is not judged); never judged on a terminal (line-buffered stdio)",
             observed=Observed.PROCESS, basis=Basis.POLICY, filterable=False,
             live=Live.STREAM.value),
        Rule("run.exit-after-result", Level.MUST, "run",
             "the emitter exits within --exit-grace of writing its result line (default 5 s)",
             f"{_LIVE}; the emitter is killed at the grace, so what it would still have written was not seen "
             "(not judged to the end); distinct from run.timeout",
             observed=Observed.PROCESS, unjudged=Unjudged.ALWAYS, basis=Basis.POLICY, filterable=False,
             live=Live.STREAM.value),
        Rule("run.response-late", Level.MUST, "run",
             "a host answers each command within --response-within (default 10 s)",
             f"{_LIVE}, {named(Live.CONVERSATION)}: a response slower than that is late (the message says how "
             "late); none at all within the response timeout is run.no-response",
             observed=Observed.PROCESS, basis=Basis.POLICY, filterable=False,
             live=Live.CONVERSATION.value),
    )


def _consumer_rules() -> tuple[Rule, ...]:
    return (
        # -- consumers fed streams (milk-contract feed) -----------------------------------------
        # The seed's words are cited without double quotes: a quoted rule joins the surface's cited
        # rules (contract.evolution.framing), which hold emitters to those words; this one holds consumers.
        Rule("consumer.crash", Level.MUST, "consumer",
             "a consumer fed a conformant stream (a golden or a future variant) exits with status 0",
             "; ".join([*_cited("consumer"), "every stream fed is conformant under check --strict, so a conformant "
                                             "milk may write it, but for a --future unknown-member change's member: "
                                             "one no schema names yet, at an object the schema models, which the "
                                             "ADR gate calls an additive change (consumers ignore fields they do "
                                             "not know), so the next additive revision may write it"]),
             observed=Observed.CONSUMER, basis=Basis.WRITTEN, filterable=False),
        Rule("consumer.hang", Level.MUST, "consumer",
             "a consumer fed a conformant stream exits within --timeout (its group is killed otherwise)",
             "harness: a consumer that never ends on a stream a conformant milk may write is as broken as one that "
             "crashes; every stream fed ends (stdin is closed after the last line)",
             observed=Observed.CONSUMER, basis=Basis.DERIVED, filterable=False),
        Rule("consumer.early-exit", Level.MUST, "consumer",
             "a consumer exits 0 only after taking in what it is fed: a stream consumer reads the whole stream "
             "(when that can be known), a client sends at least one command",
             "harness: a consumer that exits 0 without reading the stream fed (or a client that sends no command) "
             "exercised none (or not all) of the wire, so its exit status says nothing of how it reads it; "
             "checking nothing is never reported as conformant. Through a pipe the bytes it left unread are "
             "known (the suite holds the pipe); through a terminal only those never written to it",
             observed=Observed.CONSUMER, basis=Basis.POLICY, filterable=False),
        Rule("consumer.output", Level.MUST, "consumer",
             "a consumer's stdout meets the expectation given (--expect-stdout, --expect-json)",
             "the user's own expectation: what the consumer reports (e.g. the result's is_error and final text) "
             "does not change when a producer adds what the seed lets it add",
             observed=Observed.CONSUMER, basis=Basis.POLICY, filterable=False),
        Rule("consumer.dishonest", Level.MUST, "consumer",
             "a consumer fed a broken stream (feed --broken) does not report it as a success",
             "policy (the suite's, not the seed's words): a stream that is not a whole run as the seed frames one "
             "(one JSON object per line, system/init first, exactly one terminal result last, is_error agreeing "
             "with the subtype) says nothing certain of how the run ended, so a consumer that reports success on "
             "it (exit 0 with no --expect-json; with it, a report whose is_error is not true or null) tells its "
             "caller a run succeeded that may not have; real pipes deliver such streams (docs/consumers.md)",
             observed=Observed.CONSUMER, basis=Basis.POLICY, filterable=False),
    )


def _reading_rules() -> tuple[Rule, ...]:
    return (
        # -- the reading protocol (contract.consumers.reading; docs/consumers.md) -----------------
        Rule("consumer.silent", Level.MUST, "consumer",
             "a consumer that exits 0 on a stream that carried a result says something: output, or a reading",
             "policy (issue 49, 'Breaking futures'): a parser that silently falls through on a line kind it does "
             "not know and prints nothing exits 0 and is wrong; a run that carried a result has something to "
             "report. Judged on every run that exited 0 without a reading (MILK_CONTRACT_READING), on the "
             "stream consumer's stdout (stderr is not output to a caller)",
             observed=Observed.CONSUMER, basis=Basis.POLICY, filterable=False),
        Rule("consumer.reading-schema", Level.MUST, "consumer",
             "a reading a consumer writes follows the protocol (schemas/reading.schema.json)",
             "the reading protocol: JSON Lines, line entries (each input line at most once, within the stream) "
             "then one view line, the last; a reading that cannot be read is never judged a pass",
             observed=Observed.CONSUMER, basis=Basis.POLICY, filterable=False),
        Rule("consumer.text-duplicated", Level.MUST, "consumer",
             "a consumer's reading holds each message's text and thinking once",
             _READING + " A block's text is the completed assistant line's block (the partial deltas before it "
             "concatenate to it, a rule of the wire's), so a reading that adds the deltas to the completed "
             "block, or keeps a frame twice, holds more text than the run wrote",
             observed=Observed.CONSUMER, basis=Basis.DERIVED, filterable=False),
        Rule("consumer.text-lost", Level.MUST, "consumer",
             "a consumer's reading holds every text and thinking block of the completed assistant messages",
             _READING + " A block overwritten by the next one, a field left empty though its deltas streamed, "
             "a message dropped: text the run wrote that the consumer does not hold",
             observed=Observed.CONSUMER, basis=Basis.DERIVED, filterable=False),
        Rule("consumer.tool-call-lost", Level.MUST, "consumer",
             "a consumer's reading holds each tool call with its name, parsed input and result",
             _READING + " Tool calls in the order of their tool_use blocks, each with the first tool_result "
             "naming it (content and is_error as written, null when none came)",
             observed=Observed.CONSUMER, basis=Basis.DERIVED, filterable=False),
        Rule("consumer.ending-misread", Level.MUST, "consumer",
             "a consumer's reading of the run's ending is the result line's is_error, subtype, result and usage",
             _READING + " is_error is the boolean contract (properties.is_error: 'true when the run failed'), "
             "whatever the subtype (an open set); a result with no result text (an interrupt) has none to read; "
             "a stream that is not a whole run never reads as a success",
             observed=Observed.CONSUMER, basis=Basis.DERIVED, filterable=False),
        Rule("consumer.usage-summed", Level.MUST, "consumer",
             "a consumer's reading does not count the run's cumulative usage again",
             _READING + " The result's usage is the run's total as written; a reading whose counts exceed it "
             "added it to itself or to other counts (usage summed again)",
             observed=Observed.CONSUMER, basis=Basis.DERIVED, filterable=False),
        Rule("consumer.line-misread", Level.MUST, "consumer",
             "a consumer's reading calls no line of a conformant stream an error",
             _READING + " Every line of a golden, a future variant or a hostile delivery is a JSON object a "
             "conformant milk may write; consumers must ignore values they don't recognize, never fail on them",
             observed=Observed.CONSUMER, basis=Basis.DERIVED, filterable=False),
    )


_READING = ("the reading protocol (docs/consumers.md): the consumer's reading (MILK_CONTRACT_READING) against the "
            "wire's reference reading of the stream fed (Wire.reading: its reference consumer's, which reads the "
            "completed assistant message blocks).")


BASELINE: tuple[Rule, ...] = (
    Rule("baseline.stale", Level.MUST, "line",
         "every finding listed in --baseline still occurs",
         "baseline files only shrink: an entry that no longer occurs must be removed",
         observed=Observed.BASELINE, basis=Basis.POLICY, filterable=False),
)

@derived
def _rules(registry: WireRegistry) -> tuple[Rule, ...]:
    """The common rules plus each of ``registry``'s wires', in registry order (built once per registry)."""
    return (*_framing_rules(), *CHECKER, *(rule for wire in registry for rule in wire.rules),
            *_harness_rules(), *_consumer_rules(), *_reading_rules(), *BASELINE)


@derived
def _by_id(registry: WireRegistry) -> dict[str, Rule]:
    return {rule.id: rule for rule in _rules()}


class _Catalog(Mapping[str, Rule]):
    """Every rule by id: the current registry's catalog (``contract.wires.current``), read live."""

    def __getitem__(self, rule: str) -> Rule:
        return _by_id()[rule]

    def __len__(self) -> int:
        return len(_by_id())

    def __iter__(self) -> Iterator[str]:
        return iter(_by_id())

    def __contains__(self, rule: object) -> bool:
        return rule in _by_id()

    def get(self, rule: str, default: Rule | None = None) -> Rule | None:  # type: ignore[override]
        return _by_id().get(rule, default)

    def __repr__(self) -> str:
        return f"CATALOG({', '.join(_by_id())})"


CATALOG: Mapping[str, Rule] = _Catalog()


# The rule of the house (docs/unjudged.md), in one place: a finding that says the stream or run
# was not judged to the end can be neither ignored nor baselined, by any path (CLI --ignore,
# --baseline, --baseline-write, contract.check and every live API, a baseline file, the plugin),
# and no requirement says "passed" beside it. Every path asks one of the two names below.
UNJUDGED: frozenset[str] = frozenset(rule.id for rule in _rules() if rule.unjudged is Unjudged.ALWAYS)


def not_judged_to_the_end(rule: str, exit_status: int | None = None) -> bool:
    """Does a finding of ``rule`` (in a run that ended with ``exit_status``) mean "not judged to the end"?

    ``UNJUDGED`` rules always do. ``run.exit-status`` does when the emitter was ended by a
    signal (a negative ``exit_status``): it did not finish its run, whoever killed it. An
    unknown id is not this predicate's business (``KeyError`` is left to the catalog's users).
    """
    unjudged = CATALOG[rule].unjudged
    if unjudged is Unjudged.KILLED:
        return exit_status is not None and exit_status < 0
    return unjudged is Unjudged.ALWAYS


# What no ignore list or baseline may silence: the unjudged rules above, and the rules declared
# ``silenceable=False`` (a finding of them says the stream does not show a whole run: sj.init-first,
# sj.result-last). Read from the catalog when asked, so a wire registered later counts too.
NOT_WHOLE = "a finding of it says the stream does not show a whole run"
UNFINISHED = "a finding of it says the check or the run was not judged to the end"


def silence_refusal(rule: str) -> str | None:
    """Why ``rule`` can be neither ignored nor baselined (None when it can, or is not catalogued)."""
    entry = CATALOG.get(rule)
    if entry is None:
        return None
    if entry.unjudged is Unjudged.ALWAYS:
        return UNFINISHED
    if not entry.silenceable:
        return NOT_WHOLE
    return None


def unsilenceable() -> frozenset[str]:
    """Every rule no ignore list or baseline may name (``silence_refusal`` says why)."""
    return frozenset(rule for rule in CATALOG if silence_refusal(rule) is not None)


def never_silenced(rule: str, exit_status: int | None = None) -> bool:
    """Is a finding of ``rule`` (in a run that ended with ``exit_status``) kept whatever an ignore
    list or a baseline says? Every unsilenceable rule, and a killed run's ``run.exit-status``."""
    return not CATALOG[rule].silenceable or not_judged_to_the_end(rule, exit_status)


def always_judged(wire: str | None = None, *, verb: str = "always judged") -> str:
    """What --basis never leaves out, in words, from the catalog (on ``wire``; every wire for None):
    the checker's, the harness', the consumers' and the baselines' findings, and the stream rules
    that are not filterable (a line that could not be read, a run that is not whole, line.limit)."""
    rules = _rules() if wire is None else tuple(rules_for(wire))
    named = [rule.id for rule in rules if not rule.filterable and rule.observed is Observed.STREAM]
    return f"checker, run, consumer and baseline findings and {', '.join(named)} {verb}"


def rules_for(wire: str) -> Iterator[Rule]:
    """The rules that apply to ``wire``: framing, the wire's own, the harness and consumer rules.

    line.ansi is listed under the wire whose seed says it (its ``wire`` column), and applies to
    every wire whose descriptor asks for it (``Wire.ansi``): a wire added later included.
    """
    descriptor = WIRES.get(wire)
    ansi = descriptor is not None and descriptor.ansi
    for rule in _rules():
        if rule.wire in ("line", "run", "checker", "consumer", wire) or (ansi and rule.id in ANSI_RULES):
            yield rule


__all__ = ["CATALOG", "UNJUDGED", "Level", "Observed", "Rule", "Unjudged", "always_judged", "never_silenced",
           "not_judged_to_the_end", "rules_for", "silence_refusal", "unsilenceable"]
