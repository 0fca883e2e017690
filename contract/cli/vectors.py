"""``milk-contract vectors export``: the suite's knowledge as language-neutral test vectors."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from contract.cli.common import PROG, Parser, UsageError
from contract.cli.output import hypothesis_storage_apart
from contract.core import textsafe
from contract.core.exitcodes import EXIT_OK, EXIT_USAGE


def add_vectors(verbs: Any) -> None:
    """The ``vectors`` verb's parser."""
    vectors = verbs.add_parser("vectors", help="the suite's knowledge as language-neutral test vectors")
    # metavar: a usage error names what the help shows ("export"), not the dest
    vector_verbs = vectors.add_subparsers(dest="action", required=True, parser_class=Parser, metavar="export")
    export = vector_verbs.add_parser("export", help="write every vector (conformant, not conformant, "
                                                    "future-compatible) and their JSON Schema under DIR")
    export.add_argument("folder", metavar="DIR",
                        help="the folder to write (created; existing vector files overwritten)")
    export.set_defaults(handler=cmd_vectors_export)


def cmd_vectors_export(args: argparse.Namespace) -> int:
    """Write the test vectors (contract.consumers.vectors); a vector whose verdict disagrees is no file, but exit 2."""
    from contract.consumers import vectors

    if os.path.exists(args.folder) and not os.path.isdir(args.folder):
        raise UsageError(f"{args.folder} exists and is not a folder")
    try:
        with hypothesis_storage_apart():
            counts = vectors.export(args.folder)
    except OSError as exc:
        raise UsageError(f"cannot write {args.folder}: {exc.strerror or exc}") from None
    except vectors.VectorError as exc:  # a bug: a vector would state a verdict check does not give
        sys.stderr.write(f"{PROG}: error: {textsafe.text(str(exc))}; the export is incomplete\n")
        return EXIT_USAGE
    total = sum(counts.values())
    sys.stdout.write(f"{textsafe.text(args.folder)}: {textsafe.counted(total, 'vector')} ("
                     + ", ".join(f"{group} {count}" for group, count in counts.items())
                     + f"), index.json and {vectors.SCHEMA_FILE}\n")
    return EXIT_OK
