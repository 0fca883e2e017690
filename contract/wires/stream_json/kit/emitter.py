"""A reference stream-json emitter that replays a golden scenario with fresh per-run values.

Run as ``python -m contract.reference.stream_json_emitter [ARG ...]``. It picks its scenario
the way the harness tells an emitter to (docs/architecture.md, "Scenarios"): ``$MILK_CONTRACT_GOLDEN`` (the absolute
path of a golden transcript), else ``$MILK_CONTRACT_SCENARIO`` (a bundled stream-json
scenario's name), else ``DEFAULT_SCENARIO``. Arguments are the scenario's own milk arguments
(the prompt, ``--output-format stream-json``, ...) and are accepted and ignored.

Every value that ``contract.goldens.normalize`` calls volatile is new on each run: a fresh ``sess_``
id, timestamps from the current clock that keep the golden's spacing and order, tool, message,
task and memory ids remapped consistently (a tool_result still names its tool_use), jittered
durations and rate, and the real working directory. So a faithful emitter's output differs
from the golden byte for byte, and not at all after normalization. It exits with the
scenario's expected exit status. Faults (no such scenario, unreadable file) go to stderr as
one line with exit status 2, never as a traceback.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from contract import __version__
from contract.core.jsonline import parse
from contract.core.resources import data_dir
from contract.goldens.normalize import Segment, Treatment, Volatile, volatile_at

WIRE = "stream-json"
DEFAULT_SCENARIO = "tool_calls"
ENV_GOLDEN, ENV_SCENARIO = "MILK_CONTRACT_GOLDEN", "MILK_CONTRACT_SCENARIO"
EXIT_FAULT = 2

# Fresh identifiers per MAP namespace of the volatile list: prefix and random length.
_ID_FORMS = {"session": ("sess_", 26), "tool": ("toolu_", 24), "message": ("msg_", 24),
             "task": ("task_", 12), "percept": ("pct_", 12)}
_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford base32, as ULIDs use


def fresh_id(namespace: str) -> str:
    prefix, length = _ID_FORMS.get(namespace, (f"{namespace}_", 16))
    return prefix + "".join(secrets.choice(_ALPHABET) for _ in range(length))


class Refresher:
    """Rewrites one transcript's volatile values, consistently across its lines."""

    def __init__(self, now: datetime | None = None, rng: random.Random | None = None) -> None:
        self.now = now or datetime.now(UTC)
        self.rng = rng or random.Random()
        self.ids: dict[tuple[str, str], str] = {}
        self.first_ts: datetime | None = None

    def line(self, value: Any) -> Any:
        return self._visit(value, ())

    def _visit(self, value: Any, path: tuple[Segment, ...]) -> Any:
        rule = volatile_at(WIRE, path, value) if path else None
        if rule is not None:
            return self._fresh(rule, value)
        if type(value) is dict:
            return {key: self._visit(child, (*path, key)) for key, child in value.items()}
        if type(value) is list:
            return [self._visit(child, (*path, i)) for i, child in enumerate(value)]
        return value

    def _fresh(self, rule: Volatile, value: Any) -> Any:
        if rule.treatment is Treatment.MAP:
            key = (rule.name, value)
            if key not in self.ids:
                self.ids[key] = fresh_id(rule.name)
            return self.ids[key]
        if rule.treatment is Treatment.OFFSET:
            return value  # seq counts lines: a replay keeps it
        erase: dict[str, Callable[[Any], Any]] = {
            # by the declaration's name (contract/wires/stream_json/volatile.py), never a member's
            "ts": self._ts, "ms": self._jitter,
            "rate": self._rate, "cwd": lambda _: os.getcwd(),
            "milk_version": lambda _: f"0.0.0-reference+contract.{__version__}",
        }
        return erase.get(rule.name, lambda old: old)(value)

    def _ts(self, old: str) -> str:
        """Now, plus the golden's distance from its first line (order and spacing kept)."""
        try:
            at = datetime.fromisoformat(old.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            return old
        if self.first_ts is None:
            self.first_ts = at
        new = self.now + (at - self.first_ts)
        return new.strftime("%Y-%m-%dT%H:%M:%S.") + f"{new.microsecond // 1000:03d}Z"

    def _jitter(self, old: int) -> int:
        return max(0, old + self.rng.randint(-50, 50))

    def _rate(self, old: int | float) -> int | float:
        new = max(0.0, old * self.rng.uniform(0.9, 1.1))
        return round(new, 1) if type(old) is float else round(new)


def replay(golden: bytes, refresher: Refresher | None = None) -> bytes:
    """The golden transcript with fresh per-run values (lines that are not JSON kept as is)."""
    refresher = refresher or Refresher()
    out: list[bytes] = []
    for body in golden.split(b"\n"):
        if not body:
            continue
        value, faults = parse(body)
        if value is None or faults:
            out.append(body + b"\n")
            continue
        fresh = refresher.line(value)
        out.append(json.dumps(fresh, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
    return b"".join(out)


def _golden_path(environ: dict[str, str]) -> Path:
    if environ.get(ENV_GOLDEN):
        return Path(environ[ENV_GOLDEN])
    name = environ.get(ENV_SCENARIO) or DEFAULT_SCENARIO
    return data_dir("goldens") / WIRE / f"{name}.jsonl"  # not contract.goldens.store: deepdiff costs 60 ms


def _exit_status(path: Path) -> int:
    """The scenario's expected exit status from its metadata (0 when it has none)."""
    meta = path.with_name(path.name.removesuffix(".jsonl") + ".meta.json")
    try:
        status = json.loads(meta.read_text(encoding="utf-8"))["reproduce"]["exit_status"]
    except (OSError, ValueError, KeyError, TypeError):
        return 0
    return status if type(status) is int else 0


def _pace(argv: Sequence[str]) -> str | None:
    """``--pace recorded`` (or ``--pace=SECONDS``) among the arguments, else None: write at once."""
    for index, arg in enumerate(argv):
        if arg == "--pace" and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith("--pace="):
            return arg.split("=", 1)[1]
    return None


def _write_paced(data: bytes, path: Path, pace: str) -> None:
    """Each line flushed on its own, after the pause the golden recorded (contract.goldens.pacing)."""
    import time

    from contract.goldens import pacing

    lines = data.splitlines(keepends=True)
    for wait, line in zip(pacing.delays(pacing.pace_option(pace), path, len(lines)), lines, strict=True):
        if wait:
            time.sleep(wait)
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()


def main(argv: Sequence[str] | None = None) -> int:
    # the scenario's milk arguments: accepted, not needed to replay (but --pace recorded|SECONDS)
    pace = _pace(list(argv or ()))
    path = _golden_path(dict(os.environ))
    try:
        golden = path.read_bytes()
    except OSError as exc:
        sys.stderr.write(f"stream_json_emitter: cannot read golden {path}: {exc.strerror}\n")
        return EXIT_FAULT
    try:
        if pace is None:
            sys.stdout.buffer.write(replay(golden))
            sys.stdout.buffer.flush()
        else:
            _write_paced(replay(golden), path, pace)
    except ValueError as exc:  # a --pace that is neither recorded nor seconds
        sys.stderr.write(f"stream_json_emitter: --pace: {exc}\n")
        return EXIT_FAULT
    except BrokenPipeError:
        return EXIT_FAULT
    return _exit_status(path)


def _main_guarded() -> int:
    try:
        return main(sys.argv[1:])
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(_main_guarded())
