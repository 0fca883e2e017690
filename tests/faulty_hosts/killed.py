"""Answers the first command, then kills itself with SIGKILL when the second arrives."""

import os
import signal
import sys
from typing import Any

from _reference import Host, main


class Killed(Host):
    def on_command(self, command: dict[str, Any]) -> None:
        if self.answered == 1:
            self.flush()
            sys.stderr.write("faulty-host killed: SIGKILL on the second command\n")
            sys.stderr.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        super().on_command(command)


sys.exit(main(host=Killed))
