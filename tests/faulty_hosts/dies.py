"""Answers the first command, then dies with status 3 when the second arrives."""

import os
import sys
from typing import Any

from _reference import Host, main


class Dies(Host):
    def on_command(self, command: dict[str, Any]) -> None:
        if self.answered == 1:
            self.flush()
            os._exit(3)
        super().on_command(command)


sys.exit(main(host=Dies))
