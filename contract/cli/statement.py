"""``milk-contract statement`` (a conformance statement of one build; ``statement diff A B``,
``statement merge FILE…``) and ``milk-contract matrix`` (builds x requirements)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from contract.cli.common import Parser, UsageError, positive_float
from contract.core.exitcodes import EXIT_OK, EXIT_VIOLATIONS

STATEMENT_FORMATS = ("json", "markdown", "html", "shields")


def add_statement(verbs: Any) -> None:
    """The ``statement`` verb's parser (``diff`` and ``merge`` are read from its arguments)."""
    st = verbs.add_parser("statement", help="a conformance statement of one emitter build over the scenario suite "
                                            "(statement diff A B; statement merge FILE…)")
    st.add_argument("--format", choices=STATEMENT_FORMATS, default="json",
                    help="json (its schema: schemas/statement.schema.json), markdown (a step summary), html (one "
                         "self-contained page), shields (a shields.io endpoint badge)")
    st.add_argument("--output", metavar="FILE", default=None, help="write here (default stdout)")
    st.add_argument("--captures", metavar="DIR", default=None,
                    help="judge the *.jsonl captures under DIR instead of running the scenarios")
    st.add_argument("--provoke", action="store_true",
                    help="run each stream scenario again under the provoked environments (the level full needs it)")
    st.add_argument("--shard", type=shard, default=None, metavar="I/N",
                    help="only shard I of N of the scenarios (a stable partition by name); merge them with "
                         "statement merge")
    st.add_argument("--timeout", type=positive_float, default=60.0, metavar="SECONDS",
                    help="per-scenario timeout (default 60)")
    st.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARG…",
                    help="the emitter build; without one, the bundled reference emitters. Or: diff A B, merge FILE…")
    st.set_defaults(handler=cmd_statement)


def add_matrix(verbs: Any) -> None:
    """The ``matrix`` verb's parser."""
    mx = verbs.add_parser("matrix", help="builds x requirements from statements, grouped by wire and level")
    mx.add_argument("--format", choices=("markdown", "html"), default="markdown",
                    help="markdown (a step summary) or html (one self-contained page; default markdown)")
    mx.add_argument("--output", metavar="FILE", default=None, help="write here (default stdout)")
    mx.add_argument("statements", nargs="+", metavar="STATEMENT")
    mx.set_defaults(handler=cmd_matrix)


def shard(text: str) -> tuple[int, int]:
    """``I/N``: shard I (1-based) of N."""
    index, _, total = text.partition("/")
    if not (index.isdigit() and total.isdigit()) or not 1 <= int(index) <= int(total):
        raise argparse.ArgumentTypeError(f"expected I/N with 1 <= I <= N, found {text!r}")
    return int(index), int(total)


def cmd_statement(args: argparse.Namespace) -> int:
    from contract.statement.combine import StatementError

    words = list(args.command)
    try:
        if words[:1] == ["diff"]:
            return statement_diff(words[1:], args)
        if words[:1] == ["merge"]:
            return statement_merge(words[1:], args)
        if words and words[0] != "--":
            raise UsageError(f"statement: expected -- CMD…, diff A B or merge FILE…, found {words[0]!r}")
        return make_statement(args)
    except StatementError as exc:
        raise UsageError(str(exc)) from None


def make_statement(args: argparse.Namespace) -> int:
    """One path with ``contract.conformance_statement`` (its ValueError is misuse here)."""
    from contract.api import conformance_statement
    from contract.cli.common import command_of

    command = command_of(args.command)
    if args.captures is not None and (command or args.provoke or args.shard):
        raise UsageError("--captures judges files: no command, --provoke or --shard with it")
    try:
        document = conformance_statement(command or None, timeout=args.timeout, provoke=args.provoke,
                                         shard=args.shard, captures=args.captures)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    write(document, args.format, args.output)
    say_level(document)
    return EXIT_OK if document["level"]["must_complete"] else EXIT_VIOLATIONS


def say_level(document: dict[str, Any]) -> None:
    """The level and what it rests on, one line on stderr (stdout holds the statement itself)."""
    from contract.core import textsafe
    from contract.statement.model import rests_on

    sys.stdout.flush()
    sys.stderr.write(f"milk-contract: statement: {textsafe.text(rests_on(document))}\n")


def write(document: dict[str, Any], fmt: str, output: str | None) -> None:
    from contract.statement import combine, model, render

    text = {"json": model.dumps, "markdown": render.markdown, "html": render.html_page,
            "shields": render.shields}[fmt](document)
    combine.write_to(output, text)


def statement_diff(words: list[str], args: argparse.Namespace) -> int:
    import json

    from contract.statement import combine

    parser = sub_parser("diff", ("json", "text"), args)
    parser.add_argument("a", metavar="A")
    parser.add_argument("b", metavar="B")
    paths = parser.parse_args(words)
    found = combine.diff(combine.load(paths.a), combine.load(paths.b))
    text = json.dumps(found.to_json(), indent=2) + "\n" if paths.format == "json" else found.text()
    combine.write_to(paths.output, text)
    return EXIT_VIOLATIONS if found.reasons else EXIT_OK


def sub_parser(verb: str, formats: tuple[str, ...], args: argparse.Namespace) -> Parser:
    """``statement diff``'s or ``merge``'s own parser: --format and --output may come after its files too."""
    parser = Parser(prog=f"milk-contract statement {verb}")
    default = args.format if args.format in formats else formats[-1]
    parser.add_argument("--format", choices=formats, default=default)
    parser.add_argument("--output", metavar="FILE", default=args.output)
    return parser


def statement_merge(words: list[str], args: argparse.Namespace) -> int:
    from contract.statement import combine

    parser = sub_parser("merge", STATEMENT_FORMATS, args)
    parser.add_argument("files", nargs="+", metavar="FILE")
    given = parser.parse_args(words)
    document = combine.merge(combine.read_all(given.files))
    write(document, given.format, given.output)
    say_level(document)
    return EXIT_OK if document["level"]["must_complete"] else EXIT_VIOLATIONS


def cmd_matrix(args: argparse.Namespace) -> int:
    from contract.statement import combine

    try:
        documents = combine.read_all(args.statements)
        combine.write_to(args.output, (combine.matrix_html if args.format == "html" else combine.matrix_markdown)(
            documents))
    except combine.StatementError as exc:
        raise UsageError(str(exc)) from None
    sys.stdout.flush()
    return EXIT_OK
