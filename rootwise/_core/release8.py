"""C4.5 release 8 split statistics, as Weka's J48 computes them (``weka.classifiers.trees.j48``).

Release 8 differs from the textbook formulas in details that decide which tree is grown:

- entropies are kept in "count" units, sum v log2 v over weighted counts, and a count below 1e-6
  contributes nothing (J48's ``logFunc``);
- the information gain of a test is rho * (Ent(D~) - sum_v r_v Ent(D~^v)), and a gain whose
  count-unit numerator is within 1e-6 of zero is zero;
- the split information counts the rows with an unknown value as one more branch:
  IV = -sum_v |D^v|/|D| log2 |D^v|/|D| - |D?|/|D| log2 |D?|/|D|   (over all of D);
- a continuous attribute is cut only where the sorted known values differ by more than 1e-5 and
  both sides hold at least ``min_split`` weight; the best cut is the first whose gain beats the
  best so far by more than 1e-6, and the number of admissible cuts is returned for the MDL
  penalty log2(cuts) / |D| that J48 subtracts from the gain.
"""

import numpy as np
from numba import njit

SMALL = 1e-6  # weka.core.Utils.SMALL: the tolerance of every comparison in J48
DISTINCT = 1e-5  # two sorted values closer than this are not a possible cut
_LN2 = np.log(2.0)


@njit(cache=True)
def xlog2x(v):
    """v log2 v, or 0 when v < 1e-6 (J48's ``logFunc``)."""
    if v < SMALL:
        return 0.0
    return v * np.log(v) / _LN2


@njit(cache=True)
def old_ent(class_totals):
    """W * Ent(D) in count units: xlog2x(W) - sum_k xlog2x(W_k)."""
    s = 0.0
    total = 0.0
    for k in range(class_totals.shape[0]):
        s += xlog2x(class_totals[k])
        total += class_totals[k]
    return xlog2x(total) - s


@njit(cache=True)
def new_ent(table):
    """sum_v W_v Ent(D^v) in count units, from a (branches x classes) table."""
    s = 0.0
    for v in range(table.shape[0]):
        size = 0.0
        for k in range(table.shape[1]):
            s += xlog2x(table[v, k])
            size += table[v, k]
        s -= xlog2x(size)
    return -s


@njit(cache=True)
def info_gain(table, total_w, old):
    """J48's ``InfoGainSplitCrit.splitCritValue``: rho (old - new) / W~, where the table holds the
    known rows (W~ = its total), ``total_w`` is the node's whole weight (rho = W~ / total_w) and
    ``old`` = old_ent of the known rows' class totals."""
    known = table.sum()
    if known <= 0.0 or total_w <= 0.0:
        return 0.0
    numerator = (old - new_ent(table)) * (1.0 - (total_w - known) / total_w)
    if abs(numerator) < SMALL:
        return 0.0
    return numerator / known


@njit(cache=True)
def split_info(sizes, total_w):
    """J48's split information, unknown rows as an extra branch, divided by |D| (so it is the IV
    of the textbook when nothing is missing). 0 when the split is trivial."""
    known = sizes.sum()
    if known - 0.0 <= SMALL:
        return 0.0
    s = 0.0
    for v in range(sizes.shape[0]):
        s -= xlog2x(sizes[v])
    s -= xlog2x(total_w - known)
    s += xlog2x(total_w)
    if abs(s) < SMALL:
        return 0.0
    return s / total_w


@njit(cache=True)
def numeric_split(xs, ys, ws, n_classes, min_split, total_w):
    """J48's ``C45Split.handleNumericAttribute`` scan over the known rows of one attribute.

    xs: known values sorted ascending; ys: class codes; ws: weights at the node; ``total_w``: the
    node's whole weight (with unknown rows). Returns (i, gain, cuts): the best cut is
    xs[:i+1] | xs[i+1:] with information gain ``gain`` (before the MDL penalty), and ``cuts`` is
    the number of admissible cuts. i = -1 when no cut beats a gain of 0.
    """
    n = xs.shape[0]
    left = np.zeros(n_classes)
    right = np.zeros(n_classes)
    for t in range(n):
        right[ys[t]] += ws[t]
    w_left = 0.0
    w_right = right.sum()
    old = old_ent(right)
    table = np.zeros((2, n_classes))
    best_i, best, cuts = -1, 0.0, 0
    last = 0
    for nxt in range(1, n):
        if xs[nxt - 1] + DISTINCT < xs[nxt]:
            for t in range(last, nxt):
                left[ys[t]] += ws[t]
                right[ys[t]] -= ws[t]
                w_left += ws[t]
                w_right -= ws[t]
            if min_split - w_left < SMALL and min_split - w_right < SMALL:
                table[0] = left
                table[1] = right
                gain = info_gain(table, total_w, old)
                if gain - best > SMALL:
                    best = gain
                    best_i = nxt - 1
                cuts += 1
            last = nxt
    return best_i, best, cuts


@njit(cache=True)
def split_point(column, point):
    """J48's ``C45Split.setSplitPoint``: scanning the training values of the attribute in row
    order, keep a value when it exceeds the one kept by more than 1e-6 and is not above ``point``
    (within 1e-6). The result is the largest training value not above the midpoint, except that
    values within 1e-6 of each other keep the first one met."""
    best = -np.inf
    for v in column:
        if not np.isnan(v) and v - best > SMALL and v - point < SMALL:
            best = v
    return best
