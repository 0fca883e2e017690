"""milk CI, documented so it works: the install lines and the example workflow (issues 13, 21).

The example job must install the suite without an index entry for it, run the shipped suite
against a build with a JUnit report, and keep that report even when the suite fails; neither the
README nor the milk CI page (docs/milk-ci.md) may tell anyone to `pip install milk-contract` (it
is not published), and the page must state the replay contract. The job's pytest command is
run for real against the reference emitter.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGE = (ROOT / "docs" / "milk-ci.md").read_text(encoding="utf-8")
yaml = pytest.importorskip("yaml")  # pre-commit (the test extra) brings PyYAML
JOB: dict[str, Any] = yaml.safe_load((ROOT / "examples" / "github-actions.yml").read_text(encoding="utf-8"))


def _steps() -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = JOB["jobs"]["contract"]["steps"]
    return steps


def test_the_docs_never_install_from_an_index() -> None:
    for text in (README, PAGE):
        assert not re.search(r"pip install milk-contract\s*$", text, re.MULTILINE)
    assert "pip install ./milk-contract" in README
    for way in ("pip install ./milk-contract", "python -m build --wheel", "git+https://"):
        assert way in PAGE


def test_the_milk_ci_page_states_the_replay_contract() -> None:
    start = PAGE.index("## The replay contract")
    section = PAGE[start:PAGE.index("\n## ", start + 1)]
    for term in ("MILK_CONTRACT_SCENARIO", "MILK_CONTRACT_GOLDEN", "reproduce.argv", "reproduce.exit_status",
                 "stdin", "normalised", "must match exactly", "contract/goldens/normalize.py"):
        assert term in section, term


def test_the_example_job_installs_runs_and_keeps_the_report() -> None:
    runs = " ".join(str(s.get("run", "")) for s in _steps())
    assert "pip install ./milk-contract" in runs
    assert "pytest --pyargs contract" in runs
    assert "--contract-emitter" in runs
    assert "--junitxml=contract-report.xml" in runs
    upload = next(s for s in _steps() if str(s.get("uses", "")).startswith("actions/upload-artifact"))
    assert upload["if"] == "always()"
    assert upload["with"]["path"] == "contract-report.xml"
    order = [i for i, s in enumerate(_steps()) if "Build milk" in s.get("name", "") or "pytest" in str(s.get("run"))]
    assert order == sorted(order)


@pytest.mark.process
def test_the_example_pytest_command_runs(tmp_path: Path) -> None:
    """The job's command, with the bundled reference emitter as ./bin/milk, passes and writes JUnit."""
    run = next(str(s["run"]) for s in _steps() if "pytest" in str(s.get("run", "")))
    argv = shlex.split(run.replace("\n", " "))
    assert argv[:3] == ["python", "-m", "pytest"]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    milk = bin_dir / "milk"
    milk.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m contract.reference.stream_json_emitter "
                    '"$@"\n', encoding="utf-8")
    milk.chmod(0o755)
    # hypothesis' plugin is left out: its import is most of pytest's start-up, and the suite run
    # with every plugin, as CI would, is tests/plugin/test_plugin.py::test_faithful_replay_passes
    done = subprocess.run([sys.executable, *argv[1:], "-p", "no:hypothesispytest",
                           "-k", "stream-json and (hello or refused)"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    cases = ET.parse(tmp_path / "contract-report.xml").getroot().iter("testcase")
    scenarios = [c.get("name") for c in cases if str(c.get("name", "")).startswith("test_scenario")]
    assert scenarios == ["test_scenario[stream-json/hello]", "test_scenario[stream-json/refused]"]
