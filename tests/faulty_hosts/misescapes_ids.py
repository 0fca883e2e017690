"""Writes the id into its response by string templating that escapes quotes but not backslashes."""

import json
import sys

from _reference import Host, Line, main


class Misescaping(Host):
    def write(self, line: Line) -> None:
        if line.get("type") != "response" or not isinstance(line.get("id"), str):
            super().write(line)
            return
        ident = line.pop("id")
        body = json.dumps(line, ensure_ascii=False, separators=(",", ":"))
        quoted = '"' + ident.replace('"', '\\"') + '"'  # the fault: a backslash goes out unescaped
        self.stdout.write(('{"id":' + quoted + "," + body[1:]).encode() + b"\n")


sys.exit(main(host=Misescaping))
