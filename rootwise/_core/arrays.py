"""Growable arrays for the one-call builders: they do not know the node count in advance."""

import numpy as np
from numba import njit


@njit(cache=True)
def grown(a, size):
    """``a`` copied to the front of a new array of max(size, 2 len(a)) entries: doubling keeps
    appends amortised O(1)."""
    out = np.empty(max(size, 2 * a.shape[0]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def grown_rows(a, size):
    """``grown`` for a 2-D array, by rows; the new rows are zero."""
    out = np.zeros((max(size, 2 * a.shape[0]), a.shape[1]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out
