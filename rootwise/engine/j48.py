"""C4.5 release 8 as Weka's J48 (3.6) computes its split statistics (``Policy.release8``).

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
  penalty log2(cuts) / |D| that J48 subtracts from the gain; the threshold is then moved down to
  the largest training value not above the cut;
- the average gain is taken over the attributes with a test (leaving out categorical attributes
  with many values), a candidate needs gain >= average - 1e-3, and the first with the largest
  gain ratio wins, a later one needing to beat it by more than 1e-6.

The reference builder (``reference.release8``) and the engine call these same kernels.
"""

import numpy as np
from numba import njit

from .._config import CATEGORICAL
from .radix import radix_argsort_keys

SMALL = 1e-6  # weka.core.Utils.SMALL: the tolerance of every comparison in J48
DISTINCT = 1e-5  # J48: two sorted values closer than this are not a possible cut
MANY_VALUES = 0.3  # categorical attributes with >= 0.3 N declared values stay out of the average
MIN_SPLIT_SHARE = 0.1  # min_split = 0.1 * known weight / classes ...
MIN_SPLIT_CAP = 25.0  # ... at most 25
AVERAGE_SLACK = 1e-3  # J48: "gain >= average - 1e-3" to approximate the original C code
_LN2 = np.log(2.0)

@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def xlog2x(v):
    """v log2 v, or 0 when v < 1e-6 (J48's ``logFunc``)."""
    if v < SMALL:
        return 0.0
    return v * np.log(v) / _LN2


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def old_ent(class_totals):
    """W * Ent(D) in count units: xlog2x(W) - sum_k xlog2x(W_k)."""
    s = 0.0
    total = 0.0
    for k in range(class_totals.shape[0]):
        s += xlog2x(class_totals[k])
        total += class_totals[k]
    return xlog2x(total) - s


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def new_ent_of(table, xl, fresh):
    """sum_v W_v Ent(D^v) in count units, from a (branches x classes) table whose cells' xlog2x
    are in ``xl`` (a scan keeps them, recomputing the classes that moved), or computed here when
    ``fresh``. The same sums in the same order either way."""
    s = 0.0
    for v in range(table.shape[0]):
        size = 0.0
        for k in range(table.shape[1]):
            s += xlog2x(table[v, k]) if fresh else xl[v, k]
            size += table[v, k]
        s -= xlog2x(size)
    return -s


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def new_ent(table):
    """sum_v W_v Ent(D^v) in count units, from a (branches x classes) table."""
    return new_ent_of(table, table, True)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def info_gain(table, total_w, old):
    """J48's ``InfoGainSplitCrit.splitCritValue``: rho (old - new) / W~, where the table holds the
    known rows (W~ = its total), ``total_w`` is the node's whole weight (rho = W~ / total_w) and
    ``old`` = old_ent of the known rows' class totals."""
    return info_gain_of(table, table, True, total_w, old)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def info_gain_of(table, xl, fresh, total_w, old):
    """``info_gain`` with the cells' xlog2x given in ``xl`` unless ``fresh`` (``new_ent_of``)."""
    known = 0.0
    for v in range(table.shape[0]):
        for k in range(table.shape[1]):
            known += table[v, k]
    if known <= 0.0 or total_w <= 0.0:
        return 0.0
    numerator = (old - new_ent_of(table, xl, fresh)) * (1.0 - (total_w - known) / total_w)
    if abs(numerator) < SMALL:
        return 0.0
    return numerator / known


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def split_info(sizes, total_w):
    """J48's split information, unknown rows as an extra branch, divided by |D| (the IV of the
    textbook when nothing is missing). 0 when the split is trivial."""
    known = 0.0
    for v in range(sizes.shape[0]):
        known += sizes[v]
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


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def min_split_size(known_w, n_classes, min_objects, share, cap):
    """J48's minimum split size: share * known weight / classes, clamped to [min_objects, cap]."""
    min_split = share * known_w / n_classes
    if min_split - min_objects < SMALL:
        return min_objects
    if min_split - cap > SMALL:
        return cap
    return min_split


@njit(cache=True, no_cfunc_wrapper=True)
def numeric_split(xs, ys, ws, n_classes, min_split, total_w):
    """J48's ``C45Split.handleNumericAttribute`` scan over the known rows of one attribute.

    xs: known values sorted ascending; ys: class codes; ws: weights at the node; ``total_w``: the
    node's whole weight (with unknown rows). A cut needs sorted neighbours more than 1e-5 apart
    and ``min_split`` weight each side (within 1e-6); the first cut whose gain beats the best so
    far by more than 1e-6 wins. Returns (i, gain, cuts, branches): the cut xs[:i+1] | xs[i+1:],
    its information gain (before the MDL penalty), the number of admissible cuts, and the left
    and right class weights the scan held there. i = -1 when no cut beats a gain of 0."""
    n = xs.shape[0]
    left = np.zeros(n_classes)
    right = np.zeros(n_classes)
    for t in range(n):
        right[ys[t]] += ws[t]
    w_left = 0.0
    w_right = 0.0
    for k in range(n_classes):
        w_right += right[k]
    old = old_ent(right)
    table = np.zeros((2, n_classes))
    branches = np.zeros((2, n_classes))
    best_i, best, cuts = -1, 0.0, 0
    last = 0
    for nxt in range(1, n):
        if xs[nxt - 1] + DISTINCT < xs[nxt]:
            for t in range(last, nxt):
                left[ys[t]] += ws[t]
                right[ys[t]] -= ws[t]
                w_left += ws[t]
                w_right -= ws[t]
            if admissible_cut(w_left, w_right, min_split):
                for k in range(n_classes):
                    table[0, k] = left[k]
                    table[1, k] = right[k]
                gain = info_gain(table, total_w, old)
                best, best_i = record_cut(gain, best, best_i, nxt - 1, left, right, n_classes,
                                          branches)
                cuts += 1
            last = nxt
    return best_i, best, cuts, branches


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def admissible_cut(w_left, w_right, min_split):
    """J48 cuts only where both sides hold ``min_split`` weight, within 1e-6."""
    return min_split - w_left < SMALL and min_split - w_right < SMALL


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def record_cut(gain, best, best_i, i, left, right, n_classes, branches):
    """J48's rule at the cut after position i: a record when its gain beats the best so far by
    more than 1e-6; the left and right class weights of a record go to ``branches``. Returns the
    (best, its position) after the cut."""
    if gain - best > SMALL:
        for k in range(n_classes):
            branches[0, k] = left[k]
            branches[1, k] = right[k]
        return gain, i
    return best, best_i


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def release8_midpoint(a, b):
    """J48's cut between sorted neighbours a < b: (a + b) / 2, or a when that rounds to b."""
    mid = (a + b) / 2.0
    if mid == b:
        mid = a
    return mid


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def multiway_scores(known, sizes, total_w, min_objects, class_totals):
    """A categorical test's (gain, iv, rho, admissible) from its table of known rows (one row per
    category) and their ``sizes``: two branches need ``min_objects`` (within 1e-6).
    ``class_totals``: scratch of at least one entry per class (the engine calls this for every
    categorical column of every node: an array made here would count references each time)."""
    n_classes = known.shape[1]
    enough = 0
    known_w = 0.0
    for v in range(sizes.shape[0]):
        known_w += sizes[v]
        if min_objects - sizes[v] < SMALL:
            enough += 1
    class_totals = class_totals[:n_classes]  # the categories' rows added in code order
    class_totals[:] = 0.0
    for v in range(known.shape[0]):
        for k in range(n_classes):
            class_totals[k] += known[v, k]
    gain = info_gain(known, total_w, old_ent(class_totals))
    rho = known_w / total_w if total_w > 0.0 else 0.0
    return gain, split_info(sizes, total_w), rho, enough >= 2


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
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


CLUSTER_LIMIT = 64  # split_point_sorted: longer chains of near-equal values scan the column


def distinct_values(column):
    """(the sorted distinct known values of ``column``, the row where each first occurs, as
    uint32: rows are below 2^32, ``segments.MAX_ROWS``).

    ``np.unique(..., return_index=True)`` of the known values: sorted stably (the radix argsort
    of the presort, 4-5x numpy's merge sort), each run of equal keys gives its first row in row
    order and that row's value; 0.0 and -0.0 are one value, whose first row holds the sign the
    row-order scan keeps."""
    known = np.flatnonzero(~np.isnan(column))
    values = column[known]
    order, keys = radix_argsort_keys(values)
    starts = np.ones(len(order), dtype=bool)
    starts[1:] = keys[1:] != keys[:-1]
    first = order[starts]
    return values[first], known[first].astype(np.uint32)


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def split_point_sorted(first_row, column, point):
    """``split_point(column, point)`` without scanning the column, from ``first_row``: the row
    where each distinct known value first occurs, in ascending order of the values (the second
    half of ``distinct_values``). The values are read through their rows, so no sorted copy of
    the column is kept (80 MB for the benchmarks' 10 continuous columns at 10^6 rows).

    fl(v - point) grows with v, so the values not above the point are a prefix of ``distinct``,
    ending on ``top``. Call the cluster the run of distinct values up to ``top`` whose neighbours
    are at most 1e-6 apart. A value u below the cluster is more than 1e-6 below every cluster
    value, so the scan keeps the first cluster value it meets whatever u it held, and keeps no u
    after that: the result is the row-order scan over the cluster alone. Only a value's first
    row matters (a later row of it cannot beat what was kept by then), so that scan is: from
    best = -inf, keep the value met first among those more than 1e-6 above best, until none is.
    O(log n + m^2) for a cluster of m values; a cluster longer than ``CLUSTER_LIMIT`` scans the
    column. (A row-order scan per split made release 8 grow as n^1.7: in 10^6 normal draws 23%
    of neighbouring distinct values are within 1e-6.)"""
    lo, hi = 0, first_row.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if column[first_row[mid]] - point < SMALL:
            lo = mid + 1
        else:
            hi = mid
    if lo == 0:
        return -np.inf
    top = lo - 1
    start = top
    while start > 0 and not column[first_row[start]] - column[first_row[start - 1]] > SMALL:
        start -= 1
        if top - start >= CLUSTER_LIMIT:
            return split_point(column, point)
    best, kept = -np.inf, -1
    while True:
        met = -1  # the cluster value met first among those the scan would keep now
        for c in range(start, top + 1):
            if column[first_row[c]] - best > SMALL and (met < 0 or first_row[c] < first_row[met]):
                met = c
        if met < 0:
            break
        best, kept = column[first_row[met]], met
    return column[first_row[kept]]


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def choose(found, gain, ratio, admissible, in_average):
    """J48's choice among candidates in column order (``found[f]``: f has a test): the average
    gain over the admissible candidates ``in_average``; among the admissible candidates whose gain
    reaches it less 1e-3, the first with the largest gain ratio, a later one needing to beat it by
    more than 1e-6. (-1, 0.0) when none has a gain ratio above 1e-6."""
    m = 0
    gain_sum = 0.0
    for f in range(found.shape[0]):
        if found[f] and admissible[f] and in_average[f]:
            m += 1
            gain_sum += gain[f]
    best, best_ratio = -1, 0.0
    if m == 0:
        return best, best_ratio
    cut = gain_sum / m - AVERAGE_SLACK
    for f in range(found.shape[0]):
        if found[f] and admissible[f] and gain[f] >= cut and ratio[f] - best_ratio > SMALL:
            best, best_ratio = f, ratio[f]
    return best, best_ratio


def many_valued(kinds, n_categories, n_rows: int) -> np.ndarray:
    """J48's test for a categorical attribute whose gain stays out of the average: at least
    0.3 N declared values (N: training rows)."""
    categorical = np.asarray(kinds) == CATEGORICAL
    return categorical & (MANY_VALUES * n_rows - np.asarray(n_categories) <= SMALL)


def in_average_mask(kinds, n_categories, n_rows: int) -> np.ndarray:
    """Which attributes' gains count in the average: all but the many-valued ones, unless every
    attribute is many-valued (J48's "multiVal")."""
    many = many_valued(kinds, n_categories, n_rows)
    return np.asarray(bool(np.all(many)) | ~many, dtype=bool)
