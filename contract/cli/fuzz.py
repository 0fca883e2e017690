"""``milk-contract fuzz``: generated conversations held with a live host, shrunk on failure."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from contract.cli.common import PROG, command_of, positive_float, positive_int, report_options, seed
from contract.cli.output import check_ignores, emit, hypothesis_storage_apart, save_transcript, style_of
from contract.core import textsafe
from contract.wires import WIRES, Live, named


def add_fuzz(verbs: Any) -> None:
    """The ``fuzz`` verb's parser."""
    # fuzzing holds conversations: the wires whose live mode is one
    conversations = tuple(name for name, wire in WIRES.items() if wire.live is Live.CONVERSATION)
    fuzz = verbs.add_parser("fuzz", help=f"hold generated conversations with a live {named(Live.CONVERSATION)} host")
    report_options(fuzz, wires=conversations, baseline=False)  # every conversation must be conformant
    fuzz.set_defaults(handler=cmd_fuzz)
    fuzz.add_argument("--examples", type=positive_int, default=None, metavar="N",
                      help="generated conversations, at most (default 30), one host process each")
    fuzz.add_argument("--seed", type=seed, default=None, metavar="S", help="find the same conversations again")
    fuzz.add_argument("--timeout", type=positive_float, default=None, metavar="SECONDS",
                      help="bound on each conversation (default 10)")
    fuzz.add_argument("--shrink-seconds", type=positive_float, default=None, metavar="SECONDS",
                      help="stop shrinking a failure after this long (default 60; the report says so)")
    fuzz.add_argument("--transcript", metavar="FILE", default=None,
                      help="write the shrunk failing conversation's transcript here (JSONL)")
    fuzz.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARG…",
                      help="the host command; without one, the bundled reference host")


def cmd_fuzz(args: argparse.Namespace) -> int:
    """Fuzz a live host; a failure is printed with its shrunk conversation and the seed."""
    check_ignores(args.ignore)
    command = command_of(args.command)
    from contract.live import fuzz
    from contract.live.harness import Interrupted

    options: dict[str, Any] = {"strict": args.strict, "ignore": args.ignore, "max_line_bytes": args.max_line_bytes,
                               "seed": args.seed}
    if args.examples is not None:
        options["examples"] = args.examples
    if args.timeout is not None:
        options["timeout"] = args.timeout
    if args.shrink_seconds is not None:
        options["shrink_seconds"] = args.shrink_seconds
    try:
        with hypothesis_storage_apart():
            result = fuzz.fuzz_host(command or None, **options)
    except Interrupted as exc:
        return emit(exc.report, args.format, exc.signum, style_of(args))
    save_transcript(args.transcript, result.transcript if result.failed else None)
    code = emit(result.report, args.format, style=style_of(args))
    text = fuzz.describe(result, textsafe.text(replay(args, result.seed, command)))
    if text:  # machine formats keep stdout parseable: the conversation goes to stderr there
        (sys.stdout if args.format == "text" else sys.stderr).write(text)
    return code


def replay(args: argparse.Namespace, seed_used: int, command: list[str]) -> str:
    """The command that finds the same failure again: every option that changes what is held or
    how it is judged (the seed, the budget, the timeouts, the judging options), the defaults
    written out so a later default cannot change it."""
    import shlex

    from contract.core.reader import DEFAULT_MAX_LINE_BYTES
    from contract.live import fuzz

    argv = [PROG, "fuzz", "--wire", args.wire, "--seed", str(seed_used),
            "--examples", str(args.examples or fuzz.DEFAULT_EXAMPLES),
            "--timeout", str(args.timeout if args.timeout is not None else fuzz.DEFAULT_TIMEOUT),
            "--shrink-seconds",
            str(args.shrink_seconds if args.shrink_seconds is not None else fuzz.DEFAULT_SHRINK_SECONDS)]
    if args.strict:
        argv.append("--strict")
    for rule in args.ignore:
        argv += ["--ignore", rule]
    if args.max_line_bytes != DEFAULT_MAX_LINE_BYTES:
        argv += ["--max-line-bytes", str(args.max_line_bytes)]
    return shlex.join([*argv, *(["--", *command] if command else [])])
