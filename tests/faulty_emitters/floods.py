"""A valid init, then schema-valid stream_event lines forever, as fast as the pipe takes them."""

import json
import sys

from _common import golden_lines, say, write

init = json.loads(golden_lines()[0])
write(golden_lines()[0])
say("flooding stdout")
template = {"type": "stream_event", "session_id": init["session_id"], "ts": init["ts"],
            "event": {"type": "content_block_delta", "index": 0,
                      "delta": {"type": "text_delta", "text": "x" * 200}}}
out = sys.stdout.buffer
seq = init["seq"]
while True:
    seq += 1
    template["seq"] = seq
    out.write(json.dumps(template, separators=(",", ":")).encode() + b"\n")
