"""What a statement is made of: the shipped suite's scenario runs through one emitter build (the
same runs as ``pytest --pyargs contract``), optionally provoked, or a folder of captures; and the
build's own words (its ``--version`` output).

A scenario belongs to shard ``I`` of ``N`` by its name alone (:func:`in_shard`: a sha256 of the
label, so adding a scenario moves no other), the partition the plugin's ``--contract-shard`` and
``statement --shard`` use.
"""

from __future__ import annotations

import hashlib
import shlex
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from contract.core import textsafe
from contract.core.reader import DEFAULT_MAX_LINE_BYTES
from contract.goldens.store import all_scenarios
from contract.statement.model import CAPTURE, PROVOKED, SCENARIO, Run
from contract.statement.model import label as label  # re-exported: callers name it collect.label
from contract.wires import Live

VERSION_TIMEOUT = 10.0  # seconds a build's --version may take
VERSION_CHARS = 200  # of its first line kept


def in_shard(label: str, shard: tuple[int, int] | None) -> bool:
    """Whether scenario ``label`` belongs to shard ``(index, total)`` (1-based; None: every scenario)."""
    if shard is None:
        return True
    index, total = shard
    return int.from_bytes(hashlib.sha256(label.encode("utf-8")).digest()[:8], "big") % total == index - 1


def build_info(command: Sequence[str] | None, suite: str) -> dict[str, object]:
    """The build judged: its command (None: the bundled reference emitters) and its --version output."""
    if not command:
        return {"command": None, "name": "bundled reference emitters", "version": f"milk-contract {suite}"}
    return {"command": list(command), "name": shlex.join(command), "version": version_of(command)}


def version_of(command: Sequence[str]) -> str | None:
    """The first line of ``CMD --version`` (escaped, bounded), or None when it gave none in time."""
    try:
        done = subprocess.run([*command, "--version"], capture_output=True, timeout=VERSION_TIMEOUT, check=False,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    first = done.stdout.decode("utf-8", "replace").strip().splitlines()[:1]
    return textsafe.text(first[0], VERSION_CHARS) if done.returncode == 0 and first else None


def scenario_runs(command: Sequence[str] | None, *, timeout: float, provoke: bool,
                  shard: tuple[int, int] | None = None,
                  progress: Callable[[str], None] | None = None) -> list[Run]:
    """Every shipped scenario of the shard through ``command`` (None: the bundled reference emitters);
    with ``provoke``, each stream scenario again under the provoked environments."""
    from contract.goldens.scenarios import emitter_argv, run_scenario, scenario_env

    runs = []
    for golden in all_scenarios():
        name = label(golden)
        if not in_shard(name, shard):
            continue
        if progress is not None:
            progress(name)
        done = run_scenario(golden, command, timeout=timeout)
        runs.append(Run(name, golden.wire, SCENARIO, done.report, not done.comparison.breaking))
        if provoke and golden.descriptor.live is Live.STREAM:
            from contract.live.provoke import provoke as provoked

            report = provoked(emitter_argv(command, golden), env=scenario_env(golden),
                              expect_exit=golden.reproduce.exit_status, timeout=timeout, wire=golden.wire)
            runs.append(Run(name, golden.wire, PROVOKED, report))
    return runs


def capture_runs(folder: Path) -> list[Run]:
    """Every ``*.jsonl`` under ``folder``, each checked by the wire it is detected as (``--wire auto``)."""
    from contract.checking import manyfiles

    options = manyfiles.Options("auto", False, (), DEFAULT_MAX_LINE_BYTES, False)
    paths = manyfiles.expand([str(folder)])
    return [Run(report.source, report.wire, CAPTURE, report) for report in manyfiles.check_many(paths, options)]
