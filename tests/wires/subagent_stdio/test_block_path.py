"""subagent-stdio files are judged a block at a time (``Wire.blocks``, issue 50), with the report of line by line.

A block proven clean (``proof.clean_block``) skips the reader and the schema step and its records
go to the machines one by one; any other block, and the first, is judged line by line. A
readline-only source (a live pipe) is always judged line by line, so the two reports are compared
whole (findings, counts, rules exercised, notes, coverage) on long conversations built from the
goldens with seeded faults in later blocks: edits of the values (``recorded_findings.edit``: most
pass the schema, so the rules behind it judge them) and faults of the text the proof must decline
(a CR, an escaped ESC, a repeated member, a number spelt otherwise, a blank line, no JSON, no object).
"""

from __future__ import annotations

import io
import json
import random
from typing import Any

import pytest

from contract.checking import pipeline
from contract.checking.checker import check
from contract.core.reader import BLOCK_BYTES
from contract.core.resources import data_dir
from tests.support.depth import sample
from tests.support.recorded_findings import edit

WIRE = "subagent-stdio"


def _conversation(lines: int) -> list[dict[str, Any]]:
    """The goldens one after another, each snapshot at a rising revision of one epoch, as the bench's."""
    goldens = [[json.loads(text) for text in path.read_text(encoding="utf-8").splitlines() if text]
               for path in sorted((data_dir("goldens") / WIRE).glob("*.jsonl"))]
    out: list[dict[str, Any]] = []
    revision = 0
    while len(out) < lines:
        for obj in (obj for golden in goldens for obj in golden):
            obj = json.loads(json.dumps(obj))
            snap = obj.get("data") or obj.get("snapshot")
            if isinstance(snap, dict):
                revision += 1
                snap.update(revision=revision, epoch="long")
                if obj.get("type") == "subagent_event":
                    obj.update(revision=revision, epoch="long")
            out.append(obj)
    out = out[:lines]
    while out and out[-1].get("type") == "subagent_status":  # a cut after a command leaves it unanswered:
        out.pop()  # end on a whole exchange, wherever the goldens (whichever there are) put the cut
    return out


TEXT_FAULTS = (
    lambda text: text + "\r",
    lambda text: text[:-1] + ',"x":"\\u001b[31m"}',
    lambda text: text[:-1] + ',"type":"response"}',
    lambda text: text.replace(":1,", ":1.0,", 1),
    lambda text: text.replace(",", ", ", 2),
    lambda text: "",
    lambda text: text[:-1],
    lambda text: "[1,2]",
)


def _faulty(seed: int, lines: int = 600) -> bytes:
    rng = random.Random(seed)
    objs = _conversation(lines)
    late = range(60, len(objs))  # past the first block (about 16 lines of these in 32 KiB); the cut may end early
    for _ in range(rng.randint(1, 4)):
        edit(objs[rng.choice(late)], rng)
    texts = [json.dumps(obj, separators=(",", ":")) for obj in objs]
    if seed % 2:  # the odd seeds, each text fault in turn
        at = rng.choice(late)
        texts[at] = TEXT_FAULTS[seed // 2 % len(TEXT_FAULTS)](texts[at])
    return "".join(text + "\n" for text in texts).encode()


class _ReadlineOnly:
    def __init__(self, data: bytes) -> None:
        self.readline = io.BytesIO(data).readline


def _both(data: bytes, strict: bool, coverage: bool = True) -> tuple[dict[str, Any], dict[str, Any]]:
    blocks = check(data, WIRE, source="x", strict=strict, coverage=coverage, jobs=1).to_json()
    lines = check(_ReadlineOnly(data), WIRE, source="x", strict=strict, coverage=coverage, jobs=1).to_json()
    return blocks, lines


# every other seed in the default run (strict, lax and the coverage feed each kept), all 16 deep
@pytest.mark.parametrize("seed", sample(range(16), 2))
def test_the_block_path_gives_the_line_by_line_report(seed: int) -> None:
    data = _faulty(seed)
    assert len(data) > 10 * BLOCK_BYTES
    blocks, lines = _both(data, strict=seed % 3 == 0, coverage=seed % 6 == 0)  # coverage: the sample's feed
    assert blocks == lines


def test_the_faults_fire_rules_behind_the_schema_and_the_framing() -> None:
    # the comparison above is worth something only where the late faults are found
    found: set[str] = set()
    for seed in range(24):
        found |= set(check(_faulty(seed), WIRE, jobs=1).counts)
    assert {"sa.schema", "line.newline", "line.duplicate-key", "line.blank", "line.json", "line.object"} <= found
    assert len(found & {"sa.tokens-total", "sa.node-times", "sa.fleet-counts", "sa.unique-keys", "sa.outcome",
                        "sa.capacity", "sa.revision-order", "sa.event-envelope", "sa.response-correlation"}) >= 4


def test_a_clean_conversation_is_fed_by_blocks_after_the_first(monkeypatch: pytest.MonkeyPatch) -> None:
    # count what the block path covered: a proof that declines everywhere would change no verdict
    fed: list[int] = []
    records = pipeline._Walk._records

    def counting(self: Any, block: Any, values: list[Any], feed: Any) -> None:
        fed.append(len(values))
        records(self, block, values, feed)

    monkeypatch.setattr(pipeline._Walk, "_records", counting)
    objs = _conversation(600)
    data = b"".join(json.dumps(obj, separators=(",", ":")).encode() + b"\n" for obj in objs)
    report = check(data, WIRE, jobs=1)
    assert report.conformant
    assert not report.counts
    assert sum(fed) >= 0.9 * len(objs)
    blocks, lines = _both(data, strict=True)
    assert blocks == lines
