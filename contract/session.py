"""State of one contract test run, kept apart from pytest so it can be tested and reused.

It knows which emitter to run (a milk build, or the bundled reference emitters), runs a golden
scenario through it, and collects what the run should say at the end (scenarios checked,
goldens re-recorded, changes found).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from contract.goldens import Golden
from contract.scenarios import ScenarioRun, rerecord, run_scenario


@dataclass
class ContractSession:
    emitter: list[str] | None  # None: the bundled reference emitter of each wire
    timeout: float = 60.0
    record: bool = False
    strict: bool = False
    checked: int = 0
    failed: list[str] = field(default_factory=list)
    recorded: list[str] = field(default_factory=list)

    @classmethod
    def from_options(cls, emitter: str | None, timeout: float, record: bool, strict: bool) -> ContractSession:
        argv = shlex.split(emitter) if emitter else None
        return cls(emitter=argv or None, timeout=timeout, record=record, strict=strict)

    def run(self, golden: Golden) -> ScenarioRun:
        """Run one scenario; under ``record``, rewrite its golden from a conformant run."""
        result = run_scenario(golden, self.emitter, timeout=self.timeout, strict=self.strict)
        self.checked += 1
        label = f"{golden.wire}/{golden.name}"
        if self.record:
            comparison = rerecord(result, self.emitter)
            verdict = "kept (the run was not conformant)" if comparison is None else comparison.summary()
            self.recorded.append(f"{label}: {verdict}")
        elif not result.ok:
            self.failed.append(label)
        return result

    @property
    def emitter_name(self) -> str:
        return shlex.join(self.emitter) if self.emitter else "bundled reference emitters"

    def summary_lines(self) -> list[str]:
        if not self.checked and not self.recorded:
            return []
        lines = [f"milk-contract: {self.checked} golden scenarios run through {self.emitter_name}"]
        if self.failed:
            lines.append(f"milk-contract: {len(self.failed)} failed: {', '.join(self.failed)}")
        lines.extend(f"milk-contract: re-recorded {entry}" for entry in self.recorded)
        return lines
