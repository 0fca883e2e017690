"""The audit-log reference emitter (tests only): replays a golden to stdout.

The golden the scenario harness names (``$MILK_CONTRACT_GOLDEN``, docs/architecture.md,
"Scenarios"), else the synthetic wire's own.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.wires.audit_log import GOLDEN

if __name__ == "__main__":
    sys.stdout.buffer.write(Path(os.environ.get("MILK_CONTRACT_GOLDEN") or GOLDEN).read_bytes())
