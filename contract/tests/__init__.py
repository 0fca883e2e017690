"""The contract suite itself: shipped in the package, run with `pytest --pyargs contract`."""
