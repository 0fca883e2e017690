"""Prints a human banner on stdout before the JSON lines (a classic wire breaker)."""

import sys

from _reference import main

sys.stdout.write("subagent host v1 ready\n")
sys.stdout.flush()
sys.exit(main())
