"""``python -m contract.cli`` is ``milk-contract`` (as ``python -m contract``)."""

from contract.cli import main

main()
