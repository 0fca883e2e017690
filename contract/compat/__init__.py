"""The compatibility matrix: registered consumers by wire revision (``milk-contract compat``)."""
