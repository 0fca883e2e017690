"""The hello run with one given line (argv[2]) after system/init, then the rest, and exit 0.

Lines such as ``{"type":[]}`` once crashed a rule machine; the live run must still fail.
"""

import sys

from _common import golden_lines, say, write

lines = golden_lines()
write(lines[0], sys.argv[2].encode() + b"\n", *lines[1:])
say("wrote an odd line")
