"""The tolerant consumer (tolerant.py) with one fault: it exits 3 on an unknown line type.

Any line whose type the schema in force does not name (the seed's five: system, stream_event,
assistant, user, result, and any an ADR took in since): the seed calls the type an "open set: ignore
unknown values".
"""

from __future__ import annotations

import sys

from tests.independent.consumers.tolerant import main

if __name__ == "__main__":
    sys.exit(main(reject_unknown_types=True))
