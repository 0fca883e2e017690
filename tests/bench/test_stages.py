"""``bench/stages.py --blocks`` measures the block path it names (issue 50): on the benchmark's own
stream-json transcript, every step of ``block_steps`` runs, and nearly every line is fed by its facts
(the fast path whose cost the table splits, not the line-by-line fallback). Nothing here is timed."""

from __future__ import annotations

from pathlib import Path

from bench import stages


def test_the_block_steps_walk_the_fast_path_of_the_benchmark_stream(tmp_path: Path) -> None:
    path = tmp_path / "stream.jsonl"
    stages.BUILDERS["stream-json"](path, 3000)
    data = path.read_bytes()
    spent, by_facts = stages.block_steps(data)
    assert list(spent) == list(stages.BLOCK_STEPS)
    assert all(seconds >= 0 for seconds in spent.values())
    lines = data.count(b"\n")
    # the first block goes line by line, as in the check (the reader's first reads are small), and
    # so does the block holding the result line
    assert lines / 2 < by_facts < lines, (by_facts, lines)


def test_a_block_the_proof_refuses_goes_line_by_line(tmp_path: Path) -> None:
    path = tmp_path / "stream.jsonl"
    stages.BUILDERS["stream-json"](path, 3000)
    clean = path.read_bytes()
    # a repeated member in a middle line: no canonical spelling, so its block is not fed by facts
    lines = clean.split(b"\n")
    middle = len(lines) // 2
    lines[middle] = lines[middle].replace(b'{"type":', b'{"seq":0,"type":', 1)
    assert lines[middle].count(b'"seq":') == 2
    _, by_facts = stages.block_steps(b"\n".join(lines))
    _, clean_by_facts = stages.block_steps(clean)
    assert by_facts < clean_by_facts
