"""``python -m contract.reference.subagent_host``: the subagent-stdio wire's reference host (``Wire.reference``),
by the path docs/milk-ci.md gives.

The program is ``contract/wires/subagent_stdio/kit/host.py``; this alias runs that file as ``__main__``
(``runpy.run_path``, not ``run_module``: started this way, a stand-alone program does not import
the wire registry, which importing the wire's package would, about 80 ms of CPU a start).
"""

import runpy
from pathlib import Path

PROGRAM = Path(__file__).resolve().parents[1] / "wires" / "subagent_stdio" / "kit" / "host.py"

if __name__ == "__main__":
    runpy.run_path(str(PROGRAM), run_name="__main__")
