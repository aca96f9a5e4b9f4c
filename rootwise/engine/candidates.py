"""One attribute's candidate test at a node, for classification, in one kernel call.

``Splitter._multiway`` and ``Splitter._threshold`` used to do this in a dozen numpy calls per
attribute and node; at most nodes the rows are few, so the calls cost more than the arithmetic.
These kernels do the same arithmetic in the same order and return the same numbers, bit for bit:
where the Python code summed with numpy, they sum as numpy does (``numpy_sum``, ``row_sums``).

Row order matters for the weighted sums, so the known rows of a continuous attribute are sorted
with a stable sort (numpy's ``kind="stable"`` and numba's mergesort give the same permutation).
"""

import numpy as np
from numba import njit

from .._config import CATEGORICAL
from .criteria import impurity, impurity_decrease, intrinsic_value
from .numeric import best_threshold_class, midpoint


@njit(cache=True)
def _block(a, lo, n):
    """numpy's sum of at most 128 values a[lo:lo + n]: a plain loop below 8 values, else eight
    interleaved sums combined pairwise, then the remainder."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    stop = n - n % 8
    while i < stop:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit(cache=True)
def _pairwise(a, lo, n):
    """numpy's pairwise summation of a[lo:lo + n] (``pairwise_sum`` in numpy's loops_utils): blocks
    of at most 128 values (``_block``); a longer run is cut in two halves (the first a multiple of
    8 long) whose sums are added. The recursion is unrolled onto a stack: numba's cache does not
    reload recursive kernels safely."""
    if n <= 128:
        return _block(a, lo, n)
    depth = 64  # the length halves at every level: far more than any array needs
    los = np.empty(depth, dtype=np.int64)
    ns = np.empty(depth, dtype=np.int64)
    stage = np.zeros(depth, dtype=np.int64)  # 0: left half next, 1: right half next, 2: add
    sums = np.empty(depth)
    top, n_sums = 0, 0
    los[0], ns[0] = lo, n
    while top >= 0:
        m = ns[top]
        if m <= 128:
            sums[n_sums] = _block(a, los[top], m)
            n_sums += 1
            top -= 1
            continue
        half = m // 2
        half -= half % 8
        if stage[top] == 0:
            stage[top] = 1
            los[top + 1], ns[top + 1], stage[top + 1] = los[top], half, 0
            top += 1
        elif stage[top] == 1:
            stage[top] = 2
            los[top + 1], ns[top + 1], stage[top + 1] = los[top] + half, m - half, 0
            top += 1
        else:
            n_sums -= 1
            sums[n_sums - 1] = sums[n_sums - 1] + sums[n_sums]
            top -= 1
    return sums[0]


@njit(cache=True)
def numpy_sum(a):
    """``a.sum()`` of a contiguous 1-D float64 array, bit for bit as numpy computes it."""
    # np.int64(0), not 0: a literal 0 would make numba compile _pairwise and _block once more
    # for the argument type Literal[int](0)
    return 0.0 + _pairwise(a, np.int64(0), a.shape[0])


@njit(cache=True)
def row_sums(table):
    """``table.sum(axis=1)`` of a C-contiguous 2-D float64 array, as numpy computes it."""
    out = np.empty(table.shape[0])
    for v in range(table.shape[0]):
        out[v] = 0.0 + _pairwise(table[v], np.int64(0), table.shape[1])  # see numpy_sum
    return out


@njit(cache=True)
def stable_order(keys, max_key):
    """``np.argsort(keys, kind="stable")`` of non-negative integer keys not above ``max_key``: an
    insertion sort for a few keys, else a least-significant-digit radix sort, 11 bits a pass."""
    m = keys.shape[0]
    order = np.arange(m)
    if m <= 32:
        for i in range(1, m):
            t = order[i]
            k = keys[t]
            s = i - 1
            while s >= 0 and keys[order[s]] > k:
                order[s + 1] = order[s]
                s -= 1
            order[s + 1] = t
        return order
    spare = np.empty(m, dtype=np.int64)
    count = np.empty(2049, dtype=np.int64)
    shift = 0
    while True:
        count[:] = 0
        for i in range(m):
            count[((keys[order[i]] >> shift) & 2047) + 1] += 1
        for d in range(2048):
            count[d + 1] += count[d]
        for i in range(m):
            d = (keys[order[i]] >> shift) & 2047
            spare[count[d]] = order[i]
            count[d] += 1
        order, spare = spare, order
        shift += 11
        if (max_key >> shift) == 0:
            return order


@njit(cache=True)
def sorted_known(X, ranks, j, y, idx, w):
    """The rows of the node whose value of column j is known, sorted by that value (stable: equal
    values keep the node's row order): (values, class codes, weights). ``ranks`` holds each
    training row's dense rank among the distinct values of column j (-1: missing), so that equal
    values have equal keys and the sort is a radix sort on them."""
    n = idx.shape[0]
    pos = np.empty(n, dtype=np.int64)
    keys = np.empty(n, dtype=np.int64)
    m = 0
    lowest, highest = np.int64(0), np.int64(0)
    for t in range(n):
        r = np.int64(ranks[idx[t]])
        if r >= 0:
            if m == 0 or r < lowest:
                lowest = r
            if m == 0 or r > highest:
                highest = r
            pos[m] = t
            keys[m] = r
            m += 1
    keys = keys[:m]
    for s in range(m):
        keys[s] -= lowest
    order = stable_order(keys, highest - lowest)
    xs = np.empty(m)
    ys = np.empty(m, dtype=np.int64)
    ws = np.empty(m)
    for s in range(m):
        t = pos[order[s]]
        xs[s] = X[idx[t], j]
        ys[s] = y[idx[t]]
        ws[s] = w[t]
    return xs, ys, ws


def dense_ranks(column):
    """Each value's rank among the distinct known values of ``column`` (equal values, -0.0 and
    0.0 included, share one), -1 where the value is missing: the keys of ``sorted_known``."""
    ranks = np.full(column.shape[0], -1, dtype=np.int32)
    known = ~np.isnan(column)
    ranks[known] = np.unique(column[known], return_inverse=True)[1].ravel()
    return ranks


@njit(cache=True)
def two_sided_table(ys, ws, last_left, n_classes):
    """Class counts of xs[:last_left + 1] (row 0) and of the rest (row 1), added in row order."""
    table = np.zeros((2, n_classes))
    for s in range(ys.shape[0]):
        table[0 if s <= last_left else 1, ys[s]] += ws[s]
    return table


@njit(cache=True)
def score(branches, total_w, criterion, min_leaf, two_branches):
    """``Splitter._candidate``'s numbers for a classification test from its per-branch class counts:
    (gain, iv, gain_ratio, rho, admissible), with gain = rho * impurity decrease, clipped at 0."""
    sizes = row_sums(branches)
    known_w = numpy_sum(sizes)
    rho = known_w / total_w if total_w > 0 else 0.0
    gain = rho * impurity_decrease(branches, criterion)
    if 0.0 > gain:  # Python's max(gain, 0.0)
        gain = 0.0
    iv = intrinsic_value(sizes.reshape(-1, 1))
    ratio = gain / iv if iv > 0 else 0.0
    if two_branches:
        admissible = np.count_nonzero(sizes >= min_leaf) >= 2
    else:
        admissible = True
        for v in range(sizes.shape[0]):
            if sizes[v] > 0 and not sizes[v] >= min_leaf:
                admissible = False
    return gain, iv, ratio, rho, admissible


@njit(cache=True)
def multiway_candidate(table, n_categories, criterion, min_leaf, two_branches):
    """One branch per category, from the column's ``category_table`` (last row: missing values).
    Returns (found, gain, iv, gain_ratio, rho, admissible); found is False when fewer than two
    branches hold weight."""
    known = table[:n_categories]
    if np.count_nonzero(row_sums(known) > 0) < 2:
        return False, 0.0, 0.0, 0.0, 0.0, False
    total_w = numpy_sum(table.ravel())
    gain, iv, ratio, rho, admissible = score(known, total_w, criterion, min_leaf, two_branches)
    return True, gain, iv, ratio, rho, admissible


@njit(cache=True)
def category_tables(X, y, idx, w, features, kinds, n_categories, n_classes):
    """``category_table`` of every categorical feature in ``features`` in one pass over the rows
    (row by row, so X is read along its rows; each cell still adds its rows in node order).
    Feature f's (n_categories + 1) x n_classes table is
    tables[offsets[f]:offsets[f + 1]]; a continuous feature has none."""
    n_f = features.shape[0]
    offsets = np.zeros(n_f + 1, dtype=np.int64)
    columns = np.empty(n_f, dtype=np.int64)
    n_cat = 0
    for f in range(n_f):
        j = features[f]
        size = 0
        if kinds[j] == CATEGORICAL:
            size = (n_categories[j] + 1) * n_classes
            columns[n_cat] = f
            n_cat += 1
        offsets[f + 1] = offsets[f] + size
    tables = np.zeros(offsets[n_f])
    for t in range(idx.shape[0]):
        r = idx[t]
        k = y[r]
        weight = w[t]
        for s in range(n_cat):
            f = columns[s]
            j = features[f]
            v = X[r, j]
            row = n_categories[j] if np.isnan(v) else np.int64(v)
            tables[offsets[f] + row * n_classes + k] += weight
    return tables, offsets


@njit(cache=True)
def threshold_candidate(X, ranks, j, y, idx, w, total_w, n_classes, criterion, min_leaf,
                        two_branches):
    """Best cut of continuous column j at a midpoint (seed 000 §4.1). ``ranks``: ``dense_ranks`` of
    the column; ``total_w``: the node's weight, rows with a missing value included. Returns
    (found, branches, threshold, gain, iv, gain_ratio, rho, admissible); found is False when no
    cut leaves ``min_leaf`` on both sides."""
    xs, ys, ws = sorted_known(X, ranks, j, y, idx, w)
    i, _, _ = best_threshold_class(xs, ys, ws, n_classes, criterion, min_leaf)
    if i < 0:
        return False, np.zeros((2, n_classes)), np.nan, 0.0, 0.0, 0.0, 0.0, False
    branches = two_sided_table(ys, ws, i, n_classes)
    gain, iv, ratio, rho, admissible = score(branches, total_w, criterion, min_leaf, two_branches)
    return True, branches, midpoint(xs[i], xs[i + 1]), gain, iv, ratio, rho, admissible


@njit(cache=True)
def total_and_errors(counts):
    """(N, E) of a leaf with these class counts: N = ``counts.sum()`` as numpy sums it, and
    E = N - the largest count (the weight not in the majority class)."""
    n = numpy_sum(counts)
    top = counts[0]
    for k in range(1, counts.shape[0]):
        if counts[k] > top:
            top = counts[k]
    return n, n - top


@njit(cache=True)
def node_statistics(y, idx, w, n_classes, criterion):
    """What the builder records of a node, in one call: (class counts, their total as numpy sums
    it, the impurity, whether at most one class has weight)."""
    counts = np.zeros(n_classes)
    for t in range(idx.shape[0]):
        counts[y[idx[t]]] += w[t]
    classes = 0
    for k in range(n_classes):
        if counts[k] > 0:
            classes += 1
    return counts, numpy_sum(counts), impurity(counts, criterion), classes <= 1


@njit(cache=True)
def table_offsets(features, kinds, n_categories, n_classes):
    """Where each feature's branch table starts in a flat buffer (one branch per category, or two
    for a threshold), and the buffer's length at the end."""
    offsets = np.zeros(features.shape[0] + 1, dtype=np.int64)
    for f in range(features.shape[0]):
        j = features[f]
        branches = n_categories[j] if kinds[j] == CATEGORICAL else 2
        offsets[f + 1] = offsets[f] + branches * n_classes
    return offsets


@njit(cache=True)
def evaluate_node(X, ranks, rank_row, features, kinds, n_categories, y, idx, w, total_w,
                  n_classes, criterion, min_leaf, two_branches):
    """``multiway_candidate`` or ``threshold_candidate`` for every feature in ``features``, in one
    call. ``ranks[rank_row[j]]`` are the ``dense_ranks`` of continuous column j; ``ranks`` is None
    when no column is continuous, and numba then compiles no threshold search (it prunes the
    ``ranks is not None`` branch). Per feature: found, gain, iv, gain_ratio, rho, admissible,
    threshold (NaN for a multiway test); the branch tables, flattened, in
    ``tables[offsets[f]:offsets[f + 1]]``."""
    n_f = features.shape[0]
    found = np.zeros(n_f, dtype=np.bool_)
    admissible = np.zeros(n_f, dtype=np.bool_)
    gain = np.zeros(n_f)
    iv = np.zeros(n_f)
    ratio = np.zeros(n_f)
    rho = np.zeros(n_f)
    threshold = np.full(n_f, np.nan)
    offsets = table_offsets(features, kinds, n_categories, n_classes)
    tables = np.zeros(offsets[n_f])
    counts, counts_at = category_tables(X, y, idx, w, features, kinds, n_categories, n_classes)
    for f in range(n_f):
        j = features[f]
        start = offsets[f]
        ok = False
        if kinds[j] == CATEGORICAL:
            k = n_categories[j]
            table = counts[counts_at[f]:counts_at[f + 1]].reshape((k + 1, n_classes))
            ok, g, v, r, p, a = multiway_candidate(table, k, criterion, min_leaf, two_branches)
            if ok:  # the known rows: all but the table's last
                for row in range(k):  # tables[start:start + k * n_classes] = table[:k].ravel()
                    for col in range(n_classes):
                        tables[start + row * n_classes + col] = table[row, col]
        elif ranks is not None:
            ok, branches, t, g, v, r, p, a = threshold_candidate(
                X, ranks[rank_row[j]], j, y, idx, w, total_w, n_classes, criterion, min_leaf,
                two_branches)
            if ok:
                threshold[f] = t
                for row in range(2):  # tables[start:start + 2 * n_classes] = branches.ravel()
                    for col in range(n_classes):
                        tables[start + row * n_classes + col] = branches[row, col]
        if ok:
            found[f] = True
            gain[f], iv[f], ratio[f], rho[f], admissible[f] = g, v, r, p, a
    return found, gain, iv, ratio, rho, admissible, threshold, tables, offsets


@njit(cache=True)
def choose(gain, gain_ratio, admissible, by_ratio, tolerance):
    """``Splitter.choose``: the index of the admissible candidate (in column order) whose score is
    the first within ``tolerance`` of the largest, -1 if none is admissible, and that score. The
    score is the gain or, with ``by_ratio`` (C4.5), the gain ratio among the candidates whose gain
    reaches the average gain of the admissible ones (np.mean's sum, then the division)."""
    n = gain.shape[0]
    pool = np.empty(n, dtype=np.int64)
    m = 0
    for i in range(n):
        if admissible[i]:
            pool[m] = i
            m += 1
    if m == 0:
        return -1, 0.0
    if by_ratio:
        gains = np.empty(m)
        for s in range(m):
            gains[s] = gain[pool[s]]
        cut = numpy_sum(gains) / m - tolerance
        kept = 0
        for s in range(m):
            if gain[pool[s]] >= cut:
                pool[kept] = pool[s]
                kept += 1
        m = kept  # 0 only if a gain is NaN
    if m == 0:
        return -1, 0.0
    scores = np.empty(m)
    for s in range(m):
        scores[s] = gain_ratio[pool[s]] if by_ratio else gain[pool[s]]
    top = scores.max()
    for s in range(m):
        if scores[s] >= top - tolerance:
            return pool[s], scores[s]
    return -1, 0.0
