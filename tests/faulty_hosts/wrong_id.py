"""Answers every command, but with an id that is not the one the client sent."""

import sys
from typing import Any

from _reference import Host, main


class WrongId(Host):
    def respond(self, command: dict[str, Any]) -> dict[str, Any]:
        response = super().respond(command)
        response["id"] = f"not-{command.get('id', 'none')}"
        return response


sys.exit(main(host=WrongId))
