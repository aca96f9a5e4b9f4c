"""The documentation site builds, as ``make docs`` builds it: Sphinx with warnings as errors.

The build runs in a subprocess from scratch (``-E``: no saved environment) into a temporary
folder, so a broken link between pages, a missing picture, an anchor that moved or a docstring
autodoc cannot import fails the suite.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _makefile_build_command() -> list[str]:
    """The sphinx arguments of the Makefile's ``docs`` target, so the test builds what it builds."""
    text = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^docs:.*\n\t(?P<cmd>.+)$", text, re.M)
    assert recipe, "the Makefile has no docs target"
    words = recipe.group("cmd").split()
    assert words[:3] == ["$(BIN)/python", "-m", "sphinx"], words
    return words[3:]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    args = _makefile_build_command()
    assert "-W" in args and "docs" in args
    # the Makefile writes to docs/_build/html; the test writes to its own folder, from scratch
    args = [str(out / "html") if a == "docs/_build/html" else a for a in args]
    build = subprocess.run([sys.executable, "-m", "sphinx", "-E", *args], cwd=ROOT,
                           capture_output=True, text=True, encoding="utf-8", timeout=600)
    assert build.returncode == 0, f"make docs fails:\n{build.stdout[-4000:]}\n{build.stderr[-4000:]}"
    assert "WARNING" not in build.stderr and "ERROR" not in build.stderr, build.stderr
    return out / "html"


def test_every_page_is_built(site):
    pages = sorted(p.relative_to(DOCS).with_suffix(".html") for p in DOCS.rglob("*.md")
                   if "_build" not in p.parts)
    assert len(pages) >= 15
    for page in pages:
        assert (site / page).is_file(), page


def test_the_api_reference_is_the_docstrings(site):
    import rootwise

    html = (site / "api.html").read_text(encoding="utf-8")
    for name in ("ID3Classifier", "C45Classifier", "CARTClassifier", "CARTRegressor", "explain",
                 "export_text", "export_sql", "read_data", "load_watermelon_2_0"):
        assert f'id="rootwise.{name}"' in html or f'id="rootwise.datasets.{name}"' in html, name
    # a sentence of a docstring, as written
    first = rootwise.export_sql.__doc__.strip().splitlines()[0]
    words = re.sub(r"\s+", " ", first).split(" ")[:5]
    plain = re.sub(r"<[^>]+>", "", html)
    assert " ".join(words) in re.sub(r"\s+", " ", plain.replace("&quot;", '"').replace("&#39;", "'"))


def test_the_guides_pictures_and_speed_tables_are_on_the_site(site):
    assert (site / "_images" / "plot_watermelon_id3.png").is_file()
    assert (site / "_images" / "report_watermelon.png").is_file()
    bench = (site / "benchmarks.html").read_text(encoding="utf-8")
    assert "C4.5 against Weka" in bench and "<table" in bench
    id3 = (site / "guide" / "id3.html").read_text(encoding="utf-8")
    assert "0.381" in id3 and "0.420" in id3


# the pages whose examples are whole (the others show fragments that use a model from before)
RUNNABLE_PAGES = ["getting-started.md", "guide/id3.md", "guide/c45.md", "guide/cart-classification.md",
                  "guide/cart-regression.md", "pruning.md", "model-files.md"]


@pytest.mark.parametrize("page", RUNNABLE_PAGES)
def test_the_worked_examples_run_as_written(page, tmp_path):
    from test_readme import RUNNABLE, blocks, copy_of_repository, reader_environment

    found = [b for b in blocks((DOCS / page).read_text(encoding="utf-8")) if b[0] in RUNNABLE]
    python = [body for lang, body, reason, _ in found if RUNNABLE[lang] == "python" and reason is None]
    shell = [body for lang, body, reason, _ in found if RUNNABLE[lang] == "shell" and reason is None]
    assert python, f"{page} has no Python example"
    clone = copy_of_repository(tmp_path / "rootwise")
    env = reader_environment()
    script = tmp_path / "page_session.py"
    script.write_text("\n".join(python), encoding="utf-8")
    run = subprocess.run([sys.executable, str(script)], cwd=clone, env=env, capture_output=True,
                         text=True, encoding="utf-8", timeout=1200)
    assert run.returncode == 0, f"{page}:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    for body in shell:
        done = subprocess.run(["bash", "-e", "-c", body], cwd=clone, env=env, capture_output=True,
                              text=True, encoding="utf-8", timeout=1200)
        assert done.returncode == 0, f"{page}:\n{body}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


def test_the_public_docstrings_cite_the_literature_not_seeds_or_issues():
    import inspect

    import rootwise
    import rootwise.datasets

    objects = [getattr(rootwise, name) for name in rootwise.__all__ if name != "datasets"]
    objects += [rootwise, rootwise.datasets] + [getattr(rootwise.datasets, n) for n in dir(rootwise.datasets)
                                                if n.startswith("load")]
    objects += [member for cls in objects if inspect.isclass(cls)
                for _, member in inspect.getmembers(cls) if callable(member)]
    for obj in objects:
        found = re.findall(r"\b(?:[Ss]eeds? 0\d\d|[Ii]ssue \d+)", inspect.getdoc(obj) or "")
        assert not found, f"{getattr(obj, '__qualname__', obj)}'s docstring says {found}"
