"""The feed's two extra modes, ``--broken`` and ``--transport``, as the CLI starts them.

Kept apart from the CLI module (one thin option each there): which options each mode takes,
which goldens it is made from, and the call that runs it. Misuse is :class:`ModeUsage` (the CLI
prints it on one line, exit 2).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from contract.consumers.feed import Expectation, FeedResult


class ModeUsage(ValueError):
    """Options a mode cannot run with."""


def runner(args: Any, command: list[str], goldens: Sequence[Any], expect: Expectation) -> Callable[[], FeedResult]:
    """The feed ``--broken`` or ``--transport`` asks for, ready to run; ModeUsage for misuse."""
    from contract.wires import Live, get

    if args.broken and args.transport:
        raise ModeUsage("--broken and --transport are two feeds: give one")
    mode = "--broken" if args.broken else "--transport"
    if get(args.wire).live is not Live.STREAM:
        raise ModeUsage(f"{mode} feeds stream consumers (a {args.wire} client has the suite as its host)")
    if get(args.wire).feeds is None:  # its streams are cut and padded by the wire's own lines (Wire.feeds)
        raise ModeUsage(f"{mode} streams are made from a wire's own lines (Wire.feeds): "
                        f"{args.wire} has no such streams")
    if args.future:
        raise ModeUsage(f"{mode} feeds its own streams: --future is a feed of its own")
    if expect.stdout is not None:
        raise ModeUsage(f"{mode} streams each differ: --expect-stdout cannot hold for them (--expect-json can)")
    chosen = list(goldens) if args.scenario else None
    common: dict[str, Any] = {"seed": args.seed}
    for name in ("timeout", "max_output_bytes"):
        if getattr(args, name) is not None:
            common[name] = getattr(args, name)
    if args.broken:
        from contract.consumers.broken_feed import BrokenUsage, feed_broken, is_error_member

        try:
            is_error_member(expect.members, args.wire)
        except BrokenUsage as exc:
            raise ModeUsage(str(exc)) from None
        options = {**common, "pty": args.pty, **({"pace": args.pace} if args.pace is not None else {})}
        return lambda: feed_broken(command, chosen, members=expect.members, wire=args.wire, **options)
    if args.pty:
        raise ModeUsage("--transport writes to a pipe (a terminal's line discipline reframes what is written)")
    from contract.consumers.broken_feed import feeds_of
    from contract.consumers.transport import feed_transport
    from contract.goldens.store import load

    picked = chosen if chosen is not None else [load(args.wire, feeds_of(args.wire)[1].golden)]
    return lambda: feed_transport(command, picked, expect=expect, wire=args.wire, **common)


__all__ = ["ModeUsage", "runner"]
