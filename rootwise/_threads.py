"""``n_jobs`` -> numba's thread count, for one fit or one prediction.

Results never depend on it: threads split features (split search) or blocks of rows
(prediction), and every reduction runs in a fixed order.
"""

from __future__ import annotations

import numbers
import os
from contextlib import contextmanager

import numba


def resolve(n_jobs) -> int:
    """Threads to use: all cores for None or -1, n for n > 0, cores + 1 + n for n < -1 (as
    scikit-learn counts), never more than numba's pool."""
    cores = os.cpu_count() or 1
    if n_jobs is None:
        k = cores
    elif not isinstance(n_jobs, numbers.Integral) or isinstance(n_jobs, bool) or n_jobs == 0:
        raise ValueError(f"n_jobs must be None or a non-zero integer, got {n_jobs!r}.")
    else:
        k = n_jobs if n_jobs > 0 else max(cores + 1 + n_jobs, 1)
    return max(1, min(k, numba.config.NUMBA_NUM_THREADS))


@contextmanager
def threads(n_jobs):
    """Run the body with numba using ``resolve(n_jobs)`` threads; yields that number."""
    k = resolve(n_jobs)
    before = numba.get_num_threads()
    numba.set_num_threads(k)
    try:
        yield k
    finally:
        numba.set_num_threads(before)
