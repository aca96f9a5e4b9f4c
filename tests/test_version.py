"""``rootwise.__version__``: the installed distribution's version, else the source tree's
pyproject.toml's."""

from __future__ import annotations

import tomllib
from importlib.metadata import version as installed_version
from pathlib import Path

import rootwise
from rootwise._version import source_version

PYPROJECT = Path(rootwise.__file__).resolve().parent.parent / "pyproject.toml"


def test_the_version_is_the_installed_one_and_pyprojects():
    declared = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["version"]
    assert rootwise.__version__ == installed_version("rootwise") == declared
    assert "__version__" in dir(rootwise)


def test_a_source_tree_reads_its_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "rootwise"\nversion = "7.8.9"\n')
    assert source_version(tmp_path / "pyproject.toml") == "7.8.9"


def test_no_pyproject_or_another_project_gives_an_unknown_version_not_an_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "other"\nversion = "1.0"\n')
    assert source_version(tmp_path / "pyproject.toml") == "0+unknown"
    assert source_version(tmp_path / "missing.toml") == "0+unknown"
    (tmp_path / "bad.toml").write_text("[project\n")
    assert source_version(tmp_path / "bad.toml") == "0+unknown"
