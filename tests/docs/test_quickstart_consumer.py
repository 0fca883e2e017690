"""The README's "Quick start: consumer authors" runs as written and says what it shows.

The fenced block after ``<!-- quickstart:consumer -->`` is extracted and run with bash (``-e``: any
command that fails, fails the test) in a fresh folder, with this interpreter's scripts first on
PATH, as a checkout with its venv active would run it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.test_quickstarts import quickstart as readme_quickstart
from tests.support.paths import ROOT

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)



def quickstart() -> str:
    return readme_quickstart("consumer")


# 13 s (seven feeds and the whole vectors export): the deep run, which CI runs too; the default
# run keeps the quick starts of tests/docs/test_quickstarts.py and each feed mode's own tests
@pytest.mark.deep
def test_the_consumer_quick_start_runs_as_written(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(ROOT)  # the checkout's contract, as an editable install gives it
    done = subprocess.run(["bash", "-e", "-c", quickstart()], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "rejected, as expected" in done.stdout
    assert "failing stream: hello+line-type" in done.stdout  # shrunk to one unknown line
    assert (tmp_path / "vectors" / "index.json").is_file()
