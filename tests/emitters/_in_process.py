"""The bundled reference emitter run inside a test double's own process (one start-up, not two).

The doubles beside this file are run as scripts (``python tests/emitters/NAME.py``), so this
module is imported from the script's folder.
"""

from __future__ import annotations

import io
import sys

from contract.wires.stream_json.kit import emitter as reference


def reference_output(argv: list[str]) -> tuple[bytes, int]:
    """The reference emitter's output and exit status for ``argv``."""
    captured = io.BytesIO()
    real, sys.stdout = sys.stdout, io.TextIOWrapper(captured, encoding="utf-8")
    try:
        status = reference.main(argv)
        sys.stdout.flush()
        return captured.getvalue(), status
    finally:
        sys.stdout = real
