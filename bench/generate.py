"""Generation benchmark: how fast do the public hypothesis strategies draw?

Rerunnable (``python bench/generate.py`` or ``tox -e bench-generate``). For each wire it runs
hypothesis over ``lines(wire)`` and ``streams(wire)`` for ``--examples`` examples (generate
phase only, no example database, health checks off so that a slow strategy is measured rather
than aborted) and reports lines per second: one line object per ``lines`` example, and the
number of LF-terminated lines per ``streams`` example. Where the schema-drawn implementation
that preceded the composed one is still importable (``contract.strategies._schemas.lines``, built
on hypothesis-jsonschema), its ``lines`` are measured in the same run as the baseline.

Strategy construction (hypothesis-jsonschema canonicalises a whole schema, which takes seconds)
happens on the first draw; a warm-up run of a few examples excludes it from the timing.

``--choices`` adds the number of hypothesis choices per line, the figure the time is
proportional to and the one a loaded machine does not move: it draws ``--examples`` values
outside hypothesis' engine, seeded 0 to n-1, through hypothesis internals
(``ConjectureData``), so it may need updating when hypothesis changes them.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from contract import strategies  # noqa: E402

WIRES = ("stream-json", "subagent-stdio")
TARGETS = {("stream-json", "lines"): 300.0, ("subagent-stdio", "lines"): 100.0}
STREAM_TARGET = 500.0


def _legacy_lines() -> Callable[[str], st.SearchStrategy[Any]] | None:
    """The hypothesis-jsonschema line strategy, if this checkout still has it."""
    try:
        from contract.strategies._schemas import lines as legacy
    except ImportError:
        return None
    return legacy


def measure(
    strategy: st.SearchStrategy[Any], count: Callable[[Any], int], examples: int
) -> tuple[float, float, int, float]:
    """(lines per wall second, lines per CPU second, lines drawn, wall seconds) over ``examples``.

    CPU seconds (this process's) are reported beside wall seconds because the machine is
    shared: under load the wall rate falls while the CPU rate stays near the idle figure.
    """
    drawn = [0]

    def run(n: int) -> None:
        @settings(
            max_examples=n,
            database=None,
            deadline=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(strategy)
        def body(value: Any) -> None:
            drawn[0] += count(value)

        body()

    run(3)  # warm-up: builds lazily constructed strategies, fills caches
    drawn[0] = 0
    start, cpu = time.perf_counter(), time.process_time()
    run(examples)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    return drawn[0] / elapsed, drawn[0] / cpu, drawn[0], elapsed


def choices_per_line(strategy: st.SearchStrategy[Any], count: Callable[[Any], int], examples: int) -> float:
    """Hypothesis choices per line over ``examples`` values drawn with seeds 0 to n-1."""
    import random

    from hypothesis.control import BuildContext
    from hypothesis.internal.conjecture.data import ConjectureData

    choices = lines = 0
    for seed in range(examples):
        data = ConjectureData(random=random.Random(seed))
        with BuildContext(data, wrapped_test=body_of_nothing):  # strategies ask for a build context
            value = data.draw(strategy)
        choices += len(data.choices)
        lines += count(value)
    return choices / max(lines, 1)


def body_of_nothing() -> None:
    """The test a bare draw stands in for (BuildContext wants one)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=300, help="examples per strategy (default 300)")
    parser.add_argument("--wire", choices=WIRES, action="append", help="only this wire (repeatable)")
    parser.add_argument("--no-legacy", action="store_true", help="skip the hypothesis-jsonschema baseline")
    parser.add_argument("--choices", action="store_true", help="also count hypothesis choices per line")
    args = parser.parse_args(argv)
    if args.examples < 1:
        parser.error("--examples must be at least 1")
    load = os.getloadavg()
    print(f"python {platform.python_version()}, {os.cpu_count()} cpus, load average {load[0]:.2f} {load[1]:.2f}")
    if load[0] > (os.cpu_count() or 1):
        print("the machine is busy: wall rates are lower than on an idle machine (see the CPU column)")
    print(f"{args.examples} examples per strategy\n")
    head = f"{'wire':<16}{'strategy':<17}{'lines/s':>9}{'per CPU s':>11}{'lines':>7}{'seconds':>9}"
    print(head + (f"{'choices':>9}" if args.choices else "") + "  target (wall)")
    legacy = None if args.no_legacy else _legacy_lines()
    missed = 0
    for wire in args.wire or WIRES:
        rows: list[tuple[str, st.SearchStrategy[Any], Callable[[Any], int], float | None]] = [
            ("lines", strategies.lines(wire), lambda _: 1, TARGETS[(wire, "lines")]),
            ("streams", strategies.streams(wire), lambda b: b.count(b"\n"), STREAM_TARGET),
        ]
        if legacy is not None and legacy is not strategies.lines:
            rows.insert(1, ("lines (legacy)", legacy(wire), lambda _: 1, None))
        for name, strategy, count, target in rows:
            rate, cpu_rate, drawn, elapsed = measure(strategy, count, args.examples)
            verdict = "" if target is None else f">= {target:.0f} " + ("met" if rate >= target else "MISSED")
            missed += target is not None and rate < target
            row = f"{wire:<16}{name:<17}{rate:>9.1f}{cpu_rate:>11.1f}{drawn:>7}{elapsed:>9.2f}"
            if args.choices:
                row += f"{choices_per_line(strategy, count, args.examples):>9.1f}"
            print(f"{row}  {verdict}", flush=True)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
