"""A conformant run that writes megabytes to stderr first: the pipe must not block it."""

import sys

from _common import golden_lines, say, write

for i in range(20_000):
    sys.stderr.write(f"noise {i:05d} " + "." * 100 + "\n")
say("done with the noise")
write(*golden_lines())
