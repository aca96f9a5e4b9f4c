"""The version of rootwise: the installed distribution's, or pyproject.toml's in a source tree.

Read from the package metadata that pip wrote at install (``importlib.metadata``), so that the
version lives in one place, pyproject.toml. A source tree put on ``sys.path`` without an install
has no metadata; there the version is read from the tree's own pyproject.toml.
"""

from __future__ import annotations

from pathlib import Path

DISTRIBUTION = "rootwise"


def version() -> str:
    """``"0.1.0"``: the installed metadata's version, else the source tree's pyproject.toml's."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed(DISTRIBUTION)
    except PackageNotFoundError:
        return source_version(Path(__file__).resolve().parent.parent / "pyproject.toml")


def source_version(pyproject: Path) -> str:
    """The ``[project] version`` of a pyproject.toml; "0+unknown" (PEP 440's local form) when the
    file is missing or names another project, so that importing rootwise never fails on it."""
    import tomllib

    try:
        with open(pyproject, "rb") as f:
            project = tomllib.load(f).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return "0+unknown"
    if project.get("name") != DISTRIBUTION or not isinstance(project.get("version"), str):
        return "0+unknown"
    return project["version"]
