"""Progress of long live work on stderr, shown only when stderr is a terminal.

``fuzz`` against a slow host can take a minute or more, ``run --provoke`` on a hung emitter
several times its timeout, ``record`` one run per scenario: without a sign of life a user
cannot tell a slow run from a hung one. :class:`Progress` writes one status line to stderr
(``milk-contract fuzz: conversation 3 of 30``), rewritten in place (CR, then erase to the end
of the line), and erases it when the work ends, so the report printed after it starts on a
clean line.

Only on a terminal: when stderr is a pipe or a file (CI logs, tests, ``2>log``), nothing is
written at all, so what those see is unchanged. The decision is made once, when the progress
starts, from ``sys.stderr`` as it is then (tests replace it). The text is ours (counts and
environment names) plus scenario names, which come from file names: everything shown goes
through :func:`contract.core.textsafe.text` and is clipped, so no input reaches the terminal as a
control sequence or wraps the line.
"""

from __future__ import annotations

import contextlib
import sys
from typing import TextIO

from contract.core import textsafe

PREFIX = "milk-contract"
MAX_CHARS = 100  # one line of an ordinary terminal: a wrapped line cannot be rewritten by CR
ERASE = "\x1b[K"  # erase to the end of the line (what is left of a longer previous status)


def on_terminal(stream: TextIO | None) -> bool:
    """True when ``stream`` is a terminal (a closed or odd stream is not one)."""
    if stream is None:
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, OSError, ValueError):
        return False


class Progress:
    """One status line for one piece of work (``what``: the verb), on a terminal stderr only.

    A context manager: the line is erased on the way out, whatever happened. Writing never
    fails the work: a stderr that breaks mid-run just stops showing progress.
    """

    def __init__(self, what: str, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = on_terminal(self.stream)
        self.what = what
        self.shown = False

    def update(self, status: str) -> None:
        """Show ``status`` in place of the previous one."""
        if not self.enabled:
            return
        line = textsafe.text(f"{PREFIX} {self.what}: {status}")
        if len(line) > MAX_CHARS:
            line = line[: MAX_CHARS - 1] + "…"
        self._write("\r" + line + ERASE)
        self.shown = True

    def close(self) -> None:
        """Erase the status line (nothing is left on the terminal)."""
        if self.enabled and self.shown:
            self._write("\r" + ERASE)
        self.shown = False

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken stderr: the work goes on without progress
            self.enabled = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *_: object) -> None:
        with contextlib.suppress(Exception):
            self.close()


__all__ = ["Progress", "on_terminal"]
