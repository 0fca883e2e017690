"""What a finding shows of a process's stderr: the first error it printed and its last lines, bounded.

A crashing consumer or emitter says why on stderr, but rarely on its last line: Node ends with
``Node.js v20.20.2`` after the thrown ``Error: unknown stop_reason error`` and its stack, Python
ends with the exception line after a traceback that can be long, and a logger may print more
after either. So the excerpt is the first traceback-looking block (a Python ``Traceback (most
recent call last):`` to its exception line, a line naming an ``…Error``/``…Exception`` with the
indented stack frames under it, a Go ``panic:``, a Rust ``thread '…' panicked``), then the last
lines, without a line twice.

The bounds, stated and never silent: at most :data:`BLOCK_LINES` lines of the block and
:data:`TAIL_LINES` last lines, each at most :data:`LINE_CHARS` characters (a longer one says how
much was cut), and a ``…`` line where lines between them were left out. The whole excerpt is so
at most ``(BLOCK_LINES + TAIL_LINES + 1) * LINE_CHARS`` characters plus the cut notes. What the
process wrote before the harness's own tail (``contract.live.harness.STDERR_TAIL_BYTES``) is
not seen at all.

The lines are returned as the process wrote them: each reporter escapes what it prints
(``contract.core.textsafe``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from contract.core.textsafe import counted

BLOCK_LINES = 12
TAIL_LINES = 6
# A finding's message holds it on one line: the block's first lines (the error and where it was
# thrown) and the last few.
MESSAGE_BLOCK_LINES = 4
MESSAGE_TAIL_LINES = 3
LINE_CHARS = 200
SKIPPED = "…"  # stands for the lines between the block and the tail

_START = re.compile(
    r"(?:Traceback \(most recent call last\):"
    r"|(?:Uncaught\s+)?(?:[A-Za-z_][\w.$]*)?(?:Error|Exception)\b(?::|\s*$|\s+\[)"
    r"|panic:\s|thread '[^']*' panicked)")


def first_block(lines: Sequence[str], limit: int = BLOCK_LINES) -> list[str]:
    """The first traceback-looking block of ``lines`` (empty when there is none), at most ``limit`` lines."""
    for index, line in enumerate(lines):
        if not _START.match(line):  # unindented: an indented "Error" is a frame or a quoted line
            continue
        block = [line]
        python = line.startswith("Traceback")
        for following in lines[index + 1:]:
            if len(block) >= limit:
                break
            if following[:1].isspace():  # a stack frame, or a traceback's source line
                block.append(following)
                continue
            if python and following.strip():  # the exception line that ends a Python traceback
                block.append(following)
            break
        return block
    return []


def excerpt_lines(stderr: str, block_lines: int = BLOCK_LINES, tail_lines: int = TAIL_LINES) -> list[str]:
    """The block, then the last lines (a ``…`` between them when lines were left out), each clipped."""
    lines = stderr.rstrip().splitlines()
    tail_from = max(len(lines) - tail_lines, 0)
    block = first_block(lines, block_lines)
    chosen = lines[tail_from:]
    if block:
        start = _index_of(lines, block)
        end = start + len(block)
        if start < tail_from:
            chosen = [*block, *([SKIPPED] if end < tail_from else []), *lines[max(end, tail_from):]]
    return [_clip(line) for line in chosen]


def excerpt(stderr: str) -> str:
    """:func:`excerpt_lines` on one line (`` | `` between lines, blank ones left out), for a message:
    at most :data:`MESSAGE_BLOCK_LINES` of the block and :data:`MESSAGE_TAIL_LINES` last lines."""
    chosen = excerpt_lines(stderr, MESSAGE_BLOCK_LINES, MESSAGE_TAIL_LINES)
    return " | ".join(line.strip() for line in chosen if line.strip())


def _index_of(lines: Sequence[str], block: Sequence[str]) -> int:
    for index in range(len(lines)):
        if list(lines[index:index + len(block)]) == list(block):
            return index
    return 0


def _clip(line: str) -> str:
    if len(line) <= LINE_CHARS:
        return line
    return f"{line[:LINE_CHARS]}…({counted(len(line) - LINE_CHARS, 'more character')})"
