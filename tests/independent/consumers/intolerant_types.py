"""The tolerant consumer (tolerant.py) with one fault: it exits 3 on an unknown line type.

Any line whose type is not one of the five the seed names (system, stream_event, assistant, user,
result): the seed calls the type an "open set: ignore unknown values".
"""

from __future__ import annotations

import sys

from tests.independent.consumers.tolerant import main

if __name__ == "__main__":
    sys.exit(main(reject_unknown_types=True))
