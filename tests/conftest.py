"""Shared fixtures: the seeds' textbook tables as (X, y) pairs.

Plain fixtures only (nothing autouse), so that every test module can pick what it needs.
"""

from __future__ import annotations

import os

# The compile notice (rootwise/_compile_notice.py: two lines on stderr while kernels compile)
# would land in the output of whichever test compiles first, here and in every child process;
# the tests of the notice turn it on themselves.
os.environ["ROOTWISE_COMPILE_NOTICE"] = "0"
# The suite compiles for numba's generic CPU, as ``make wheel`` does: the wheel test then packs the
# fill's kernels (below) instead of compiling every kernel a second time (tests/test_wheel.py).
# Before numba is imported: it reads the variable once.
os.environ.setdefault("NUMBA_CPU_NAME", "generic")

import hashlib  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

# The suite's compiled kernels: one numba cache for this process and every child it starts
# (NUMBA_CACHE_DIR is inherited), filled before the first test by ``rootwise compile`` in a
# process per core, where a suite run in a fresh clone would otherwise compile each kernel in
# turn in this one process. Kept between runs (``.pytest_cache`` is not in git) and filled again
# when the kernels' sources change. tests/test_precompile.py checks that run's output.
KERNEL_CACHE = Path(__file__).resolve().parents[1] / ".pytest_cache" / "numba-kernels"
KERNEL_RECORD = KERNEL_CACHE / "rootwise-compile.json"  # {"fingerprint", "cpu", "stdout"}


def kernel_fingerprint() -> str:
    """The kernels' sources and the fits that compile them (rootwise/precompile.py)."""
    from rootwise._jit import current_fingerprint

    fits = (Path(__file__).resolve().parents[1] / "rootwise" / "precompile.py").read_bytes()
    return current_fingerprint() + "-" + hashlib.sha256(fits).hexdigest()


def _fill_kernel_cache() -> None:
    # Under pytest-xdist this runs in the controller, before the workers start: they inherit
    # NUMBA_CACHE_DIR and return here at once, so the cache is filled once per run.
    if "NUMBA_CACHE_DIR" in os.environ:  # a cache chosen by whoever runs the tests
        return
    os.environ["NUMBA_CACHE_DIR"] = str(KERNEL_CACHE)  # before numba reads its configuration
    fingerprint = kernel_fingerprint()
    try:
        record = json.loads(KERNEL_RECORD.read_text())
        if (record["fingerprint"], record["cpu"]) == (fingerprint, os.environ["NUMBA_CPU_NAME"]):
            return
    except (OSError, ValueError, KeyError):
        pass
    shutil.rmtree(KERNEL_CACHE, ignore_errors=True)  # filled from empty: its output says all
    KERNEL_CACHE.mkdir(parents=True)
    run = subprocess.run([sys.executable, "-m", "rootwise.cli", "compile", "--processes", "2",
                          "--quiet"], capture_output=True, text=True, encoding="utf-8",
                         env={**os.environ, "ROOTWISE_PRECOMPILED": "0"})
    if run.returncode != 0:
        raise RuntimeError(f"rootwise compile failed before the tests:\n{run.stderr[-3000:]}")
    KERNEL_RECORD.write_text(json.dumps({"fingerprint": fingerprint,
                                         "cpu": os.environ["NUMBA_CPU_NAME"], "stdout": run.stdout}))


_fill_kernel_cache()

import pytest  # noqa: E402

from rootwise import datasets  # noqa: E402


@pytest.fixture(scope="session")
def loan():
    """Seed 002's loan application table: 15 rows, 4 categorical attributes, target 类别."""
    return datasets.load_loan_application(return_X_y=True)


@pytest.fixture(scope="session")
def watermelon():
    """Watermelon 2.0 (seed 000): 17 rows, 6 categorical attributes, target 好瓜."""
    return datasets.load_watermelon_2_0(return_X_y=True)


@pytest.fixture(scope="session")
def loan_default():
    """Seed 001's CART example: 10 rows, 年收入 numeric (thousands), target 拖欠贷款."""
    return datasets.load_loan_default(return_X_y=True)


# The test files that take longest (a wheel built with its own kernels, Dask clusters, processes
# that compile on purpose), in the order the workers start them: the suite runs a file per worker
# (pytest-xdist, --dist loadfile), so a long file left to the end would keep one worker busy after
# the others have run out of files.
LONGEST_FIRST = ("test_wheel.py", "test_dask.py", "test_dask_inputs.py", "test_prune_validation.py",
                 "test_c45.py", "test_cli_files.py", "test_startup.py", "test_precompile.py",
                 "test_interrupts.py", "test_tree_walk_columns.py", "test_sklearn_checks.py")


def pytest_collection_modifyitems(items):
    """The longest files first, the rest as collected (a stable sort: each file's tests keep
    their order)."""
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: a worker per CPU this process may run on (a container's CPUs, not the host's),
    unless PYTEST_XDIST_AUTO_NUM_WORKERS says how many."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "").isdigit():
        return int(os.environ["PYTEST_XDIST_AUTO_NUM_WORKERS"])
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1
