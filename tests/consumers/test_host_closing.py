"""The subagent-stdio host double's end does not depend on a golden's length.

A client that polled once and then read until the host ended was conformant on one golden and
``consumer.hang`` on four: the host closed only "when the golden is spent", so the verdict hung
on how many polls the client made against how many responses the golden holds, of which the seed
says nothing. Now the host ends ``QUIET_SECONDS`` after the last command or host line, or after
the golden's last answer, whichever is first (``contract.consumers.feed_client.host_end``,
docs/consumers.md). A client polling once and watching, one polling on a timer, and the reference
client get the same verdict, conformant, on every golden.
"""

from __future__ import annotations

import sys

import pytest

from contract.consumers import feed_client
from contract.consumers.feed_client import QUIET_SECONDS, host_end
from contract.goldens.store import scenarios
from tests.support.paths import TESTS

pytestmark = pytest.mark.process

HERE = TESTS / "good_clients"
CLIENTS = {
    "poll-once-watch": [sys.executable, str(HERE / "poll_once_watch.py")],
    "timer-poll": [sys.executable, str(HERE / "timer_poll.py")],
    "reference": [sys.executable, "-m", "contract.reference.subagent_client"],
    "reference-one-poll": [sys.executable, "-m", "contract.reference.subagent_client", "1"],
    "reference-many-polls": [sys.executable, "-m", "contract.reference.subagent_client", "12"],
}
GOLDENS = [golden.name for golden in scenarios("subagent-stdio")]
# the clients that wait for the host's end (about half a second each): in the default run on the
# shortest and the longest golden, where a verdict hung on the golden's length would differ
WAITING = {"poll-once-watch", "timer-poll"}
ENDS = {"terminal_states", "workflow_events"}
PAIRS = [pytest.param(golden, client, id=f"{golden}-{client}",
                      marks=[pytest.mark.deep] if client in WAITING and golden not in ENDS else [])
         for golden in GOLDENS for client in sorted(CLIENTS)]


@pytest.mark.parametrize(("golden", "client"), PAIRS)
def test_every_client_kind_passes_every_golden(client: str, golden: str) -> None:
    [chosen] = [g for g in scenarios("subagent-stdio") if g.name == golden]
    result = feed_client.feed_client(CLIENTS[client], [chosen], seed=1)
    assert result.report.conformant, [v.message for v in result.report.violations]
    assert not result.report.violations


def test_the_closing_rule() -> None:
    assert host_end(None, None) is None  # before its first answer the host waits for a slow client
    assert host_end(10.0, None) == 10.0 + QUIET_SECONDS  # quiet after the last command or host line
    assert host_end(12.0, 11.0) == 11.0 + QUIET_SECONDS  # the golden played out: a timer client never goes quiet
    assert host_end(11.0, 12.0) == 11.0 + QUIET_SECONDS


def test_a_client_that_never_ends_still_hangs() -> None:
    """The host's end is a client's cue to exit: one that ignores its input ending hangs."""
    ignores = [sys.executable, "-c", "import sys, time; print('{\"type\":\"subagent_status\",\"version\":1}', "
                                     "flush=True); sys.stdin.read(); time.sleep(60)"]
    [golden] = [g for g in scenarios("subagent-stdio") if g.name == "first_poll"]
    result = feed_client.feed_client(ignores, [golden], seed=1, timeout=2.0)
    assert set(result.report.counts) == {"consumer.hang"}
