"""The emitter under test, provoked: generated conversations (subagent-stdio), hostile environments (stream-json).

``--contract-fuzz N`` holds N generated conversations with the subagent-stdio host (the emitter
with the subagent goldens' arguments, or the bundled reference host); a failure prints the shrunk
conversation, its seed and the commands (pytest's, with ``--contract-seed``, and the CLI's) that
find it again. It is opt-in, also with ``--contract-emitter``:
a generated conversation has no golden, so a build written to the replay contract alone cannot
answer it (docs/milk-ci.md, "Fuzzing mode", says what a fuzzed host receives).
``--contract-provoke`` runs each stream-json scenario again with a pseudo-terminal on stdout,
stderr or stdin, with colour forced, and under a slow reader (``milk-contract run --provoke``).
Without these options both are skipped, saying which option runs them.
"""

from __future__ import annotations

import pytest

from contract.goldens.scenarios import emitter_argv, scenario_env
from contract.goldens.store import Golden, all_scenarios
from contract.plugin.failure import fail
from contract.plugin.session import ContractSession
from contract.reporting.reporters import render_text, summary
from contract.wires import Live

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

STREAM_SCENARIOS = [g for g in all_scenarios() if g.descriptor.live is Live.STREAM]
HOST_SCENARIO = next(g for g in all_scenarios() if g.descriptor.live is Live.CONVERSATION)


def test_fuzz_subagent_host(pytestconfig: pytest.Config, contract_session: ContractSession) -> None:
    examples = pytestconfig.getoption("--contract-fuzz")
    if examples <= 0:
        pytest.skip("fuzzing is opt-in: --contract-fuzz N holds N generated conversations with the host")
    # imported here: hypothesis (which contract.live.fuzz needs) takes about a second to import, and a
    # run that does not fuzz need not pay for it
    from contract.live.fuzz import describe, fuzz_host

    argv = emitter_argv(contract_session.emitter, HOST_SCENARIO) if contract_session.emitter else None
    timeout = min(contract_session.timeout, 10.0)
    result = fuzz_host(argv, examples=examples, strict=contract_session.strict, timeout=timeout,
                       seed=pytestconfig.getoption("--contract-seed"))
    if not result.report.conformant:  # the report once, with how to find it again: no assert's repr
        replay = contract_session.fuzz_replay(examples, result.seed, argv, timeout)
        fail(render_text(result.report) + describe(result, replay), summary(result.report))


@pytest.mark.parametrize("golden", STREAM_SCENARIOS, ids=[g.name for g in STREAM_SCENARIOS])
def test_provoked_scenario(golden: Golden, pytestconfig: pytest.Config, contract_session: ContractSession,
                           request: pytest.FixtureRequest) -> None:
    if not pytestconfig.getoption("--contract-provoke"):
        pytest.skip("--contract-provoke not given")
    from contract.live.provoke import provoke

    report = provoke(emitter_argv(contract_session.emitter, golden), env=scenario_env(golden),
                     expect_exit=golden.reproduce.exit_status, timeout=contract_session.timeout,
                     strict=contract_session.strict, wire=golden.wire)
    if contract_session.statement:  # the provoked run's verdicts join the statement (contract.plugin.statement)
        from contract.plugin.statement import run_property

        request.node.user_properties.append(run_property(f"{golden.wire}/{golden.name}", golden.wire, "provoked",
                                                         report, True))
    if not report.conformant:
        fail(render_text(report), summary(report))
