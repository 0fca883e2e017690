"""A whole conformant run, then one more line after its result; exits 0."""

import json

from _common import golden_lines, say, write

lines = golden_lines()
last = json.loads(lines[-1])
extra = {"type": "system", "subtype": "error", "session_id": last["session_id"], "seq": last["seq"] + 1,
         "ts": last["ts"], "message": "one more thing"}
write(*lines, json.dumps(extra, separators=(",", ":")).encode() + b"\n")
say("wrote a line after the result")
