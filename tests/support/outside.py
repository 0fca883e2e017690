"""Files some tests read that are not in the checkout, where the tests look for them, and the skip
reason that says how to get them (a skip names only what is in the checkout or how to get what
it skips: issue 51).

- The foreign corpus: real transcripts of other agent CLIs (Claude Code, Codex, Gemini CLI,
  opencode), ``<cli>/*.jsonl``, copied from public repositories' test fixtures. Their licences
  vary, so they are not in the checkout; tests/data/foreign/ holds a sample written here, which
  the same tests always run on.
- The seeds: the user's original wire schemas, of which schemas/ holds byte-identical copies
  (their digests are pinned in tests/architecture/test_schemas_pinned.py).

Each is read from an environment variable, or from the folder beside the checkout where the
project's CI machine keeps it (``../shared/...``).
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.paths import ROOT, TESTS

FOREIGN_ENV = "MILK_CONTRACT_FOREIGN_CORPUS"
SEEDS_ENV = "MILK_CONTRACT_SEEDS"
FOREIGN_SAMPLE = TESTS / "data" / "foreign"  # in the checkout: always run


def _folder(env: str, beside: Path) -> Path | None:
    named = os.environ.get(env)
    folder = Path(named) if named else beside
    return folder if folder.is_dir() else None


def foreign_corpus() -> Path | None:
    """The foreign corpus's folder (``<cli>/*.jsonl``), or None when there is none."""
    return _folder(FOREIGN_ENV, ROOT.parent / "shared" / "corpus" / "foreign")


def foreign_transcripts() -> list[Path]:
    """The corpus's transcripts, or [] without one."""
    corpus = foreign_corpus()
    return sorted(corpus.glob("*/*.jsonl")) if corpus is not None else []


NO_FOREIGN_CORPUS = (f"the foreign corpus (other agent CLIs' transcripts) is not in the checkout: set {FOREIGN_ENV} "
                     "to a folder of <cli>/*.jsonl transcripts to run this (the sample in tests/data/foreign/ "
                     "runs without it)")


def seeds() -> Path | None:
    """The folder of the user's seed files (``*.txt``), or None when there is none."""
    return _folder(SEEDS_ENV, ROOT.parent / "shared" / "seeds")


NO_SEEDS = (f"the seeds (the user's original wire schemas) are not in the checkout: set {SEEDS_ENV} to their "
            "folder to compare the pins with them (schemas/pins.json holds the digests either way)")
