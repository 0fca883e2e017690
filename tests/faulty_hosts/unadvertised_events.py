"""Says capabilities.events false in every snapshot, then pushes events anyway."""

import sys
from typing import Any

from _reference import Host, main


class NoEventsAdvertised(Host):
    def write(self, line: dict[str, Any]) -> None:
        snapshot = line.get("data") or line.get("snapshot")
        if isinstance(snapshot, dict):
            snapshot["capabilities"]["events"] = False
        super().write(line)


sys.exit(main(host=NoEventsAdvertised))
