"""``feed`` interrupted by SIGTERM counts the lines it fed (issue 51: "after 0 lines" when three were).

The consumer notes each line it reads in a file; once it has read three, the feed gets SIGTERM
(CI cancellation). The report's ``run.interrupted`` says how many lines were written to the
consumer: at least those it read, at most one more (the next may be on its way), never 0.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.process

PY = sys.executable
NOTES = """
import sys
with open(sys.argv[1], "a") as notes:
    for line in sys.stdin:
        notes.write("x\\n")
        notes.flush()
"""


def _lines_in(path: Path) -> int:
    try:
        return path.read_text().count("\n")
    except OSError:
        return 0


def _interrupted(argv: list[str], notes: Path, lines: int, what: str) -> tuple[int, dict[str, Any], int]:
    """``milk-contract ARGV`` given SIGTERM once the consumer noted ``lines`` lines: the lines it had
    noted then, the JSON report, and the count its ``run.interrupted`` finding says were fed."""
    proc = subprocess.Popen([PY, "-m", "contract", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        until = time.monotonic() + 60
        while _lines_in(notes) < lines:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < until, what
            time.sleep(0.02)
        read = _lines_in(notes)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + signal.SIGTERM, err
    report: dict[str, Any] = json.loads(out)
    [message] = [v["message"] for v in report["violations"] if v["rule"] == "run.interrupted"]
    found = re.search(r"after (\d+) lines?", message)
    assert found is not None, message
    return read, report, int(found.group(1))


def test_sigterm_mid_stream_reports_the_lines_fed(tmp_path: Path) -> None:
    notes = tmp_path / "read"
    read, report, fed = _interrupted(["feed", "--format", "json", "--pace", "1", "--scenario", "tool_calls", "--",
                                      PY, "-c", NOTES, str(notes)], notes, 3, "the consumer never read three lines")
    assert read <= fed <= read + 1, (read, fed)
    assert report["lines"] == fed


CLIENT = """
import json, sys, time
sys.stdout.write(json.dumps({"type": "subagent_status", "version": 1, "id": "p1"}) + "\\n")
sys.stdout.flush()
sys.stdin.readline()
open(sys.argv[1], "w").write("x\\n")
time.sleep(60)
"""


def test_sigterm_mid_conversation_reports_its_lines(tmp_path: Path) -> None:
    notes = tmp_path / "read"
    _, _, fed = _interrupted(["feed", "--wire", "subagent-stdio", "--format", "json", "--timeout", "60", "--scenario",
                              "first_poll", "--", PY, "-c", CLIENT, str(notes)], notes, 1,
                             "the client never read its response")
    assert fed >= 2, fed  # its command and the response it read, at least
