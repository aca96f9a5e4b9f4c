"""``rootwise compile`` fills numba's on-disk cache so that a later process compiles nothing; the
CLI's one-line notice appears when (and only when) a kernel compiles; the cache follows
``NUMBA_CACHE_DIR`` and drops kernels compiled from other sources.

Compilations are counted by numba's "numba:compile" events in the child, not by a clock. Two
``rootwise compile`` runs at once into one new empty NUMBA_CACHE_DIR (each compiling in a process
per core: every kernel, about a minute or two of CPU) make the cache the tests share; the others
work on copies of it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

import rootwise
from rootwise._compile_notice import start_line

HERE = os.path.dirname(os.path.dirname(os.path.abspath(rootwise.__file__)))
WATERMELON = str(rootwise.datasets.path("watermelon_2_0"))
FIT_C45 = ["fit", WATERMELON, "--target", "好瓜", "--ignore", "编号", "--algorithm", "c4.5"]


def _run(argv: list[str], cache, code: str | None = None,
         notice: bool = False) -> subprocess.CompletedProcess:
    """A fresh interpreter with NUMBA_CACHE_DIR=cache: ``python -m rootwise.cli argv`` or the
    ``code``; ``notice``: with the compile notice on, said at once (no clock in the test)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONIOENCODING": "utf-8",
           "ROOTWISE_PRECOMPILED": "0",  # numba's own cache is the subject here
           "PYTHONPATH": HERE + os.pathsep + os.environ.get("PYTHONPATH", "")}
    command = [sys.executable, "-c", code] if code else [sys.executable, "-m", "rootwise.cli", *argv]
    if notice:
        env["ROOTWISE_COMPILE_NOTICE"] = "1"
        command = [sys.executable, "-c", NOTICE_AT_ONCE, *argv]
    done = subprocess.run(command, capture_output=True, env=env, timeout=1800, cwd=HERE,
                          text=True, encoding="utf-8")
    assert done.returncode == 0, done.stderr[-3000:]
    return done


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """(cache directory, stdout) of ``rootwise compile --processes 2`` into a new empty
    NUMBA_CACHE_DIR: two processes write the cache at once. The suite's own cache is that run
    (tests/conftest.py fills it so before the first test) unless NUMBA_CACHE_DIR was set by
    whoever runs the tests; then the run is made here."""
    from conftest import KERNEL_CACHE, KERNEL_RECORD

    if os.environ.get("NUMBA_CACHE_DIR") == str(KERNEL_CACHE):
        return KERNEL_CACHE, json.loads(KERNEL_RECORD.read_text())["stdout"]
    cache = tmp_path_factory.mktemp("numba-cache")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONIOENCODING": "utf-8",
           "ROOTWISE_PRECOMPILED": "0",
           "PYTHONPATH": HERE + os.pathsep + os.environ.get("PYTHONPATH", "")}
    run = subprocess.run([sys.executable, "-m", "rootwise.cli", "compile", "--processes", "2"],
                         capture_output=True, env=env, cwd=HERE, text=True, encoding="utf-8",
                         timeout=1800)
    assert run.returncode == 0, run.stderr[-3000:]
    return cache, run.stdout


# The CLI with the notice's first line as soon as a kernel compiles (no clock in the test); its
# end line comes when the run settles or at exit, so the fit's compiles are one run.
NOTICE_AT_ONCE = r"""
import sys
import rootwise._compile_notice as notice
notice.AFTER = 0.0
from rootwise.cli import main
sys.exit(main(sys.argv[1:]))
"""

# Every algorithm, the default options and a few others, numeric and categorical columns with
# missing cells, a tree with an int32 category pool, and every prediction: the kernels it needs
# must all load, none compile.
USE = r"""
import json
import sys
import numpy as np
import rootwise
from numba.core import event
from numba.core.dispatcher import Dispatcher
from rootwise.precompile import CompileCounter

counter = CompileCounter()
event.register("numba:compile", counter)
rng = np.random.default_rng(7)
X = np.round(rng.normal(size=(200, 4)), 2)
X[:, 3] = rng.integers(0, 6, 200)
X[rng.random(X.shape) < 0.05] = np.nan
y = (np.nan_to_num(X[:, 0]) > 0).astype(int) + (X[:, 3] == 2)
levels = np.clip(np.round(np.nan_to_num(X[:, :3])), -1, 1)
fits = [(rootwise.ID3Classifier(), levels, y),
        (rootwise.C45Classifier(categorical_features=[3]), X, y),
        (rootwise.C45Classifier(release8=True), X, y),
        (rootwise.CARTClassifier(random_state=0, categorical_features=[3]), X, y),
        (rootwise.CARTClassifier(splitter="hist", ccp_alpha=0.0), X, y),
        (rootwise.CARTRegressor(random_state=0), X, np.nan_to_num(X[:, 1]) + y),
        (rootwise.CARTRegressor(criterion="poisson", random_state=0), X, y),
        (rootwise.CARTRegressor(criterion="absolute_error", random_state=0), X, y),
        (rootwise.CARTRegressor(monotonic_cst=[1, 0, 0, 0], random_state=0), X, y),
        (rootwise.CARTClassifier(monotonic_cst=[1, 0, 0, 0], random_state=0), X, y > 0),
        (rootwise.CARTClassifier(loss=[[0, 1, 2], [1, 0, 1], [3, 1, 0]], random_state=0), X, y)]
# a multiway test of 300 branches: its tree keeps an int32 category pool (others an int8 one)
wide = rng.integers(0, 300, (300, 1)).astype(float)
wide[0, 0] = 299
fits.append((rootwise.C45Classifier(categorical_features=[0]), wide, (wide[:, 0] % 3).astype(int)))
for model, data, target in fits:
    model.fit(data, target)
    model.predict(data), model.apply(data), model.decision_path(data)
    model.predict(np.asfortranarray(data, dtype=np.float32))
    if hasattr(model, "predict_proba"):
        model.predict_proba(data)
# a kernel loaded from the cache must be the code of the signature it was looked up for
mixed_up = []
for module in list(sys.modules.values()):
    if getattr(module, "__name__", "").startswith("rootwise."):
        for name, kernel in vars(module).items():
            if isinstance(kernel, Dispatcher) and kernel.py_func.__module__ == module.__name__:
                loaded = set(kernel.stats.cache_hits)
                mixed_up += [f"{name}{sig}" for sig in loaded if sig not in kernel.signatures]
print(json.dumps(mixed_up))
print(json.dumps(sorted(counter.kernels)))
"""


def test_compile_fills_the_cache_so_that_a_new_process_compiles_nothing(compiled):
    cache, out = compiled
    first = int(out.split()[1])
    assert out.startswith("compiled ") and first > 20  # every kernel: dozens
    # every cache directory it names is under NUMBA_CACHE_DIR, where numba was told to cache
    dirs = out.strip().split("cache: ", 1)[1].split(", ")
    assert dirs and all(d.startswith(str(cache)) for d in dirs)
    mixed_up, compiled_now = _run([], cache, USE).stdout.strip().splitlines()[-2:]
    assert json.loads(compiled_now) == []
    assert json.loads(mixed_up) == []  # each loaded kernel is the code of its own signature
    # a second run, in one process as told, finds every kernel cached (the fill ran in two)
    again = _run(["compile", "--processes", "1"], cache).stdout
    assert again.startswith("compiled 0 kernels") and "(1 process)" in again


def _drop_a_kernel(cache) -> None:
    """Remove one kernel a C4.5 fit calls from Python (error-based pruning numbers the nodes):
    the next such fit compiles that one alone."""
    dropped = [f for f in cache.rglob("error_based_kernels.number_nodes-*") if f.is_file()]
    assert dropped
    for f in dropped:
        f.unlink()


def test_the_cli_says_once_on_stderr_that_kernels_compile(compiled, tmp_path):
    cache = tmp_path / "cache"
    shutil.copytree(compiled[0], cache)
    warm = _run(FIT_C45, cache, notice=True)
    assert warm.stderr == ""  # a full cache: nothing compiles, nothing said
    _drop_a_kernel(cache)
    cold = _run(FIT_C45, cache, notice=True)
    lines = [line.lstrip("\r") for line in cold.stderr.split("\n") if line]
    # the reason in brackets: this run turned precompiled kernels off (ROOTWISE_PRECOMPILED=0)
    assert lines[0] == start_line("ROOTWISE_PRECOMPILED=0")
    assert re.match(r"rootwise: compiled \d+ kernels in \d+ s", lines[1])
    assert len(lines) == 2 and cold.stdout == warm.stdout
    assert _run(FIT_C45, cache, notice=True).stderr == ""  # compiled now, and cached
    _drop_a_kernel(cache)
    quiet = _run([*FIT_C45, "--quiet"], cache, notice=True)  # --quiet: no line, though it compiles
    assert quiet.stderr == "" and quiet.stdout == warm.stdout
    assert list(cache.rglob("error_based_kernels.number_nodes-*.nbi"))


def test_cache_compiled_from_other_sources_is_dropped_on_import(compiled, tmp_path):
    cache = tmp_path / "cache"
    shutil.copytree(compiled[0], cache)
    stamps = list(cache.rglob("rootwise-kernels.sha256"))
    assert stamps  # each cache directory records the sources it was filled for
    stamp = next(s for s in stamps if list(s.parent.glob("*.nbi")))  # a folder of kernels
    folder = stamp.parent
    stamp.write_text("sources of another version")
    _run([], cache, "import rootwise")
    assert list(folder.glob("*.nbi")) == [] and list(folder.glob("*.nbc")) == []
    assert stamp.read_text() == rootwise._jit.fingerprint()
    others = [s.parent for s in stamps if s != stamp and list(s.parent.glob("*.nbc"))]
    assert others  # the other directories were current: kept
    assert all(list(d.glob("*.nbi")) for d in others)


def test_compile_runs_in_a_process_per_core_unless_told(compiled, tmp_path):
    # told one process: the second run of the first test ("(1 process)")
    assert "(2 processes)" in compiled[1]
    cache = tmp_path / "cache"  # nothing is compiled: the refusal comes first
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    bad = subprocess.run([sys.executable, "-m", "rootwise.cli", "compile", "--processes", "0"],
                         capture_output=True, text=True, env=env, cwd=HERE)
    assert bad.returncode == 2 and "--processes must be at least 1, got 0" in bad.stderr
    with pytest.raises(ValueError, match="processes must be a positive number of processes, got 0"):
        rootwise.compile_kernels(processes=0)


# The fill's Dask group alone (the workers are threads of this process), then the kernels of
# rootwise.dask it called: loaded from the cache or compiled, each has a signature now.
DASK_GROUP = r"""
import json
from numba.core.dispatcher import Dispatcher
from rootwise import precompile
from rootwise.dask import kernels
dict(precompile._steps())["fits on a Dask cluster"]()
print(json.dumps(sorted(name for name, kernel in vars(kernels).items()
                        if isinstance(kernel, Dispatcher) and kernel.signatures)))
"""


def test_compile_runs_a_dask_fit_through_every_kernel_the_workers_call(compiled, tmp_path):
    cache = tmp_path / "cache"
    shutil.copytree(compiled[0], cache)
    worker = open(os.path.join(HERE, "rootwise", "dask", "worker.py"), encoding="utf-8").read()
    called = set(re.findall(r"kernels\.(\w+)\(", worker))
    assert {"histograms", "class_node_stats", "regression_node_stats"} <= called
    used = json.loads(_run([], cache, DASK_GROUP).stdout.strip().splitlines()[-1])
    assert called <= set(used), called - set(used)
