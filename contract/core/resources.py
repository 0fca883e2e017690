"""Where the bundled data lives: beside the package when installed, at the checkout's top otherwise.

The wheel ships ``schemas/`` and ``goldens/`` as ``contract/_data/…`` (see pyproject.toml), so
``pytest --pyargs contract`` works with no clone; a checkout or an editable install reads the
top-level folders that reviewers edit.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]  # contract/, this module being contract/core/resources.py


def installed_copy() -> bool:
    """True for an installed, non-editable copy (its data is inside site-packages, not a checkout)."""
    return (_PACKAGE / "_data").is_dir()


def data_dir(name: str) -> Path:
    """The folder ``schemas`` or ``goldens``, installed copy first."""
    installed = _PACKAGE / "_data" / name
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / name


def schema_path(wire: str) -> Path:
    return data_dir("schemas") / f"{wire}.schema.json"
