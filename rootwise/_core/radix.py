"""Stable argsort of float64 keys by LSD radix sort: four passes over 16-bit digits.

A float's bits, with the sign bit flipped for positives and every bit flipped for negatives,
order like the floats themselves (Herf's trick), so sorting the integers sorts the values. Keys
and row ids move together, so each pass reads sequentially. -0.0 is read as 0.0 and ties keep
row order, so the result equals ``np.argsort(x, kind="stable")`` for data without NaN.
"""

import numpy as np
from numba import njit

_DIGIT = 16
_BUCKETS = 1 << _DIGIT


@njit(cache=True)
def radix_argsort(x):
    n = x.shape[0]
    keys = np.empty(n, dtype=np.uint64)
    clean = np.empty(n, dtype=np.float64)
    for i in range(n):
        clean[i] = x[i] + 0.0  # -0.0 + 0.0 is +0.0: equal floats get equal keys
    bits = clean.view(np.uint64)
    top = np.uint64(1) << np.uint64(63)
    for i in range(n):
        b = bits[i]
        keys[i] = ~b if b & top else b | top
    idx = np.arange(n).astype(np.int64)
    keys_tmp = np.empty(n, dtype=np.uint64)
    idx_tmp = np.empty(n, dtype=np.int64)
    counts = np.empty(_BUCKETS, dtype=np.int64)
    mask = np.uint64(_BUCKETS - 1)
    for p in range(64 // _DIGIT):
        shift = np.uint64(p * _DIGIT)
        counts[:] = 0
        for i in range(n):
            counts[(keys[i] >> shift) & mask] += 1
        if counts[(keys[0] >> shift) & mask] == n:
            continue  # every key has this digit: the pass would not move anything
        total = 0
        for b in range(_BUCKETS):
            c = counts[b]
            counts[b] = total
            total += c
        for i in range(n):
            dgt = (keys[i] >> shift) & mask
            pos = counts[dgt]
            counts[dgt] = pos + 1
            keys_tmp[pos] = keys[i]
            idx_tmp[pos] = idx[i]
        keys, keys_tmp = keys_tmp, keys
        idx, idx_tmp = idx_tmp, idx
    return idx
