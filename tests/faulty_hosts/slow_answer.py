"""Answers every command correctly, the first one only argv[1] seconds after reading it: run.response-late
on that command alone."""

import sys
import time
from typing import Any

from _reference import Host, main

DELAY = float(sys.argv[1])


class Slow(Host):
    def respond(self, command: dict[str, Any]) -> dict[str, Any]:
        if not self.answered:
            time.sleep(DELAY)
        return super().respond(command)


sys.exit(main(sys.argv[2:], host=Slow))
