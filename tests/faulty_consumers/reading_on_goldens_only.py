"""A stream-json consumer that speaks the reading protocol on the goldens only (probe finding).

On a stream byte for byte a shipped golden it is the reference consumer: its reading and its
report. On any other stream (a ``--future`` variant, a ``--transport`` delivery) it writes no
reading and reports the run with its text lost (``"text": ""``), exiting 0: a consumer whose
reading writer fails on what it does not know, and which then misreads. It passes every control,
so ``feed`` trusts it to speak the protocol; what it makes of the variants it no longer says.
"""

from __future__ import annotations

import json
import os
import sys

from contract.goldens.store import all_scenarios
from contract.wires.stream_json.kit.consumer import READING_VARIABLE, reading, report, write_reading


def main() -> int:
    data = sys.stdin.buffer.read()
    found = reading(data.splitlines(keepends=True))
    if any(g.wire == "stream-json" and g.data() == data for g in all_scenarios()):
        path = os.environ.get(READING_VARIABLE)
        if path:
            write_reading(found, path)
        sys.stdout.write(json.dumps(report(found)) + "\n")
        return 0
    sys.stdout.write(json.dumps({**report(found), "text": ""}) + "\n")  # the text lost, and no reading says so
    return 0


if __name__ == "__main__":
    sys.exit(main())
