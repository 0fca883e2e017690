"""``milk-contract feed``: a consumer fed the goldens (and future variants), or a client talked to
as the host."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from typing import Any

from contract.cli.common import (
    FORMAT_NAMES,
    PROG,
    UsageError,
    command_of,
    positive_float,
    positive_int,
    seed,
    terminal_options,
)
from contract.cli.output import emit, hypothesis_storage_apart, save_transcript, style_of
from contract.core import textsafe
from contract.core.jsonvalue import quoted
from contract.core.userfiles import read_whole
from contract.wires import DEFAULT, NAMES, Live, get, named


def add_feed(verbs: Any) -> None:
    """The ``feed`` verb's parser."""
    feed = verbs.add_parser("feed", help="feed a consumer the goldens (and --future variants) and judge how it copes")
    feed.add_argument("--wire", choices=NAMES, default=DEFAULT.name,
                      help=f"{named(Live.STREAM)}: the consumer reads a run on stdin; {named(Live.CONVERSATION)}: "
                           "the consumer is a client, and milk-contract plays the host")
    feed.add_argument("--format", choices=FORMAT_NAMES, default="text",
                      help="text (people; the failing streams follow it), json (tools; the failing streams go to "
                           "stderr), junit, github, sarif, markdown (as check's)")
    terminal_options(feed)
    feed.add_argument("--scenario", action="append", default=[], metavar="NAME",
                      help="only this golden scenario (repeatable; default: every one of the wire)")
    feed.add_argument("--future", action="store_true",
                      help="also feed each golden transformed the ways the seed lets a producer change it "
                           "(unknown types, subtypes, members, values; generated, shrunk on failure)")
    feed.add_argument("--examples", type=positive_int, default=None, metavar="N",
                      help="future variants per scenario (default 10)")
    feed.add_argument("--seed", type=seed, default=None, metavar="S", help="find the same variants again")
    feed.add_argument("--timeout", type=positive_float, default=None, metavar="SECONDS",
                      help="bound on each consumer run (default 10)")
    feed.add_argument("--shrink-seconds", type=positive_float, default=None, metavar="SECONDS",
                      help="stop shrinking a failure after this long (default 30; the report says so)")
    feed.add_argument("--pace", type=pace, default=None, metavar="recorded|SECONDS",
                      help="pause between lines, as a live emitter writes (default 0.002); recorded: each "
                           "golden's own recorded gaps (contract.goldens.pacing); 0: none")
    feed.add_argument("--pty", action="store_true",
                      help=f"{named(Live.STREAM)}: the consumer's stdin is a pseudo-terminal instead of a pipe")
    feed.add_argument("--expect-stdout", metavar="FILE", default=None,
                      help="the consumer's stdout must be exactly FILE's bytes (one --scenario)")
    feed.add_argument("--expect-json", metavar="FILE", default=None,
                      help='the consumer\'s last stdout line is a JSON object whose members FILE names: '
                           '{"members": {"is_error": "/is_error", "text": "/result"}} (pointers into the '
                           "stream's result line)")
    feed.add_argument("--max-output-bytes", type=positive_int, default=None, metavar="N",
                      help="the consumer's stdout kept for comparison (default 1 MiB; more is a finding when "
                           "an expectation is given)")
    feed.add_argument("--transcript", metavar="FILE", default=None,
                      help="write the first failing stream (or conversation) here (JSONL, replayable with check)")
    feed.add_argument("--broken", action="store_true",
                      help="feed broken streams real pipes deliver (cut, no result, empty, a banner...): the "
                           "consumer must not report success (consumer.dishonest)")
    feed.add_argument("--transport", action="store_true",
                      help="feed conformant streams delivered the hostile ways (lines over 1 and 16 MiB, split "
                           "reads, a slow drip, a pause mid-line, one write, stdin held open)")
    feed.add_argument("--adr", metavar="SCHEMA", default=None,
                      help="feed the goldens as milk writes them under this proposed schema (migrated, a line of "
                           "each new line kind inserted; contract.evolution.adr_streams): what breaks before a release")
    feed.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CONSUMER ARG…",
                      help="the consumer command (required)")
    feed.set_defaults(handler=cmd_feed)


def pace(text: str) -> float | str:
    if text == "recorded":  # each golden's recorded gaps (contract.goldens.pacing)
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, found {quoted(text)}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected 0 to 1 seconds between lines, found {quoted(text)}")
    return value


def cmd_feed(args: argparse.Namespace) -> int:
    """Feed a consumer streams (contract.consumers.feed) or, on subagent-stdio, play the host to a client."""
    command = command_of(args.command)
    if not command:
        raise UsageError("feed needs the consumer: milk-contract feed [OPTIONS] -- CONSUMER ARG…")
    from contract.consumers import feed
    from contract.live.harness import Interrupted

    goldens = fed_goldens(args)
    expect = expectation(args, goldens)
    options: dict[str, Any] = {"future": args.future, "seed": args.seed, "expect": expect}
    for name in ("examples", "timeout", "pace", "max_output_bytes", "shrink_seconds"):
        if getattr(args, name) is not None:
            options[name] = getattr(args, name)
    if args.broken or args.transport:
        from contract.consumers.feed_modes import ModeUsage, runner

        try:
            run_feed = runner(args, command, goldens, expect)
        except ModeUsage as exc:
            raise UsageError(str(exc)) from None
    elif wire_live(args.wire) is Live.CONVERSATION:
        if args.pty:
            raise UsageError(f"--pty feeds {named(Live.STREAM)} consumers (a {named(Live.CONVERSATION)} client "
                             "talks over pipes)")
        if expect.given:
            raise UsageError(f"--expect-stdout and --expect-json judge {named(Live.STREAM)} consumers")
        from contract.consumers import feed_client

        options.pop("expect")

        def run_feed() -> feed.FeedResult:
            return feed_client.feed_client(command, goldens, wire=args.wire, **options)
    else:
        def run_feed() -> feed.FeedResult:
            return feed.feed_stream(command, goldens, pty=args.pty, wire=args.wire, **options)
    try:
        with hypothesis_storage_apart() if args.future else contextlib.nullcontext():
            result = run_feed()
    except Interrupted as exc:  # Ctrl-C, SIGTERM, SIGHUP: what was seen, exit 128 + the signal
        return emit(exc.report, args.format, exc.signum, style_of(args))
    save_transcript(args.transcript, result.failures[0].data if result.failures else None)
    code = emit(result.report, args.format, style=style_of(args))
    import shlex

    replay = shlex.join([PROG, "feed", "--wire", args.wire, *(["--future"] if args.future else []),
                         *(["--broken"] if args.broken else []), *(["--transport"] if args.transport else []),
                         "--seed", str(result.seed), *(["--examples", str(args.examples)] if args.examples else []),
                         *(f"--scenario={name}" for name in args.scenario), "--", *command])
    # -q: the findings and the verdict line only (the failing streams are --transcript's, or a plain run's)
    text = feed.describe(result, textsafe.text(replay)) if args.verbosity >= 0 else ""
    if text:  # machine formats keep stdout parseable: the failing streams go to stderr there
        (sys.stdout if args.format == "text" else sys.stderr).write(text)
    return code


def fed_goldens(args: argparse.Namespace) -> list[Any]:
    """The goldens ``--scenario`` names (every one by default); with ``--adr``, as the ADR's milk writes them."""
    from contract.goldens.store import scenarios

    goldens = [g for g in scenarios(args.wire) if not args.scenario or g.name in args.scenario]
    unknown = sorted(set(args.scenario) - {g.name for g in goldens})
    if unknown:
        raise UsageError(f"--scenario: no {args.wire} golden named {quoted(unknown[0])} (see goldens/)")
    if not goldens:
        raise UsageError(f"no {args.wire} goldens to feed (see goldens/)")
    return under_adr(args, goldens) if args.adr is not None else goldens


def under_adr(args: argparse.Namespace, goldens: Sequence[Any]) -> list[Any]:
    """``--adr SCHEMA``: each golden as milk writes it under the proposed schema (exit 2 when it cannot be
    read, or a golden does not migrate to it: never a feed of the goldens as if they were the ADR's)."""
    from contract.evolution.adr_streams import AdrError, read_schema, streams_under

    if wire_live(args.wire) is not Live.STREAM or args.broken or args.transport:
        raise UsageError(f"--adr feeds a {named(Live.STREAM)} consumer the goldens under a proposed schema (not with "
                         "--broken or --transport)")
    try:
        schema, _ = read_schema(args.adr)
        current, _ = read_schema(get(args.wire).schema_path)
        return list(streams_under(goldens, current, schema, label=f"the schema {args.adr}"))
    except AdrError as exc:
        raise UsageError(f"--adr: {exc}") from None


def wire_live(name: str) -> Live:
    return get(name).live


def expectation(args: argparse.Namespace, goldens: Sequence[Any]) -> Any:
    from contract.consumers.feed import Expectation, ExpectationError, load_members, members_problem

    stdout = members = None
    if args.expect_stdout is not None:
        if len(goldens) != 1:
            raise UsageError("--expect-stdout compares one scenario's output: pick it with --scenario NAME")
        try:
            stdout = read_whole(args.expect_stdout)
        except OSError as exc:
            raise UsageError(f"--expect-stdout: cannot read {args.expect_stdout}: {exc.strerror or exc}") from None
    if args.expect_json is not None:
        import json

        try:
            members = load_members(json.loads(read_whole(args.expect_json)))
        except OSError as exc:
            raise UsageError(f"--expect-json: cannot read {args.expect_json}: {exc.strerror or exc}") from None
        except (ValueError, RecursionError, ExpectationError) as exc:
            raise UsageError(f"--expect-json: {args.expect_json}: {exc}") from None
        problem = members_problem(members, goldens) if wire_live(args.wire) is Live.STREAM else None
        if problem is not None:  # (a conversation wire refuses --expect-json itself, below)
            raise UsageError(f"--expect-json: {args.expect_json}: {problem}")
    return Expectation(stdout, members)
