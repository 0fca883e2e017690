"""The tolerant consumer (tolerant.py) with one fault: it reports success on a cut stream.

It exits 0 whatever it was fed, and reports the result line's values where there is one, else
``is_error`` false: a stream cut before its result line is reported as a success
(docs/consumers.md, `feed --broken`: a consumer "must not report success" on a broken stream).
"""

from __future__ import annotations

import sys

from tests.independent.consumers.tolerant import main

if __name__ == "__main__":
    sys.exit(main(always_success=True))
