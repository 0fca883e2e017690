"""A test double: the bundled reference emitter, then a child left holding stdout (it sleeps).

Usage: leaves_child.py [milk arguments…]. Models a milk build whose background helper inherited
stdout: past the late grace the suite must fail with run.stdout-held.
"""

from __future__ import annotations

import subprocess
import sys

from _in_process import reference_output

output, status = reference_output(sys.argv[1:])
sys.stdout.buffer.write(output)
sys.stdout.buffer.flush()
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])  # inherits our stdout
sys.exit(status)
