"""State of one contract test run, kept apart from pytest so it can be tested and reused.

It knows which emitter to run (a milk build, or the bundled reference emitters), runs a golden
scenario through it, and collects what the run should say at the end (scenarios checked,
goldens re-recorded, changes found). Outcomes arrive as :class:`Outcome` records attached to
test reports, so the summary is right under pytest-xdist too, where scenarios run in workers
and the summary is written by the controller.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from contract.core import textsafe
from contract.core.jsonvalue import quoted
from contract.core.options import seconds_problem

if TYPE_CHECKING:  # loaded when a scenario runs: the plugin imports this module at every pytest start
    from contract.goldens.scenarios import ScenarioRun
    from contract.goldens.store import Golden


def option_problem(fuzz: int | None, timeout: float, late_grace: float, seed: int | None = None) -> str | None:
    """What is wrong with the plugin's numeric options, in one line (None when nothing is).

    argparse has made numbers of them already; a negative count, or seconds the CLI's
    ``--timeout`` and ``--late-grace`` would refuse (contract.core.options), could only misbehave
    later (a negative count ran nothing, a NaN grace waited unboundedly).
    """
    if fuzz is not None and fuzz < 0:
        return f"--contract-fuzz: expected 0 (off) or a positive count of conversations, found {fuzz}"
    if seed is not None and not 0 <= seed < 2**64:  # the CLI's --seed bound (contract.cli.common.seed)
        return f"--contract-seed: expected a seed from 0 to 2**64-1, found {seed}"
    for option, value, zero in (("--contract-timeout", timeout, False), ("--contract-late-grace", late_grace, True)):
        problem = seconds_problem(value, zero=zero)
        if problem is not None:
            return f"{option}: {problem}, found {value}"
    return None


def startup_problem(emitter: str | None, record: bool, basis: Sequence[str] | None = None) -> str | None:
    """Why a plugin run cannot start, in one line (None when it can).

    An emitter command that is empty, unparsable or names no executable would fail every golden
    scenario the same way; recording from an installed copy would write into site-packages; an
    unknown ``--contract-basis`` would judge nothing it names.
    """
    if basis is not None:
        from contract.core.rule import bases

        try:
            bases(basis)
        except ValueError as exc:
            return f"--contract-basis: {textsafe.text(str(exc))}"
    if record:
        from contract.core.resources import installed_copy

        if installed_copy():
            return ("--contract-record: this is an installed copy of milk-contract, whose goldens are inside "
                    "site-packages; re-record from a checkout with `milk-contract record` (see docs/adr-walk.md)")
    if emitter is None:
        return None
    try:
        argv = shlex.split(emitter)
    except ValueError as exc:
        return f"--contract-emitter: cannot parse {quoted(textsafe.text(emitter))} ({exc})"
    if not argv:
        return "--contract-emitter: empty command"
    if shutil.which(argv[0]) is None:
        return f"--contract-emitter: cannot start {quoted(textsafe.text(argv[0]))}: {unstartable(argv[0])}"
    return None


def unstartable(program: str) -> str:
    """Why ``program`` (which ``shutil.which`` did not find) cannot be started, said as what it is:
    a file there that is not executable is not "not found" (a fresh checkout's script without
    its ``chmod +x``), nor is a directory."""
    if os.sep not in program:  # a bare name is looked up on PATH
        return "not found on PATH"
    if os.path.isdir(program):
        return "it is a directory, not a program"
    if os.path.lexists(program):
        if not os.path.exists(program):
            return "a symbolic link to nothing"
        return "the file exists but is not executable (chmod +x it, or name its interpreter first)"
    return "no such file"


@dataclass(frozen=True)
class Outcome:
    """What one scenario test says about itself, for the end-of-run summary."""

    scenario: str
    note: str = ""  # the change report under --contract-record; additive drift otherwise

    def to_property(self) -> tuple[str, dict[str, str]]:
        return (PROPERTY, {"scenario": self.scenario, "note": self.note})


PROPERTY = "milk_contract"
PYTEST = ("python", "-m", "pytest")  # how a replay command starts pytest (the interpreter the suite is installed in)


def consumer_replay(consumer: Sequence[str], scenario: str, examples: int, seed: int) -> str:
    """The commands that feed ``consumer`` the same variants of ``scenario`` again: pytest's, then the CLI's."""
    again = shlex.join([*PYTEST, "--pyargs", "contract.tests.test_consumer", "-k", f"[{scenario}]",
                        "--contract-consumer", shlex.join(consumer), "--contract-consumer-examples", str(examples),
                        "--contract-seed", str(seed)])
    cli = shlex.join(["milk-contract", "feed", "--future", "--seed", str(seed), "--examples", str(examples),
                      f"--scenario={scenario}", "--", *consumer])
    return f"{textsafe.text(again)}\n  or from the command line: {textsafe.text(cli)}"
# contract.live.harness.DEFAULT_LATE_GRACE, not imported (the plugin imports this module at every pytest
# start); tests/core/test_signals.py holds the two equal
LATE_GRACE = 2.0


@dataclass
class ContractSession:
    emitter: list[str] | None  # None: the bundled reference emitter of each wire
    timeout: float = 60.0
    record: bool = False
    strict: bool = False
    late_grace: float = LATE_GRACE
    basis: tuple[str, ...] | None = None  # --contract-basis: the bases whose findings fail (None: all)
    # --contract-first-line-within, --contract-max-gap, --contract-exit-grace, --contract-response-within
    # (contract.live.timeline.Liveness, built when a scenario runs); None: its defaults
    liveness: tuple[float, float, float, float] | None = None
    checked: int = 0
    failed: list[str] = field(default_factory=list)
    recorded: list[str] = field(default_factory=list)
    drift: list[str] = field(default_factory=list)  # additive differences: they pass, but are news
    statement: bool = False  # --contract-statement / --contract-shard: each run's verdicts go on its test report

    @classmethod
    def from_options(cls, emitter: str | None, timeout: float, record: bool, strict: bool,
                     late_grace: float = LATE_GRACE, basis: Sequence[str] | None = None) -> ContractSession:
        argv = shlex.split(emitter) if emitter else None
        return cls(emitter=argv or None, timeout=timeout, record=record, strict=strict, late_grace=late_grace,
                   basis=tuple(basis) if basis else None)

    def statement_properties(self, golden: Golden, run: ScenarioRun) -> list[tuple[str, object]]:
        """The run's verdicts for the statement (contract.plugin.statement), when one is written."""
        if not self.statement:
            return []
        from contract.plugin.statement import run_property

        return [run_property(f"{golden.wire}/{golden.name}", golden.wire, "scenario", run.report,
                             not run.comparison.breaking)]

    def run(self, golden: Golden) -> tuple[ScenarioRun, Outcome]:
        """Run one scenario; under ``record``, rewrite its golden from a conformant run."""
        from contract.core.rule import bases
        from contract.goldens.scenarios import rerecord, run_scenario
        from contract.live.timeline import DEFAULT_LIVENESS, Liveness

        liveness = DEFAULT_LIVENESS if self.liveness is None else Liveness(*self.liveness)
        result = run_scenario(golden, self.emitter, timeout=self.timeout, strict=self.strict,
                              late_grace=self.late_grace, liveness=liveness)
        label = f"{golden.wire}/{golden.name}"
        if not self.record:  # a golden is re-recorded only from a run conformant on every basis
            result.report.bases = bases(self.basis)  # what fails the scenario; the rest is listed, not failing
        if self.record:
            comparison = rerecord(result, self.emitter)
            verdict = "kept (the run was not conformant)" if comparison is None else comparison.summary()
            return result, Outcome(label, verdict)
        additive = result.comparison.additive
        note = (f"{textsafe.counted(len(additive), 'additive difference')}, first: {textsafe.text(str(additive[0]))}"
                if additive else "")
        return result, Outcome(label, note)

    def observe(self, properties: list[tuple[str, object]], passed: bool) -> None:
        """Count a finished scenario test from the outcome its report carries."""
        for key, value in properties:
            if key != PROPERTY or not isinstance(value, dict):
                continue
            self.checked += 1
            if not passed:
                self.failed.append(str(value["scenario"]))
            if self.record:
                self.recorded.append(f"{value['scenario']}: {value['note']}")
            elif value["note"]:
                self.drift.append(f"{value['scenario']}: {value['note']}")

    def pytest_options(self) -> list[str]:
        """The ``--contract-…`` options that make another pytest run this session's emitter as this one does."""
        return [*(["--contract-emitter", shlex.join(self.emitter)] if self.emitter else []),
                *(["--contract-timeout", f"{self.timeout:g}"] if self.timeout != 60.0 else []),
                *(["--contract-strict"] if self.strict else [])]

    def fuzz_replay(self, examples: int, seed: int, host: Sequence[str] | None, timeout: float) -> str:
        """The commands that hold the same generated conversations again: pytest's, then the CLI's."""
        again = shlex.join([*PYTEST, "--pyargs", "contract.tests.test_live_fuzz", "-k", "test_fuzz_subagent_host",
                            "--contract-fuzz", str(examples), "--contract-seed", str(seed), *self.pytest_options()])
        cli = shlex.join(["milk-contract", "fuzz", "--seed", str(seed), "--examples", str(examples),
                          "--timeout", f"{timeout:g}", *(["--strict"] if self.strict else []),
                          *(["--", *host] if host else [])])
        return f"{textsafe.text(again)}\n  or from the command line: {textsafe.text(cli)}"

    @property
    def emitter_name(self) -> str:
        return shlex.join(self.emitter) if self.emitter else "bundled reference emitters"

    def summary_lines(self) -> list[str]:
        if not self.checked and not self.recorded:
            return []
        lines = [f"milk-contract: {textsafe.counted(self.checked, 'golden scenario')} run through "
                 f"{textsafe.text(self.emitter_name)}"]
        if self.basis:
            from contract.core.rule import bases
            from contract.rules.catalog import always_judged

            judged = ", ".join(b.value for b in bases(self.basis))
            lines.append(f"milk-contract: judged --contract-basis {judged} only: findings of other bases are "
                         "listed in a failing scenario's report, never failing it; "
                         f"{always_judged(verb='always fail')}")
        if self.failed:
            lines.append(f"milk-contract: {len(self.failed)} failed: {', '.join(self.failed)}")
        lines.extend(f"milk-contract: additive drift in {entry}" for entry in self.drift)
        lines.extend(f"milk-contract: re-recorded {entry}" for entry in self.recorded)
        return lines
