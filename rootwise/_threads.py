"""``n_jobs`` -> numba's thread count, for one fit or one prediction.

Results never depend on it: threads split features (split search) or blocks of rows
(prediction), and every reduction runs in a fixed order.

Fits and predictions may run in several Python threads at once. numba's OpenMP and TBB
threading layers take that; its fallback, workqueue (used where neither library is found),
is not thread-safe and terminates the process when two threads launch parallel kernels at once.
So under workqueue, or before numba has picked a layer, ``threads`` lets one Python thread at a
time into the parallel kernels.
"""

from __future__ import annotations

import numbers
import os
import threading
from contextlib import contextmanager, nullcontext

import numba

# held around parallel kernels when the threading layer may be workqueue (reentrant: a fit may
# predict inside its own ``threads`` block)
_LAUNCH = threading.RLock()
_THREADSAFE_LAYERS = ("omp", "tbb")


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


def threadsafe_layer() -> bool:
    """Whether numba's threading layer takes parallel kernels launched from several Python
    threads at once (unknown, so False, until numba has launched one)."""
    try:
        return numba.threading_layer() in _THREADSAFE_LAYERS
    except ValueError:  # no parallel kernel has run yet: the layer is not chosen
        return False


@contextmanager
def threads(n_jobs):
    """Run the body with numba using ``resolve(n_jobs)`` threads; yields that number. The body
    runs alone among Python threads unless the threading layer is thread-safe."""
    k = resolve(n_jobs)
    with nullcontext() if threadsafe_layer() else _LAUNCH:
        before = numba.get_num_threads()
        numba.set_num_threads(k)
        try:
            yield k
        finally:
            numba.set_num_threads(before)
