"""Writing authored goldens: a scenario's lines, checked clean, saved as ``goldens/<wire>/<name>.jsonl``
with its ``.meta.json`` (provenance "authored").

Each wire's kit authors its scenarios from readable scripts (``contract/wires/<wire>/kit/goldens.py``);
``python tools/make_goldens.py`` runs them. A scenario that ``check --strict`` does not pass is not
written: :class:`AuthoringError` lists its findings.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from contract.checking.checker import check

AUTHORED = "to the schema, 2026-11-30"
Obj = dict[str, Any]


class AuthoringError(ValueError):
    """An authored scenario that breaks a rule (the message lists each finding, one a line)."""


def dumps(obj: Any) -> str:
    """One line of a golden as it is written: compact, UTF-8 as it is."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def meta(description: str, argv: list[str], stdin: Any, exit_status: int) -> Obj:
    """An authored golden's ``.meta.json``: what it shows, how to reproduce it, where it comes from."""
    return {"description": description,
            "reproduce": {"argv": argv, "env": {}, "stdin": stdin, "exit_status": exit_status},
            "provenance": {"authored": AUTHORED}}


def write_golden(goldens: Path, wire: str, name: str, lines: list[Obj], info: Obj) -> None:
    """Check the scenario's ``lines`` strictly, then write them and ``info`` under ``goldens/<wire>/``."""
    data = "".join(dumps(line) + "\n" for line in lines).encode()
    report = check(data, wire=wire, strict=True)
    if report.violations:
        raise AuthoringError("\n".join(f"{wire}/{name}:{v.line} {v.rule} {v.pointer} {v.message}"
                                       for v in report.violations))
    folder = goldens / wire
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.jsonl").write_bytes(data)
    (folder / f"{name}.meta.json").write_text(json.dumps(info, indent=2, ensure_ascii=False) + "\n")
