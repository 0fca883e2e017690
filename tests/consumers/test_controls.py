"""The consumer kit's controls: no verdict on broken, future or hostile streams without the goldens first.

A consumer that cannot do its work at all (``/bin/false``, a Python module that does not exist,
``sh -c 'exit 3'``) "did not report success" on every broken stream, so ``feed --broken`` called it
conformant (issue 46). Each mode now feeds the goldens as recorded first (the control): a consumer
that fails one is reported for that, with a finding that names the control, and none of that
golden's broken, future or hostile streams is fed or counted as passed.

Space, not example: the misbehaviour kinds (never starts, exits non-zero on a golden with a drawn
status, exits 0 without reading) are each refused in every mode; the reference consumer passes
every mode with one control run per golden fed.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from contract import cli

pytestmark = pytest.mark.process

PY = sys.executable
REFERENCE = [PY, "-m", "contract.reference.stream_json_consumer"]
MODES = ["--broken", "--future", "--transport"]
CONTROL = "as recorded (the control"


def _feed(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = cli.run(["feed", "--format", "json", "--scenario", "tool_calls", "--examples", "2", *args])
    return code, json.loads(capsys.readouterr().out)


# The issue's reproducers, as given: each "conformant, exit 0" under --broken before the control.
REPRODUCERS = {
    "bin-false": ["/bin/false"],
    "no-such-module": [PY, "-m", "no_such_module_of_milk_contract"],
    "exit-3": ["sh", "-c", "exit 3"],
}


@pytest.mark.parametrize("argv", list(REPRODUCERS.values()), ids=list(REPRODUCERS))
def test_the_issue_reproducers_fail_the_control(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code = cli.run(["feed", "--broken", "--format", "json", "--", *argv])
    report = json.loads(capsys.readouterr().out)
    assert (code, report["conformant"]) == (1, False), report
    messages = [v["message"] for v in report["violations"]]
    assert report["counts"] == {"consumer.crash": 1}, messages  # the control's finding, and no broken verdict
    assert CONTROL in messages[0]
    assert "its verdicts there would mean nothing" in messages[0]
    assert any("none counts as passed" in note for note in report["notes"])


# Misbehaviour kinds, each a small family of consumers: the verdict must not depend on which member.
def _never_starts(status: int) -> list[str]:
    return [f"/nonexistent/consumer-{status}"]


def _exits_non_zero(status: int) -> list[str]:
    return ["sh", "-c", f"exit {status}"]


def _exits_0_unread(status: int) -> list[str]:
    return ["sh", "-c", "exit 0"] if status % 2 else [PY, "-c", "pass"]


KINDS = {"never-starts": (_never_starts, 2, "run.start"),
         "exits-non-zero": (_exits_non_zero, 1, "consumer.crash"),
         "exits-0-unread": (_exits_0_unread, 1, "consumer.early-exit")}
STATUSES = [1, 2, 3, 77, 255]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("status", STATUSES[:2], ids=lambda s: f"status-{s}")
def test_every_misbehaviour_kind_is_refused_in_every_mode(capsys: pytest.CaptureFixture[str], mode: str,
                                                          kind: str, status: int) -> None:
    make, code_wanted, rule = KINDS[kind]
    code, report = _feed(capsys, mode, "--", *make(status))
    assert (code, report["conformant"]) == (code_wanted, False), report
    assert set(report["counts"]) == {rule}, report["counts"]
    assert report["counts"][rule] == 1  # one control run: nothing of the mode was fed after it
    if rule != "run.start":
        assert CONTROL in report["violations"][0]["message"]


@pytest.mark.parametrize("status", STATUSES[2:], ids=lambda s: f"status-{s}")
def test_other_exit_statuses_fail_the_control_too(capsys: pytest.CaptureFixture[str], status: int) -> None:
    code, report = _feed(capsys, "--broken", "--", *_exits_non_zero(status))
    assert (code, report["counts"]) == (1, {"consumer.crash": 1})


@pytest.mark.parametrize("mode", MODES)
def test_the_reference_consumer_passes_each_mode_after_one_control_run(capsys: pytest.CaptureFixture[str],
                                                                      mode: str) -> None:
    code, report = _feed(capsys, mode, "--", *REFERENCE)
    assert (code, report["conformant"]) == (0, True), report["violations"]


def test_a_consumer_that_passes_the_control_is_still_judged_on_broken_streams(
        capsys: pytest.CaptureFixture[str]) -> None:
    # a golden passed is no free pass: one that reads all and says success fails every broken stream
    success = [PY, "-c", "import sys; sys.stdin.buffer.read(); print('success')"]
    code, report = _feed(capsys, "--broken", "--", *success)
    assert code == 1
    assert set(report["counts"]) == {"consumer.dishonest"}
