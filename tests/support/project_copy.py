"""A copy of this project in a fresh git repository, for tests that run its workflows as a person would."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT as ROOT  # re-exported: the tests that copy the project name it from here


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout


def copy_project(folder: Path) -> Path:
    """The project's files (tracked and new, not ignored) under ``folder``, committed once.

    The checkout's bytecode comes along (``__pycache__``, ignored by git, so ``git status`` does not
    see it): the copy's first process would otherwise compile the package and its tests again, and
    its first pytest run rewrite their asserts again (about two seconds a copy). ``copy2`` keeps the
    sources' times, so Python takes a cached file only for a source the copy has not changed.
    """
    files = git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    folders: set[Path] = set()
    for name in filter(None, files):
        source = ROOT / name
        if source.is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / name)
            if source.suffix == ".py":
                folders.add(Path(name).parent)
    for parent in folders:
        _copy_bytecode(ROOT / parent / "__pycache__", folder / parent / "__pycache__")
    git(folder, "init", "-q")
    git(folder, "add", "-A")
    git(folder, "commit", "-qm", "copy")
    return folder


def _copy_bytecode(source: Path, target: Path) -> None:
    """The ``.pyc`` files of ``source`` into ``target``, those another process replaces meanwhile left out."""
    if not source.is_dir():
        return
    target.mkdir(exist_ok=True)
    for cached in source.glob("*.pyc"):
        with contextlib.suppress(OSError):
            shutil.copy2(cached, target / cached.name)


def run_in(folder: Path, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``python ARGV…`` in the copy, importing the copy's own package (as `pip install -e .` would).

    The copy's processes cache bytecode as a checkout's do, whatever PYTHONDONTWRITEBYTECODE says
    here: otherwise each of them compiles the package again, and each pytest run rewrites the
    asserts of every plugin's modules again (about a second a run). The cache is ignored by git
    (.gitignore), so the copy's ``git status`` stays as the test left it.
    """
    env = {**os.environ, "PYTHONPATH": str(folder)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("MILK_CONTRACT_EMITTER", None)
    env.pop("MILK_CONTRACT_SURFACE_ROOT", None)
    return subprocess.run([sys.executable, *argv], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)
