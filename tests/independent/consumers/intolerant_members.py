"""The tolerant consumer (tolerant.py) with one fault: it exits 3 on any member it does not know.

Known members are those the seed models, at every object level (the line, its message, content
blocks, usage, the agent object, the event and its delta...); free-form payloads are not entered.
Issue 46's reproducer: such a consumer passed `feed --future` on every seed.
"""

from __future__ import annotations

import sys

from tests.independent.consumers.tolerant import main

if __name__ == "__main__":
    sys.exit(main(reject_unknown_members=True))
