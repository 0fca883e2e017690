"""Answers everything and exits 0, but leaves a child behind that keeps stdout open.

The driver must neither wait out its whole timeout for end of output nor leave the child
running; after the late grace the child still holding stdout is ``run.stdout-held``.
"""

import subprocess
import sys

from _reference import main

sys.stderr.write("faulty-host leaves_child: leaving a child holding stdout\n")
sys.stderr.flush()
marker = sys.argv.pop(1) if len(sys.argv) > 1 else "no-marker"
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", marker])  # inherits our stdout
sys.exit(main())
