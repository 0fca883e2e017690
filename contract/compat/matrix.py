"""Running the matrix: each registered consumer against each column of its wire, cell by cell.

A cell is one consumer fed every stream of one column (contract/compat/columns.py) by the feed loop
``feed`` runs (``contract.consumers.feed.feed_stream``: the same rules, bounds and kills). Its verdict is
``pass`` when the feed's report is conformant, ``fail`` with the first finding (rule, stream, message)
when not, and ``error`` when the column has no streams or the cell could not be run (an internal error
is a finding, never a pass). Cells are independent, so they run in a process pool; ``shard`` keeps the
cells whose key (wire, consumer, version, column) falls in shard I of N by the statements' partition
(``contract.statement.collect.in_shard``), and :func:`merge` joins shards into the document the unsharded
run writes, byte for byte: the document holds no time and no host, and its cells are sorted.

A document is sealed as a statement is (``sha256`` over its canonical content,
``contract.statement.model.seal``), and :func:`merge` refuses a shard whose seal is not its content's or
whose summary its cells do not give: a cell turned from ``fail`` to ``pass`` by hand is refused, not
merged into a green matrix. The seal proves the file is intact, not who wrote it (docs/compat.md).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from contract.compat.columns import Column, CompatError
from contract.consumers.registered import Consumer
from contract.core import textsafe
from contract.core.jsonvalue import clip
from contract.statement.collect import in_shard
from contract.statement.model import seal, sealed

KIND = "milk-contract compat matrix"
SCHEMA_NAME = "compat.schema.json"  # the document's shape (schemas/)
VERSION = 2  # 2: sealed (sha256)
PASS, FAIL, ERROR = "pass", "fail", "error"
MESSAGE_CHARS = 1000  # of a first finding's message kept (a traceback's last line is what names the fault)


@dataclass(frozen=True, slots=True)
class Options:
    """How each cell is fed (the same for every cell, and recorded in the document)."""

    timeout: float = 10.0
    future: bool = False
    examples: int = 3
    seed: int = 0
    pace: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"timeout": self.timeout, "future": self.future, "examples": self.examples, "seed": self.seed,
                "pace": self.pace}


def cell_key(consumer: Consumer, column: Column) -> str:
    """What places a cell in a shard, and identifies it in a merge."""
    return "\0".join((column.wire, consumer.name, consumer.version, column.label))


def run_cell(consumer: Consumer, column: Column, options: Options) -> dict[str, Any]:
    """One cell's verdict (in a pool worker): never raises, an internal error is an ``error`` cell."""
    base = {"consumer": consumer.name, "version": consumer.version, "wire": column.wire, "revision": column.label}
    if column.error is not None:
        return {**base, "verdict": ERROR, "finding": {"rule": "compat.column", "stream": None,
                                                      "message": clip(column.error, MESSAGE_CHARS)}}
    try:
        from contract.consumers.feed import feed_stream
        from contract.consumers.judging import Expectation

        result = feed_stream(list(consumer.command), list(column.streams), wire=column.wire, future=options.future,
                             examples=options.examples, seed=options.seed, pace=options.pace,
                             timeout=consumer.timeout or options.timeout,
                             expect=Expectation(reading=consumer.reading))
    except Exception as exc:  # fail closed: an internal error is said, never a pass
        return {**base, "verdict": ERROR, "finding": {"rule": "checker.internal", "stream": None, "message": clip(
            f"{type(exc).__name__}: {exc}", MESSAGE_CHARS)}}
    report = result.report
    failing = report.failing()
    if report.conformant and not failing:
        return {**base, "verdict": PASS, "finding": None}
    stream = result.failures[0].scenario if result.failures else None
    first = failing[0] if failing else None
    return {**base, "verdict": FAIL, "finding": {
        "rule": first.rule if first else "compat.unknown",
        "stream": stream,
        "message": clip(textsafe.text(first.message) if first else "the feed was not conformant", MESSAGE_CHARS)}}


_STOPPED = False  # in a pool worker: an interruption reached it


def _run(job: tuple[Consumer, Column, Options]) -> dict[str, Any]:
    """One cell, in a pool worker: a signal there takes the feed's own interruption path (the consumer's
    group killed and reaped) rather than ending the worker with the consumer left running."""
    from contract.core.interrupts import as_interrupts

    global _STOPPED
    if _STOPPED:  # this worker was interrupted: the cells queued to it are not started
        raise KeyboardInterrupt
    with as_interrupts() as watch:
        try:
            return run_cell(*job)
        finally:
            _STOPPED = _STOPPED or watch.received is not None


def _pooled(jobs: list[tuple[Consumer, Column, Options]], workers: int) -> list[dict[str, Any]]:
    """The cells in a process pool; interrupted, each worker is told (SIGINT: it kills its consumer) and
    awaited before the interruption goes on up (no consumer outlives the run)."""
    pool = ProcessPoolExecutor(max_workers=workers)
    try:
        results = list(pool.map(_run, jobs))
    except BaseException:
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            with contextlib.suppress(OSError):
                os.kill(process.pid, signal.SIGINT)
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return results


def basis(consumers: Sequence[Consumer], columns: Sequence[Column], options: Options, suite: str,
          builds: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """What the cells were run on: a merge refuses shards whose bases differ."""
    return {"suite": suite, "consumers": [c.to_json() for c in consumers], "columns": [c.to_json() for c in columns],
            "options": options.to_json(), "builds": list(builds)}


def builds_of(statements: Sequence[dict[str, Any]], columns: Sequence[Column]) -> list[dict[str, Any]]:
    """Each build a statement (contract/statement/) names, per wire of the matrix: the revision it was
    judged by and the column whose schema is the one it stands on (``column`` None: no column has it, so
    its consumers' verdicts are not known)."""
    wires = {column.wire for column in columns}
    out = []
    for statement in statements:
        build = statement.get("build") or {}
        for judged in statement.get("wires") or ():
            if judged.get("wire") not in wires:
                continue
            column = next((c.label for c in columns if c.wire == judged["wire"]
                           and c.schema_sha256 == judged.get("schema_sha256")), None)
            out.append({"name": textsafe.text(str(build.get("name") or "")),
                        "version": textsafe.text(str(build.get("version") or "version unknown"), 200),
                        "level": str((statement.get("level") or {}).get("achieved")), "wire": judged["wire"],
                        "revision": str(judged.get("revision")), "column": column})
    return out


def plan(consumers: Sequence[Consumer], columns: Sequence[Column]) -> list[tuple[Consumer, Column]]:
    """Every cell: each consumer by each column of its wire, sorted by key."""
    cells = [(consumer, column) for consumer in consumers for column in columns if column.wire == consumer.wire]
    return sorted(cells, key=lambda pair: cell_key(*pair))


def run(consumers: Sequence[Consumer], columns: Sequence[Column], options: Options, suite: str,
        shard: tuple[int, int] | None = None, jobs: int = 1, builds: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """The matrix document (of one shard, with ``shard``), the cells run ``jobs`` at a time."""
    cells = [(c, col) for c, col in plan(consumers, columns) if in_shard(cell_key(c, col), shard)]
    jobs_list = [(c, col, options) for c, col in cells]
    if jobs > 1 and len(jobs_list) > 1:
        results = _pooled(jobs_list, min(jobs, len(jobs_list)))
    else:
        results = [_run(job) for job in jobs_list]
    return document(basis(consumers, columns, options, suite, builds), results,
                    None if shard is None else f"{shard[0]}/{shard[1]}")


def document(grounds: dict[str, Any], cells: list[dict[str, Any]], shard: str | None) -> dict[str, Any]:
    """The matrix as data (sorted cells, a summary, the digest of the basis)."""
    cells = sorted(cells, key=lambda cell: "\0".join((cell["wire"], cell["consumer"], cell["version"],
                                                      cell["revision"])))
    summary = _summary(cells)
    digest = hashlib.sha256(json.dumps(grounds, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()
    return seal({"kind": KIND, "version": VERSION, "basis": grounds, "basis_sha256": digest, "shard": shard,
                 "cells": cells, "summary": summary})


def _summary(cells: Sequence[dict[str, Any]]) -> dict[str, int]:
    """How many cells have each verdict."""
    return {verdict: sum(1 for cell in cells if cell["verdict"] == verdict) for verdict in (PASS, FAIL, ERROR)}


def all_pass(matrix: dict[str, Any]) -> bool:
    """Every cell passed (and there is at least one)."""
    return bool(matrix["cells"]) and all(cell["verdict"] == PASS for cell in matrix["cells"])


def _key(cell: Any) -> str:
    """A cell's place in the matrix (:class:`CompatError` for a cell that is not one)."""
    parts = [cell.get(name) if isinstance(cell, dict) else None for name in ("wire", "consumer", "version", "revision")]
    if not all(isinstance(part, str) for part in parts) or not isinstance(cell, dict) \
            or cell.get("verdict") not in (PASS, FAIL, ERROR):
        raise CompatError("a shard holds a cell that is not one (a shard was edited)")
    return "\0".join(str(part) for part in parts)


def _read(text: str, name: str) -> dict[str, Any]:
    try:
        found = json.loads(text)
    except (ValueError, RecursionError):
        raise CompatError(f"{textsafe.text(name)} is not JSON") from None
    if not isinstance(found, dict) or found.get("kind") != KIND or found.get("version") != VERSION:
        raise CompatError(f"{textsafe.text(name)} is not a compat matrix (version {VERSION})")
    problem = problem_of(found)
    if problem is not None:
        raise CompatError(f"{textsafe.text(name)} is not a compat matrix: {problem}")
    if not sealed(found):
        raise CompatError(f"{textsafe.text(name)}: its sha256 is not its content's (edited after it was written?)")
    counted = _summary(found["cells"])
    if found["summary"] != counted:
        raise CompatError(f"{textsafe.text(name)}: its summary is not its cells' ({counted[PASS]} pass, "
                          f"{counted[FAIL]} fail, {counted[ERROR]} error)")
    return found


def problem_of(document: Any) -> str | None:
    """What is wrong with ``document`` by schemas/compat.schema.json (None when nothing is)."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    from contract.core.resources import data_dir

    schema = json.loads((data_dir("schemas") / SCHEMA_NAME).read_text(encoding="utf-8"))
    error = best_match(Draft202012Validator(schema).iter_errors(document))
    if error is None:
        return None
    place = "".join(f"/{part}" for part in error.absolute_path) or "/"
    return f"at {textsafe.text(place, 100)}: {textsafe.text(error.message, 200)}"


def merge(texts: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """Shards (name, JSON text) joined into the unsharded document; :class:`CompatError` on overlaps,
    other bases, missing shards or cells."""
    shards = [(name, _read(text, name)) for name, text in texts]
    if not shards:
        raise CompatError("merge needs the shards' files")
    grounds = shards[0][1]["basis"]
    totals: set[str] = set()
    seen: dict[str, str] = {}
    cells: list[dict[str, Any]] = []
    for name, shard in shards:
        if shard["basis"] != grounds or shard.get("basis_sha256") != shards[0][1].get("basis_sha256"):
            raise CompatError(f"{textsafe.text(name)} was run on other consumers, revisions or options than "
                              f"{textsafe.text(shards[0][0])}")
        label = shard.get("shard")
        if not isinstance(label, str) or "/" not in label:
            raise CompatError(f"{textsafe.text(name)} is not a shard (its shard is {textsafe.text(str(label))})")
        if label in seen:
            raise CompatError(f"{textsafe.text(name)} and {textsafe.text(seen[label])} are both shard {label}")
        seen[label] = name
        totals.add(label.split("/")[1])
        cells.extend(shard["cells"])
    if len(totals) != 1:
        raise CompatError(f"the shards are of different splits ({', '.join(sorted(totals))})")
    total = int(next(iter(totals)))
    missing = [f"{index}/{total}" for index in range(1, total + 1) if f"{index}/{total}" not in seen]
    if missing:
        raise CompatError(f"shard {missing[0]} is missing (merge every shard of the split)")
    keys = [_key(cell) for cell in cells]
    if len(set(keys)) != len(keys):
        raise CompatError("two shards hold the same cell")
    expected = {"\0".join((col["wire"], con["name"], con["version"], col["revision"]))
                for con in grounds["consumers"] for col in grounds["columns"] if col["wire"] == con["wire"]}
    if set(keys) != expected:
        raise CompatError("the shards' cells are not the matrix's cells (a shard was edited or cut)")
    return document(grounds, cells, None)
