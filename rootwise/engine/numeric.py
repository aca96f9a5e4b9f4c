"""Bi-partition of a continuous attribute (seed 000 §4.1, seed 001 §2.2).

The known values of the node, sorted ascending, are scanned once; between two adjacent distinct
values a^i < a^{i+1} the candidate threshold is their midpoint (a^i + a^{i+1}) / 2, and the rows go
left when x <= t. Running class counts (or running sums of w, wy) make each candidate O(classes).
"""

import numpy as np
from numba import njit

from .._config import TIE_TOLERANCE
from .arrays import total as _total
from .criteria import impurity


@njit(cache=True)
def midpoint(a, b):
    """(a + b) / 2, kept strictly below b: for adjacent floats the midpoint can round up to b,
    which would send b's rows to the wrong side."""
    t = a / 2.0 + b / 2.0
    if t >= b or t < a:
        t = a
    return t


@njit(cache=True)
def best_threshold_class(xs, ys, ws, n_classes, criterion, min_leaf):
    """Best threshold of one attribute by impurity decrease, for classification.

    xs: known values sorted ascending; ys: their class codes; ws: their weights.
    Returns (i, decrease, left_weight): the split is xs[:i+1] | xs[i+1:], decrease =
    I(D) - W_l/W I(D_l) - W_r/W I(D_r) over these rows. i = -1 when no boundary leaves at least
    ``min_leaf`` weight on both sides. Ties keep the lowest threshold.
    """
    n = xs.shape[0]
    total = np.zeros(n_classes)
    for t in range(n):
        total[ys[t]] += ws[t]
    w_all = _total(total)
    parent = impurity(total, criterion)
    left = np.zeros(n_classes)
    right = total.copy()
    w_left = 0.0
    best_i, best, best_wl = -1, -np.inf, 0.0
    for i in range(n - 1):
        left[ys[i]] += ws[i]
        right[ys[i]] -= ws[i]
        w_left += ws[i]
        if xs[i + 1] <= xs[i]:
            continue  # equal values cannot be separated
        w_right = w_all - w_left
        if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
            continue
        dec = parent - (w_left / w_all) * impurity(left, criterion) \
            - (w_right / w_all) * impurity(right, criterion)
        if dec > best + TIE_TOLERANCE:
            best_i, best, best_wl = i, dec, w_left
    return best_i, best, best_wl


@njit(cache=True)
def best_threshold_regression(xs, ys, ws, min_leaf):
    """Best threshold of one attribute by squared-error decrease (seed 001 §3.1).

    SSE(D) = sum w y^2 - (sum w y)^2 / sum w; the chosen i maximises
    (sum_l wy)^2 / W_l + (sum_r wy)^2 / W_r, which is the same as minimising SSE_l + SSE_r.
    Returns (i, decrease, left_weight) with decrease = (SSE(D) - SSE_l - SSE_r) / W, the decrease
    of the weighted mean squared error.
    """
    n = xs.shape[0]
    w_all, s_all, q_all = 0.0, 0.0, 0.0
    for t in range(n):
        w_all += ws[t]
        s_all += ws[t] * ys[t]
        q_all += ws[t] * ys[t] * ys[t]
    w_left, s_left = 0.0, 0.0
    best_i, best_proxy, best_wl = -1, -np.inf, 0.0
    for i in range(n - 1):
        w_left += ws[i]
        s_left += ws[i] * ys[i]
        if xs[i + 1] <= xs[i]:
            continue
        w_right = w_all - w_left
        if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
            continue
        s_right = s_all - s_left
        proxy = s_left * s_left / w_left + s_right * s_right / w_right
        if best_i < 0 or proxy > best_proxy + TIE_TOLERANCE * max(1.0, abs(best_proxy)):
            best_i, best_proxy, best_wl = i, proxy, w_left
    if best_i < 0 or w_all <= 0.0:
        return -1, -np.inf, 0.0
    # SSE(D) - (SSE_l + SSE_r) = proxy - s_all^2 / W
    return best_i, (best_proxy - s_all * s_all / w_all) / w_all, best_wl
