"""How a new scenario is reproduced: its meta's ``reproduce`` (``milk-contract scenario``).

``--like SCENARIO`` copies how that scenario is run (its environment, stdin and exit status, and
its arguments when the golden is recorded from ``-- CMD``); ``--arg`` (repeated) or ``--argv`` (one
shell-quoted string) give the arguments outright. An authored transcript (``--transcript``) takes
the arguments of the golden it was made from, found by its lines (``contract.goldens.compare.origin``):
``--like``'s were copied into its meta whatever the transcript showed (issue 47). Under ``--like``, a
transcript made from no golden is refused until ``--argv`` gives them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from contract.core import textsafe
from contract.core.userfiles import read_whole


class ReproductionError(Exception):
    """Misuse or an unusable input, as ``contract.evolution.evolve.EvolveError``: one line, exit 2."""


def explicit_argv(args: argparse.Namespace) -> list[str] | None:
    """The scenario's arguments as ``--arg`` (repeated) or ``--argv`` (one shell-quoted string) give
    them, or None when neither is given; ReproductionError for both, or a string shlex cannot split."""
    import shlex

    if args.argv is None:
        return list(args.arg) if args.arg else None
    if args.arg:
        raise ReproductionError("give the scenario's arguments with --arg or with --argv, not both")
    try:
        return shlex.split(args.argv)
    except ValueError as exc:
        raise ReproductionError(f"--argv: cannot split {args.argv!r} as a shell would ({exc})") from None


def reproduction(args: argparse.Namespace, folder: Path, stdin: Any) -> dict[str, Any]:
    """How the scenario is run: from the options, or (``--like``) as the scenario of that name in
    ``folder`` is (its arguments, env, stdin, exit status), its arguments replaced by any ``--arg``
    or ``--argv``. An authored transcript's arguments are settled after its check (:func:`transcript_argv`)."""
    from contract.goldens.store import META

    explicit = explicit_argv(args)
    if not args.like:
        return {"argv": explicit or [], "env": {}, "stdin": stdin, "exit_status": args.exit_status}
    like = folder / (args.like + META)
    try:
        reproduce: dict[str, Any] = json.loads(read_whole(like))["reproduce"]
    except (OSError, ValueError, RecursionError, KeyError, TypeError):
        raise ReproductionError(f"--like: no readable scenario {args.wire}/{args.like}") from None
    if explicit is not None:
        reproduce["argv"] = explicit
    return reproduce


def transcript_argv(args: argparse.Namespace, folder: Path, data: bytes, argv: list[str]) -> list[str]:
    """An authored transcript's arguments, with no ``--arg``/``--argv``: those of the golden it was made
    from (:func:`contract.goldens.compare.origin`), whatever ``--like`` names; ``argv`` (the options'
    or ``--like``'s) when it was made from none and no ``--like`` was given; ReproductionError when ``--like``
    was: its arguments reproduce its own run, not a transcript made from no golden (issue 47: "say hi"
    was copied into every such meta)."""
    from contract.goldens.compare import origin
    from contract.goldens.recording import scenarios_in

    made_from = origin(data, scenarios_in(folder.parent, args.wire), args.wire, prefer=args.like)
    if made_from is not None:
        if args.like and made_from.name != args.like:
            shown = textsafe.text(" ".join(made_from.reproduce.argv))
            sys.stdout.write(f"{args.wire}/{textsafe.text(args.name)}: its arguments are those of "
                             f"{textsafe.text(made_from.name)}, the golden the transcript was made from "
                             f"(not --like {textsafe.text(args.like)}'s): {shown}\n")
        return list(made_from.reproduce.argv)
    if args.like:
        raise ReproductionError(f"--like {args.like}: the transcript was made from no golden of {args.wire} (none "
                                f"shares half its lines), so {args.like}'s arguments would not reproduce it: give "
                                "them with --argv (or --arg); nothing written")
    return argv
