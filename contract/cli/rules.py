"""``milk-contract rules``: the rule catalog, every wire's or one's."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from contract.core.exitcodes import EXIT_OK
from contract.wires import NAMES, WIRES


def add_rules(verbs: Any) -> None:
    """The ``rules`` verb's parser."""
    rules = verbs.add_parser("rules", help="print the rule catalog")
    rules.add_argument("--format", choices=("text", "json"), default="text",
                       help="text (a table: id, level, basis, title and the seed words it stands on) or json "
                            "(a list of objects, for tools)")
    rules.add_argument("--wire", choices=(*NAMES, "all"), default="all",
                       help="only the rules of this wire (default all)")
    rules.set_defaults(handler=cmd_rules)


def cmd_rules(args: argparse.Namespace) -> int:
    from contract.reporting.reporters import render_rules
    from contract.rules.catalog import CATALOG, rules_for

    wires = (args.wire,) if args.wire in WIRES else NAMES  # or "all"
    seen: dict[str, None] = {}
    for wire in wires:
        for rule in rules_for(wire):
            seen.setdefault(rule.id)
    sys.stdout.write(render_rules([CATALOG[rule_id] for rule_id in seen], args.format))
    return EXIT_OK
