"""Running a golden scenario through an emitter, and re-recording goldens from it.

One scenario run: start the emitter with the scenario's own arguments and environment (plus
``MILK_CONTRACT_SCENARIO`` and ``MILK_CONTRACT_GOLDEN``, so a deterministic milk build or a
replaying test double can find its script), check what it emits live, and compare the
normalized output with the golden. The pytest plugin and ``milk-contract record`` both call
:func:`run_scenario`; neither knows how the wires are driven.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from contract.core import textsafe
from contract.goldens import pacing
from contract.goldens.compare import Comparison, Difference, compare
from contract.goldens.recording import Recorded, project_root, record, stderr_lines
from contract.goldens.store import Golden, schema_changed
from contract.live.driver import record as converse
from contract.live.harness import DEFAULT_LATE_GRACE, default_command, record_stream
from contract.live.timeline import DEFAULT_LIVENESS, Liveness
from contract.rules.report import Report
from contract.wires import Live

ENV_SCENARIO = "MILK_CONTRACT_SCENARIO"
ENV_GOLDEN = "MILK_CONTRACT_GOLDEN"


@dataclass(frozen=True)
class ScenarioRun:
    golden: Golden
    argv: tuple[str, ...]
    report: Report
    output: bytes
    comparison: Comparison

    def headline(self) -> str:
        """One line for a failing scenario: its verdict, or how many differences from its golden break."""
        name = f"{self.golden.wire}/{self.golden.name}"
        if not self.report.conformant:
            failing = self.report.failing()
            rules = ", ".join(sorted({v.rule for v in failing}))
            count = textsafe.counted(len(failing), "failing finding", "failing findings")
            return f"{name}: NOT conformant: {count} ({rules})"
        breaking = len(self.comparison.breaking)
        first = self.comparison.first_break()
        where = "" if first is None or first.line is None else f", first at line {first.line}"
        return (f"{name}: the build changed the stream: "
                f"{textsafe.counted(breaking, 'breaking difference', 'breaking differences')} from its golden{where}")

    def schema_changed(self) -> bool:
        """Whether the schema in force is not the one the golden was written under (contract.goldens.store)."""
        return schema_changed(self.golden, project_root(self.golden.path.parent.parent))

    def wire_change_possible(self) -> bool:
        """Whether the breaking differences could be a wire change an ADR decided: the schema in force
        is not the one the golden was written under, and the build writes a line of a kind the golden
        does not show (a kind an ADR added). A member lost or changed is not: an ADR's break is
        accepted before its schema is taken in, and an accepted break is no breaking difference;
        a banner or one line more or less of a kind the golden shows is the build's, whatever the
        schema (tests/evolution/test_adr_space.py found the advice given for those after any ADR)."""
        if not self.schema_changed():
            return False
        from contract.checking.schema import known_types

        shown, known = _kinds(self.golden.data()), known_types(self.golden.wire)
        return any(_an_adrs(d, shown, known) for d in self.comparison.breaking)

    def advice(self) -> str | None:
        """What to do about a breaking difference: fix the build, or, only when the schema in force is
        not the one the golden was written under and the break could be its change, accept it."""
        if self.comparison.first_break() is None:
            return None
        if self.wire_change_possible():
            return (f"the schema in force is not the one {self.golden.wire}/{self.golden.name} was recorded under, and "
                    "the build writes a kind of line its golden does not show: if an ADR added it, record the golden "
                    "again (milk-contract record; a break the ADR decided is accepted first: milk-contract evolve "
                    "--accept)")
        return ("the schema is the one the golden was recorded under, so no ADR changed the wire: a regression of "
                "the build (fix it; re-record only from a build that is right)")

    def explain(self) -> str:
        """What a failing scenario says: the findings, then each difference with line and path."""
        # every part but the rule ids comes from the emitter, its output or the command line
        safe = textsafe.text
        lines = [f"{self.golden.wire}/{self.golden.name} through {safe(shlex.join(self.argv))}"]
        failing = self.report.failing()
        lines.extend(f"  {safe(_where(v.line, v.pointer))}{v.rule}: {safe(v.message)}" for v in failing[:20])
        if len(failing) > 20:
            lines.append(f"  … {textsafe.counted(len(failing) - 20, 'more failing finding', 'more failing findings')}")
        differences = self.comparison.differences
        changed = self.comparison.changed_stream()
        if changed is not None:
            lines.append(f"  {changed}")
        lines.extend(f"  {safe(str(difference))}" for difference in differences[:40])
        if len(differences) > 40:
            lines.append(f"  … {textsafe.counted(len(differences) - 40, 'more difference', 'more differences')}")
        advice = self.advice()
        if advice is not None:
            lines.append(f"  {advice}")
        lines.extend(stderr_lines(self.report, "  "))  # escaped and bounded there
        return "\n".join(lines)


def _kinds(data: bytes) -> set[str]:
    """The line types a transcript shows (lines that are no JSON object, or have no string type, left out)."""
    import json

    kinds: set[str] = set()
    for raw in data.splitlines():
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict) and isinstance(value.get("type"), str):
            kinds.add(value["type"])
    return kinds


def _an_adrs(difference: Difference, shown: set[str], known: frozenset[str]) -> bool:
    """Whether ``difference`` could be an ADR's change of the wire: a line of a kind the golden does not
    show (an ADR added it), or a missing line of a kind the schema in force no longer knows (an ADR
    removed it). A banner, a line that is no JSON object or has no string type, one line more or
    less of a kind the golden shows and the schema knows, and every member-level break are not."""
    side = difference.actual if difference.change == "extra line" else \
        difference.golden if difference.change == "missing line" else None
    kind = side.get("type") if isinstance(side, dict) else None
    if not isinstance(kind, str):
        return False
    if difference.change == "extra line":
        return kind not in shown
    return bool(known) and kind not in known


def _where(line: int | None, pointer: str | None) -> str:
    """``line 3 /message/id: `` (only what is known: a run-level finding has neither)."""
    parts = ([f"line {line}"] if line is not None else []) + ([pointer] if pointer else [])
    return " ".join(parts) + ": " if parts else ""


def emitter_argv(emitter: Sequence[str] | None, golden: Golden) -> list[str]:
    """The command for one scenario: the emitter, then the scenario's own arguments."""
    base = list(emitter) if emitter else default_command(golden.descriptor)
    return [*base, *golden.reproduce.argv]


def scenario_env(golden: Golden) -> dict[str, str]:
    env = dict(os.environ)
    env.update(golden.reproduce.environ())
    env[ENV_SCENARIO] = golden.name
    env[ENV_GOLDEN] = str(golden.path.resolve())
    return env


def run_scenario(
    golden: Golden,
    emitter: Sequence[str] | None = None,
    *,
    timeout: float = 60.0,
    strict: bool = False,
    late_grace: float = DEFAULT_LATE_GRACE,
    liveness: Liveness = DEFAULT_LIVENESS,
) -> ScenarioRun:
    """Run ``golden``'s scenario through ``emitter`` (the bundled reference when None), judged live
    (``liveness``: the time thresholds, contract.live.timeline) and compared with the golden."""
    argv = emitter_argv(emitter, golden)
    env = scenario_env(golden)
    expect = golden.reproduce.exit_status
    if golden.descriptor.live is Live.CONVERSATION:
        from contract.live.driver import Step

        plan = [Step(group) for group in golden.command_groups()]
        conversation = converse(argv, timeout=timeout, env=env, plan=plan, expect_exit=expect, strict=strict,
                                late_grace=late_grace, response_within=liveness.response_within)
        report, output = conversation.report, conversation.transcript
    else:
        report, output = record_stream(argv, wire=golden.wire, timeout=timeout, env=env, expect_exit=expect,
                                       strict=strict, keep=True, late_grace=late_grace, liveness=liveness)
    return ScenarioRun(golden, tuple(argv), report, output, compare(golden.data(), output, golden.wire))


INCOMPLETE = ("run.", "checker.")  # rule families that say the run or its judging did not finish


def complete(report: Report) -> bool:
    """The run ended and was judged to the end: no ``run.*`` or ``checker.*`` finding at all.

    Checked on the counts, which ``--ignore`` cannot hide the fail-closed findings from
    (``checker.internal`` and ``run.interrupted`` are emitted past it).
    """
    return not any(rule.startswith(INCOMPLETE) for rule in report.counts)


def rerecord(run: ScenarioRun, emitter: Sequence[str] | None) -> Comparison | None:
    """Re-record the golden from a complete, conformant run; None (golden kept) otherwise.

    Written through :mod:`contract.goldens.recording`: an unchanged golden is left untouched, a changed
    one keeps the stored bytes of whatever did not really change.
    """
    recorded = rerecord_run(run, emitter)
    return None if recorded is None else recorded.comparison


def rerecordable(run: ScenarioRun) -> bool:
    """Whether a golden may be rewritten from this run: complete, conformant, with output."""
    return run.report.conformant and complete(run.report) and bool(run.output)


def rerecord_run(run: ScenarioRun, emitter: Sequence[str] | None) -> Recorded | None:
    """As :func:`rerecord`, saying also whether anything was written."""
    if not rerecordable(run):
        return None
    recorded = record(run.golden, run.output, emitter, project_root(run.golden.path.parent.parent))
    # the run's pace beside the golden (contract.goldens.pacing): when the transcript was written, or
    # when a stored timing no longer holds; an unchanged golden without one is left as it is
    timeline = run.report.timeline
    if timeline is not None and (recorded.written or pacing.recorded_gaps(run.golden.path) is not None):
        arrivals = getattr(timeline, "arrivals", [])
        if pacing.keep_timing(run.golden.path, arrivals, run.report.lines) and not recorded.written:
            recorded = Recorded(recorded.comparison, True)
    return recorded
