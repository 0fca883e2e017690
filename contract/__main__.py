"""``python -m contract`` is ``milk-contract``."""

from contract.cli import main

main()
