"""Echoes at most 64 characters of a command's id (a fixed-size id buffer): long ids come back cut."""

import sys

from _reference import Host, Line, main


class Truncating(Host):
    def respond(self, command: Line) -> Line:
        response = super().respond(command)
        if isinstance(response.get("id"), str):
            response["id"] = response["id"][:64]
        return response


sys.exit(main(host=Truncating))
