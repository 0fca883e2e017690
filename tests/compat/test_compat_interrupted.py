"""An interrupted ``compat`` leaves no consumer running: Ctrl-C to the process group, or SIGTERM to
``milk-contract`` alone (a CI cancel), ends the run with 128 + the signal while the pool's workers kill
their consumers' groups. Before: a worker died by the signal and its consumer (in its own group) ran on.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.compat.test_matrix import _checkout

pytestmark = pytest.mark.process


def _alive(pid: int) -> bool:
    """Running: a zombie is not (killed, and reparented to a subreaper of this test process that has not
    reaped it yet: pytest-xdist's worker is one once another test ran the harness)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    return stat[stat.rindex(")") + 2:][:1] not in ("Z", "X")


@pytest.mark.parametrize(("signum", "group"), [(signal.SIGINT, True), (signal.SIGTERM, False)],
                         ids=["ctrl-c-to-the-group", "sigterm-to-milk-contract"])
def test_no_consumer_outlives_an_interrupted_pooled_run(signum: int, group: bool, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    waits = ["sh", "-c", f'echo $$ >> "{pids}"; exec sleep 60']
    root = _checkout(tmp_path / "root", [{"name": "waits", "version": v, "command": waits} for v in ("1", "2")])
    proc = subprocess.Popen([sys.executable, "-m", "contract", "compat", "--root", str(root), "--consumers",
                             str(root / "milk-consumers.json"), "--jobs", "2", "--timeout", "50"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        until = time.monotonic() + 60
        while not pids.exists() or pids.read_text().count("\n") < 2:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < until
            time.sleep(0.05)
        if group:
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 128 + signum, err[-3000:]
    assert b"Traceback" not in err, err[-3000:]
    started = [int(line) for line in pids.read_text().split()]
    until = time.monotonic() + 10  # the consumers are killed before milk-contract exits; reaping may lag
    while any(_alive(pid) for pid in started) and time.monotonic() < until:
        time.sleep(0.05)
    left = [pid for pid in started if _alive(pid)]
    assert not left, ([_said(pid) for pid in left], signum, started, err[-1500:])


def _said(pid: int) -> str:
    """A process left running, for the failure message: its state and its parent's command line."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
        parent = stat[stat.rindex(")") + 2:].split()[1]
        command = Path(f"/proc/{parent}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except (OSError, IndexError, ValueError):
        return f"{pid}: gone"
    return f"{pid}: {stat[stat.rindex(')') + 2:][:1]} parent {parent} {command[:200]}"
