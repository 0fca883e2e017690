"""What the default test run costs: its wall time under load, its CPU, and the tests that cost most.

Rerunnable: ``python bench/suite.py`` runs the README's test command (``pytest -n auto``) once with
the CPU profile plugin (tests/support/cpu_profile.py) and prints the run's wall time, its CPU (user
plus system of pytest and every process it reaped: the workers and what they started), the summed
CPU of the tests that start processes and of the rest, and the costliest tests.

* ``--load N`` keeps N busy processes running beside the run (issue 48's bar: under two minutes on
  a two-core machine at load 2), and starts the run once the load average shows them (at most two
  minutes): ``-n auto`` chooses its workers by the load average. On a shared machine the wall
  time moves with the neighbours; the CPU moves least, so it is the figure to compare across runs.
* ``--save FILE`` writes every test's row (node id, CPU, starts a process, marked deep) as JSON.
* ``--all`` runs the slow process tests of tests/support/slow.json too (as the deep run does), so
  that their cost is measured.
* ``--update-slow`` rewrites tests/support/slow.json: the tests already listed that are still
  collected, plus every process test measured at the threshold or above (``--threshold``; the
  file's own by default), less the file's ``keep`` (a node id, or ``path::``: a whole module).
  A module or session fixture is charged to the first test that asks for it, so once that test
  is listed its cost moves to the next one: run the update again until it adds nothing.

Exit status: pytest's, or 2 on misuse. Nothing here asserts a time: the figures are for reading.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.cpu_profile import PROFILE_ENV  # noqa: E402
from tests.support.depth import SLOW_ENV, SLOW_FILE, kept, slow_list  # noqa: E402

BUSY = "while True: pass"


def _run(pytest_args: list[str], load: int, everything: bool, folder: Path) -> tuple[int, float, float]:
    """One run of the suite: (exit status, wall seconds, CPU seconds of the whole process tree)."""
    env = {**os.environ, PROFILE_ENV: str(folder)}
    env.pop(SLOW_ENV, None)
    if everything:
        env[SLOW_ENV] = "run"
    argv = [sys.executable, "-m", "pytest", "-n", "auto", "-q", "-p", "no:cacheprovider",
            "-p", "tests.support.cpu_profile", *pytest_args]
    hogs = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(load)]
    try:
        # the run starts at load N as a machine at load N shows it: -n auto reads the load average
        # (the root conftest.py), which takes a minute or so to reach the busy processes' count
        settle = time.monotonic() + 120
        while load and os.getloadavg()[0] < load - 0.1 and time.monotonic() < settle:
            time.sleep(2)
        started = time.monotonic()
        process = subprocess.Popen(argv, cwd=ROOT, env=env)
        try:
            _, status, usage = os.wait4(process.pid, 0)
        except BaseException:
            try:  # a Ctrl-C reached pytest too (one process group): let it end its workers itself
                process.wait(timeout=30)
            except BaseException:
                process.kill()
                process.wait()
            raise
        wall = time.monotonic() - started
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    return os.waitstatus_to_exitcode(status), wall, usage.ru_utime + usage.ru_stime


Row = tuple[str, float, bool, bool]  # node id, CPU seconds, starts a process, marked deep in its source


def _rows(folder: Path) -> list[Row]:
    rows: list[Row] = []
    for path in sorted(folder.glob("*.json")):
        rows.extend((str(node), float(cpu), bool(process), bool(deep))
                    for node, cpu, process, deep in json.loads(path.read_text()))
    return rows


def _update(rows: list[Row], threshold: float | None, ran_listed: bool) -> tuple[int, int]:
    """Rewrite tests/support/slow.json from ``rows``: (tests added, tests dropped).

    A listed test is dropped when no longer collected or when its source now marks it deep; it keeps
    the cost it was listed with unless this run ran it (``--all``)."""
    listed = slow_list()
    bar = float(listed["threshold"]) if threshold is None else threshold
    keep: list[str] = listed["keep"]  # a node id, or a module's "path::"
    measured = {node: cpu for node, cpu, _, marked in rows if not marked}
    old: dict[str, float] = listed["tests"]
    tests = {node: measured[node] if ran_listed else cpu for node, cpu in old.items() if node in measured}
    added = 0
    for node, cpu, process, marked in rows:
        if process and not marked and cpu >= bar and not kept(node, keep) and node not in tests:
            tests[node] = cpu
            added += 1
    listed["threshold"] = bar
    listed["tests"] = dict(sorted(tests.items()))
    SLOW_FILE.write_text(json.dumps(listed, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return added, len(old) - (len(tests) - added)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--load", type=int, default=0, help="busy processes beside the run (default 0)")
    parser.add_argument("--all", action="store_true", help="run the slow process tests too")
    parser.add_argument("--update-slow", action="store_true", help="rewrite tests/support/slow.json")
    parser.add_argument("--threshold", type=float, default=None, help="CPU seconds a listed test costs")
    parser.add_argument("--top", type=int, default=15, help="the costliest tests to show (default 15)")
    parser.add_argument("--save", metavar="FILE", help="write every test's row (JSON) to FILE")
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    args = parser.parse_args(argv)
    if args.load < 0 or args.top < 0 or (args.threshold is not None and args.threshold <= 0):
        parser.error("--load and --top take a count, --threshold a positive number of seconds")
    if args.update_slow and args.pytest_args:
        parser.error("--update-slow needs the whole default run: it drops the listed tests a run did not collect")
    with tempfile.TemporaryDirectory(prefix="suite-profile-") as tmp:
        try:
            status, wall, cpu = _run(args.pytest_args, args.load, args.all, Path(tmp))
        except KeyboardInterrupt:  # pytest had the Ctrl-C too (one process group); the load is gone
            print("suite.py: interrupted, nothing measured", file=sys.stderr)
            return 130
        rows = _rows(Path(tmp))
    if args.save:
        Path(args.save).write_text(json.dumps(sorted(rows, key=lambda row: -row[1]), indent=0) + "\n", encoding="utf-8")
    process = sum(c for _, c, p, _ in rows if p)
    rest = sum(c for _, c, p, _ in rows if not p)
    print(f"\nload {args.load}: exit {status}, {wall:.1f} s wall, {cpu:.1f} s CPU "
          f"({len(rows)} tests: {process:.1f} s in tests that start processes, {rest:.1f} s in the rest, "
          f"{cpu - process - rest:.1f} s outside any test)")
    for node, c, p, _ in sorted(rows, key=lambda row: -row[1])[: args.top]:
        print(f"  {c:6.2f} {'P' if p else ' '} {node}")
    if args.update_slow:
        added, dropped = _update(rows, args.threshold, args.all)
        print(f"{SLOW_FILE.relative_to(ROOT)}: {added} added, {dropped} dropped "
              "(no longer collected, or marked deep in their source)")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
