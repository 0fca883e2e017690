"""What the stream-json machine keeps of a run: ``RunState``, the state every rule family reads.

``StreamRules`` (``machines.py``) is put together from one class per family of rules
(``ends``, ``seq_stamps``, ``actors``, ``tool_calls``) and the block path (``block_feed``). They
share one state, the run's, because the families read each other's: a result that says the run
failed excuses an unfinished tool call, init's capabilities gate later line types, an unreadable
line may hide a call's tool_use, and the block path moves seq, stamps and tool_use ids past a
whole block at once. So the state is declared and set here, once, beside the bounds on it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from contract.core.rule import Check, Family
from contract.core.sink import Sink

# A line type's handler: (the line's object, its number, the sink).
Handler = Callable[[dict[str, Any], int, Sink], None]


class RunState(Family):
    """The run so far. The bounds are class attributes so that a test can lower one on ``StreamRules``."""

    # Bounds on what the machine keeps. A file can be of any size, so each one can be reached;
    # reaching one is a checker.limit finding (once per bound), and the checks it feeds stop
    # judging from there instead of guessing (no silent pass, no false finding).
    MAX_PENDING_BYTES = 64 * 1024 * 1024  # tool_args_delta fragments kept while awaiting their tool_use
    MAX_CALL_BYTES = 16 * 1024 * 1024  # of them, the fragments kept for one tool-call id
    MAX_TOOL_USE_BYTES = 64 * 1024 * 1024  # tool_use ids remembered for sj.tool-result-ref / sj.parent-ref
    ENTRY_OVERHEAD = 64  # bytes charged per kept fragment or id, so empty strings are not free
    # A cache, not a bound on a check: stamps it does not hold are validated in full.
    MAX_REMEMBERED_TAILS = 4096
    MAX_REMEMBERED_TAIL_LENGTH = 40

    # Set by StreamRules (machines.py), which builds the dispatch once the families are put together.
    by_kind: dict[str, Handler]  # line type -> its handler, the declared checks chained in
    checks: list[Check]  # the Check families of the wire's registry (registry.REGISTRY.checks())

    def __init__(self) -> None:
        self.first = True
        self.inits = 0
        self.result_line: int | None = None
        self.result_failed = False  # the result says is_error true: an unfinished tool call is explained
        self.last_line = 0
        self.last_unreadable = False  # the last line read was not a JSON object the checker could read
        self.unreadable_line = 0  # the last line no content rule judged (a call's tool_use may be in it)
        self.last_head: dict[str, Any] | None = None  # that line's type, where it could be read (Record.head)
        self.next_seq: int | None = None  # one step per line (sj.seq-contiguous)
        self.last_seq: int | None = None  # the last seq read (sj.seq: monotonic)
        self.session: str | None = None  # the run's session_id: the first line's
        self.session_ok = False  # ... and it is of the form (sj.session, sj.session-suffix): lines with it pass
        self.last_ts: str | None = None
        self.valid_head = ""  # the date-time part of the last valid ts (never a leap second)
        self.valid_tails: set[str] = set()  # fraction-and-offset parts seen in valid stamps
        self.leap_beyond_noted = False  # a leap second beyond the table was noted (once per run)
        self.advertised: set[str] | None = None
        self.tool_uses: set[str] = set()
        self.tool_use_bytes = 0
        self.tool_uses_full = False  # MAX_TOOL_USE_BYTES reached: unknown refs can no longer be judged
        self.fragments: dict[str, Call] = {}  # tool-call id -> its fragments, until its tool_use
        self.pending_bytes = 0
        self.reassembly_stopped = False  # MAX_PENDING_BYTES reached: reassembly is no longer judged


class Call:
    """One tool call's fragments while they await its tool_use (``pieces``, their total length)."""

    __slots__ = ("first_line", "pieces", "size", "stopped")

    def __init__(self, first_line: int) -> None:
        self.first_line = first_line
        self.pieces: list[str] = []
        self.size = 0
        self.stopped = False  # MAX_CALL_BYTES reached: the pieces were dropped, the call is not judged

    def add(self, fragment: str) -> None:
        self.pieces.append(fragment)
        self.size += len(fragment)

    def stop(self) -> None:
        self.pieces, self.size, self.stopped = [], 0, True
