"""The shipped suite run as milk's repository runs it: from a folder outside this checkout.

``python tools/milk_repo.py [--replay] [--at DIR] [PYTEST ARG…]`` creates a "milk-like"
repository (a pyproject.toml of its own whose pytest configuration has ``--strict-markers``,
``-W error`` and pytest-xdist's ``-n 2``, and ``bin/milk``, a copy of examples/replay_build.py: a
build written to the replay contract alone), then runs ``python -m pytest --pyargs contract`` in
it with this interpreter, which must have milk-contract installed (a wheel, not this checkout).
``--replay`` runs the suite against ``./bin/milk`` (``--contract-emitter``), otherwise against the
bundled reference emitters. The exit status is pytest's. The folder is a fresh temporary one,
removed afterwards, unless ``--at DIR`` names one (created, and kept for inspection).

Why outside the checkout: pytest reads the configuration of the folder it starts in and of its
parents, and this checkout's pyproject.toml would register what milk's does not (``tox -e
installed`` runs this; tests/plugin/test_installed.py runs it in a fresh virtualenv).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPLAY_BUILD = ROOT / "examples" / "replay_build.py"
PYPROJECT = """\
[project]
name = "milk"
version = "0"

[tool.pytest.ini_options]
# as strict as a repository can be: an unregistered marker or any warning fails the run
addopts = "--strict-markers -W error -n 2 -p no:cacheprovider"
xfail_strict = true
"""


def create(folder: Path) -> Path:
    """Write the milk-like repository into ``folder`` (which must be outside this checkout)."""
    folder = folder.resolve()
    if folder == ROOT or ROOT in folder.parents:
        raise SystemExit(f"milk_repo: {folder} is inside the checkout {ROOT}; pytest would read its configuration")
    (folder / "bin").mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    milk = folder / "bin" / "milk"
    shutil.copyfile(REPLAY_BUILD, milk)
    milk.chmod(0o755)
    return folder


def run(folder: Path, pytest_args: list[str], *, replay: bool) -> int:
    emitter = ["--contract-emitter", "./bin/milk"] if replay else []
    argv = [sys.executable, "-m", "pytest", "--pyargs", "contract", *emitter, *pytest_args]
    print(f"milk_repo: pytest --pyargs contract in {folder}", flush=True)
    return subprocess.run(argv, cwd=folder, check=False).returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("--replay", action="store_true", help="run the suite against ./bin/milk (the replaying build)")
    parser.add_argument("--at", type=Path, default=None, metavar="DIR", help="create the repository here and keep it")
    args, pytest_args = parser.parse_known_args(argv)
    if args.at is not None:
        return run(create(args.at), pytest_args, replay=args.replay)
    with tempfile.TemporaryDirectory(prefix="milk-repo-") as scratch:
        return run(create(Path(scratch)), pytest_args, replay=args.replay)


if __name__ == "__main__":
    sys.exit(main())
