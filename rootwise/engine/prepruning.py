"""Pre-pruning on validation rows (Zhou 2016, §4.3.1): a node is split only if its children, as leaves,
do better on the validation rows reaching it than the node itself as a leaf.

The validation rows of a node are a segment of (row, weight) arrays, partitioned with every split
as prediction would route them (``tree.walk``): a known value takes its branch; a missing value, or
at a SUBSET test a category without a branch, tries the surrogates, then the test's missing-value
branch (a child, a stop, or with C4.5 every branch with weight w * r_v); at a MULTIWAY test a
category never seen in training stops at the node. A row missing the value of a C4.5 test counts in
every branch with weight w * r_v: its expected loss.
"""

import numpy as np
from numba import njit

from .._config import MISSING_FRACTIONAL, SUBSET, THRESHOLD
from .route import branch_of_value

SPREAD = -2  # a row missing the value of a C4.5 test: every branch, weight w * r_v


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def holdout_branches(vrow, vw, vstart, vend, Xv, j, kind, threshold, sides, missing_branch, n_s,
                     sur_feature, sur_kind, sur_threshold, sur_left, sur_sides, out):
    """Each validation row's branch at the split into out[t - vstart]: a child, -1 (stops at the
    node) or SPREAD."""
    for t in range(vstart, vend):
        r = vrow[t]
        x = Xv[r, j]
        b = branch_of_value(x, kind, threshold, sides)
        missing = np.isnan(x)
        if b < 0 and (missing or kind == SUBSET):
            for s in range(n_s):
                xs = Xv[r, sur_feature[s]]
                if np.isnan(xs):
                    continue
                if sur_kind[s] == THRESHOLD:
                    b = sur_left[s] if xs <= sur_threshold[s] else 1 - sur_left[s]
                else:
                    c = np.int64(xs)
                    b = sur_sides[s, c] if 0 <= c < sur_sides.shape[1] else -1
                if b >= 0:
                    break
            if b < 0 and missing_branch >= 0:
                b = missing_branch
        if missing and missing_branch == MISSING_FRACTIONAL:
            b = SPREAD
        out[t - vstart] = b


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def loss(value, vrow, vw, vstart, vend, y_class, y_value, regression, branch_of, b, factor):
    """Weighted validation loss of predicting ``value`` for the rows of [vstart, vend) whose
    branch_of entry is b (all of them when b is -3), a SPREAD row weighted by ``factor``: 0/1 error
    of the value's most probable class, or squared error."""
    label = 0
    if not regression:
        for k in range(value.shape[0]):
            if value[k] > value[label]:
                label = k
    total = 0.0
    for t in range(vstart, vend):
        wt = vw[t]
        if b != -3:
            mine = branch_of[t - vstart]
            if mine == SPREAD and b >= 0:
                wt = wt * factor
            elif mine != b:
                continue
        r = vrow[t]
        if regression:
            dev = y_value[r] - value[0]
            total += wt * (dev * dev)
        else:
            total += wt * (1.0 if y_class[r] != label else 0.0)
    return total


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def score_of(loss_value, total_w, regression):
    """Validation score from a weighted loss: accuracy, or minus the mean squared error."""
    return -loss_value / total_w if regression else 1.0 - loss_value / total_w


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def split_helps(as_split, as_leaf, prune_on_tie):
    """Split when the children lose less; on a tie (within 1e-12) only if not prune_on_tie."""
    if abs(as_split - as_leaf) <= 1e-12 + 1e-12 * abs(as_leaf):
        return not prune_on_tie
    return as_split < as_leaf


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def split_holdout(vrow, vw, vstart, vend, branch_of, fractions, c_start, c_end, scratch_i,
                  scratch_f, fill):
    """Partition the validation segment into children laid out as ``segments.child_layout`` lays
    training rows (c_start, c_end computed here from the branches; the last branch first): a row
    of branch b keeps its weight, a SPREAD row goes to every branch with w * r_v, a row that
    stops (-1) goes nowhere. The arrays must have room up to c_end.max(); ``fill``: scratch, an
    entry per branch (the growth loop allocates nothing: ``segments.split_multiway``)."""
    n_b = c_start.shape[0]
    for b in range(n_b):
        c_end[b] = 0  # each child's own rows first
    spread = 0
    for t in range(vend - vstart):
        b = branch_of[t]
        if b >= 0:
            c_end[b] += 1
        elif b == SPREAD:
            spread += 1
    pos = vstart
    for b in range(n_b - 1, -1, -1):
        c_start[b] = pos
        pos += c_end[b] + spread
        c_end[b] = pos
    for b in range(n_b):
        fill[b] = c_start[b] - vstart
    for t in range(vstart, vend):
        b = branch_of[t - vstart]
        if b >= 0:
            scratch_i[fill[b]] = vrow[t]
            scratch_f[fill[b]] = vw[t]
            fill[b] += 1
        elif b == SPREAD:
            for c in range(n_b):
                scratch_i[fill[c]] = vrow[t]
                scratch_f[fill[c]] = vw[t] * fractions[c]
                fill[c] += 1
    for u in range(pos - vstart):
        vrow[vstart + u] = scratch_i[u]
        vw[vstart + u] = scratch_f[u]
