"""The README's quick starts run as written: each fenced ``sh`` block after a ``<!-- quickstart:NAME -->``
marker is extracted and run with bash ``-e`` (any command that fails, fails the test), with this
interpreter's scripts first on PATH, as a shell with the checkout's venv active runs it.

The consumer authors' block has its own test (tests/docs/test_quickstart_consumer.py) and the ADR authors'
block is the ADR walk (tests/evolution/test_adr_walk.py); this file holds the others, and the README's shape:
a short page whose quick starts come first and whose links all resolve.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.support.depth import deep
from tests.support.paths import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
README_LINES = 250  # issue 21: "README under ~250 lines"; the detail is in docs/


def quickstart(name: str, text: str = README) -> str:
    """The fenced sh block after ``<!-- quickstart:name -->``."""
    marker = f"<!-- quickstart:{name} -->"
    match = re.search(re.escape(marker) + r"\n```sh\n(.*?)\n```", text, re.DOTALL)
    assert match, f"README has no fenced sh block after {marker}"
    return match.group(1)


def _shell(script: str, cwd: Path, bin_dir: Path, **env_extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "MILK_CONTRACT_"))}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env.update(env_extra)
    return subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600, check=False)


def test_the_readme_is_short_and_starts_with_the_quick_starts() -> None:
    assert README.count("\n") <= README_LINES
    headings = re.findall(r"^## (.+)$", README, re.MULTILINE)
    starts = [h for h in headings if h.startswith("Quick start: ")]
    assert [h.split(": ", 1)[1] for h in starts] == ["emitter authors", "milk CI", "ADR authors", "consumer authors"]
    assert headings.index(starts[0]) <= 1  # right after "The two commands"


def _anchors(page: Path) -> set[str]:
    """The heading anchors of a markdown page, as GitHub makes them."""
    headings = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_every_relative_link_in_the_docs_resolves() -> None:
    """Files and headings both: a section that moved must not leave a link to where it was."""
    pages = [ROOT / "README.md", ROOT / "BENCHMARKS.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            linked = page.parent / path if path else page
            if not linked.exists() or (anchor and linked.suffix == ".md" and anchor not in _anchors(linked)):
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken


@pytest.mark.process
def test_the_emitter_authors_quick_start_runs_as_written(tmp_path: Path) -> None:
    (tmp_path / "goldens").symlink_to(ROOT / "goldens")  # the block names the bundled goldens
    done = _shell(quickstart("emitter"), tmp_path, Path(sys.executable).parent, PYTHONPATH=str(ROOT))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "hello.jsonl: conformant" in done.stdout
    assert "sj.result-last [MUST]" in done.stdout  # the truncated capture, said with its rule
    assert "not conformant, as expected" in done.stdout
    assert "line.ansi seen under: none of them" in done.stdout  # the provoked run's closing note
    report = (tmp_path / "report.json").read_text(encoding="utf-8")
    assert '"conformant": true' in report
    assert '"written"' in report  # --basis written: the bases judged are said


@pytest.mark.process
@pytest.mark.skipif(not deep(), reason="deep: runs in the deep run only (tox -e deep; tests/support/depth.py)")
def test_the_milk_ci_quick_start_runs_as_written(tmp_path: Path) -> None:
    """In a milk-like folder: milk-contract checked out beside the build, a fresh venv, the block's
    install and suite run, against a build written to the replay contract alone."""
    milk = tmp_path / "milk"
    shutil.copytree(ROOT, milk / "milk-contract", symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", ".tox", "__pycache__", ".hypothesis", ".pytest_cache", ".mypy_cache", ".ruff_cache",
        "*.egg-info", "build", "dist"))
    (milk / "bin").mkdir()
    build = milk / "bin" / "milk"
    shutil.copy(ROOT / "examples" / "replay_build.py", build)
    build.chmod(0o755)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    done = _shell(quickstart("milk-ci"), milk, venv / "bin", VIRTUAL_ENV=str(venv))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    suite = ET.parse(milk / "contract-report.xml").getroot().find("testsuite")
    assert suite is not None
    assert int(suite.get("tests", "0")) > 0
    assert suite.get("failures") == "0"
    assert suite.get("errors") == "0"


@pytest.mark.deep  # the statement it makes is held in tests/statement/test_statement.py; the block as written here
@pytest.mark.process
def test_the_statement_quick_start_runs_as_written(tmp_path: Path) -> None:
    done = _shell(quickstart("statement"), tmp_path, Path(sys.executable).parent, PYTHONPATH=str(ROOT))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "no requirement changed" in done.stdout  # the diff of a statement with itself
    import json

    statement = json.loads((tmp_path / "statement.json").read_text(encoding="utf-8"))
    assert statement["level"]["achieved"] == "MUST+SHOULD"
    for page in ("statement.html", "matrix.html"):
        assert 'data-level="MUST+SHOULD"' in (tmp_path / page).read_text(encoding="utf-8")
