"""Watching the processes a test starts: which pids the harness spawned, and that none survive.

Also :func:`zombie_children`: being a subreaper must not leave zombies in the test process.

A live-run test spies on ``contract.live.harness.Process`` (wherever a module imported it) to learn the
process group of each emitter or host it starts, and fails if any member of those groups is still
alive (zombies excluded: they are dead, only not yet reaped) a short while after the test.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contract.live.harness import Process


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes in process group ``pgid``, from /proc."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.append(int(entry.name))
    return members


def spy_on_starts(monkeypatch: pytest.MonkeyPatch, *modules: Any) -> Iterator[list[int]]:
    """Yield the pids (= process group ids) started through ``modules``' Process; none may survive."""
    pids: list[int] = []

    class Spy(Process):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]  # a pass-through spy
            pids.append(self.popen.pid)

    for module in modules:
        monkeypatch.setattr(module, "Process", Spy)
    yield pids
    deadline = time.monotonic() + 2.0
    while any(group_members(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for pid in pids for p in group_members(pid)], "processes left behind"


def zombie_children() -> list[str]:
    """This process' children that are zombies (dead, never reaped), from /proc."""
    me = str(os.getpid())
    zombies = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except (OSError, ValueError):
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] == "Z" and fields[1] == me:
            zombies.append(entry.name)
    return zombies
