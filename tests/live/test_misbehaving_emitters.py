"""Misbehaving emitters and hosts get a verdict in bounded time, leave nothing behind, keep stderr.

Stream-json emitters (tests/faulty_emitters/) run through ``contract.live.harness.run_stream`` (what
``milk-contract run`` calls) and subagent-stdio hosts (tests/faulty_hosts/: the ones added for
this file; the driver's own tests cover the rest) through ``contract.live.driver.converse``. For each:
the rules that name the fault, the wall time against the timeout plus a margin, the emitter's
recognisable stderr line in both the text and the JSON report, and no process left carrying the
run's marker argument (the emitter passes it to every child it starts).
"""

from __future__ import annotations

import json
import os
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from contract import cli
from contract.live.driver import EXIT_GRACE, Step, command, converse
from contract.live.harness import GRACE_SECONDS, run_stream
from contract.reporting.reporters import render_json, render_text
from contract.rules.report import Report
from tests.checking.test_hostile import check_process
from tests.support.paths import TESTS
from tests.support.processes import zombie_children

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

HERE = TESTS
EMITTERS = HERE / "faulty_emitters"
HOSTS = HERE / "faulty_hosts"
SLACK = 3.0  # interpreter start-up and scheduling on a loaded two-core machine
MiB = 1024 * 1024


@dataclass(frozen=True)
class Misbehaviour:
    name: str
    script: Path
    run: Callable[[list[str]], Report]
    rules: frozenset[str]
    stderr: str  # a line the script writes on stderr
    budget: float  # seconds the verdict may take, start-up included
    args: tuple[str, ...] = ()
    exit_status: int | None = None
    absent: frozenset[str] = field(default=frozenset())


def _stream(**options: Any) -> Callable[[list[str]], Report]:
    return lambda argv: run_stream(argv, **options)


def _host(**options: Any) -> Callable[[list[str]], Report]:
    return lambda argv: converse(argv, **options)


HUNG = 1.0  # an emitter that hangs must have started and written its stderr line by then
# a host that never reads and never exits: killed after its timeout and a short exit grace
# (the driver's default, EXIT_GRACE, is for hosts that do exit), by when it has started and
# written its stderr line
HOST_HUNG = 0.8
HOST_GRACE = 0.1
# the wait for one response (or for the host to take a command) when the case is about the host
# having its time: well inside HOST_HUNG, counted from the write, which does not wait for start-up
HOST_RESPONSE = 0.3
KILL_MARGIN = GRACE_SECONDS + SLACK
# a descendant that holds stdout costs the late grace: a small one keeps such cases cheap (the
# ones whose descendants write or close within the grace run with the default: they cost nothing)
LATE = 0.2
HOST_MARGIN = EXIT_GRACE + GRACE_SECONDS + SLACK
BIG_STEP = (Step(tuple(command("c" * 1000 + str(i)) for i in range(200))),)  # 200 KB: over a pipe's 64 KiB

CASES: tuple[Misbehaviour, ...] = (
    # hangs.py: test_cli_run_reports_a_hung_emitter (the same run through the CLI)
    Misbehaviour("exits-early", EMITTERS / "exits_early.py", _stream(timeout=20),
                 frozenset({"run.exit-status", "sj.result-last"}), "giving up before the result", SLACK,
                 exit_status=3),
    Misbehaviour("sigkill", EMITTERS / "killed.py", _stream(timeout=20),
                 frozenset({"run.exit-status", "sj.result-last"}), "about to die by SIGKILL", SLACK,
                 args=("KILL",), exit_status=-9),
    Misbehaviour("sigsegv", EMITTERS / "killed.py", _stream(timeout=20),
                 frozenset({"run.exit-status", "sj.result-last"}), "about to die by SIGSEGV", SLACK,
                 args=("SEGV",), exit_status=-11),
    Misbehaviour("floods-with-limit", EMITTERS / "floods.py", _stream(timeout=20, max_output_bytes=MiB),
                 frozenset({"run.output-limit"}), "flooding stdout", SLACK, absent=frozenset({"run.timeout"})),
    # floods without a limit: test_flood_without_limit_keeps_the_checker_small (the same run, measured)
    Misbehaviour("writes-after-result", EMITTERS / "writes_after_result.py", _stream(timeout=20),
                 frozenset({"sj.result-last"}), "wrote a line after the result", SLACK, exit_status=0,
                 absent=frozenset({"run.exit-status"})),
    Misbehaviour("closes-stdout-keeps-running", EMITTERS / "closes_stdout.py", _stream(timeout=HUNG),
                 frozenset({"run.timeout"}), "closed stdout, still running", HUNG + KILL_MARGIN),
    Misbehaviour("leaves-child-holding-stdout", EMITTERS / "leaves_child.py", _stream(timeout=20, late_grace=LATE),
                 frozenset({"run.stdout-held"}), "a child still holds stdout", SLACK, exit_status=0,
                 absent=frozenset({"run.timeout", "run.exit-status"})),
    # issue 20: a child writes a line 50 ms after the emitter exited 0, after the result; a real
    # `milk … | consumer` pipe receives it, so it is judged (the default grace: it costs nothing)
    Misbehaviour("child-writes-after-exit", EMITTERS / "late_child.py", _stream(timeout=20),
                 frozenset({"sj.result-last"}), "a child will line", SLACK, args=("line",), exit_status=0,
                 absent=frozenset({"run.stdout-held", "run.timeout"})),
    Misbehaviour("child-closes-stdout-after-exit", EMITTERS / "late_child.py", _stream(timeout=20),
                 frozenset(), "a child will close", SLACK, args=("close",), exit_status=0),
    Misbehaviour("host-leaves-child-holding-stdout", HOSTS / "leaves_child.py", _host(timeout=20, late_grace=LATE),
                 frozenset({"run.stdout-held"}), "leaving a child holding stdout", SLACK, exit_status=0,
                 absent=frozenset({"run.timeout", "run.exit-status"})),
    Misbehaviour("megabytes-of-stderr", EMITTERS / "huge_stderr.py", _stream(timeout=20),
                 frozenset(), "done with the noise", SLACK, exit_status=0),
    # with a response timeout shorter than the conversation's, the host had its time to read and
    # answer: run.no-response, then run.timeout when it does not exit either
    Misbehaviour("host-never-reads-stdin", HOSTS / "never_reads.py",
                 _host(timeout=HOST_HUNG, response_timeout=HOST_RESPONSE, exit_grace=HOST_GRACE),
                 frozenset({"run.no-response", "run.timeout"}), "not reading stdin", HOST_HUNG + HOST_MARGIN),
    # without one, the conversation's deadline cut the wait: the suite stopped it (run.timeout only)
    Misbehaviour("host-never-reads-stdin-to-the-deadline", HOSTS / "never_reads.py",
                 _host(timeout=HOST_HUNG, exit_grace=HOST_GRACE),
                 frozenset({"run.timeout"}), "not reading stdin", HOST_HUNG + HOST_MARGIN,
                 absent=frozenset({"run.no-response"})),
    Misbehaviour("host-never-reads-a-big-step", HOSTS / "never_reads.py",
                 _host(timeout=HOST_HUNG, response_timeout=HOST_RESPONSE, plan=BIG_STEP, exit_grace=HOST_GRACE),
                 frozenset({"run.no-response", "run.timeout"}), "not reading stdin", HOST_HUNG + HOST_MARGIN),
    # no output limit in reach: on a fast machine 64 MiB came before the timeout (run.output-limit,
    # the next case), which made this case's run.timeout depend on the machine's speed
    Misbehaviour("host-endless-line", HOSTS / "endless_line.py",
                 _host(timeout=HUNG, response_timeout=HOST_RESPONSE, max_line_bytes=4096, max_output_bytes=1 << 40),
                 frozenset({"line.limit", "run.no-response", "run.timeout"}), "one line without end",
                 HUNG + HOST_MARGIN),
    Misbehaviour("host-endless-line-output-limit", HOSTS / "endless_line.py",
                 _host(timeout=20, max_output_bytes=MiB), frozenset({"run.output-limit"}),
                 "one line without end", SLACK + GRACE_SECONDS),
    Misbehaviour("host-killed-by-signal", HOSTS / "killed.py", _host(timeout=20),
                 frozenset({"run.exit-status", "run.no-response"}), "SIGKILL on the second command",
                 SLACK, exit_status=-9),
)


def survivors(marker: str) -> list[int]:
    """Live processes whose argv carries ``marker`` (a zombie's cmdline reads empty)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if marker.encode() in argv:
            found.append(int(entry.name))
    return found


@pytest.fixture
def marker() -> Iterator[str]:
    """A unique argv token for one run; afterwards no process may still carry it, and no child
    of this process may be left a zombie."""
    token = f"milk-faulty-{uuid.uuid4().hex}"
    yield token
    deadline = time.monotonic() + 1.0  # SIGKILL is asynchronous: give the kernel a moment
    while survivors(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = survivors(token)
    for pid in left:  # never leak into the rest of the run, even when failing
        os.kill(pid, 9)
    assert not left, f"processes left behind: {left}"
    # as a subreaper the harness inherits the emitter's orphans: killed, none may stay our zombie
    assert not zombie_children(), f"zombie children left: {zombie_children()}"


# a host that never reads, in the default run: host-never-reads-stdin (its time to read, then its timeout)
DEEP_ONLY = {"host-never-reads-stdin-to-the-deadline", "host-never-reads-a-big-step"}


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name, marks=[pytest.mark.deep] if c.name in DEEP_ONLY else [])
                                  for c in CASES])
def test_misbehaviour_gets_a_verdict(case: Misbehaviour, marker: str) -> None:
    began = time.monotonic()
    report = case.run([sys.executable, str(case.script), marker, *case.args])
    took = time.monotonic() - began
    assert took < case.budget, f"verdict took {took:.1f}s"
    found = report.rules()
    assert case.rules <= found, f"missing {sorted(case.rules - found)}; found {sorted(found)}"
    assert not (case.absent & found)
    assert report.conformant == (not case.rules)
    if case.exit_status is not None:
        assert report.exit_status == case.exit_status
    assert case.stderr in render_text(report)
    assert case.stderr in json.loads(render_json(report))["stderr"]


def test_signal_is_named_in_the_report(marker: str) -> None:
    report = run_stream([sys.executable, str(EMITTERS / "killed.py"), marker, "SEGV"], timeout=20)
    [status] = [v for v in report.violations if v.rule == "run.exit-status"]
    assert "killed by signal SIGSEGV" in status.message


def test_cli_run_reports_a_hung_emitter(marker: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The misbehaviour "hangs" (a case of its own before), checked through the CLI's JSON."""
    began = time.monotonic()
    code = cli.run(["run", "--timeout", str(HUNG), "--format", "json", "--",
                    sys.executable, str(EMITTERS / "hangs.py"), marker])
    assert time.monotonic() - began < HUNG + KILL_MARGIN
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert {"run.timeout", "sj.result-last"} <= set(report["counts"])
    assert not report["conformant"]
    assert report["exit_status"] == -9
    assert "wrote init, now hanging" in report["stderr"]


def test_basis_written_never_hides_a_timeout(marker: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Fail closed (issue 23): run.timeout is policy, yet no --basis drops it; the missing result
    (sj.result-last, written) is judged as well, and fails too: a stream that does not show a
    whole run fails under any --basis."""
    code = cli.run(["run", "--basis", "derived", "--timeout", str(HUNG), "--format", "json", "--",
                    sys.executable, str(EMITTERS / "hangs.py"), marker])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert report["bases"] == ["derived"]
    assert not report["conformant"]
    judged = {v["rule"] for v in report["violations"] if v["judged"]}
    assert "run.timeout" in judged  # policy, always judged
    assert "sj.result-last" in judged  # written, yet judged under --basis derived (not filterable)
    assert "sj.result-last" in report["counts"]


def test_cli_run_max_output_bytes_stops_a_flood(marker: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.run(["run", "--timeout", "20", "--max-output-bytes", str(MiB), "--",
                    sys.executable, str(EMITTERS / "floods.py"), marker])
    text = capsys.readouterr().out
    assert code == 1
    assert " run.output-limit [MUST]" in text
    assert "faulty-emitter floods: flooding stdout" in text


def test_flood_without_limit_keeps_the_checker_small(marker: str, tmp_path: Path) -> None:
    """Memory: the live checker streams what it reads, however much the emitter writes.

    Also the misbehaviour "floods without a limit" (a case of its own before): a timeout, no
    output limit, and the emitter's stderr in the report."""
    outcome = check_process(["run", "--timeout", "1", "--", sys.executable, str(EMITTERS / "floods.py"), marker],
                            stdin=None, timeout=1 + KILL_MARGIN + 5, scratch=tmp_path)
    assert not outcome.timed_out
    assert outcome.code == 1
    assert "Traceback" not in outcome.stderr
    assert " run.timeout [MUST]" in outcome.stdout
    assert " run.output-limit [MUST]" not in outcome.stdout  # the default limit is not reached in a second
    assert "faulty-emitter floods: flooding stdout" in outcome.stdout  # its stderr, in the report
    assert outcome.max_rss_mib < 300, f"peak RSS {outcome.max_rss_mib:.0f} MiB"


@pytest.mark.parametrize(("grace", "code", "rule"), [("0.2", 1, "run.stdout-held"), ("-1", 2, None)])
def test_cli_run_late_grace(grace: str, code: int, rule: str | None, marker: str,
                            capsys: pytest.CaptureFixture[str]) -> None:
    """``--late-grace`` reaches the harness (its seconds are in the finding); below zero is misuse."""
    assert cli.run(["run", "--timeout", "20", "--late-grace", grace, "--format", "json", "--",
                    sys.executable, str(EMITTERS / "leaves_child.py"), marker]) == code
    captured = capsys.readouterr()
    if rule is None:
        assert "--late-grace" in captured.err
        assert captured.err.count("\n") == 1
        return
    [held] = [v for v in json.loads(captured.out)["violations"] if v["rule"] == rule]
    assert f"within {grace}s of its exit" in held["message"]


def test_a_setsid_descendant_with_no_environment_is_reaped(marker: str, tmp_path: Path) -> None:
    """Out of the group and the session, no run token, stdout let go: the one descendant neither the
    group nor the token finds once its parents exited. It is then our adopted orphan, and reaped
    (an outside review left `env -i setsid sleep` running after a conformant run). The ``marker``
    fixture fails if it is still alive."""
    pidfile = tmp_path / "pid"
    report = run_stream([sys.executable, str(EMITTERS / "anonymous_orphan.py"), marker, str(pidfile)], timeout=20,
                        late_grace=0.2)
    assert report.conformant, report.violations
    orphan = int(pidfile.read_text())
    deadline = time.monotonic() + 1.0
    while orphan in survivors(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert orphan not in survivors(marker)
