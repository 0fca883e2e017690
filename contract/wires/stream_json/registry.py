"""The stream-json registry: where each rule of the wire is declared, beside its logic.

``REGISTRY`` is filled by the rule families that hold the rules' logic (``Registry.family`` on
``ends.RunEnds``, ``seq_stamps.SeqStamps``, ``actors.Actors``, ``tool_calls.ToolCalls``, the check
``deltas.DeltaReassembly``) and by
``rules.py`` (the schema step's ``sj.schema``). ``ORDER`` is the catalog order, what reports and
verdict tables list; ``rules.py`` gathers the families so that the registry is whole when read.
"""

from __future__ import annotations

from contract.core.rule import Basis, Registry

W, D, P = Basis.WRITTEN, Basis.DERIVED, Basis.POLICY
SJ = "stream-json schema"  # how a rule's source cites the seed

# The catalog order (a report's verdicts are listed in it): MUST rules, then SHOULD rules. A new
# rule joins it here; a rule declared by a family but missing here is listed after these.
ORDER = (
    "sj.schema", "sj.ts-format", "sj.ts-leap-second", "sj.init-first", "sj.init-once", "sj.result-once",
    "sj.result-last", "sj.subtype", "sj.seq", "sj.seq-contiguous", "sj.session", "sj.session-suffix",
    "sj.session-constant", "sj.result-is-error", "sj.result-success", "sj.agent-form", "sj.message-form",
    "sj.message-present", "sj.tool-result-ref", "sj.parent-ref", "sj.tool-args-reassembly",
    "sj.tool-args-duplicate-key", "sj.delta-reassembly", "sj.capabilities", "sj.usage-rollup", "sj.ts-order",
    "sj.role-form",
)

REGISTRY = Registry("stream-json", ORDER)
