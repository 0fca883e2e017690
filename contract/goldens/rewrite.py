"""Re-recording a golden from an emitter's output (``milk-contract record``), atomically.

Both files of a golden (the transcript and its metadata) are staged beside their targets and
renamed over them, so an interruption leaves each old or new, never cut.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

from contract.goldens.compare import Comparison, compare
from contract.goldens.store import Golden, meta_errors


def rewrite(golden: Golden, data: bytes, emitter: str, version: str, date: str,
            schema_sha256: str | None = None) -> Comparison:
    """Re-record a golden from an emitter's output; returns what changed against the old one.

    The transcript is replaced byte for byte (it must be valid wire data: check it first) and
    the metadata keeps its description and reproduction, with provenance now "recorded" and,
    when given, the sha256 of the schema the output was checked under.
    """
    comparison = compare(golden.data(), data, golden.wire)
    meta = json.loads(golden.meta_path.read_text(encoding="utf-8"))
    meta["provenance"] = {"recorded": {"emitter": emitter, "version": version, "date": date}}
    if schema_sha256 is not None:
        meta["schema_sha256"] = schema_sha256
    errors = meta_errors(meta)
    if errors:
        raise ValueError(f"{golden.meta_path}: " + "; ".join(errors))
    text = (json.dumps(meta, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    # both files are written in full beside their targets before either replaces its target, so
    # Ctrl-C or a crash leaves each file old or new, never cut, and no temporary file behind
    staged: list[tuple[Path, Path]] = []
    try:
        staged.append((_stage(golden.path, data), golden.path))
        staged.append((_stage(golden.meta_path, text), golden.meta_path))
        for temporary, target in staged:
            os.replace(temporary, target)
    finally:
        for temporary, _ in staged:
            with contextlib.suppress(FileNotFoundError):
                temporary.unlink()
    return comparison


STAGING_SUFFIX = ".partial"  # temporary files of :func:`rewrite`, beside their targets


def _stage(target: Path, data: bytes) -> Path:
    """``data`` in a new temporary file in ``target``'s folder (same file system: rename is atomic)."""
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=STAGING_SUFFIX)
    try:
        with os.fdopen(handle, "wb") as temporary:
            temporary.write(data)
            temporary.flush()
            os.fsync(temporary.fileno())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name)
        raise
    return Path(name)
