"""The subagent-stdio registry: where each rule of the wire is declared, beside its logic.

``REGISTRY`` is filled by the machines that hold the rules' logic (``Registry.family`` on
``conversation``'s ``Correlation``, ``Revisions``, ``EventsCapability`` and ``snapshots``'
``Envelope``, ``UniqueKeys``, ``Consistency``) and by ``rules.py`` (the schema step's
``sa.schema``). ``ORDER`` is the catalog order, what reports and verdict tables list; ``rules.py``
gathers the machines' modules so that the registry is whole when read.
"""

from __future__ import annotations

from contract.core.rule import Basis, Registry

SA = "subagent-stdio schema"  # how a rule's source cites the seed

# Every cross-line rule is derived (issue 23): the seed has no descriptions, so no words say any of
# them; each stands on what the schema's structure repeats, scopes or names. Only the schema rule is
# written (the document's own keywords).
W, D = Basis.WRITTEN, Basis.DERIVED

# The catalog order (a report's verdicts are listed in it): MUST rules, then SHOULD rules. A new
# rule joins it here; a rule declared by a family but missing here is listed after these.
ORDER = (
    "sa.schema", "sa.response-correlation", "sa.event-envelope", "sa.revision-order", "sa.events-capability",
    "sa.unique-keys", "sa.fleet-counts", "sa.capacity", "sa.tokens-total", "sa.node-times", "sa.outcome",
    "sa.unavailable",
)

REGISTRY = Registry("subagent-stdio", ORDER)
