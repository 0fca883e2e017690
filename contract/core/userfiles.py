"""Reading a file the user named, whole: the one bounded read every verb uses for it.

A schema, a surface, a baseline, an authored transcript, ``feed``'s ``--expect-stdout`` and
``--expect-json``, ``accepted-breaks.json`` under ``--root``: each is read into memory in one
piece, so each is read through :func:`read_whole`, which reads at most :data:`MAX_FILE_BYTES`
(64 MiB) and refuses a file that holds more. The path may name anything: a character device
(``/dev/zero`` never ends), a FIFO, a file that grows while it is read. Its size on disk is
not trusted (a device says 0); what is read is counted.

The refusal is an :class:`OSError` (``EFBIG``, "File too large") whose ``strerror`` says the
bound, so every caller's existing "cannot read PATH: …" line reports it, and the verb exits 2
(misuse: the input is not one the verb can take). docs/limits.md states the bound.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable
from typing import Any

from contract.core.textsafe import counted

MAX_FILE_BYTES = 64 * 1024**2  # a file read whole, at most (docs/limits.md)


class FileTooLarge(OSError):
    """A file that holds more than the bound for a file read whole."""


def read_whole(path: str | os.PathLike[str]) -> bytes:
    """The bytes of ``path``, at most :data:`MAX_FILE_BYTES` (:class:`FileTooLarge` past it).

    Reads one byte more than the bound (never more), so a file of exactly the bound is taken
    and one byte over is refused. Other ``OSError`` s (missing, a folder, no permission) are
    the caller's to report, as before.
    """
    limit = MAX_FILE_BYTES  # read at call time: tests lower it
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise FileTooLarge(errno.EFBIG, f"more than {size_text(limit)}, the most milk-contract reads of a file "
                                        "it is given to read whole (docs/limits.md)", os.fspath(path))
    return data


def size_text(count: int) -> str:
    """A byte count as the help texts and messages say it: 1 GiB, 64 MiB (the largest unit that divides it)."""
    for unit, size in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if count % size == 0:
            return f"{count // size} {unit}"
    return counted(count, "byte")


def read_json(path: str | os.PathLike[str], fail: Callable[[str], Exception]) -> Any:
    """The JSON document in ``path`` (read through :func:`read_whole`); ``fail(message)`` is raised,
    with one line saying why, when it cannot be read or is not JSON."""
    try:
        return json.loads(read_whole(path))
    except OSError as exc:
        raise fail(f"cannot read {os.fspath(path)}: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:
        raise fail(f"{os.fspath(path)} is not valid JSON: {exc}") from None
