"""Answers nothing; writes one line that never ends (no LF), as fast as the pipe takes it."""

import sys

sys.stderr.write("faulty-host endless_line: one line without end\n")
sys.stderr.flush()
out = sys.stdout.buffer
chunk = b'{"type":"response","id":"' + b"x" * 65536
out.write(chunk[:26])
while True:
    out.write(chunk[26:])
