"""The hostile corpus (tests/hostile/cases.py): every input gets a verdict, never a crash.

Two ways in. In process, every small case is checked on each wire it names through the CLI's
``run`` (both report formats): exit status, the rule ids that must and must not appear, and a
JSON report that keeps every occurrence. In a subprocess, the big cases (and a few small ones,
one through stdin) run as ``milk-contract check`` with a wall-clock bound and their peak memory
measured by ``os.wait4``: limits are findings (``line.limit``), never a traceback, a hang or a
runaway process. The default run starts one big case of each kind once (its first wire) and two
small ones; the deep run (tests/support/depth.py) every big case on every wire and eight small ones.
"""

from __future__ import annotations

import io
import json
import os
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from contract import cli
from contract.checking.checker import check
from contract.core.reader import DEFAULT_MAX_LINE_BYTES
from contract.reporting.reporters import MAX_TEXT_LINES  # the default text report's bound (issue 51)
from tests.hostile.cases import BY_NAME, CASES, Case, Expect
from tests.support.depth import deep, sample
from tests.support.paths import TESTS

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

SMALL = [(case, wire) for case in CASES if not case.big for wire in case.wires]
# Small cases that also run as a real process (their verdicts are checked in process above): in the
# deep run one of each kind of trouble; in the default run the one through stdin and the one that
# once hit the recursion limit, which a fresh process must survive too.
ALSO_SUBPROCESS = {"empty", "random-binary", "deep-array-top-level", "huge-integer", "cut-mid-line",
                   "deep-run-tree-invalid", "1e999", "lone-surrogate-escape"}
DEFAULT_SUBPROCESS = {"cut-mid-line", "deep-run-tree-invalid"}
# Big cases run only here: each on every wire it names in the deep run; in the default run one of
# each kind of bulk on its first wire (deep-lines-many and huge-line-over-limit take
# subagent-stdio). Nesting past the limit stays in the default run as deep-lines-many here, and
# deep-array-top-level and deep-unclosed in process; wide objects as hundred-thousand-keys-in-
# payload-legal and hundred-thousand-duplicate-keys in process.
# big cases the default run leaves to the deep run (the quick loop under two minutes: issue 29); the
# default keeps at least one big case of each kind (line.limit, sj.schema breadth, memory)
DEEP_ONLY_BIG = {"deep-object-top-level", "deep-in-tool-input", "hundred-thousand-keys", "many-empty-objects"}
PROCESS_RUNS = [(case, wire) for case in CASES
                for wire in (case.wires if case.big and deep() else list(case.wires)[:1])
                if (case.big and (deep() or case.name not in DEEP_ONLY_BIG))
                or case.name in (ALSO_SUBPROCESS if deep() else DEFAULT_SUBPROCESS)]


def _id(param: tuple[Case, str]) -> str:
    return f"{param[0].name}-{param[1]}"


# -- in process ------------------------------------------------------------------------------


@pytest.mark.parametrize("param", SMALL, ids=[_id(p) for p in SMALL])
def test_small_case_in_process(
    param: tuple[Case, str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    case, wire = param
    data = case.make()
    path = tmp_path / case.name
    path.write_bytes(data)
    target = "-" if case.stdin else str(path)
    if case.stdin:
        monkeypatch.setattr(sys, "stdin", _Stdin(data))
    code = cli.run(["check", "--wire", wire, "--format", "json", *case.args, target])
    captured = capsys.readouterr()
    if case.wires[wire].exit == 2:  # nothing to judge: misuse, one line, and no report
        _assert_nothing_checked(code, captured.out, captured.err)
        return
    assert captured.err == ""
    report = json.loads(captured.out)
    _assert_verdict(code, set(report["counts"]), case.wires[wire])
    assert sum(report["counts"].values()) == len(report["violations"]) + report["dropped"]

    if case.stdin:
        monkeypatch.setattr(sys, "stdin", _Stdin(data))
    assert cli.run(["check", "--wire", wire, *case.args, target]) == code
    text = capsys.readouterr().out
    assert len(text.splitlines()) <= MAX_TEXT_LINES
    for rule in case.wires[wire].rules:
        assert f" {rule} [" in text


class _Stdin:
    """A stand-in for ``sys.stdin`` whose ``buffer`` holds the case's bytes."""

    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


def _assert_nothing_checked(code: int, out: str, err: str) -> None:
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1, err
    assert "checking nothing is never reported as conformant" in err


def _assert_verdict(code: int, found: set[str], want: Expect) -> None:
    assert code == want.exit, f"exit {code}, findings {sorted(found)}"
    assert want.rules <= found, f"missing {sorted(want.rules - found)}; found {sorted(found)}"
    assert not (want.absent & found), f"unexpected {sorted(want.absent & found)}"


# -- as a process: bounded time and memory ---------------------------------------------------


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str
    seconds: float
    max_rss_mib: float
    timed_out: bool


PEAK_RSS = TESTS / "hostile" / "peak_rss.py"


def check_process(
    args: list[str], *, stdin: Path | None, timeout: float, scratch: Path, env: dict[str, str] | None = None
) -> Outcome:
    """``milk-contract ARGS`` as a child: exit code, output, wall time and peak RSS.

    The peak is the child's own ``VmHWM`` (see tests/hostile/peak_rss.py for why not
    ``ru_maxrss``); ``os.wait4`` still reaps it, so a timeout kill is seen as such.
    """
    out_path, err_path, rss_path = scratch / "stdout", scratch / "stderr", scratch / "peak-kib"
    with open(out_path, "wb") as out, open(err_path, "wb") as err, \
            open(stdin if stdin else os.devnull, "rb") as inp:
        start = time.monotonic()
        argv = [sys.executable, str(PEAK_RSS), str(rss_path), *args]
        pid = os.posix_spawn(sys.executable, argv, {**os.environ, **(env or {})},
                             file_actions=[(os.POSIX_SPAWN_DUP2, inp.fileno(), 0),
                                           (os.POSIX_SPAWN_DUP2, out.fileno(), 1),
                                           (os.POSIX_SPAWN_DUP2, err.fileno(), 2)])
    timed_out = threading.Event()

    def kill() -> None:
        timed_out.set()
        os.kill(pid, 9)

    timer = threading.Timer(timeout, kill)
    timer.start()
    try:
        _, status, _ = os.wait4(pid, 0)
    finally:
        timer.cancel()
    peak = int(rss_path.read_text()) / 1024 if rss_path.exists() else float("inf")
    return Outcome(os.waitstatus_to_exitcode(status), out_path.read_text("utf-8", "replace"),
                   err_path.read_text("utf-8", "replace"), time.monotonic() - start,
                   peak, timed_out.is_set())


@pytest.mark.parametrize("param", PROCESS_RUNS, ids=[_id(p) for p in PROCESS_RUNS])
def test_case_as_process(param: tuple[Case, str], tmp_path: Path) -> None:
    case, wire = param
    data_path = tmp_path / "input"
    data_path.write_bytes(case.make())
    target = "-" if case.stdin else str(data_path)
    outcome = check_process(["check", "--wire", wire, *case.args, target],
                            stdin=data_path if case.stdin else None, timeout=case.seconds, scratch=tmp_path)
    assert not outcome.timed_out, f"no verdict within {case.seconds}s"
    assert "Traceback" not in outcome.stderr
    if case.wires[wire].exit == 2:  # nothing to judge: misuse, one line, and no report
        _assert_nothing_checked(outcome.code, outcome.stdout, outcome.stderr)
        return
    assert outcome.stderr == ""
    found = {line.split(" ")[1] for line in outcome.stdout.splitlines()
             if " [MUST]" in line or " [SHOULD]" in line}
    _assert_verdict(outcome.code, found, case.wires[wire])
    assert len(outcome.stdout.splitlines()) <= MAX_TEXT_LINES
    assert outcome.max_rss_mib < case.max_rss_mib, f"peak RSS {outcome.max_rss_mib:.0f} MiB"
    print(f"{case.name} [{wire}]: {outcome.seconds:.2f}s, peak RSS {outcome.max_rss_mib:.0f} MiB")


def test_every_case_runs_somewhere() -> None:
    """No case is listed and then silently skipped by both ways in."""
    covered = {case.name for case, _ in SMALL} | {case.name for case, _ in PROCESS_RUNS}
    assert covered | (set() if deep() else DEEP_ONLY_BIG) == {case.name for case in CASES}
    assert covered >= ALSO_SUBPROCESS >= DEFAULT_SUBPROCESS
    assert {case.name for case in CASES if case.big} >= DEEP_ONLY_BIG  # no name there goes stale


# -- the two-process checker gives the one-process report on hostile input too --------------


# every small case in the deep run, every third in the default run (tests/checking/test_parallel.py holds
# the two-process report to the one-process one on every golden and a sample of the rule cases)
FIRST_WIRE = sample([(case, next(iter(case.wires))) for case in CASES if not case.big], 3)


@pytest.mark.parametrize("param", FIRST_WIRE, ids=[_id(p) for p in FIRST_WIRE])
def test_two_processes_agree_with_one(param: tuple[Case, str], tmp_path: Path) -> None:
    """``check --jobs 2`` (contract.checking.parallel, a forked worker) on every small hostile file."""
    case, wire = param
    path = tmp_path / case.name
    path.write_bytes(case.make())
    limit = int(case.args[1]) if case.args[:1] == ("--max-line-bytes",) else DEFAULT_MAX_LINE_BYTES
    reports = []
    for jobs in (1, 2):
        with open(path, "rb") as handle:
            reports.append(check(handle, wire, jobs=jobs, max_line_bytes=limit, source="f").to_json())
    assert reports[1] == reports[0]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_terminal_that_is_not_utf8_gets_no_traceback(fmt: str, tmp_path: Path) -> None:
    """Reports quote what they found and use non-ASCII marks: an ASCII stdout gets escapes instead."""
    data_path = tmp_path / "input"
    data_path.write_bytes(BY_NAME["random-binary"].make() + "é ü ✓\n".encode())
    outcome = check_process(["check", "--format", fmt, str(data_path)], stdin=None, timeout=20,
                            scratch=tmp_path, env={"PYTHONIOENCODING": "ascii"})
    assert (outcome.code, outcome.stderr) == (1, "")
    assert outcome.stdout.isascii()


def test_duplicate_key_deep_in_payload_points_at_its_object() -> None:
    data = BY_NAME["duplicate-key-deep-in-payload"].make()
    [finding] = [v for v in check(data, "stream-json").violations if v.rule == "line.duplicate-key"]
    assert (finding.line, finding.pointer) == (6, "/message/content/1/input/a/b/0")
    assert '"c" repeated' in finding.message
