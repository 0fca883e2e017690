"""Answers everything and exits 0, but leaves a child behind that keeps stdout open.

Not a wire fault: the driver must neither wait out its whole timeout for end of output nor
leave the child running.
"""

import subprocess
import sys

from contract.reference.subagent_host import main

subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])  # inherits our stdout
sys.exit(main())
