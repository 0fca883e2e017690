"""What every verb's parser shares: the program name, misuse, the common options and the
argument types (each a one-line error, exit 2, never a traceback)."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from contract.core.jsonvalue import quoted
from contract.core.reader import DEFAULT_MAX_LINE_BYTES
from contract.core.userfiles import size_text as _size
from contract.wires import AUTO, DEFAULT, WIRES, Live

PROG = "milk-contract"


# the --format choices, without importing the reporters to learn them (the parser is built for
# every verb, --help included); tests/cli/test_cli.py holds this equal to contract.reporting.formats.REPORTERS
FORMAT_NAMES = ("text", "json", "junit", "github", "sarif", "markdown")


# contract.live.harness.DEFAULT_LATE_GRACE, without importing the harness to learn it (as above);
# tests/core/test_signals.py holds the two equal
LATE_GRACE = 2.0


def liveness_options(parser: argparse.ArgumentParser) -> None:
    """The liveness thresholds (contract.live.timeline.Liveness; docs/live-runs.md, "Liveness")."""
    from contract.live.timeline import DEFAULT_LIVENESS as D

    parser.add_argument("--first-line-within", type=positive_float, default=D.first_line_within, metavar="SECONDS",
                        help=f"run.first-line: the first line comes this soon after the start (default "
                             f"{D.first_line_within:g})")
    parser.add_argument("--max-gap", type=positive_float, default=D.max_gap, metavar="SECONDS",
                        help=f"run.stall: no longer gap between lines before the result (default {D.max_gap:g})")
    parser.add_argument("--exit-grace", type=seconds, default=D.exit_grace, metavar="SECONDS",
                        help=f"run.exit-after-result: the emitter exits this soon after its result line, or is "
                             f"killed (default {D.exit_grace:g})")
    parser.add_argument("--response-within", type=positive_float, default=D.response_within, metavar="SECONDS",
                        help=f"run.response-late: a host answers each command this soon (default "
                             f"{D.response_within:g})")


def liveness_of(args: argparse.Namespace) -> Any:
    """The ``Liveness`` the parsed options ask for (typed loosely: the timeline loads when used)."""
    from contract.live.timeline import Liveness

    return Liveness(args.first_line_within, args.max_gap, args.exit_grace, args.response_within)


class UsageError(Exception):
    """Misuse: reported on one line, exit 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


# Why each live mode's flood limit is what it is (the --max-output-bytes help lists every wire's).
FLOOD_WHY = {Live.STREAM: "which is checked as it streams",
              Live.CONVERSATION: "whose conversation is kept to be judged whole"}


def flood_limits() -> str:
    return "; ".join(f"{_size(wire.max_output_bytes)} for {wire.name}, {FLOOD_WHY[wire.live]}"
                     for wire in WIRES.values())


class VersionAction(argparse.Action):
    """``--version``: the installed version, looked up only when asked for.

    (importlib.metadata costs about as much start-up time as the checker itself.)
    """

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show program's version number and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        sys.stdout.write(f"{parser.prog} {version()}\n")  # stdout, as argparse's own version action
        parser.exit()


def version() -> str:
    from contract.api import suite_version

    return suite_version()


def report_options(parser: argparse.ArgumentParser, wires: Sequence[str], baseline: bool = True) -> None:
    default = DEFAULT.name if DEFAULT.name in wires else wires[0]  # the registry's first, if the verb takes it
    parser.add_argument("--wire", choices=wires, default=default,
                        help=f"the wire to judge by (default {default}"
                             + ("; auto: picked per file from its first object lines)" if AUTO in wires else ")"))
    parser.add_argument("--format", choices=FORMAT_NAMES, default="text",
                        help="text (people), json (tools), junit, github (workflow annotations), "
                             "sarif (code scanning), markdown (a step summary)")
    terminal_options(parser)
    parser.add_argument("--strict", action="store_true", help="SHOULD findings fail too")
    parser.add_argument("--ignore", action="append", default=[], metavar="RULE",
                        help="skip a rule by id (repeatable)")
    parser.add_argument("--max-line-bytes", type=positive_int, default=DEFAULT_MAX_LINE_BYTES,
                        metavar="N", help="longest line the checker reads (default 64 MiB)")
    if not baseline:
        return
    parser.add_argument("--baseline", metavar="FILE", default=None,
                        help="accept the findings FILE lists; new ones fail, so do listed ones no longer found")
    parser.add_argument("--baseline-write", metavar="FILE", default=None,
                        help="write FILE from this run's findings (with --baseline: only what it listed and "
                             "still occurs; a baseline never grows). Writing records the findings, it does not "
                             "accept them: without --baseline the run still reports them and exits by them")


COLOR_CHOICES = ("auto", "yes", "no")  # contract.reporting.terminal.COLOR_CHOICES, without importing it


def terminal_options(parser: argparse.ArgumentParser) -> None:
    """``--color``, ``-q`` and ``-v``: how the text report looks (contract.reporting.terminal)."""
    parser.add_argument("--color", choices=COLOR_CHOICES, default="auto",
                        help="colour the text report: auto (a terminal only; NO_COLOR turns it off, FORCE_COLOR "
                             "on), yes or no (default auto)")
    loud = parser.add_mutually_exclusive_group()
    loud.add_argument("-q", "--quiet", dest="verbosity", action="store_const", const=-1, default=0,
                      help="the findings and the verdict line only")
    loud.add_argument("-v", "--verbose", dest="verbosity", action="store_const", const=1,
                      help="every requirement listed by status (and why a rule cannot apply), then each one's verdict")


BASIS_NAMES = ("written", "derived", "policy")  # contract.core.rule.Basis, without importing the catalog


def basis_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--basis", action="append", default=None, type=basis, metavar="|".join(BASIS_NAMES),
                        help="judge only the findings of rules of this basis (repeatable, cumulative; default all): "
                             "written (the seed's words say it), derived (its structure or a stated purpose), "
                             "policy (our choice where it is silent). The others are listed, not failing; "
                             "checker, run and baseline findings, unreadable lines and runs not whole always "
                             "fail (docs/rules.md)")


def basis(text: str) -> str:
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [name for name in names if name not in BASIS_NAMES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"expected {', '.join(BASIS_NAMES)}, found {quoted(text)}")
    return ",".join(names)


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, found {quoted(text)}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, found {quoted(text)}")
    return value


def exit_status(text: str) -> int:
    """An exit status a process can choose (0 to 255): an end by a signal is never the expected one."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, found {quoted(text)}") from None
    if not 0 <= value <= 255:
        raise argparse.ArgumentTypeError(
            f"expected an exit status from 0 to 255, found {quoted(text)} (a run ended by a signal is never "
            "conformant)")
    return value


def positive_float(text: str) -> float:
    return checked_seconds(text, zero=False)


def seconds(text: str) -> float:
    """Zero or more seconds (a grace that may be none)."""
    return checked_seconds(text, zero=True)


def checked_seconds(text: str, zero: bool) -> float:
    """Seconds as the plugin's options take them too (contract.core.options: the one check)."""
    from contract.core.options import seconds_problem

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, found {quoted(text)}") from None  # run() escapes it
    problem = seconds_problem(value, zero=zero)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"{problem}, found {quoted(text)}")
    return value


def seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, found {quoted(text)}") from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"expected a seed from 0 to 2**64-1, found {quoted(text)}")
    return value


def adr(text: str) -> str:
    if not re.fullmatch(r"ADR-[0-9]{4,}", text):
        raise argparse.ArgumentTypeError(f"expected ADR-NNNN, found {quoted(text)}")  # run() escapes the message
    return text


def command_of(argv: Sequence[str]) -> list[str]:
    command = list(argv)
    if command == ["--"]:  # `-- ` and nothing: a command was meant and is missing (not the default)
        raise UsageError("-- must be followed by a command (leave out -- for the bundled reference)")
    return command[1:] if command[:1] == ["--"] else command
