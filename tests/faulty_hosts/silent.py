"""Never answers: reads every command and writes nothing, then exits 0 at end of input."""

import sys

for _ in sys.stdin.buffer:
    pass
