"""The statement's HTML page and a three-build matrix page, rendered by a real browser (headless
Chromium) in the deep run: the DOM it builds holds the verdict table and the level badge, the page
logs no console error, and a screenshot of each is kept as a CI artefact (``MILK_CONTRACT_ARTEFACTS``,
else the test's temporary folder). Skipped, with the reason, only where Chromium is not installed
(``.ci/run`` installs Debian's ``chromium`` when it is absent).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from contract.cli import run
from tests.support.depth import deep
from tests.support.paths import TESTS

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(not deep(), reason="deep: runs in the deep run only (tox -e deep; tests/support/depth.py)"),
    pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (.ci/run installs Debian's "
                                                "chromium; apt-get install -y chromium)"),
]
FAULTY = TESTS / "faulty_emitters" / "one_fault_build.py"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--disable-extensions", "--enable-logging=stderr", "--v=0"]


class _Dom(HTMLParser):
    """What the browser's DOM holds: the tables' classes, their rows, the badge's level, each verdict
    cell's text and style, the wire group headers and the build column headers' text."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[str] = []
        self.rows = 0
        self.badges: list[str] = []
        self.cells: list[tuple[str, str]] = []  # (style, text) of each verdict cell
        self.wires: list[str] = []
        self.builds: list[str] = []
        self._into: list[str] | None = None
        self._style = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table":
            self.tables.append(found.get("class") or "")
        if tag == "tr" and "data-rule" in found:
            self.rows += 1
        if tag == "span" and found.get("class") == "badge":
            self.badges.append(found.get("data-level") or "")
        if tag == "td" and found.get("class") == "verdict":
            self._style, self._into = found.get("style") or "", []
        if tag == "th" and found.get("class") == "wire":
            self.wires.append("")
        if tag == "th" and (found.get("class") or "").startswith("build"):
            self.builds.append("")

    def handle_data(self, data: str) -> None:
        if self._into is not None:
            self._into.append(data)
        elif self.wires and self.lasttag == "th" and self.wires[-1] == "":
            self.wires[-1] = data
        elif self.builds and self.lasttag == "th" and self.builds[-1] == "":
            self.builds[-1] = data

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._into is not None:
            self.cells.append((self._style, "".join(self._into)))
            self._into = None


def _render(page: Path, shots: Path) -> tuple[_Dom, str]:
    assert CHROMIUM is not None
    profile = shots / f"profile-{page.stem}"
    common = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}"]
    done = subprocess.run([*common, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    subprocess.run([*common, f"--screenshot={shots / (page.stem + '.png')}", "--window-size=1280,2000",
                    page.as_uri()], capture_output=True, timeout=120, check=False)
    dom = _Dom()
    dom.feed(done.stdout)
    return dom, done.stderr


def _console_errors(log: str) -> list[str]:
    """Every console message the page logged (Chromium logs console.error as INFO:CONSOLE): the pages
    have no script, so any is a fault."""
    return [line for line in log.splitlines() if ":CONSOLE" in line]


def test_the_console_check_can_fail(tmp_path: Path) -> None:
    page = tmp_path / "noisy.html"
    page.write_text('<html><body><script>console.error("boom")</script></body></html>', encoding="utf-8")
    _, log = _render(page, tmp_path)
    assert any('"boom"' in line for line in _console_errors(log))


def test_the_statement_and_matrix_pages_render_in_chromium(tmp_path: Path) -> None:
    shots = Path(os.environ.get("MILK_CONTRACT_ARTEFACTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    builds = {"reference": [], "ts": ["--", sys.executable, str(FAULTY), "ts"],
              "seq": ["--", sys.executable, str(FAULTY), "seq"]}
    for name, command in builds.items():  # in their own process: the bundled registry alone
        subprocess.run([sys.executable, "-m", "contract", "statement", "--output", str(tmp_path / f"{name}.json"),
                        *command], capture_output=True, timeout=600, check=False)
    levels = [json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8"))["level"]["achieved"]
              for name in builds]
    assert levels == ["MUST+SHOULD", "MUST", "none"]
    page = tmp_path / "statement.html"
    assert subprocess.run([sys.executable, "-m", "contract", "statement", "--format", "html", "--output", str(page)],
                          capture_output=True, timeout=600, check=False).returncode == 0
    matrix = tmp_path / "matrix.html"
    assert run(["matrix", "--format", "html", "--output", str(matrix),
                *(str(tmp_path / f"{name}.json") for name in builds)]) == 0
    dom, log = _render(page, shots)
    assert dom.tables == ["verdicts", "verdicts"]  # one per wire
    assert dom.rows > 40
    assert dom.badges == ["MUST+SHOULD"]
    assert not _console_errors(log)
    dom, log = _render(matrix, shots)
    assert dom.tables == ["matrix"]
    assert dom.badges == levels
    assert dom.rows > 40
    assert not _console_errors(log)
    # issue 51: verdicts coloured as the statement page's, the wire once per group, builds by name
    fails = [style for style, text in dom.cells if text == "FAIL"]
    passes = [style for style, text in dom.cells if text == "pass"]
    assert fails
    assert all("#ffebe9" in style for style in fails)
    assert all("#dafbe1" in style for style in passes)
    assert dom.wires == ["stream-json", "subagent-stdio"]
    assert dom.builds[1:] == ["python3 one_fault_build.py ts, one-fault-build 1.0 (ts)".replace(
        "python3", Path(sys.executable).name), "python3 one_fault_build.py seq, one-fault-build 1.0 (seq)".replace(
        "python3", Path(sys.executable).name)]
    assert not any("(unknown)" in b or str(TESTS) in b for b in dom.builds)
