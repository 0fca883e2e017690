"""Re-recording goldens: where they are written, and writing only what really changed.

``milk-contract record`` (and the plugin's ``--contract-record``) call this module. Three rules:

* **A checkout, or nowhere.** Goldens are written to ``--goldens DIR``, else to the checkout the
  package itself runs from (a clone on ``sys.path`` or an editable install), else, for an
  installed non-editable copy, to the source tree the command runs in (the working directory or
  a parent holding this project's ``pyproject.toml`` and ``goldens/``). An installed copy's own
  goldens are inside site-packages: writing there would be invisible to git and lost on
  reinstall, so without a checkout :func:`target` raises :class:`RecordingError` (exit 2).
  An editable install run from inside *another* checkout still writes its own; the verbs name
  the folder and warn (:func:`other_checkout_warning`), since ``git diff`` in the working directory
  would show nothing.
* **Idempotent.** A golden whose normalised content equals the run's is not touched (neither the
  transcript nor its meta). A changed golden keeps, line by line, the stored bytes of every line
  whose normalised value did not change, and inside a changed line the stored values of volatile
  fields whose normalised value is the same; so ``git diff`` shows only the real change. The
  merge is verified (it must normalise to the run's output and pass the checker); when it does
  not, the run's own bytes are written instead: never a golden the emitter did not vouch for.
* **Portable metas.** The meta names the emitter as given on the command line; an absolute path
  in it is written relative to the project root, or by its file name when it lies elsewhere.

A run that never really happened (the emitter could not start, hung, flooded, died or exited
with another status) is a harness failure, not a diff: :func:`harness_failure` names it.
"""

from __future__ import annotations

import datetime
import difflib
import json
import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contract.core import textsafe
from contract.core.resources import installed_copy
from contract.goldens import store as goldens_module
from contract.goldens.compare import Comparison, compare
from contract.goldens.normalize import normalize
from contract.goldens.rewrite import rewrite
from contract.goldens.store import TRANSCRIPT, WIRES, Golden, emitter_version, schema_sha256
from contract.rules.report import Report

PROJECT = "milk-contract"
# Findings that say the emitter's run did not happen as a run: the harness's, not the wire's.
HARNESS_RULES = ("run.start", "run.timeout", "run.output-limit", "run.no-response", "run.exit-status")


class RecordingError(Exception):
    """Recording cannot go anywhere sensible (one line for the user; the CLI exits 2)."""


# -- where -------------------------------------------------------------------------------------


def _is_project_root(folder: Path) -> bool:
    manifest = folder / "pyproject.toml"
    if not (manifest.is_file() and (folder / "goldens").is_dir()):
        return False
    try:
        text = manifest.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return f'name = "{PROJECT}"' in text


def source_tree(start: Path | None = None) -> Path | None:
    """The checkout of this project that ``start`` (default: the working directory) is inside."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if _is_project_root(folder):
            return folder
    return None


def target(goldens: str | os.PathLike[str] | None = None) -> Path:
    """The goldens folder a recording writes to (see the module docstring for the order)."""
    if goldens is not None:
        folder = Path(goldens)
        if not folder.is_dir():
            raise RecordingError(f"--goldens: {folder} is not a folder")
        return folder
    if not installed_copy():  # a clone or an editable install: its own goldens are the checkout's
        return goldens_module.goldens_dir()
    tree = source_tree()
    if tree is not None:
        return tree / "goldens"
    raise RecordingError(
        "this is an installed copy of milk-contract and the working directory is not inside a checkout: "
        "record from a clone of the repository (cd into it), or pass --goldens DIR")


def other_checkout(root: Path) -> Path | None:
    """The checkout the working directory is in, when it is not ``root`` (the one being written)."""
    here = source_tree()
    return here if here is not None and here != root.resolve() else None


def other_checkout_warning(folder: Path, goldens_option: str = "--goldens") -> str | None:
    """The warning when a recording into ``folder`` is not into the checkout the working directory is in.

    One line (no newline), or None. The ``record`` verb and the plugin's ``--contract-record``
    both print it: an editable install of one clone run inside another writes its own goldens,
    and ``git diff`` in the working directory would show nothing. ``goldens_option`` is how the
    caller's user would record into that other checkout instead.
    """
    elsewhere = other_checkout(project_root(folder))
    if elsewhere is None:
        return None
    return (f"warning: recording into {textsafe.text(str(folder.resolve()))}, the goldens of the checkout this "
            f"milk-contract runs from, not of {textsafe.text(str(elsewhere))}, the checkout the working directory "
            f"is in (for that one: {goldens_option} {textsafe.text(str(elsewhere / 'goldens'))}, or its own "
            "milk-contract)")


def project_root(goldens: Path) -> Path:
    """The folder that holds ``goldens`` (emitter paths in metas are written relative to it)."""
    return goldens.resolve().parent


def scenarios_in(folder: Path, wire: str) -> list[Golden]:
    """Every golden of a wire under ``folder`` (a goldens folder), sorted by name."""
    where = folder / wire
    paths = sorted(where.glob("*" + TRANSCRIPT)) if where.is_dir() else []
    return [goldens_module.find(path) for path in paths]


def all_in(folder: Path) -> list[Golden]:
    return [golden for wire in WIRES for golden in scenarios_in(folder, wire)]


# -- what the meta says ------------------------------------------------------------------------


def emitter_label(command: Sequence[str] | None, root: Path) -> str:
    """The emitter as given, with no absolute local path in it."""
    if not command:
        return "bundled reference emitter"
    words = []
    for word in command:
        if os.path.isabs(word):
            path = Path(word)
            try:
                word = path.resolve().relative_to(root.resolve()).as_posix()
            except ValueError:
                word = path.name  # outside the project: the name says what it is, the path is local
        words.append(word)
    return shlex.join(words)


# -- harness failures --------------------------------------------------------------------------

STDERR_LINES, STDERR_WIDTH = 5, 200  # as much of the emitter's stderr as `run`'s text report shows


def stderr_lines(report: Report, indent: str = "") -> list[str]:
    """The emitter's stderr tail as ``run`` shows it (escaped, bounded, cuts marked), or nothing."""
    tail = report.stderr.strip().splitlines()
    if not tail:
        return []
    shown = tail[-STDERR_LINES:]
    head = "emitter stderr (last lines):" if len(tail) > len(shown) else "emitter stderr:"
    return [indent + head] + [f"{indent}  | {textsafe.text(line[:STDERR_WIDTH])}" + ("…" if len(line) > STDERR_WIDTH
                                                                                     else "") for line in shown]


def harness_failure(report: Report) -> str | None:
    """One line saying why the run was not a run (the emitter did not start, hung, …), or None."""
    for violation in report.violations:
        if violation.rule in HARNESS_RULES:
            return f"{violation.rule}: {violation.message}"
    return None


# -- the merge ---------------------------------------------------------------------------------


def _split(data: bytes) -> list[bytes]:
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def _values(lines: list[bytes]) -> list[Any]:
    out: list[Any] = []
    for line in lines:
        try:
            out.append(json.loads(line))
        except ValueError:
            out.append(None)
    return out


def _keep_stored(old: Any, new: Any, old_norm: Any, new_norm: Any) -> Any:
    """``new`` with each value whose normalised form equals the stored one's put back as stored."""
    if type(new) is dict and type(old) is dict and type(new_norm) is dict and type(old_norm) is dict:
        return {key: _keep_stored(old[key], value, old_norm.get(key), new_norm.get(key)) if key in old else value
                for key, value in new.items()}
    if type(new) is list and type(old) is list and type(new_norm) is list and type(old_norm) is list:
        return [_keep_stored(old[i], item, old_norm[i], new_norm[i]) if i < len(old) and i < len(old_norm)
                and i < len(new_norm) else item for i, item in enumerate(new)]
    if new != old and new_norm == old_norm and type(new) is type(old):
        return old
    return new


def _dump(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def merge(golden: bytes, actual: bytes, wire: str) -> bytes:
    """The run's transcript written with as many of the golden's stored bytes as stay true."""
    old_lines, new_lines = _split(golden), _split(actual)
    old_values, new_values = _values(old_lines), _values(new_lines)
    old_norm, new_norm = normalize(wire, old_values), normalize(wire, new_values)
    keys = [json.dumps(v, sort_keys=True) for v in old_norm], [json.dumps(v, sort_keys=True) for v in new_norm]
    matcher = difflib.SequenceMatcher(None, keys[0], keys[1], autojunk=False)
    out: list[bytes] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out.extend(old_lines[i1:i2])
            continue
        for offset in range(j2 - j1):
            j, i = j1 + offset, i1 + offset
            line = new_lines[j]
            paired = i < i2 and old_values[i] is not None and new_values[j] is not None
            # a line is re-serialised only when that reproduces the emitter's own bytes exactly
            if paired and _dump(new_values[j]) == line:
                line = _dump(_keep_stored(old_values[i], new_values[j], old_norm[i], new_norm[j]))
            out.append(line)
    merged = b"".join(line + b"\n" for line in out)
    return merged if _sound(merged, actual, wire) else actual


def _sound(merged: bytes, actual: bytes, wire: str) -> bool:
    """The merge says what the run said (normalised) and is itself conformant."""
    from contract.checking.checker import check

    if not compare(merged, actual, wire).equal:
        return False
    return check(merged, wire).conformant


# -- writing -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recorded:
    """What recording one scenario did."""

    comparison: Comparison  # the golden against the run (normalised)
    written: bool  # False: the golden already said this, nothing was touched


def record(golden: Golden, output: bytes, command: Sequence[str] | None, root: Path) -> Recorded:
    """Rewrite ``golden`` from a complete, conformant run's ``output`` (the caller checks that)."""
    stored = golden.data()
    comparison = compare(stored, output, golden.wire)
    if comparison.equal:
        return Recorded(comparison, False)
    data = merge(stored, output, golden.wire)
    if data == stored:
        return Recorded(comparison, False)
    version = emitter_version(output, golden.wire) or "unknown"
    today = datetime.date.today().isoformat()
    rewrite(golden, data, emitter_label(command, root), version, today, schema_sha256(golden.wire, root))
    return Recorded(comparison, True)
