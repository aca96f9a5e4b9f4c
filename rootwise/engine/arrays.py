"""Array helpers for the kernels, written as plain loops.

numba's own versions carry checks whose error messages are formatted at run time (an array
assigned to a slice checks the shapes, ``a.sum()`` checks its axis argument): that string code
is compiled into every kernel that uses them and loaded with it on every first fit, and it was a
large share of both. These loops give the same numbers (``total`` adds in order from 0, as
numba's sum does).
"""

import numpy as np
from numba import njit


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def total(a):
    """``a.sum()`` of a 1-D float array, bit for bit as numba computes it."""
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def table_total(t):
    """``t.sum()`` of a 2-D float array (row by row, as numba computes it)."""
    s = 0.0
    for v in range(t.shape[0]):
        for k in range(t.shape[1]):
            s += t[v, k]
    return s


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def insertion_sort(items, keys):
    """Sort items by their keys (both in place, 1-D), ties keeping their order."""
    for i in range(1, items.shape[0]):
        t, k = items[i], keys[i]
        s = i - 1
        while s >= 0 and keys[s] > k:
            items[s + 1] = items[s]
            keys[s + 1] = keys[s]
            s -= 1
        items[s + 1] = t
        keys[s + 1] = k


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def copy_into(dst, start, src):
    """``dst[start:start + len(src)] = src`` for 1-D arrays."""
    for i in range(src.shape[0]):
        dst[start + i] = src[i]


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def grown(a, size):
    """``a`` copied to the front of a new array of max(size, 2 len(a)) entries (doubling keeps
    appends amortised O(1)); the rest unset."""
    out = np.empty(max(size, 2 * a.shape[0]), dtype=a.dtype)
    for i in range(a.shape[0]):
        out[i] = a[i]
    return out


@njit(cache=True, no_cfunc_wrapper=True)
def _unset(n, like):
    return np.empty(n, dtype=like.dtype)


def unset(shape, dtype=np.float64):
    """``np.empty(shape, dtype)`` from numba's allocator, for the growth's large tables (made
    from Python, ``loop.grow``). numpy asks the kernel for 2 MB pages for every array of 4 MB
    or more; where the kernel then compacts memory on a first touch (``transparent_hugepage/
    defrag = madvise``), a fully grown regressor fitted in a long-running process took 7 %
    longer (benchmarks/README.md, seventh session of 2026-11-27)."""
    shape = (shape,) if np.ndim(shape) == 0 else tuple(shape)
    return _unset(int(np.prod(shape)), np.empty(0, dtype=dtype)).reshape(shape)


def enlarged(a, size):
    """``grown`` from Python, by rows for a 2-D array: ``a`` copied to the front of a new array
    of max(size, 2 len(a)) rows (``unset``), the rest unset. ``loop.grow`` grows the growth's
    tables with it between calls of the loop kernel; ``grown`` stays for kernels."""
    out = unset((max(size, 2 * a.shape[0]),) + a.shape[1:], a.dtype)
    out[:a.shape[0]] = a
    return out
