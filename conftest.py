"""Repo-level set-up only. The milk-contract plugin is registered by its pytest11 entry point.

Bytecode caching. The suite starts about 280 Python processes (emitters, hosts, the CLI, a few
pytest runs) and pytest-xdist starts its workers. Container images and CI machines often set
``PYTHONDONTWRITEBYTECODE=1``; under it every one of those processes compiles the package from
source again (about 60 ms each) and every pytest process re-rewrites the assertions of its plugins,
hypothesis among them (about a second each), because nothing is ever cached. The suite lets them
cache: it writes ``__pycache__`` folders (ignored by git) beside the package, the tests and the
plugins, as Python does by default. Measured on the two-core CI machine: the default run 53 s
with the variable set, 48 s with it cleared (BENCHMARKS.md, "The default test run").
"""

from __future__ import annotations

import os
import sys

os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # inherited by xdist's workers and every child
sys.dont_write_bytecode = False  # this process: the test modules pytest rewrites from here on
