"""A test double: the bundled reference emitter, one line more or less: a build's regression, not a wire change.

Usage: one_line_more_or_less.py banner|extra|drop|new-kind [milk arguments…]. ``banner`` prints a plain-text
banner before the stream (as a build that logs to stdout does); ``extra`` prints one more line after
the first (a copy of the line after it, as a build that emits a line twice does); ``drop`` leaves
out the line after the first. ``extra`` and ``drop`` number the lines they print, as a build numbers
what it writes (seq stays contiguous), so the only difference from the golden is the one line.
"""

from __future__ import annotations

import json
import sys

from _in_process import reference_output

how = sys.argv[1]
output, status = reference_output(sys.argv[2:])
lines = [json.loads(raw) for raw in output.splitlines()]
if how == "banner":
    sys.stdout.write("milk 9.9.9-dev (debug build) starting\n")
elif how == "extra":
    lines.insert(1, dict(lines[1]))
elif how == "drop":
    del lines[1]
elif how == "new-kind":  # a line of a kind no golden shows, as a build that implements an ADR's new kind writes
    lines.insert(1, {key: lines[1][key] for key in ("type", "session_id", "seq", "ts")} | {"type": "x_adr_notice"})
first = lines[0].get("seq")
for number, obj in enumerate(lines):
    if how != "banner" and isinstance(first, int) and "seq" in obj:  # numbered as the build writes them
        obj["seq"] = first + number
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
sys.exit(status)
