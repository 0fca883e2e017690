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


def test_sigterm_mid_stream_reports_the_lines_fed(tmp_path: Path) -> None:
    notes = tmp_path / "read"
    proc = subprocess.Popen([PY, "-m", "contract", "feed", "--format", "json", "--pace", "1", "--scenario",
                             "tool_calls", "--", PY, "-c", NOTES, str(notes)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        until = time.monotonic() + 60
        while _lines_in(notes) < 3:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < until, "the consumer never read three lines"
            time.sleep(0.02)
        read = _lines_in(notes)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + signal.SIGTERM, err
    report = json.loads(out)
    [message] = [v["message"] for v in report["violations"] if v["rule"] == "run.interrupted"]
    fed = int(re.search(r"after (\d+) lines?", message).group(1))  # type: ignore[union-attr]
    assert read <= fed <= read + 1, (read, message)
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
    proc = subprocess.Popen([PY, "-m", "contract", "feed", "--wire", "subagent-stdio", "--format", "json",
                             "--timeout", "60", "--scenario", "first_poll", "--", PY, "-c", CLIENT, str(notes)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        until = time.monotonic() + 60
        while _lines_in(notes) < 1:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < until, "the client never read its response"
            time.sleep(0.02)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + signal.SIGTERM, err
    report = json.loads(out)
    [message] = [v["message"] for v in report["violations"] if v["rule"] == "run.interrupted"]
    fed = int(re.search(r"after (\d+) lines?", message).group(1))  # type: ignore[union-attr]
    assert fed >= 2, message  # its command and the response it read, at least
