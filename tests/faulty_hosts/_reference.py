"""The reference host's names for its faulty variants, loaded from its file, not imported as a module.

Each variant is a process of its own. Importing ``contract.wires.subagent_stdio.kit.host`` would load
the wire registry first (about 60 ms of CPU a start, for names this stand-alone program does not
need), so its file is run here once, as its public alias runs it (``contract.reference.subagent_host``),
and the variants take its names from this module.
"""

from __future__ import annotations

import runpy
from typing import TYPE_CHECKING, Any

from contract.reference.subagent_host import PROGRAM

_HOST: dict[str, Any] = runpy.run_path(str(PROGRAM), run_name="reference_host")

__all__ = ["Host", "Line", "main", "parse_command", "script_from"]

if TYPE_CHECKING:  # typed as the module the file is: never imported at run time (see above)
    from contract.wires.subagent_stdio.kit.host import Host, Line, main, script_from
    from contract.wires.subagent_stdio.kit.host import _command as parse_command
else:
    Host = _HOST["Host"]
    Line = _HOST["Line"]
    main = _HOST["main"]
    script_from = _HOST["script_from"]
    parse_command = _HOST["_command"]  # a command line parsed, or None
