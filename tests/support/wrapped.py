"""The text report's wrapped lines put back together, for tests that read a note or a list as one line.

On a pipe the text report wraps its notes and requirement lists at 80 columns
(contract.reporting.terminal); each continuation is indented four spaces past its line's lead
(``#`` for a note, the list's own indent). A finding's line is never wrapped, and the lines
under it (``hint:``, the count of lines) follow a finding, never a wrapped line: only lines after a
note or a requirements line are joined.
"""

from __future__ import annotations

# ("  not applicable" also heads "  not applicable (reason): ..." lines)
_WRAPPED = ("#", "requirements:", "  not exercised:", "  ignored:", "  outside --basis:", "  not applicable")


def unwrapped(text: str) -> list[str]:
    """``text``'s lines, each wrapped note or list joined back into one line."""
    out: list[str] = []
    for line in text.splitlines():
        if out and out[-1].startswith(_WRAPPED) and _continues(out[-1], line):
            out[-1] = f"{out[-1]} {line.strip().removeprefix('#').strip()}" if line.startswith("#") else \
                f"{out[-1]} {line.strip()}"
            continue
        out.append(line)
    return out


def _continues(previous: str, line: str) -> bool:
    if previous.startswith("#"):
        return line.startswith("#     ")
    lead = previous[:len(previous) - len(previous.lstrip())]
    return line.startswith(lead + "    ") and not line.startswith(lead + "    hint:")


def unwrap(text: str) -> str:
    return "\n".join(unwrapped(text)) + ("\n" if text.endswith("\n") else "")
