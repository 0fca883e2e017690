"""The pre-commit hook (.pre-commit-hooks.yaml) through ``pre-commit try-repo``, offline.

try-repo clones this checkout (with its uncommitted changes) and runs the hook on a scratch git
repository holding the goldens and one broken transcript: it fails, naming the broken one, and
finds every golden conformant (one try-repo, which clones the checkout, instead of two). The hook is
``language: system``, so it runs the ``milk-contract`` of this virtualenv (put first on PATH)
and needs no package index. Skipped where git or pre-commit is missing (pre-commit is a test
extra: only this test uses it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

ROOT = Path(__file__).resolve().parent.parent
GOLDENS = ROOT / "goldens"
BIN = Path(sys.executable).parent


def _pre_commit() -> str:
    found = shutil.which("pre-commit", path=str(BIN)) or shutil.which("pre-commit")
    if found is None:
        pytest.skip("pre-commit is not installed (pip install -e '.[test]')")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: try-repo needs one to clone")
    return found


def _git(repo: Path, *argv: str) -> None:
    subprocess.run(["git", "-C", str(repo), *argv], check=True, capture_output=True, timeout=60)


def _try_repo(pre_commit: str, repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "PRE_COMMIT_HOME": str(home),
           "PIP_NO_INDEX": "1", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    return subprocess.run([pre_commit, "try-repo", str(ROOT), "milk-contract", "--all-files", "--color", "never"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=300)


def test_hook_passes_on_the_goldens_and_fails_on_a_broken_transcript(tmp_path: Path) -> None:
    pre_commit = _pre_commit()
    repo = tmp_path / "repo"
    shutil.copytree(GOLDENS, repo / "goldens", ignore=shutil.ignore_patterns("*.meta.json"))
    (repo / "README.txt").write_text("not a transcript: the hook must not see it\n")
    hello = (GOLDENS / "stream-json" / "hello.jsonl").read_text().splitlines(keepends=True)
    (repo / "captures").mkdir()
    (repo / "captures" / "broken.jsonl").write_text("".join(hello[1:]))  # no system/init first
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    failed = _try_repo(pre_commit, repo, tmp_path / "home")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "Failed" in failed.stdout
    assert "captures/broken.jsonl: NOT conformant" in failed.stdout
    assert "sj.init-first" in failed.stdout
    # the near miss, in the same run: every golden passes (wire detected per file), and only
    # *.jsonl files are handed to the hook
    goldens = sorted(p.relative_to(repo).as_posix() for p in (repo / "goldens").rglob("*.jsonl"))
    assert goldens
    for golden in goldens:
        assert f"{golden}: conformant" in failed.stdout, golden
    assert failed.stdout.count(": NOT conformant") == 1, failed.stdout
    assert f"{len(goldens) + 1} files: {len(goldens)} conformant, 1 NOT conformant" in failed.stdout
    assert "README.txt" not in failed.stdout
