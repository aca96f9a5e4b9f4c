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

from .._config import CATEGORICAL
from .arrays import table_total
from .arrays import total as _total
from .candidates import category_tables, numpy_sum, row_sums, sorted_known, table_offsets, two_sided_table

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
    known = table_total(table)
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
    known = _total(sizes)
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
    w_right = _total(right)
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


@njit(cache=True)
def split_point_sorted(distinct, column, point):
    """``split_point(column, point)`` in O(log n) from ``distinct``, the sorted distinct known values
    of ``column``. fl(v - point) grows with v, so the values not above the point form a prefix of
    ``distinct``; the scan ends on its largest value ``top`` whenever the next lower distinct value
    is more than 1e-6 below it (when ``top`` is met, whatever was kept is at least that far below).
    Otherwise (values within 1e-6 of each other, or a zero, whose sign the scan's row order
    decides), the row-order scan itself runs."""
    lo, hi = 0, distinct.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if distinct[mid] - point < SMALL:
            lo = mid + 1
        else:
            hi = mid
    if lo == 0:
        return -np.inf
    top = distinct[lo - 1]
    if top != 0.0 and (lo == 1 or top - distinct[lo - 2] > SMALL):
        return top
    return split_point(column, point)


@njit(cache=True)
def multiway_candidate(table, n_categories, n_classes, min_objects):
    """``Release8Splitter``'s numbers for a categorical column, from its ``category_table`` (last
    row: missing values): (found, total weight, gain, iv, rho, admissible). found is False when
    fewer than two branches hold weight; admissible needs two branches with ``min_objects``
    (within 1e-6)."""
    known = table[:n_categories]
    sizes = row_sums(known)
    if np.count_nonzero(sizes > 0) < 2:
        return False, 0.0, 0.0, 0.0, 0.0, False
    total_w = numpy_sum(table.ravel())
    admissible = np.count_nonzero(min_objects - sizes < SMALL) >= 2
    class_totals = np.zeros(n_classes)  # known.sum(axis=0): numpy adds the rows in order
    for v in range(n_categories):
        class_totals += known[v]
    gain = info_gain(known, total_w, old_ent(class_totals))
    iv = split_info(sizes, total_w)
    rho = numpy_sum(sizes) / total_w if total_w > 0 else 0.0
    return True, total_w, gain, iv, rho, admissible


@njit(cache=True)
def threshold_candidate(X, ranks, j, y, idx, w, total_w, n_classes, min_objects, share, cap):
    """``Release8Splitter._threshold`` up to the MDL penalty, in one call: the known rows sorted
    (``ranks``: ``dense_ranks`` of the column),
    J48's minimum split size min_split = share * known weight / classes clamped to
    [min_objects, cap], and the best cut (``numeric_split``). Returns (found, i, gain, cuts, mid,
    branches, iv, rho): found is False when there are fewer than 2 * min_split known rows or no
    admissible cut with a positive gain; the cut is xs[:i+1] | xs[i+1:] at midpoint ``mid`` (kept
    below the upper value), gain is before the penalty."""
    xs, ys, ws = sorted_known(X, ranks, j, y, idx, w)
    empty = np.zeros((2, n_classes))
    min_split = share * numpy_sum(ws) / n_classes
    if min_split - min_objects < SMALL:
        min_split = min_objects
    elif min_split - cap > SMALL:
        min_split = cap
    if 2.0 * min_split - xs.shape[0] > SMALL:  # J48 counts rows here, not weight
        return False, -1, 0.0, 0, np.nan, empty, 0.0, 0.0
    i, gain, cuts = numeric_split(xs, ys, ws, n_classes, min_split, total_w)
    if cuts == 0 or i < 0:
        return False, -1, 0.0, 0, np.nan, empty, 0.0, 0.0
    mid = (xs[i] + xs[i + 1]) / 2.0
    if mid == xs[i + 1]:  # rounding: keep the lower value
        mid = xs[i]
    branches = two_sided_table(ys, ws, i, n_classes)
    sizes = row_sums(branches)
    rho = numpy_sum(sizes) / total_w if total_w > 0 else 0.0
    return True, i, gain, cuts, mid, branches, split_info(sizes, total_w), rho


@njit(cache=True)
def evaluate_node(X, ranks, rank_row, features, kinds, n_categories, y, idx, w, total_w,
                  n_classes, min_objects, share, cap):
    """``multiway_candidate`` or ``threshold_candidate`` for every feature in ``features``, in one
    call (``ranks[rank_row[j]]``: the ``dense_ranks`` of continuous column j). Per feature: found,
    gain (a threshold's before the MDL penalty), iv, rho, admissible, the weight the test's
    scores are relative to (a multiway test's: its table's total), cuts and midpoint (NaN for a
    multiway test); the branch tables, flattened, in ``tables[offsets[f]:offsets[f + 1]]``."""
    n_f = features.shape[0]
    found = np.zeros(n_f, dtype=np.bool_)
    admissible = np.ones(n_f, dtype=np.bool_)
    gain = np.zeros(n_f)
    iv = np.zeros(n_f)
    rho = np.zeros(n_f)
    weight = np.zeros(n_f)
    cuts = np.zeros(n_f, dtype=np.int64)
    mid = np.full(n_f, np.nan)
    offsets = table_offsets(features, kinds, n_categories, n_classes)
    tables = np.zeros(offsets[n_f])
    counts, counts_at = category_tables(X, y, idx, w, features, kinds, n_categories, n_classes)
    for f in range(n_f):
        j = features[f]
        start = offsets[f]
        if kinds[j] == CATEGORICAL:
            k = n_categories[j]
            table = counts[counts_at[f]:counts_at[f + 1]].reshape((k + 1, n_classes))
            ok, total, g, v, p, a = multiway_candidate(table, k, n_classes, min_objects)
            if ok:
                weight[f], admissible[f] = total, a
                for row in range(k):  # tables[start:start + k * n_classes] = table[:k].ravel()
                    for col in range(n_classes):
                        tables[start + row * n_classes + col] = table[row, col]
        else:
            ok, _, g, c, m, branches, v, p = threshold_candidate(
                X, ranks[rank_row[j]], j, y, idx, w, total_w, n_classes, min_objects, share, cap)
            if ok:
                weight[f], cuts[f], mid[f] = total_w, c, m
                for row in range(2):  # tables[start:start + 2 * n_classes] = branches.ravel()
                    for col in range(n_classes):
                        tables[start + row * n_classes + col] = branches[row, col]
        if ok:
            found[f] = True
            gain[f], iv[f], rho[f] = g, v, p
    return found, gain, iv, rho, admissible, weight, cuts, mid, tables, offsets


@njit(cache=True)
def choose(gain, gain_ratio, admissible, in_average, slack):
    """J48's choice (``Release8Splitter.choose``): the average gain over the admissible candidates
    ``in_average`` (np.sum's sum, then the division); among the admissible candidates whose gain
    reaches it less ``slack``, in column order, the first with the largest gain ratio, a later one
    needing to beat it by more than 1e-6. (-1, 0.0) when none has a gain ratio above 1e-6."""
    n = gain.shape[0]
    gains = np.empty(n)
    m = 0
    for i in range(n):
        if admissible[i] and in_average[i]:
            gains[m] = gain[i]
            m += 1
    best, best_ratio = -1, 0.0
    if m == 0:
        return best, best_ratio
    cut = numpy_sum(gains[:m]) / m - slack
    for i in range(n):
        if admissible[i] and gain[i] >= cut and gain_ratio[i] - best_ratio > SMALL:
            best, best_ratio = i, gain_ratio[i]
    return best, best_ratio
