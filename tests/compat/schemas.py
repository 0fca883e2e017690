"""Proposed schemas the compat tests share: the seed with a new line kind, as issue 47's ``rate_limit``."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from tests.support.seeds import seed

WIRE = "stream-json"


def with_kind(residue: dict[str, Any] | None = None, at: int = 2, kind: str = "rate_limit") -> dict[str, Any]:
    """The seed with an optional top-level ``retry_after_ms`` (in both mirrored places) and a ``kind`` line
    whose branch holds ``residue`` (default: it requires ``retry_after_ms``)."""
    out = copy.deepcopy(seed(WIRE))
    for holder in (out, out["$defs"]["event"]):
        holder["properties"]["retry_after_ms"] = {"type": "integer", "minimum": 0}
    residue = residue if residue is not None else {"required": ["type", "retry_after_ms"]}
    branch = {"description": f"{kind}: retry after retry_after_ms", **copy.deepcopy(residue),
              "properties": {"type": {"const": kind}, **copy.deepcopy(residue.get("properties", {}))}}
    out["oneOf"].insert(at, branch)
    return out


def written(path: Path, schema: dict[str, Any]) -> Path:
    path.write_text(json.dumps(schema, indent=2), encoding="utf-8")
    return path
