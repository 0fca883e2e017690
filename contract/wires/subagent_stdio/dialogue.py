"""The subagent-stdio conversation: its line types and the command a client writes.

Read through the descriptor (``SUBAGENT_STDIO.dialogue``) by the conversation driver, the fuzzer,
the goldens' command grouping and the feeding client, so none of them names a line type.
"""

from __future__ import annotations

from typing import Any

from contract.wires.base import Dialogue

COMMAND, RESPONSE, EVENT = "subagent_status", "response", "subagent_event"


def command(ident: str | None) -> dict[str, Any]:
    """A ``subagent_status`` command, with ``id`` when ``ident`` is not None."""
    line: dict[str, Any] = {"type": COMMAND, "version": 1}
    if ident is not None:
        line["id"] = ident
    return line


DIALOGUE = Dialogue(command=COMMAND, response=RESPONSE, event=EVENT, build=command)
