"""Every golden scenario, run through the emitter under test, must conform and match its golden.

The emitter is ``--contract-emitter "CMD ARG…"`` (or ``$MILK_CONTRACT_EMITTER``), or the bundled
reference emitters. Each scenario gets its own arguments from the golden's metadata, and
``MILK_CONTRACT_SCENARIO`` / ``MILK_CONTRACT_GOLDEN`` in its environment. A failure names the
scenario, the line and the JSON pointer that differ, and whether the difference is additive.
Under ``--contract-record`` the goldens are rewritten instead, and the run ends with what changed.
"""

from __future__ import annotations

import pytest

from contract.goldens.store import Golden, all_scenarios
from contract.plugin.failure import fail
from contract.plugin.session import ContractSession

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

SCENARIOS = all_scenarios()


@pytest.mark.parametrize("golden", SCENARIOS, ids=[f"{g.wire}/{g.name}" for g in SCENARIOS])
def test_scenario(golden: Golden, contract_session: ContractSession, request: pytest.FixtureRequest) -> None:
    run, outcome = contract_session.run(golden)
    request.node.user_properties.append(outcome.to_property())
    request.node.user_properties.extend(contract_session.statement_properties(golden, run))
    # fail with the explanation alone (an assert would add reprs of internal objects), headed by one line
    if not run.report.conformant or (not contract_session.record and run.comparison.breaking):
        fail(run.explain(), run.headline())
