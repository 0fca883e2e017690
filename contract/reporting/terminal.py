"""How the text report looks on the stream it goes to: colour, quiet or verbose, the width to wrap at.

Done as pytest does it, without a dependency (a few SGR codes and :mod:`textwrap` are all it takes):

- ``--color=auto`` (the default) colours only a terminal: ``NO_COLOR`` (set and not empty,
  no-color.org) turns colour off, ``FORCE_COLOR`` (set and not empty) turns it on, otherwise the
  stream must be a TTY and ``TERM`` not ``dumb``; so colour never reaches a pipe or a file unless
  forced. ``--color=yes`` and ``--color=no`` decide alone, whatever the environment says.
- MUST findings are red, SHOULD findings yellow, a conformant verdict green, a failing one red.
- ``-q``: the findings and the verdict line only; the default adds the notes and one line of
  requirement counts; ``-v`` lists the requirements by status and reason, then every
  requirement's verdict, one a line (contract.reporting.reporters.render_text).
- Lists (the notes, -v's requirement lines) are wrapped to the terminal's width, or to 80 columns
  when the stream is not a terminal; a finding's line is never wrapped (``FILE:LINE rule …``
  stays one line to grep).

The escapes are added after the input-derived text was made safe (``contract.core.textsafe``):
the only control characters in a coloured report are the reporter's own SGR sequences.
"""

from __future__ import annotations

import os
import shutil
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TextIO

COLOR_CHOICES = ("auto", "yes", "no")
PIPE_WIDTH = 80  # the width wrapped to when the stream is not a terminal
MIN_WIDTH = 40  # a terminal narrower than this is wrapped as if it were this wide

RED, YELLOW, GREEN, BOLD = "31", "33", "32", "1"
_RESET = "\x1b[0m"


@dataclass(frozen=True)
class Style:
    """What the text reporter is asked for: ``PLAIN`` is what a library caller gets."""

    colour: bool = False
    verbosity: int = 0  # -1 quiet (-q), 0 the default, 1 verbose (-v)
    width: int | None = None  # wrap lists to this many columns; None: never wrap

    @property
    def quiet(self) -> bool:
        return self.verbosity < 0

    @property
    def verbose(self) -> bool:
        return self.verbosity > 0

    def paint(self, text: str, *codes: str) -> str:
        """``text`` in the SGR ``codes`` when colour is on, as it is otherwise."""
        if not self.colour or not codes or not text:
            return text
        return f"\x1b[{';'.join(codes)}m{text}{_RESET}"

    def level(self, level: str) -> str:
        """A finding's level, ``MUST`` red and ``SHOULD`` yellow."""
        return self.paint(level, RED if level == "MUST" else YELLOW)

    def wrapped(self, line: str, indent: str = "    ") -> list[str]:
        """``line`` wrapped to the width at spaces (never inside a word), later lines indented."""
        if self.width is None or len(line) <= self.width:
            return [line]
        lead = line[:len(line) - len(line.lstrip(" #"))]  # a note's "# " or a list's "  " starts each line
        return textwrap.wrap(line, width=self.width, subsequent_indent=lead + indent, break_long_words=False,
                             break_on_hyphens=False) or [line]


PLAIN = Style()


def colour_wanted(choice: str, stream: TextIO, env: Mapping[str, str] | None = None) -> bool:
    """Whether ``--color=choice`` colours ``stream`` (pytest's reading of the environment)."""
    if choice == "yes":
        return True
    if choice == "no":
        return False
    env = os.environ if env is None else env
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    return is_terminal(stream) and env.get("TERM") != "dumb"


def is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # a closed or unusual stream is no terminal
        return False


def width_of(stream: TextIO) -> int:
    """The terminal's width (``COLUMNS`` first, as :func:`shutil.get_terminal_size` reads it), or
    :data:`PIPE_WIDTH` when ``stream`` is not a terminal."""
    if not is_terminal(stream):
        return PIPE_WIDTH
    return max(shutil.get_terminal_size((PIPE_WIDTH, 24)).columns, MIN_WIDTH)


def style_for(stream: TextIO, choice: str = "auto", verbosity: int = 0,
              env: Mapping[str, str] | None = None) -> Style:
    """The style of a report written to ``stream`` under ``--color=choice`` and ``-q``/``-v``."""
    return Style(colour=colour_wanted(choice, stream, env), verbosity=verbosity, width=width_of(stream))
