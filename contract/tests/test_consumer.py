"""A consumer under test: ``--contract-consumer CMD`` feeds it every golden and its future variants.

The consumer (a program reading a run of the first stream wire on stdin) must exit 0 on each golden and on each
variant the seed lets a producer write (``milk-contract feed --future``); a failure shows the
shrunk variant, its stream and the seed that finds it again. Without the option the test is
skipped: the bundled reference consumer is fed by the suite's own tests.
"""

from __future__ import annotations

import shlex

import pytest

from contract.goldens.store import Golden, scenarios
from contract.plugin.failure import fail
from contract.plugin.session import consumer_replay
from contract.reporting.reporters import render_text, summary
from contract.wires import Live, first

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

GOLDENS = scenarios(first(Live.STREAM).name)  # the wire feed takes by default (the replay command names none)


@pytest.mark.parametrize("golden", GOLDENS, ids=[g.name for g in GOLDENS])
def test_consumer_accepts_golden_and_future_variants(golden: Golden, pytestconfig: pytest.Config) -> None:
    command = pytestconfig.getoption("--contract-consumer")
    if not command:
        pytest.skip("no --contract-consumer CMD: the reference consumer is fed by tests/")
    from contract.consumers.feed import DEFAULT_EXAMPLES, describe, feed_stream

    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise pytest.UsageError(f"--contract-consumer: cannot parse the command ({exc})") from None
    if not argv:
        raise pytest.UsageError("--contract-consumer: empty command")
    examples = pytestconfig.getoption("--contract-consumer-examples") or DEFAULT_EXAMPLES
    result = feed_stream(argv, [golden], future=True, examples=examples, seed=pytestconfig.getoption("--contract-seed"))
    if not result.report.conformant:  # the report once, with how to find it again: no assert's repr
        replay = consumer_replay(argv, golden.name, examples, result.seed)
        fail(render_text(result.report) + describe(result, replay), summary(result.report))
