"""docs/architecture.md is a one-page map, and the map matches the package (issue 48, "a map, not a wall").

The page stays short: at most 200 lines, none over 120 characters. Every folder under ``contract/``
is on the map, and the map names no folder that is not there (``<wire>`` stands for each wire's
package). The layer picture lists the layers of tests/architecture/test_imports.py top down, each
beside a folder that the import test classifies in that layer. And every citation of a docs page's
section in the code or the configuration (``docs/architecture.md, "Pitfalls"``) names words that page
still holds.
"""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.architecture.test_imports import LAYERS, layer
from tests.support.paths import ROOT

MAP = ROOT / "docs" / "architecture.md"
MAX_LINES = 200
MAX_WIDTH = 120
PLACEHOLDER = "<wire>"
_FOLDER = re.compile(r"(?<![\w./<-])contract/(?:[\w<>]+/)+")
_CITATION = re.compile(r"docs/([\w-]+\.md)(?:'s| lists)?[,:(\s]*\"([A-Za-z][^\"]*)\"")


def _wires(root: Path) -> list[str]:
    """The wire packages: each folder of contract/wires/ that is a Python package."""
    return sorted(p.name for p in (root / "contract" / "wires").iterdir() if (p / "__init__.py").is_file())


def folders(root: Path) -> set[str]:
    """Every folder under contract/ as ``contract/a/b/``, caches and build leftovers aside."""
    found: set[str] = set()
    for path in (root / "contract").rglob("*"):
        parts = path.relative_to(root).parts
        if path.is_dir() and not any(p == "__pycache__" or p.startswith(".") or p.endswith(".egg-info")
                                     for p in parts):
            found.add("/".join(parts) + "/")
    return found


def named(text: str, wires: list[str]) -> set[str]:
    """The folders a page names, each ``<wire>`` spelt out for every wire."""
    return {name.replace(PLACEHOLDER, wire) for name in _FOLDER.findall(text) for wire in wires}


def off_the_map(text: str, there: set[str], wires: list[str]) -> tuple[list[str], list[str]]:
    """(folders the page leaves out, folders it names that are not there)."""
    on_map = named(text, wires)
    return sorted(there - on_map), sorted(on_map - there)


def _section(text: str, title: str) -> str:
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def picture(text: str) -> list[tuple[str, str]]:
    """The layer picture's rows, top down: (layer, folder or module path)."""
    [block] = re.findall(r"^```\n(.*?)^```$", _section(text, "Layers"), re.MULTILINE | re.DOTALL)
    return [(row.split()[0], row.split()[1]) for row in block.splitlines() if row.strip()]


def _module(path: str, wire: str) -> str:
    """A module the path holds, as the import test names modules."""
    dotted = path.replace(PLACEHOLDER, wire).removesuffix(".py").rstrip("/").replace("/", ".")
    return dotted if path.endswith(".py") else dotted + ".module"


def citations(sources: list[Path]) -> list[tuple[Path, str, str]]:
    """(source, page, words) for every ``docs/<page>.md, "<words>"`` in the sources' text, comments
    and docstrings joined across their line breaks."""
    found: list[tuple[Path, str, str]] = []
    for source in sources:
        flat = re.sub(r"\s*\n\s*(?:#\s*)?", " ", source.read_text(encoding="utf-8"))
        found.extend((source, page, words) for page, words in _CITATION.findall(flat))
    return found


def unresolved(sources: list[Path], root: Path) -> list[str]:
    """Every citation whose page lacks its words (backticks, stars and line breaks aside, any case)."""

    def plain(text: str) -> str:
        return re.sub(r"\s+", " ", re.sub(r"[`*]", "", text)).lower()

    pages: dict[str, str] = {}
    missing = []
    for source, page, words in citations(sources):
        path = root / "docs" / page
        if page not in pages:
            pages[page] = plain(path.read_text(encoding="utf-8")) if path.is_file() else ""
        if plain(words) not in pages[page]:
            missing.append(f"{source.relative_to(root)}: docs/{page}, {words!r}")
    return missing


def _sources() -> list[Path]:
    modules = (p for folder in ("contract", "tests", "tools", "bench") for p in (ROOT / folder).rglob("*.py"))
    return sorted({*modules, ROOT / "pyproject.toml", ROOT / "tox.ini"})


def test_the_map_is_one_page() -> None:
    lines = MAP.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, len(lines)
    wide = [f"{n}: {len(line)}" for n, line in enumerate(lines, 1) if len(line) > MAX_WIDTH]
    assert wide == []


def test_every_folder_under_contract_is_on_the_map_and_only_those() -> None:
    left_out, not_there = off_the_map(MAP.read_text(encoding="utf-8"), folders(ROOT), _wires(ROOT))
    assert (left_out, not_there) == ([], [])


def test_a_folder_left_off_or_made_up_would_be_found() -> None:
    """Near miss: the map less one folder it names, plus one that does not exist."""
    text = MAP.read_text(encoding="utf-8").replace("contract/live/", "the live folder")
    found = off_the_map(text + "\n`contract/nowhere/`\n", folders(ROOT), _wires(ROOT))
    assert found == (["contract/live/"], ["contract/nowhere/"])


THERE = folders(ROOT)  # read once: the property below draws from it


@settings(derandomize=True, max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(sorted(THERE)), max_size=4, unique=True))
def test_any_folder_left_off_the_map_is_named(gone: list[str]) -> None:
    """Whichever folders a map leaves out (a wire's own, spelt out, included), those are reported."""
    kept = "\n".join(f"`{folder}`" for folder in sorted(THERE - set(gone)))
    assert off_the_map(kept, THERE, _wires(ROOT)) == (sorted(gone), [])


def test_the_layer_picture_is_the_import_test_s_layers_top_down() -> None:
    rows = picture(MAP.read_text(encoding="utf-8"))
    assert [name for name, _ in rows] == list(reversed(LAYERS))
    wire = _wires(ROOT)[0]
    misplaced = [(name, path) for name, path in rows if layer(_module(path, wire)) != name]
    assert misplaced == []


def test_a_layer_out_of_order_would_be_found() -> None:
    """Near miss: two rows of the picture swapped, and a row beside another layer's folder."""
    text = MAP.read_text(encoding="utf-8")
    swapped = text.replace(" cli  ", " CLI  ").replace(" api  ", " cli  ").replace(" CLI  ", " api  ")
    assert [name for name, _ in picture(swapped)] != list(reversed(LAYERS))
    assert layer(_module("contract/wires/<wire>/", "stream_json")) == "wires"
    assert layer(_module("contract/wires/<wire>/kit/", "stream_json")) == "kits"
    assert layer(_module("contract/api.py", "stream_json")) == "api"


def test_every_cited_section_of_a_docs_page_is_there() -> None:
    found = citations(_sources())
    # the scan sees them, in modules' docstrings and comments and in pyproject.toml's comments
    assert {("architecture.md", "Pitfalls"), ("architecture.md", "Adding a rule")} <= {(p, w) for _, p, w in found}
    assert ROOT / "pyproject.toml" in {source for source, _, _ in found}
    assert unresolved(_sources(), ROOT) == []


def test_a_citation_of_words_no_page_holds_would_be_found(tmp_path: Path) -> None:
    gone = "docs/" + "gone.md"  # no page of the checkout: spelt in two parts for tests/docs/test_paths.py
    source = tmp_path / "cites.py"
    source.write_text('"""As docs/architecture.md, "Layers" says; see docs/architecture.md,\n'
                      f'"A Section That Never Was", and {gone}, "Anything"."""\n', encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "architecture.md").write_text("# Map\n\n## Layers\n", encoding="utf-8")
    assert unresolved([source], tmp_path) == [
        "cites.py: docs/architecture.md, 'A Section That Never Was'", f"cites.py: {gone}, 'Anything'"]
