"""The README works as written: its shell and Python blocks run in a copy of the repository.

A reader who has done the install step copies the blocks into a shell and a Python session; this
test does the same, offline, with the installed package, in a fresh copy of the repository's
files (so a path like ``rootwise/datasets/data/watermelon_2.0.csv`` must exist in a clone).
A block that must not run here (the install step, ``make``) carries the comment
``<!-- readme-test: skip (reason) -->`` on the line before it.
"""

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
RUNNABLE = {"bash": "shell", "sh": "shell", "shell": "shell", "python": "python"}
SKIP = re.compile(r"<!--\s*readme-test:\s*skip\s*(?:\((?P<reason>[^)]*)\))?\s*-->")
FENCE = re.compile(r"^```(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)^```\s*$", re.M | re.S)
# what a skipped shell block may hold: setting up an environment, nothing a reader runs later
SETUP = re.compile(r"^(make (run|test|docs|wheel)\b|python3? -m venv\b|(\.|source) \.venv/bin/activate$"
                   r"|pip install\b)")


def blocks(text: str):
    """(language, body, skip reason or None, line number) of each fenced block, in order."""
    found = []
    for match in FENCE.finditer(text):
        before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        skip = SKIP.fullmatch(before.strip())
        reason = (skip.group("reason") or "") if skip else None
        line = text.count("\n", 0, match.start()) + 1
        found.append((match.group("lang"), match.group("body"), reason, line))
    return found


def commands(body: str):
    """The shell commands of a block, one per line, comments dropped."""
    for line in body.splitlines():
        line = re.sub(r"\s+#.*$", "", line).strip()
        if line and not line.startswith("#"):
            yield from (part.strip() for part in line.split("&&"))


def copy_of_repository(dest: Path) -> Path:
    """The repository's files as a clone has them: tracked files when git knows them, else the
    tree without build products and environments."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True)
    if listed.returncode == 0 and listed.stdout:
        for name in listed.stdout.decode().split("\0"):
            source = ROOT / name
            if name and source.is_file():
                (dest / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, dest / name)
    else:
        shutil.copytree(ROOT, dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns(
            ".git", ".venv", "__pycache__", "_build", "*.egg-info", "build"))
    return dest


def reader_environment() -> dict:
    """The installed package's interpreter and console scripts first on PATH, as after
    ``. .venv/bin/activate``; PYTHONSAFEPATH so that ``python`` in the clone imports the
    installed rootwise (and its compiled kernels), not the copy's sources beside it."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONSAFEPATH"] = "1"
    env["PYTHONIOENCODING"] = "utf-8"
    env["MPLBACKEND"] = "Agg"
    return env


def test_the_readme_has_runnable_blocks_and_each_skip_says_why():
    found = blocks(README.read_text(encoding="utf-8"))
    runnable = [b for b in found if b[0] in RUNNABLE and b[2] is None]
    assert {RUNNABLE[b[0]] for b in runnable} == {"shell", "python"}
    for lang, body, reason, line in found:
        if reason is None:
            continue
        assert reason.strip(), f"README.md line {line}: a skipped block must say why"
        assert RUNNABLE.get(lang) == "shell", f"README.md line {line}: only set-up commands are skipped"
        for command in commands(body):
            assert SETUP.match(command), f"README.md line {line}: {command!r} is skipped but is not set-up"


def test_the_readme_installs_from_the_repository_with_extras_that_exist():
    text = README.read_text(encoding="utf-8")
    assert "pip install ." in text
    assert not re.search(r"pip install ['\"]?rootwise", text), "rootwise is not on a package index"
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    named = re.findall(r"\"\.\[([\w,-]+)\]\"", text)
    assert named, "the README names no extra"
    for group in named:
        for extra in group.split(","):
            assert extra in extras, f"README names the extra {extra!r}, pyproject.toml has {sorted(extras)}"


def test_the_readme_links_to_files_that_exist():
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if "://" not in link]
    assert any(link.startswith("docs/") for link in local)
    for link in local:
        assert (ROOT / link).exists(), f"README links to {link}, which is not in the repository"


def test_the_readme_blocks_run_as_written(tmp_path):
    clone = copy_of_repository(tmp_path / "rootwise")
    assert not (clone / "melon.json").exists()
    env = reader_environment()
    found = [b for b in blocks(README.read_text(encoding="utf-8")) if b[0] in RUNNABLE and b[2] is None]
    # the Python blocks are one session (a later block uses what an earlier one defined)
    session = "\n".join(f"# README.md line {line}\n{body}" for lang, body, _, line in found
                        if RUNNABLE[lang] == "python")
    script = tmp_path / "readme_session.py"
    script.write_text(session, encoding="utf-8")
    run = subprocess.run([sys.executable, str(script)], cwd=clone, env=env, capture_output=True,
                         text=True, encoding="utf-8", timeout=1200)
    assert run.returncode == 0, (f"the README's Python blocks failed:\n{run.stdout[-3000:]}\n"
                                 f"{run.stderr[-3000:]}")
    assert "纹理" in run.stdout and "CASE" in run.stdout  # the tree and the SQL were printed
    assert (clone / "melon.json").is_file()
    (clone / "melon.json").unlink()
    for lang, body, _, line in found:
        if RUNNABLE[lang] != "shell":
            continue
        shell = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", body], cwd=clone, env=env,
                               capture_output=True, text=True, encoding="utf-8", timeout=1200)
        assert shell.returncode == 0, (f"README.md line {line} failed:\n{body}\n"
                                       f"{shell.stdout[-3000:]}\n{shell.stderr[-3000:]}")
    assert (clone / "melon.json").is_file() and (clone / "report.html").is_file()


@pytest.mark.parametrize("path", ["README.md", "docs"])
def test_user_facing_text_cites_the_literature_not_seeds_or_issues(path):
    files = [ROOT / path] if path.endswith(".md") else sorted(
        p for p in (ROOT / path).rglob("*.md") if "_build" not in p.parts)
    for file in files:
        text = file.read_text(encoding="utf-8")
        found = re.findall(r"\b(?:[Ss]eed 0\d\d|[Ii]ssue \d+)\b", text)
        assert not found, f"{file.relative_to(ROOT)} says {found}; cite the literature instead"
