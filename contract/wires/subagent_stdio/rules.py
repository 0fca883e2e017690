"""The subagent-stdio rules of the catalog, gathered: each declared once, beside its logic.

Each rule is declared in ``registry.REGISTRY`` by the machine that holds its logic
(``Registry.family``, in ``conversation`` and ``snapshots``): its metadata, the schema structure it
stands on and its breaking strategy (a function of ``contract.wires.subagent_stdio.kit.broken``).
This module declares the schema step's ``sa.schema``, the seed's words on the shared rules
(``CITES``), and gathers the machines' modules, so that ``RULES`` (the wire's catalog rules, in
``registry.ORDER``) is whole. A new rule whose logic needs no machine's state is a ``Check``
family, which the wire's machines run by line type (docs/architecture.md, "Adding a rule").
"""

from __future__ import annotations

from contract.core.rule import SCHEMA_STEP, Basis, Level, Rule
from contract.wires.base import Cites
from contract.wires.subagent_stdio.registry import REGISTRY
from contract.wires.subagent_stdio.registry import SA as _SA
from contract.wires.subagent_stdio.registry import W as _W

# The seed's words on the rules every wire shares (their sources: contract.rules.catalog): it has none
# on framing, so ours stands in (policy), and none on ANSI escapes.
CITES = Cites(
    framing="subagent-stdio: policy (its schema has no descriptions, and nothing in it says how its JSON objects "
            "are framed on stdio): JSONL lines of objects whose $defs are line types, the same framing as its "
            "sibling wire",
    framing_basis=Basis.POLICY,
    ansi=f"the {_SA} has no such words, no descriptions at all, so ESC in a subagent-stdio string is not a finding",
    stdout_held="subagent-stdio: inferred, as its framing is (after the host exits, its stdout ends)",
)

# -- subagent-stdio, MUST ------------------------------------------------------------

REGISTRY.add(
    SCHEMA_STEP,
    Rule("sa.schema", Level.MUST, "subagent-stdio", "each line validates against the subagent-stdio schema",
         f"{_SA} (draft 2020-12), the whole document (written: its keywords; enums stay closed, no words open them)",
         basis=_W, breaker="schema"),
)

# The machines holding the other rules, each declared beside its logic: importing them declares them.
from contract.wires.subagent_stdio import conversation, snapshots  # noqa: E402, F401

# The wire's catalog rules, in catalog order (registry.ORDER; contract.rules.catalog).
RULES: tuple[Rule, ...] = REGISTRY.rules
