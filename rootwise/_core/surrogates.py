"""Surrogate splits (CART, seed 001 §2.4): splits on other attributes that best mimic the primary.

For the rows whose primary value is known, ``direction`` is the primary's branch (0 or 1). A
surrogate's agreement is the weighted share of those rows it sends the same way; rows whose
surrogate value is missing count as disagreeing (rpart's surrogatestyle = 0).
"""

import numpy as np
from numba import njit

from .numeric import midpoint


@njit(cache=True)
def best_surrogate_threshold(xs, direction, ws, min_side):
    """xs: known surrogate values (sorted), direction: the primary's branch of each, ws: weights.
    Returns (threshold, left_branch, agreeing weight): rows with x <= threshold go to
    ``left_branch`` (0 or 1), the others to 1 - left_branch. Each side keeps at least ``min_side``
    rows. Ties keep the lowest threshold and left_branch = 0."""
    n = xs.shape[0]
    total0, total1 = 0.0, 0.0
    for t in range(n):
        if direction[t] == 0:
            total0 += ws[t]
        else:
            total1 += ws[t]
    below0, below1 = 0.0, 0.0
    best, best_t, best_left = -1.0, np.nan, 0
    for i in range(n - 1):
        if direction[i] == 0:
            below0 += ws[i]
        else:
            below1 += ws[i]
        if xs[i + 1] <= xs[i] or i + 1 < min_side or n - i - 1 < min_side:
            continue
        agree_le0 = below0 + (total1 - below1)  # x <= t -> branch 0
        agree_le1 = below1 + (total0 - below0)  # x <= t -> branch 1
        if agree_le0 > best + 1e-12:
            best, best_t, best_left = agree_le0, midpoint(xs[i], xs[i + 1]), 0
        if agree_le1 > best + 1e-12:
            best, best_t, best_left = agree_le1, midpoint(xs[i], xs[i + 1]), 1
    return best_t, best_left, best


@njit(cache=True)
def best_surrogate_subset(codes, direction, ws, n_categories):
    """Each category goes to the branch most of its rows (by weight) take under the primary.
    Returns (side per category: 0 / 1, -1 when absent; agreeing weight). Ties go to branch 0."""
    votes = np.zeros((n_categories, 2))
    for t in range(codes.shape[0]):
        votes[codes[t], direction[t]] += ws[t]
    side = np.full(n_categories, -1, dtype=np.int32)
    agree = 0.0
    for v in range(n_categories):
        if votes[v, 0] + votes[v, 1] > 0.0:
            side[v] = 0 if votes[v, 0] >= votes[v, 1] else 1
            agree += max(votes[v, 0], votes[v, 1])
    return side, agree
