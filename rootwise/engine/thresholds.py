"""Bi-partition of a continuous attribute (Zhou 2016, §4.4.1; Breiman et al. 1984), over plain sorted arrays.

The known values of the node, sorted ascending (ties in node order), are scanned once; between two
adjacent distinct values a^i < a^{i+1} the candidate threshold is their midpoint, and the rows go
left when x <= t. Running sums make each candidate O(classes). These are the reference builder's
scans; the engine runs the same arithmetic over its presorted columns (``engine.sorted_scan``).

The branch table of the chosen cut is what the scan holds there: the running left sums, and the
right side as total - left (one subtraction per entry), where the totals are the sums over all
the sorted rows in order.
"""

import numpy as np
from numba import njit

from .._config import TIE_TOLERANCE
from .criteria import impurity


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def midpoint(a, b):
    """(a + b) / 2, kept strictly below b: for adjacent floats the midpoint can round up to b,
    which would send b's rows to the wrong side."""
    t = a / 2.0 + b / 2.0
    if t >= b or t < a:
        t = a
    return t


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def children_decrease(parent, left, right, w_left, w_right, w_all, criterion):
    """I(D) - W_l/W I(D_l) - W_r/W I(D_r): the impurity decrease of a cut."""
    return parent - (w_left / w_all) * impurity(left, criterion) \
        - (w_right / w_all) * impurity(right, criterion)


@njit(cache=True, no_cfunc_wrapper=True)
def best_threshold_class(xs, ys, ws, n_classes, criterion, min_leaf):
    """Best cut of one attribute for classification. xs: known values sorted ascending; ys: class
    codes; ws: weights. The first cut whose decrease beats the best so far by TIE_TOLERANCE wins
    (so ties keep the lowest threshold); a cut needs ``min_leaf`` weight and some weight on both
    sides. Returns (i, branches): rows xs[:i+1] go left; i = -1 when no cut is admissible."""
    n = xs.shape[0]
    total = np.zeros(n_classes)
    for t in range(n):
        total[ys[t]] += ws[t]
    w_all = 0.0
    for k in range(n_classes):
        w_all += total[k]
    parent = impurity(total, criterion)
    left = np.zeros(n_classes)
    right = np.empty(n_classes)
    branches = np.zeros((2, n_classes))
    w_left = 0.0
    best_i, best = -1, -np.inf
    for i in range(n - 1):
        left[ys[i]] += ws[i]
        w_left += ws[i]
        if xs[i + 1] <= xs[i]:
            continue  # equal values cannot be separated
        w_right = w_all - w_left
        if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
            continue
        for k in range(n_classes):
            right[k] = total[k] - left[k]
        dec = children_decrease(parent, left, right, w_left, w_right, w_all, criterion)
        if dec > best + TIE_TOLERANCE:
            best_i, best = i, dec
            for k in range(n_classes):
                branches[0, k] = left[k]
                branches[1, k] = right[k]
    return best_i, branches


@njit(cache=True, no_cfunc_wrapper=True)
def best_threshold_regression(xs, ys, ws, min_leaf):
    """Best cut of one attribute by squared-error decrease (Breiman et al. 1984, §8.3). SSE(D) =
    sum w y^2 - (sum w y)^2 / sum w, so the best cut maximises the proxy
    (sum_l wy)^2 / W_l + (sum_r wy)^2 / W_r; the first cut beating the best so far by
    TIE_TOLERANCE (relative) wins. Returns (i, branches): branch rows (w, wy, wy^2)."""
    n = xs.shape[0]
    w_all, s_all, q_all = 0.0, 0.0, 0.0
    for t in range(n):
        wy = ws[t] * ys[t]
        w_all += ws[t]
        s_all += wy
        q_all += wy * ys[t]
    branches = np.zeros((2, 3))
    w_left, s_left, q_left = 0.0, 0.0, 0.0
    best_i, best = -1, -np.inf
    for i in range(n - 1):
        wy = ws[i] * ys[i]
        w_left += ws[i]
        s_left += wy
        q_left += wy * ys[i]
        if xs[i + 1] <= xs[i]:
            continue
        w_right = w_all - w_left
        if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
            continue
        s_right = s_all - s_left
        proxy = s_left * s_left / w_left + s_right * s_right / w_right
        if best_i < 0 or proxy > best + TIE_TOLERANCE * max(1.0, abs(best)):
            best_i, best = i, proxy
            branches[0, 0], branches[0, 1], branches[0, 2] = w_left, s_left, q_left
            branches[1, 0], branches[1, 1], branches[1, 2] = w_right, s_right, q_all - q_left
    return best_i, branches
