"""The files a release needs: LICENSE (MIT, as the metadata says), CHANGELOG.md naming the version,
one source for the version, and a .gitignore for every file the README's quick starts leave."""

from __future__ import annotations

import re
import subprocess
import tomllib

import contract
from tests.docs.test_quickstarts import quickstart
from tests.support.paths import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_license_is_mit_as_the_metadata_says_and_the_readme_says_why() -> None:
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
    assert PYPROJECT["project"]["license"] == {"text": "MIT"}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## License"):]
    assert "MIT ([LICENSE](LICENSE))" in section


def test_the_version_is_written_once_and_the_changelog_names_it() -> None:
    assert "version" not in PYPROJECT["project"]
    assert "version" in PYPROJECT["project"]["dynamic"]
    assert PYPROJECT["tool"]["hatch"]["version"]["path"] == "contract/__init__.py"
    assert re.fullmatch(r"\d+\.\d+\.\d+", contract.__version__)
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"\n## {contract.__version__} " in changelog


def test_the_installed_metadata_and_version_agree() -> None:
    from importlib.metadata import version

    assert version("milk-contract") == contract.__version__


def _left_by_the_quick_starts() -> set[str]:
    """Every file a quick start writes into the checkout (``> FILE``) and every folder it exports to."""
    blocks = ["\n".join(line.split(" # ")[0] for line in quickstart(name).splitlines()
                         if not line.lstrip().startswith("#"))  # commands, not what a comment says of yours
              for name in ("emitter", "consumer")]
    written = {m for block in blocks for m in re.findall(r"> (\S+\.\w+)", block)}
    exported = {m for block in blocks for m in re.findall(r"vectors export (\S+)", block)}
    return written | exported


def _git(*argv: str) -> str:
    return subprocess.run(["git", *argv], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def test_the_gitignore_covers_what_the_quick_starts_leave() -> None:
    left = _left_by_the_quick_starts()
    assert {"truncated.jsonl", "report.json", "expect.json"} <= left
    assert sorted(_git("check-ignore", "--no-index", "--", *sorted(left)).split()) == sorted(left)
    assert _git("ls-files", "--", *sorted(left)) == ""  # nothing the suite needs is ignored by it


def test_no_tracked_file_matches_an_ignore_pattern() -> None:
    """A pattern that matches a tracked file hides it from `git add -A` in a copy: an unanchored
    ``truncated.jsonl`` kept goldens/subagent-stdio/truncated.jsonl out of the ADR walks' copies."""
    assert _git("ls-files", "--cached", "--ignored", "--exclude-standard") == ""
