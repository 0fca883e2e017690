"""The compat matrix's HTML page rendered by headless Chromium, as the statement pages are
(tests/statement/test_statement_browser.py: its renderer and console check, reused): the DOM holds one
``compat`` table, a row per consumer version, a column per revision, the expected verdicts coloured as the
statement page's, and the page logs no console error. Deep run only; skipped, saying why, without Chromium.
"""

from __future__ import annotations

import os
import subprocess
from html.parser import HTMLParser
from pathlib import Path

from contract import cli
from tests.compat.test_matrix import EXPECTED, _checkout, _sdk
from tests.statement.test_statement_browser import CHROMIUM, FLAGS, _console_errors, _render
from tests.statement.test_statement_browser import pytestmark as browser_marks

pytestmark = browser_marks


class _Cells(HTMLParser):
    """The compat table's revision headers, consumer rows and verdict cells (verdict, style)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[str] = []
        self.revisions: list[str] = []
        self.consumers: list[str] = []
        self.cells: list[tuple[str, str]] = []
        self._into: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table":
            self.tables.append(found.get("class") or "")
        if tag == "th" and found.get("class") in ("revision", "consumer"):
            self._into = []
        if tag == "td" and found.get("class") == "verdict":
            self.cells.append((found.get("data-verdict") or "", found.get("style") or ""))

    def handle_data(self, data: str) -> None:
        if self._into is not None:
            self._into.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "th" and self._into is not None:
            text = "".join(self._into)
            (self.revisions if text.startswith("stream-json") else self.consumers).append(text)
            self._into = None


def test_the_compat_page_renders_in_chromium(tmp_path: Path) -> None:
    shots = Path(os.environ.get("MILK_CONTRACT_ARTEFACTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    root = _checkout(tmp_path / "root", [_sdk("0.1.0"), _sdk("0.2.0")])
    page = tmp_path / "compat.html"
    assert cli.run(["compat", "--root", str(root), "--consumers", str(root / "milk-consumers.json"),
                    "--format", "html", "--output", str(page)]) == 1
    dom, log = _render(page, shots)  # the statement test's: a screenshot kept, the console's log
    assert not _console_errors(log)
    assert dom.tables == ["compat"]
    assert CHROMIUM is not None
    dumped = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.as_uri()],
                            capture_output=True, text=True, timeout=120, check=False)
    assert dumped.returncode == 0
    cells = _Cells()
    cells.feed(dumped.stdout)  # the DOM the browser built
    assert cells.tables == ["compat"]
    assert cells.revisions == ["stream-json r1", "stream-json r2"]
    assert cells.consumers == ["sdk 0.1.0", "sdk 0.2.0"]
    expected = [EXPECTED[(v, r)][0] for v in ("0.1.0", "0.2.0") for r in ("r1", "r2")]
    assert [verdict for verdict, _ in cells.cells] == expected
    assert all("#ffebe9" in style for verdict, style in cells.cells if verdict == "fail")
    assert all("#dafbe1" in style for verdict, style in cells.cells if verdict == "pass")
