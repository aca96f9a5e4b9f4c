"""Monotonic constraints (scikit-learn's ``monotonic_cst``): the scans of a constrained column and
the bounds each node's value must keep.

A column j carries a constraint c_j in {-1, 0, 1} on the node value v (regression: the mean;
binary classification: the proportion of the first class, so the caller gives c_j with its sign
flipped for a constraint on the second, positive, class). A cut on a constrained column is
admissible only when both children's values lie within the node's bounds [lo, hi] and

    (v_left - v_right) * c_j <= 0

(scikit-learn's ``check_monotonicity``). A constrained split hands its children the bounds
[lo, m] and [m, hi] (c_j = 1; mirrored for -1), m = (v_left + v_right) / 2, the mid-point of the
children's values; any other split hands both children the node's own. Each node's value is
clipped to its bounds once growth ends (``dispatch``). Nested bounds make the prediction monotone
in x_j whatever else the tree does: two rows that differ in x_j alone part at a test of x_j,
below which the lower one's side holds values <= m and the other's >= m.
"""

import numpy as np
from numba import njit

from .._config import TIE_TOLERANCE
from .criteria import impurity
from .entropy_runs import few_rows
from .segments import ROW_MASK, class_of, tied
from .thresholds import children_decrease


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def constraint_of(params, j):
    """c_j (0 when the fit has no constraints: an empty ``params.monotonic``)."""
    if params.monotonic.shape[0] == 0:
        return 0
    return params.monotonic[j]


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def respects(c, lo, hi, v_left, v_right):
    """Both values within [lo, hi] and in the order c asks (scikit-learn's rule)."""
    return (lo <= v_left <= hi and lo <= v_right <= hi
            and (v_left - v_right) * c <= 0.0)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def scan_sorted(words, s, start, n, w_row, yr_row, unit, params, c, lo, hi, scratch):
    """Best admissible cut of presorted column s (its n known words from ``start``) under the
    constraint c and bounds [lo, hi]: the last left position or -1, the branch table into
    scratch.branches (class weights; regression: w, wy, wy^2). The selection is the
    unconstrained scans' (``sorted_scan``): classification, the first cut whose exact decrease
    beats the best by TIE_TOLERANCE; regression, the first whose proxy does (relative)."""
    regression = params.regression
    n_classes = 3 if regression else params.n_classes
    total, left, right = scratch.total, scratch.left, scratch.right
    for k in range(n_classes):
        total[k] = 0.0
        left[k] = 0.0
    end = start + n
    for i in range(start, end):
        r = words[s, i] & ROW_MASK
        wt = 1.0 if unit else w_row[r]
        _add(total, words[s, i], r, wt, yr_row, regression)
    w_all = total[0] if regression else _sum(total, n_classes)
    parent = 0.0 if regression else impurity(total[:n_classes], params.criterion)
    best, best_i = -np.inf, -1
    for i in range(start, end - 1):
        r = words[s, i] & ROW_MASK
        wt = 1.0 if unit else w_row[r]
        _add(left, words[s, i], r, wt, yr_row, regression)
        if tied(words[s, i + 1]) or few_rows(i, start, n, params.min_leaf_rows):
            continue
        best, better = _consider(left, total, right, n_classes, w_all, parent, params, c, lo,
                                 hi, best, best_i < 0)
        if better:
            best_i = i
            _keep(left, total, n_classes, scratch.branches)
    return best_i


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def scan_entries(stats, p, params, c, lo, hi, scratch):
    """``scan_sorted`` over the p entries of a binned continuous column (ascending codes; class
    weights, or w, wy, wy^2): the last entry on the left, or -1."""
    regression = params.regression
    n_classes = 3 if regression else params.n_classes
    total, left, right = scratch.total, scratch.left, scratch.right
    for k in range(n_classes):
        total[k] = 0.0
        left[k] = 0.0
    for e in range(p):
        for k in range(n_classes):
            total[k] += stats[e, k]
    w_all = total[0] if regression else _sum(total, n_classes)
    parent = 0.0 if regression else impurity(total[:n_classes], params.criterion)
    best, best_e = -np.inf, -1
    for e in range(p - 1):
        for k in range(n_classes):
            left[k] += stats[e, k]
        best, better = _consider(left, total, right, n_classes, w_all, parent, params, c, lo,
                                 hi, best, best_e < 0)
        if better:
            best_e = e
            _keep(left, total, n_classes, scratch.branches)
    return best_e


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _add(sums, word, r, wt, yr_row, regression):
    if regression:
        y = yr_row[r]
        sums[0] += wt
        sums[1] += wt * y
        sums[2] += wt * y * y
    else:
        sums[class_of(word)] += wt


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _sum(a, n):
    t = 0.0
    for k in range(n):
        t += a[k]
    return t


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _keep(left, total, n, branches):
    for k in range(n):
        branches[0, k] = left[k]
        branches[1, k] = total[k] - left[k]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _consider(left, total, right, n_classes, w_all, parent, params, c, lo, hi, best, first):
    """One cut with left sums ``left``: (the best score so far, whether this cut is the new
    best). A cut needs min_leaf and some weight on both sides, and must respect the constraint."""
    regression = params.regression
    w_left = left[0] if regression else _sum(left, n_classes)
    w_right = w_all - w_left
    if (w_left < params.min_leaf or w_right < params.min_leaf or w_left <= 0.0
            or w_right <= 0.0):
        return best, False
    for k in range(n_classes):
        right[k] = total[k] - left[k]
    if regression:
        v_left, v_right = left[1] / w_left, right[1] / w_right
    else:
        v_left, v_right = left[0] / w_left, right[0] / w_right
    if not respects(c, lo, hi, v_left, v_right):
        return best, False
    if regression:
        score = left[1] * left[1] / w_left + right[1] * right[1] / w_right
        if first or score > best + TIE_TOLERANCE * max(1.0, abs(best)):
            return score, True
        return best, False
    score = children_decrease(parent, left[:n_classes], right[:n_classes], w_left, w_right,
                              w_all, params.criterion)
    if score > best + TIE_TOLERANCE:
        return score, True
    return best, False


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def child_value(seg, start, end, regression):
    """A child's unclipped value from its rows: the weighted mean, or the first class's
    proportion; NaN when it holds no weight."""
    w, s = 0.0, 0.0
    for t in range(start, end):
        wt = seg.w[t]
        w += wt
        if regression:
            s += wt * seg.yr[t]
        elif seg.yc[t] == 0:
            s += wt
    return s / w if w > 0.0 else np.nan


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def child_bounds(nodes, node, first, n_b, c, seg, c_start, c_end, regression):
    """The bounds of the split's children (``first``..): the node's own, split at the mid-point of
    the two children's values on the constrained side (kept within the node's bounds: rows
    routed by surrogates may move a child's value outside them)."""
    lo, hi = nodes.lower[node], nodes.upper[node]
    for b in range(n_b):
        nodes.lower[first + b] = lo
        nodes.upper[first + b] = hi
    if c == 0 or n_b != 2:
        return
    mid = (child_value(seg, c_start[0], c_end[0], regression)
           + child_value(seg, c_start[1], c_end[1], regression)) / 2.0
    if np.isnan(mid):
        return
    mid = min(max(mid, lo), hi)
    if c > 0:
        nodes.upper[first] = mid
        nodes.lower[first + 1] = mid
    else:
        nodes.lower[first] = mid
        nodes.upper[first + 1] = mid


def clip_values(value, lower, upper, regression):
    """Each node's value clipped to its bounds, in place: the mean, or the first class's
    proportion with the second's its complement (the node's weight kept). Nodes within their
    bounds keep their numbers bit for bit."""
    if regression:
        np.clip(value[:, 0], lower, upper, out=value[:, 0])
        return
    W = value.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = value[:, 0] / W
    clipped = np.clip(p, lower, upper)
    moved = (W > 0) & (clipped != p)
    value[moved, 0] = clipped[moved] * W[moved]
    value[moved, 1] = W[moved] - value[moved, 0]
