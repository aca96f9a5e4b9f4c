"""``make wheel``: a wheel that carries the kernels precompiled, installed into a fresh virtualenv,
fits every estimator with no kernel compiled and grows the trees the JIT build grows here.

The wheel is built once for the module, from a copy of the sources (``tools/build_wheel.py``, as
``make wheel`` runs it), so the repository is never written to. Each check is a new process in a
new virtualenv, with a new empty HOME and the working directory outside the repository; the
virtualenv finds numpy, numba and the rest through a ``.pth`` line naming this environment's
site-packages (nothing is downloaded; the editable install's own ``.pth`` there is not read, so
only the wheel's rootwise is importable). Compilations are numba's "numba:compile" events, not a
clock.

Where the shipped kernels do not apply (another numba version, edited sources) rootwise must
compile as a source install does, say why on stderr, and grow the same trees.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

import numba
import pytest

import rootwise
from rootwise import _shipped

REPO = Path(rootwise.__file__).resolve().parent.parent

# Every estimator, its default options included, on numeric and categorical columns with missing
# cells; each model saved, loaded and used to predict. Prints the compiled kernels and each
# fitted model's file.
FITS = r"""
import json, sys
import numpy as np
import pandas as pd
from numba.core import event
PRELUDE
import rootwise
from rootwise.precompile import CompileCounter
import os, tempfile
folder = tempfile.mkdtemp()

counter = CompileCounter()
event.register("numba:compile", counter)
rng = np.random.default_rng(7)
X = np.round(rng.normal(size=(400, 4)), 2)
X[:, 3] = rng.integers(0, 6, 400)
X[rng.random(X.shape) < 0.05] = np.nan
y = (np.nan_to_num(X[:, 0]) > 0).astype(int) + (X[:, 3] == 2)
target = np.nan_to_num(X[:, 1]) + y
W, wy = rootwise.datasets.load_watermelon_2_0(return_X_y=True)
fits = {"id3": (rootwise.ID3Classifier(), W, wy)}
if "ALL" == "ALL":
    fits.update({
        "c4.5": (rootwise.C45Classifier(categorical_features=[3]), X, y),
        "release8": (rootwise.C45Classifier(release8=True), X, y),
        "cart": (rootwise.CARTClassifier(random_state=0, categorical_features=[3]), X, y),
        "cart-hist": (rootwise.CARTClassifier(splitter="hist", random_state=0), X, y),
        "regressor": (rootwise.CARTRegressor(random_state=0), X, target),
        "regressor-hist": (rootwise.CARTRegressor(splitter="hist", random_state=0), X, target),
        "cart-threads": (rootwise.CARTClassifier(pruning=None, n_jobs=2, categorical_features=[3]),
                         X, y),
    })
    from rootwise.engine import subtrees
    subtrees.MIN_ROWS = 0  # one tree's subtrees on two threads, on this small table
trees = {}
for name, (model, data, labels) in fits.items():
    model.fit(data, labels)
    path = os.path.join(folder, name + ".json")
    rootwise.save(model, path)
    again = rootwise.load(path)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert (again.predict(data) == model.predict(data)).all()
    if hasattr(model, "predict_proba"):
        again.predict_proba(data)
    if isinstance(data, np.ndarray):  # pandas hands out its blocks read-only: the same kernels
        frame = pd.DataFrame(data)
        assert (again.predict(frame) == model.predict(data)).all()
    trees[name] = text
print(json.dumps({"compiled": sorted(counter.kernels), "trees": trees}))
"""


def _fits(prelude: str = "", everything: bool = True) -> str:
    return FITS.replace("PRELUDE", prelude).replace('"ALL" == "ALL"', repr(everything))


def _here(everything: bool = True) -> dict:
    """The same fits by this checkout's rootwise, compiled here by numba's JIT for this CPU
    (never precompiled kernels: a tree that ran ``make wheel`` has them too)."""
    env = {**os.environ, "ROOTWISE_PRECOMPILED": "0",
           "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", _fits(everything=everything)], capture_output=True,
                          text=True, env=env, cwd=REPO, timeout=3000)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])["trees"]


def _filled_kernels() -> Path | None:
    """The suite's kernel cache when conftest.py filled it for the generic CPU from these sources
    (``rootwise compile``, the command ``make wheel`` runs), else None."""
    from conftest import KERNEL_CACHE, KERNEL_RECORD, kernel_fingerprint

    try:
        record = json.loads(KERNEL_RECORD.read_text())
    except (OSError, ValueError):
        return None
    if (os.environ.get("NUMBA_CACHE_DIR") != str(KERNEL_CACHE) or record.get("cpu") != "generic"
            or record.get("fingerprint") != kernel_fingerprint()):
        return None
    return KERNEL_CACHE


def _ship_filled(cache: Path, package: Path) -> None:
    """Lay the kernels numba cached for this checkout's sources out in ``package``/_kernels as
    ``make wheel`` ships them, with their manifest."""
    target = package / "_kernels"
    kernels = 0
    for folder in sorted({p.parent for p in (REPO / "rootwise").rglob("*.py")}):
        cached = _shipped.cache_folder(cache, folder)
        if not cached.is_dir():
            continue
        dest = target / folder.relative_to(REPO / "rootwise")
        dest.mkdir(parents=True, exist_ok=True)
        for f in cached.iterdir():
            if f.suffix in (".nbi", ".nbc"):
                shutil.copy(f, dest / f.name)
                kernels += f.suffix == ".nbi"
    (target / "manifest.json").write_text(json.dumps(_shipped.manifest_of(kernels), indent=1) + "\n")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel ``make wheel`` builds, from a copy of the sources (or the one named by
    ROOTWISE_TEST_WHEEL, built from these sources: the manifest's fingerprint is checked).
    Its kernels are the suite's own when conftest.py compiled them for the generic CPU with the
    command ``make wheel`` runs (``tools/build_wheel.py --reuse-kernels`` packs them), else they
    are compiled here as ``make wheel`` compiles them."""
    if os.environ.get("ROOTWISE_TEST_WHEEL"):
        return Path(os.environ["ROOTWISE_TEST_WHEEL"])
    work = tmp_path_factory.mktemp("build")
    source = work / "source"
    ignore = shutil.ignore_patterns("__pycache__", "_kernels", "*.nbi", "*.nbc")
    shutil.copytree(REPO / "rootwise", source / "rootwise", ignore=ignore)
    shutil.copytree(REPO / "tools", source / "tools", ignore=ignore)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (REPO / name).exists():
            shutil.copy(REPO / name, source / name)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "ROOTWISE_"))}
    reuse = []
    filled = _filled_kernels()
    if filled is not None:
        _ship_filled(filled, source / "rootwise")
        reuse = ["--reuse-kernels"]
    done = subprocess.run([sys.executable, str(source / "tools" / "build_wheel.py"), "--source",
                           str(source), "--dist", str(work / "dist"), *reuse],
                          capture_output=True, text=True, env=env, timeout=3000)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    (built,) = (work / "dist").glob("*.whl")
    return built


def _venv(wheel: Path) -> Path:
    """A new virtualenv with the wheel installed (its dependencies seen through a .pth line);
    made under a world-readable folder so another user can run it. Returns its python."""
    root = Path(tempfile.mkdtemp(prefix="rootwise-venv-"))
    os.chmod(root, 0o755)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True)
    python = root / "venv" / "bin" / "python"
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('platlib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                    "--no-deps", "--no-index", str(wheel)], check=True)
    return python


def _package(python: Path) -> Path:
    return Path(subprocess.run([python, "-c", "import rootwise; print(rootwise.__file__)"],
                               capture_output=True, text=True, check=True,
                               cwd=python.parent).stdout.strip()).parent


def _start(python: Path, code: str, *, read_only: Path | None = None, **env) -> subprocess.Popen:
    """Start ``code`` in the virtualenv: a new empty HOME, no variable of numba's or rootwise's,
    the working directory outside the repository; ``read_only``: a folder the child cannot write
    to."""
    home = Path(tempfile.mkdtemp(prefix="rootwise-home-"))
    keep = {k: v for k, v in os.environ.items()
            if not k.startswith(("NUMBA_", "ROOTWISE_", "PYTHON")) and k != "HOME"}
    command = [str(python), "-c", code]
    if read_only is not None and os.geteuid() == 0:
        # root writes through any mode bits: a read-only bind mount, in a mount namespace of
        # the child's own (util-linux's unshare; the mount is gone with the child)
        command = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                   'mount --bind -o ro "$0" "$0" && exec "$@"', str(read_only), *command]
    elif read_only is not None:
        for folder, _, files in os.walk(read_only):
            for name in files:
                os.chmod(os.path.join(folder, name), 0o444)
            os.chmod(folder, 0o555)
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=home, env={**keep, "HOME": str(home), "PYTHONNOUSERSITE": "1", **env})


def _finish(child: subprocess.Popen) -> dict:
    """The child's printed JSON and its stderr, once it has ended well."""
    out, err = child.communicate(timeout=3000)
    assert child.returncode == 0, err[-4000:]
    return {**json.loads(out.strip().splitlines()[-1]), "stderr": err}


def _child(python: Path, code: str, **options) -> dict:
    return _finish(_start(python, code, **options))


def test_the_wheel_is_tagged_for_this_python_and_platform_and_pins_numba(wheel):
    python = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    platform = re.sub(r"[-.]", "_", sysconfig.get_platform())
    assert wheel.name == f"rootwise-{rootwise.__version__}-{python}-{python}-{platform}.whl"
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        requires = [line for line in z.read(metadata).decode().splitlines()
                    if line.startswith("Requires-Dist: numba")]
        manifest = json.loads(z.read("rootwise/_kernels/manifest.json"))
    assert requires == [f"Requires-Dist: numba=={numba.__version__}"]
    assert manifest["numba"] == numba.__version__ and manifest["cpu"] == "generic"
    assert manifest["fingerprint"] == rootwise._jit.fingerprint()
    assert sum(n.endswith(".nbi") for n in names) == manifest["kernels"] > 40  # the entry kernels


def test_the_wheel_carries_the_license_and_the_typing_marker(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        lines = z.read(metadata).decode().splitlines()
        (license_file,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        text = z.read(license_file).decode()
    assert "License-Expression: MIT" in lines and "License-File: LICENSE" in lines
    assert text.startswith("MIT License") and "the rootwise authors" in text
    assert "rootwise/py.typed" in names  # PEP 561: type checkers read the package's annotations


@pytest.fixture(scope="module")
def installed(wheel):
    return _venv(wheel)


@pytest.fixture(scope="module")
def trees_here():
    return _here()


def test_a_fresh_install_fits_everything_with_no_kernel_compiled(installed, trees_here):
    done = _child(installed, _fits())
    assert done["compiled"] == []
    assert done["stderr"] == ""  # nothing compiles: nothing said
    assert done["trees"] == trees_here  # the generic machine code grows the same trees


@pytest.mark.parametrize("case", ["user's numba code first", "NUMBA_CACHE_DIR", "read-only"])
def test_the_shipped_kernels_are_found_whatever_the_process_did_first(installed, trees_here,
                                                                     case, tmp_path):
    prelude, env, read_only = "", {}, None
    if case == "user's numba code first":  # numba's CPU is then fixed to the host's
        prelude = "import numba; numba.njit(lambda x: x + 1)(1)"
    elif case == "NUMBA_CACHE_DIR":
        cache = Path(tempfile.mkdtemp(prefix="rootwise-cache-"))
        os.chmod(cache, 0o777)
        env["NUMBA_CACHE_DIR"] = str(cache)
    else:  # nothing may be written beside the package (numba then caches under HOME)
        read_only = _package(installed)
        prelude = ("import importlib.util, os\n"
                   "package = os.path.dirname(importlib.util.find_spec('rootwise').origin)\n"
                   "assert not os.access(package, os.W_OK), package")
    done = _child(installed, _fits(prelude), read_only=read_only, **env)
    assert done["compiled"] == [] and done["stderr"] == ""
    assert done["trees"] == trees_here


# kernels only the other estimators' paths call
OTHER_PATHS = {"rootwise.engine." + name for name in (
    "node_stats.regression_stats", "entry_scan.threshold_regression",  # regression
    "subsets.best_subset_class_entries", "search._gain_bound",  # subset tests
    "entries.counted_surrogate_entries", "sorted_scan.scan_surrogate",  # surrogates
    "chosen.child_weights", "route.to_majority",
    "release8_scan.scan_release8", "j48.multiway_scores",  # release 8
    "histograms.split_entries",  # CART's class histograms
    "sorted_scan.scan_class")}  # presorted columns (ID3 reads every column as categories)


def _edited_sources(python: Path) -> None:
    """A comment added to one kernel module of the installed package."""
    source = _package(python) / "engine" / "near_log.py"
    source.write_text(source.read_text() + "\n# edited after the wheel was built\n")


def test_where_the_shipped_kernels_do_not_apply_rootwise_compiles_says_why_and_agrees(wheel,
                                                                                     trees_here):
    # two installs, each compiling an ID3 fit's kernels from nothing: run at once, a core each
    numba_first = "import numba; numba.__version__ = '0.0.1'"  # what the wheel's pin prevents
    edited = _venv(wheel)
    _edited_sources(edited)
    cases = {"another numba": (_venv(wheel), numba_first, "precompiled for numba " + numba.__version__),
             "edited sources": (edited, "", "sources differ from the precompiled")}
    # the notice's first line at the first compile, however fast (no clock in the test)
    at_once = "\nimport rootwise._compile_notice as notice; notice.AFTER = 0.0"
    children = {case: _start(python, _fits(prelude + at_once, everything=False))
                for case, (python, prelude, _) in cases.items()}
    done = {case: _finish(child) for case, child in children.items()}
    # the JIT build's ID3 tree (of the full run here: the same fit, and ID3's multiway growth
    # never uses the subtrees' threads that run turns on)
    trees = {"id3": trees_here["id3"]}
    for case, (_, _, why) in cases.items():
        assert len(done[case]["compiled"]) > 20, case  # compiled afresh, as a source install does
        # ...and only the paths an ID3 fit takes (rootwise/engine/paths.py): no regression scan,
        # subset search, surrogate, release 8 or presorted-column kernel
        assert not [k for k in done[case]["compiled"] if k in OTHER_PATHS], case
        # said why on its first line ('\r' first, read as a line end here: text mode)
        assert why in [line for line in done[case]["stderr"].split("\n") if line][0], case
        assert done[case]["trees"] == trees, case
