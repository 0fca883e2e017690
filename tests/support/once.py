"""An expensive test input built once per test run, shared by the xdist workers.

A session- or module-scoped fixture runs once in each xdist worker: two workers that both need the
consumer vectors or a statement each build it, and the default run pays twice. :func:`once` builds it
in the first worker that asks, under a lock in the run's own temporary folder (the parent of the
worker's, as pytest-xdist's docs show), and the other worker reads what it wrote. Without xdist the
folder is the session's own, so nothing is shared between runs and a stale build is never read.

The build must be deterministic (seeded), so that which worker builds it makes no difference.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar, cast

import pytest

T = TypeVar("T")


def _folder(factory: pytest.TempPathFactory) -> Path:
    """The folder every worker of this run sees: the run's (under xdist) or the session's own."""
    base = factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = root / "once"
    folder.mkdir(exist_ok=True)
    return folder


def once(factory: pytest.TempPathFactory, name: str, build: Callable[[], T]) -> T:
    """``build()``'s value, built by the first worker of this run that asks and pickled for the others."""
    folder = _folder(factory)
    done = folder / f"{name}.pickle"
    with (folder / f"{name}.lock").open("w") as lock:
        _locked(lock.fileno(), True)
        try:
            if not done.exists():
                staged = folder / f"{name}.pickle.partial"
                staged.write_bytes(pickle.dumps(build()))
                staged.replace(done)
        finally:
            _locked(lock.fileno(), False)
    return cast(T, pickle.loads(done.read_bytes()))


def _locked(fd: int, take: bool) -> None:
    """Take or release an exclusive lock on ``fd`` (POSIX; elsewhere each worker builds its own copy)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: the folder is still the run's, builds are atomic
        return
    fcntl.flock(fd, fcntl.LOCK_EX if take else fcntl.LOCK_UN)
