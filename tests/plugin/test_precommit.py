"""The pre-commit hooks (.pre-commit-hooks.yaml) through ``pre-commit try-repo``, and their docs.

try-repo clones this checkout (with its uncommitted changes) and runs a hook on a scratch git
repository holding the goldens and one broken transcript: it fails, naming the broken one, and
finds every golden conformant (one try-repo, which clones the checkout, instead of two).

- ``milk-contract`` (``language: python``, the default) with no milk-contract anywhere on PATH:
  pre-commit builds the package into a virtualenv of its own from the package index pip is
  configured with. Deep run: the build takes a while.
- ``milk-contract-system`` (``language: system``) runs the ``milk-contract`` of this virtualenv
  (put first on PATH) and needs no package index (``PIP_NO_INDEX=1``).

Skipped where git or pre-commit is missing (pre-commit is a test extra: only this test uses it).
The snippet in docs/milk-ci.md names hooks that exist and a rev of the form pre-commit accepts.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

pytestmark = pytest.mark.process  # starts processes (the plugin registers the marker)

GOLDENS = ROOT / "goldens"
BIN = Path(sys.executable).parent
GIT_IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
                "GIT_COMMITTER_EMAIL": "t@example.invalid"}
yaml = pytest.importorskip("yaml")  # pre-commit (the test extra) brings PyYAML
HOOKS = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}


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


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """A git repository holding the goldens, one broken transcript and a file that is no transcript."""
    repo = tmp_path / "repo"
    shutil.copytree(GOLDENS, repo / "goldens", ignore=shutil.ignore_patterns("*.meta.json"))
    (repo / "README.txt").write_text("not a transcript: the hook must not see it\n")
    hello = (GOLDENS / "stream-json" / "hello.jsonl").read_text().splitlines(keepends=True)
    (repo / "captures").mkdir()
    (repo / "captures" / "broken.jsonl").write_text("".join(hello[1:]))  # no system/init first
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    return repo


def _try_repo(hook: str, repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    pre_commit = _pre_commit()
    env = {**env, **GIT_IDENTITY, "PRE_COMMIT_HOME": str(repo.parent / "home")}
    return subprocess.run([pre_commit, "try-repo", str(ROOT), hook, "--all-files", "--color", "never"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=900)


def _assert_judged(done: subprocess.CompletedProcess[str], repo: Path) -> None:
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Failed" in done.stdout
    assert "captures/broken.jsonl: NOT conformant" in done.stdout
    assert "sj.init-first" in done.stdout
    # the near miss, in the same run: every golden passes (wire detected per file), and only
    # *.jsonl files are handed to the hook
    goldens = sorted(p.relative_to(repo).as_posix() for p in (repo / "goldens").rglob("*.jsonl"))
    assert goldens
    for golden in goldens:
        assert f"{golden}: conformant" in done.stdout, golden
    assert done.stdout.count(": NOT conformant") == 1, done.stdout
    assert f"{len(goldens) + 1} files: {len(goldens)} conformant, 1 NOT conformant" in done.stdout
    assert "README.txt" not in done.stdout


def test_the_system_hook_runs_the_installed_milk_contract(scratch: Path) -> None:
    assert HOOKS["milk-contract-system"]["language"] == "system"
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "PIP_NO_INDEX": "1"}
    _assert_judged(_try_repo("milk-contract-system", scratch, env), scratch)


@pytest.mark.deep
def test_the_default_hook_installs_itself(scratch: Path) -> None:
    """No milk-contract on PATH (nor this virtualenv's bin): pre-commit builds the hook's own."""
    assert HOOKS["milk-contract"]["language"] == "python"
    git = shutil.which("git")
    assert git is not None
    path = os.pathsep.join(d for d in dict.fromkeys([os.path.dirname(git), *os.defpath.split(os.pathsep)])
                           if d and shutil.which("milk-contract", path=d) is None)
    assert shutil.which("milk-contract", path=path) is None
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PIP_NO_INDEX")}
    env["PATH"] = path
    _assert_judged(_try_repo("milk-contract", scratch, env), scratch)


def test_the_documented_snippet_names_real_hooks_and_a_real_rev_form() -> None:
    page = (ROOT / "docs" / "milk-ci.md").read_text(encoding="utf-8")
    snippet = re.search(r"```yaml\n(# \.pre-commit-config\.yaml\n.*?)```", page, re.DOTALL)
    assert snippet is not None, "docs/milk-ci.md shows a .pre-commit-config.yaml"
    config = yaml.safe_load(snippet.group(1))
    (repo,) = config["repos"]
    tags = subprocess.run(["git", "-C", str(ROOT), "tag"], capture_output=True, text=True, check=False).stdout.split()
    # a full commit sha (the repository has no release tags yet) or a tag that exists
    assert re.fullmatch(r"[0-9a-f]{40}", str(repo["rev"])) or repo["rev"] in tags, repo["rev"]
    ids = [hook["id"] for hook in repo["hooks"]]
    assert ids
    assert set(ids) <= set(HOOKS), ids
    assert HOOKS[ids[0]]["language"] == "python"  # the default needs nothing installed beforehand
