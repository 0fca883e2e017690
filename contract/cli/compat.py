"""``milk-contract compat``: registered consumers by wire revision, as a matrix (contract/compat/)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from contract.cli.common import UsageError, positive_float, positive_int, seed
from contract.cli.statement import shard
from contract.core import textsafe
from contract.core.exitcodes import EXIT_OK, EXIT_VIOLATIONS
from contract.core.userfiles import read_whole

FORMATS = ("json", "markdown", "html")


def add_compat(verbs: Any) -> None:
    """The ``compat`` verb's parser."""
    compat = verbs.add_parser("compat", help="run each registered consumer (milk-consumers.json) against every wire "
                                             "revision's streams: a consumer-by-revision matrix")
    compat.add_argument("--consumers", metavar="FILE", default=None,
                        help="the registered consumers (default: milk-consumers.json here, else at --root)")
    compat.add_argument("--root", metavar="DIR", default=None,
                        help="the folder holding schemas/, goldens/ and requirements/ (default: the bundled data)")
    compat.add_argument("--adr", action="append", default=[], metavar="SCHEMA",
                        help="also a column for this proposed schema (repeatable)")
    compat.add_argument("--revision-schema", action="append", default=[], metavar="rN=FILE",
                        help="the schema revision rN stands on, where neither the checkout nor its git history has it")
    compat.add_argument("--statement", action="append", default=[], metavar="FILE",
                        help="a build's conformance statement (repeatable): the matrix also shows consumers by build, "
                             "through the revision each build was judged by")
    compat.add_argument("--format", choices=FORMATS, default="markdown", help="json, markdown (default) or html")
    compat.add_argument("--output", metavar="FILE", default=None, help="write here (default stdout)")
    compat.add_argument("--shard", type=shard, default=None, metavar="I/N",
                        help="only shard I of N of the cells; join the shards with compat merge")
    compat.add_argument("--jobs", type=positive_int, default=None, metavar="N",
                        help="cells run at once (default: the CPUs)")
    compat.add_argument("--timeout", type=positive_float, default=10.0, metavar="SECONDS",
                        help="bound on each consumer run (default 10; a consumer's own timeout wins)")
    compat.add_argument("--future", action="store_true", help="also feed each stream's future variants")
    compat.add_argument("--examples", type=positive_int, default=3, metavar="N", help="future variants per stream")
    compat.add_argument("--seed", type=seed, default=0, metavar="S", help="the future variants' seed (default 0)")
    compat.add_argument("words", nargs="*", metavar="merge FILE…", help="merge: join shards into one matrix")
    compat.set_defaults(handler=cmd_compat)


def _root(given: str | None) -> Path:
    from contract.core.resources import data_dir

    root = Path(given) if given is not None else data_dir("schemas").parent
    if not (root / "schemas").is_dir() or not (root / "goldens").is_dir():
        raise UsageError(f"--root {textsafe.text(str(root))}: no schemas/ and goldens/ there")
    return root


def _given(pairs: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        label, sep, path = pair.partition("=")
        if not sep or not path or not (label.startswith("r") and label[1:].isdigit()):
            raise UsageError(f"--revision-schema: expected rN=FILE, found {textsafe.text(pair, 100)!r}")
        out[label] = path
    return out


def _write(matrix: dict[str, Any], fmt: str, output: str | None) -> None:
    """The matrix in ``fmt`` to ``output`` (stdout when None), as a statement is written: a path that
    cannot be written is one line (the CLI escapes it once)."""
    from contract.compat import render
    from contract.statement.combine import StatementError, write_to

    try:
        write_to(output, json.dumps(matrix, indent=2, sort_keys=True, ensure_ascii=False) + "\n" if fmt == "json"
                 else render.markdown(matrix) if fmt == "markdown" else render.html_page(matrix))
    except StatementError as exc:
        raise UsageError(str(exc)) from None


def _said(matrix: dict[str, Any]) -> int:
    from contract.compat.matrix import all_pass

    summary = matrix["summary"]
    sys.stdout.flush()
    sys.stderr.write(f"milk-contract: compat: {summary['pass']} pass, {summary['fail']} fail, {summary['error']} error"
                     + (f" (shard {matrix['shard']})" if matrix.get("shard") else "") + "\n")
    return EXIT_OK if all_pass(matrix) else EXIT_VIOLATIONS


def cmd_compat(args: argparse.Namespace) -> int:
    """The matrix (or, ``compat merge FILE…``, its shards joined)."""
    from contract import __version__
    from contract.compat import columns, matrix
    from contract.consumers.registered import ConsumersError, found, load
    from contract.statement import combine

    try:
        if args.words[:1] == ["merge"]:
            if len(args.words) < 2:
                raise UsageError("compat merge needs the shards' files: milk-contract compat merge FILE…")
            texts = []
            for name in args.words[1:]:
                try:
                    texts.append((name, read_whole(name).decode("utf-8", "replace")))
                except OSError as exc:
                    raise UsageError(f"cannot read {textsafe.text(name)}: {exc.strerror or exc}") from None
            merged = matrix.merge(texts)
            _write(merged, args.format, args.output)
            return _said(merged)
        if args.words:
            raise UsageError(f"compat: expected merge FILE…, found {textsafe.text(args.words[0], 100)!r}")
        root = _root(args.root)
        path = found(Path.cwd(), args.consumers) or found(root, None)
        if path is None:
            raise UsageError("no registered consumers: write milk-consumers.json (schemas/consumers.schema.json) "
                             "or pass --consumers FILE")
        consumers = load(path)
        wires = sorted({consumer.wire for consumer in consumers})
        given = _given(args.revision_schema)
        cols = [col for wire in wires for col in columns.columns(root, wire, args.adr, given)]
        options = matrix.Options(timeout=args.timeout, future=args.future, examples=args.examples, seed=args.seed)
        builds = matrix.builds_of(combine.read_all(args.statement), cols)
        result = matrix.run(consumers, cols, options, __version__, args.shard, args.jobs or os.cpu_count() or 1,
                            builds)
    except (ConsumersError, columns.CompatError, combine.StatementError) as exc:
        raise UsageError(str(exc)) from None
    _write(result, args.format, args.output)
    return _said(result)
