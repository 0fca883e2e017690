"""A whole conformant run and exit 0, leaving a child that writes one more line 50 ms later.

argv[2] says what the child does after its pause: ``line`` (writes a system line after the
result, then exits), ``close`` (writes nothing and closes stdout, then sleeps), ``hold`` (writes
nothing and keeps stdout open, sleeping).
"""

import json
import os
import sys
import time

from _common import MARKER, golden_lines, say, write

lines = golden_lines()
write(*lines)
if os.fork() == 0:
    time.sleep(0.05)
    last = json.loads(lines[-1])
    if sys.argv[2] == "line":
        extra = {"type": "system", "subtype": "error", "session_id": last["session_id"], "seq": last["seq"] + 1,
                 "ts": last["ts"], "message": "written by a child after the emitter exited"}
        write(json.dumps(extra, separators=(",", ":")).encode() + b"\n")
        os._exit(0)
    if sys.argv[2] == "close":
        os.close(1)
    os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(120)", MARKER])
say(f"exiting 0, a child will {sys.argv[2]}")
