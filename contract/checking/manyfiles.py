"""``check`` over many transcripts: expand files and directories, check each, in one process or several.

Paths are expanded in the order given; a directory contributes every ``*.jsonl`` file below it,
sorted, following symlinks but never entering the same directory twice (a symlink loop ends
there). A missing path, a directory with no ``*.jsonl`` below it, or a ``*.jsonl`` entry below it
that is not a regular file (a dangling link, a FIFO, a device) is misuse (exit 2): a "conformant"
verdict over nothing checked, or over what was left of it, would be the worst kind of wrong answer.

Each file gets its own :class:`~contract.rules.report.Report`, exactly as a single-file ``check``
would make it; ``--jobs N`` spreads whole files over N processes and returns the reports in
input order, so the report is the same whatever N is.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from contract.checking.checker import check
from contract.rules.report import Report

SUFFIX = ".jsonl"
# Each report keeps every finding up to report.MAX_KEPT_VIOLATIONS; over many files that bound
# multiplies. With more than one file each report keeps this many and counts the rest, which
# every format then states ("counted but not kept"), so memory stays bounded by files x this.
MANY_KEPT_PER_FILE = 10_000
# Auto --jobs: below this many bytes in all, process start-up costs more than a second core gains.
AUTO_PARALLEL_BYTES = 8 * 1024**2


class PathError(Exception):
    """A path that cannot be checked: misuse, reported on one line (exit 2)."""


@dataclass(frozen=True)
class Options:
    wire: str
    strict: bool
    ignore: tuple[str, ...]
    max_line_bytes: int
    coverage: bool = False  # measure each capture's coverage of its wire's surface


def expand(paths: Sequence[str]) -> list[str]:
    """The files to check, in order: files as given, directories as their sorted ``*.jsonl``."""
    files: dict[str, None] = {}  # ordered, and a file named twice is checked once
    for path in paths:
        try:
            info = os.stat(path)
        except OSError as exc:
            raise PathError(f"cannot read {path}: {exc.strerror or exc}") from None
        if stat.S_ISDIR(info.st_mode):
            found = _walk(path)
            if not found:
                raise PathError(f"{path}: no *{SUFFIX} files in this directory (nothing to check)")
            files.update(dict.fromkeys(found))
        else:
            files[path] = None
    return list(files)


def _walk(top: str) -> list[str]:
    """Every ``*.jsonl`` below ``top``, sorted; each real directory is entered once."""
    seen: set[tuple[int, int]] = set()
    found: list[str] = []
    for root, dirs, names in os.walk(top, followlinks=True):
        try:
            info = os.stat(root)
        except OSError:
            dirs[:] = []
            continue
        key = (info.st_dev, info.st_ino)
        if key in seen:  # a symlink back up the tree (or a second link to one directory)
            dirs[:] = []
            continue
        seen.add(key)
        dirs.sort()
        for name in sorted(names):
            full = os.path.join(root, name)
            if not name.endswith(SUFFIX):
                continue
            if not os.path.isfile(full):  # left out, a capture that went missing would pass unseen
                raise PathError(f"{full}: a *{SUFFIX} entry that is not a readable file (a dangling link, "
                                "a FIFO or a device): nothing was checked")
            found.append(full)
    return found


def check_path(path: str, options: Options, jobs: int | None = None, keep: int | None = None) -> Report:
    """One file's report (PathError if it cannot be opened)."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below, after streaming
    except OSError as exc:
        raise PathError(f"cannot read {path}: {exc.strerror or exc}") from None
    with handle:
        report = check(handle, options.wire, strict=options.strict, ignore=options.ignore,
                       max_line_bytes=options.max_line_bytes, source=path, jobs=jobs,
                       coverage=options.coverage)
    if keep is not None:
        report.trim(keep)  # still counted in report.counts: shown as "not kept"
    return report


def _worker(path: str, options: Options) -> Report | str:
    # a PathError crosses the process boundary as its message, so the parent reports one line
    try:
        return check_path(path, options, jobs=1, keep=MANY_KEPT_PER_FILE)
    except PathError as exc:
        return str(exc)


def check_many(paths: Sequence[str], options: Options, jobs: int | None = None) -> list[Report]:
    """Reports for ``paths`` (already expanded), in order; ``jobs`` processes (None: by size)."""
    workers = _workers(paths, jobs)
    if workers <= 1:
        # one process: a large file may still use two (check's own auto --jobs), as alone
        return [check_path(p, options, jobs=jobs, keep=MANY_KEPT_PER_FILE) for p in paths]
    # only here: the process pool costs start-up time that a one-process check never needs
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            results = list(pool.map(_worker, paths, [options] * len(paths)))
    except BrokenProcessPool:
        raise PathError("a worker process died while checking (rerun with --jobs 1)") from None
    return [_unwrap(result) for result in results]


def _unwrap(result: Report | str) -> Report:
    if isinstance(result, str):
        raise PathError(result)
    return result


def _workers(paths: Sequence[str], jobs: int | None) -> int:
    if len(paths) < 2:
        return 1
    if jobs is not None:
        return min(jobs, len(paths))
    if _total_bytes(paths) < AUTO_PARALLEL_BYTES:
        return 1
    return min(os.cpu_count() or 1, len(paths))


def _total_bytes(paths: Iterable[str]) -> int:
    total = 0
    for path in paths:
        try:
            total += os.stat(path).st_size
        except OSError:
            continue  # reported when the file is opened
    return total
