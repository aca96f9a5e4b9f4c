"""Least absolute deviation (Breiman et al. 1984, ch. 8.11): a node's loss is sum_i w_i |y_i - m|
with m a weighted median of its targets, the leaf's value.

The split search needs that loss on both sides of every cut of a sorted column, so it keeps a
running weighted median: the node's targets are ranked once, and a Fenwick tree over the ranks
holds the weight and the weighted sum of the targets added so far. With m the lower weighted
median (the smallest target whose cumulative weight reaches half the total; every weighted
median gives the same loss) and W_<, S_< the weight and sum below its rank,

    sum_i w_i |y_i - m| = (m W_< - S_<) + ((S - S_<) - m (W - W_<))

one add and one search (O(log n)) per row: a pass from the left gives the left side's loss
after each row, one from the right the right side's. A category subset has no such order: the
rows are sorted by target once, and each partition's two medians and losses are a pass over them
(every partition up to ``max_exhaustive`` categories present, else the prefixes of the
categories ordered by their own medians).

A test's gain is rho (L(D~) - L(D_l) - L(D_r)) / W~ over its known rows (``scores``).
"""

import numpy as np
from numba import njit

from .._config import TIE_TOLERANCE
from .scores import branch_sizes, leaf_rule
from .segments import ROW_MASK, tied


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _add(tw, ts, rank, w, wy):
    """Add weight w and w y at ``rank`` (1-based) of the Fenwick tree (tw, ts)."""
    n = tw.shape[0] - 1
    while rank <= n:
        tw[rank] += w
        ts[rank] += wy
        rank += rank & -rank


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _loss(tw, ts, top, sorted_y, w_all, s_all):
    """sum w |y - m| over the targets in the tree (total weight w_all, sum s_all), m their lower
    weighted median. ``top``: the largest power of two not above the tree's size."""
    n = tw.shape[0] - 1
    half = 0.5 * w_all
    pos, w_below, s_below = 0, 0.0, 0.0
    step = top
    while step > 0:  # the largest rank whose cumulative weight is below half
        nxt = pos + step
        if nxt <= n and w_below + tw[nxt] < half:
            pos = nxt
            w_below += tw[nxt]
            s_below += ts[nxt]
        step >>= 1
    m = sorted_y[min(pos, n - 1)]  # rank pos + 1, the median
    return (m * w_below - s_below) + ((s_all - s_below) - m * (w_all - w_below))


@njit(cache=True, _nrt=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _ranks(ys, n):
    """(rank of each target, 1-based with ties in order; the targets sorted)."""
    order = np.argsort(ys[:n], kind="mergesort")
    rank = np.empty(n, dtype=np.int64)
    sorted_y = np.empty(n)
    for k in range(n):
        rank[order[k]] = k + 1
        sorted_y[k] = ys[order[k]]
    return rank, sorted_y


@njit(cache=True, _nrt=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def scan_absolute(words, s, start, n, w_row, yr_row, unit, min_leaf, scratch):
    """Best cut of column s's n known words from ``start`` for absolute error: the least
    children's loss, and among cuts within TIE_TOLERANCE (relative) of it the most even in
    weight (then the first). Returns (the last left position or -1, the loss of all n rows, the
    children's loss); the branch rows (w, wy, 0) go to scratch.branches.

    Why the even cut: the absolute error ties exactly and often (integer targets, and every cut
    of a node no cut improves gains 0), and the first of tied cuts peels one row off a side, so
    a node of n such rows grew a chain n deep (depth 1078 against scikit-learn's 95 on 5,000
    Poisson counts, whose rounding breaks such ties at random)."""
    ys = np.empty(n)
    ws = np.empty(n)
    w_all, s_all = 0.0, 0.0
    for i in range(n):
        r = words[s, start + i] & ROW_MASK
        ys[i] = yr_row[r]
        ws[i] = 1.0 if unit else w_row[r]
        w_all += ws[i]
        s_all += ws[i] * ys[i]
    rank, sorted_y = _ranks(ys, n)
    top = 1
    while top * 2 <= n:
        top *= 2
    tw = np.zeros(n + 1)
    ts = np.zeros(n + 1)
    right = np.empty(n)  # right[i]: the loss of rows i..n-1
    w_r, s_r = 0.0, 0.0
    for i in range(n - 1, -1, -1):
        wy = ws[i] * ys[i]
        _add(tw, ts, rank[i], ws[i], wy)
        w_r += ws[i]
        s_r += wy
        right[i] = _loss(tw, ts, top, sorted_y, w_r, s_r)
    tw[:] = 0.0
    ts[:] = 0.0
    branches = scratch.branches
    w_left, s_left = 0.0, 0.0
    best_i, best, uneven = -1, np.inf, np.inf
    for i in range(n - 1):
        wy = ws[i] * ys[i]
        _add(tw, ts, rank[i], ws[i], wy)
        w_left += ws[i]
        s_left += wy
        if tied(words[s, start + i + 1]):
            continue
        w_right = w_all - w_left
        if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
            continue
        loss = _loss(tw, ts, top, sorted_y, w_left, s_left) + right[i + 1]
        margin = TIE_TOLERANCE * max(1.0, abs(best))
        gap = abs(w_left - w_right)
        if best_i < 0 or loss < best - margin or (loss <= best + margin and gap < uneven):
            best_i, best, uneven = i, min(loss, best), gap
            branches[0, 0], branches[0, 1], branches[0, 2] = w_left, s_left, 0.0
            branches[1, 0], branches[1, 1], branches[1, 2] = w_right, s_all - s_left, 0.0
    if best_i < 0:
        return -1, right[0], 0.0
    return start + best_i, right[0], best


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def absolute_score(branches, total_w, parent_loss, children_loss, min_leaf, two_branches,
                   sizes):
    """(gain, iv, gain_ratio, rho, admissible) as ``scores.score`` gives them, for absolute
    error: gain = rho (L(D~) - L(D_l) - L(D_r)) / W~ (iv and the ratio 0: CART reads the gain)."""
    branch_sizes(branches, True, sizes)
    known_w = sizes[0] + sizes[1]
    rho = known_w / total_w if total_w > 0.0 else 0.0
    gain = rho * (parent_loss - children_loss) / known_w if known_w > 0.0 else 0.0
    if not gain > 0.0:
        gain = 0.0
    return gain, 0.0, 0.0, rho, leaf_rule(sizes, 2, min_leaf, two_branches)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def median_loss(ys, ws, n, median):
    """sum w |y - median| over the first n targets."""
    out = 0.0
    for i in range(n):
        out += ws[i] * abs(ys[i] - median)
    return out


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _side_loss(ys, ws, es, n, in_left, left):
    """(weight, sum w y, sum w |y - m|) of the rows (sorted by y) whose entry ``es`` is on the
    ``left`` side or not, m their lower weighted median."""
    w_all, s_all = 0.0, 0.0
    for i in range(n):
        if in_left[es[i]] == left:
            w_all += ws[i]
            s_all += ws[i] * ys[i]
    if not w_all > 0.0:
        return 0.0, 0.0, 0.0
    half = 0.5 * w_all
    w_below, s_below = 0.0, 0.0
    m = 0.0
    for i in range(n):
        if in_left[es[i]] == left:
            if w_below + ws[i] >= half:
                m = ys[i]
                break
            w_below += ws[i]
            s_below += ws[i] * ys[i]
    return w_all, s_all, (m * w_below - s_below) + ((s_all - s_below) - m * (w_all - w_below))


@njit(cache=True, _nrt=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def subset_absolute(seg, start, end, X, j, codes, stats, p, min_leaf, max_exhaustive, side_of):
    """The best subset split of categorical column j at the node [start, end) for absolute error:
    its p entries (``codes``, ``stats`` of (w, wy, wy^2)) get their side in ``side_of`` (0 left,
    1 right, -1 without weight; the first entry with weight on the left). Returns (whether an
    admissible split exists, the loss of the known rows, the children's loss)."""
    present = np.empty(max(p, 1), dtype=np.int64)
    m = 0
    for e in range(p):
        side_of[e] = -1
        if stats[e, 0] > 0.0:
            present[m] = e
            m += 1
    if m < 2:
        return False, 0.0, 0.0
    top_code = 0
    for e in range(p):
        top_code = max(top_code, np.int64(codes[e]))
    entry_of = np.full(top_code + 1, -1, dtype=np.int64)
    for e in range(p):
        entry_of[codes[e]] = e
    # the node's known rows of positive weight, sorted by target
    raw_y = np.empty(end - start)
    raw_w = np.empty(end - start)
    raw_e = np.empty(end - start, dtype=np.int64)
    n = 0
    for t in range(start, end):
        wt = seg.w[t]
        v = X[seg.row[t], j]
        if not wt > 0.0 or np.isnan(v) or v < 0.0 or v > top_code:
            continue
        e = entry_of[np.int64(v)]
        if e < 0:
            continue
        raw_y[n] = seg.yr[t]
        raw_w[n] = wt
        raw_e[n] = e
        n += 1
    order = np.argsort(raw_y[:n], kind="mergesort")
    ys = np.empty(n)
    ws = np.empty(n)
    es = np.empty(n, dtype=np.int64)
    for i in range(n):
        ys[i], ws[i], es[i] = raw_y[order[i]], raw_w[order[i]], raw_e[order[i]]
    in_left = np.zeros(max(p, 1), dtype=np.bool_)
    _, _, parent = _side_loss(ys, ws, es, n, in_left, False)
    best, best_mask = np.inf, np.int64(-1)
    if m <= max_exhaustive:  # every partition, present[0] on the left
        for mask in range((np.int64(1) << (m - 1)) - 1):
            in_left[present[0]] = True
            for c in range(1, m):
                in_left[present[c]] = ((mask >> (c - 1)) & 1) == 1
            best, best_mask = _try(ys, ws, es, n, in_left, min_leaf, best, best_mask, mask)
        if best_mask < 0:
            return False, parent, 0.0
        in_left[present[0]] = True
        for c in range(1, m):
            in_left[present[c]] = ((best_mask >> (c - 1)) & 1) == 1
    else:  # the prefixes of the categories ordered by their medians
        key = np.empty(m)
        for c in range(m):
            for e in range(p):
                in_left[e] = e == present[c]
            key[c] = _median_of(ys, ws, es, n, in_left)
        ranked = np.argsort(key, kind="mergesort")
        for e in range(p):
            in_left[e] = False
        for c in range(m - 1):
            in_left[present[ranked[c]]] = True
            best, best_mask = _try(ys, ws, es, n, in_left, min_leaf, best, best_mask, c)
        if best_mask < 0:
            return False, parent, 0.0
        for e in range(p):
            in_left[e] = False
        for c in range(best_mask + 1):
            in_left[present[ranked[c]]] = True
    for c in range(m):
        side_of[present[c]] = 0 if in_left[present[c]] else 1
    if side_of[present[0]] == 1:  # canonical: the lowest present code on the left
        for c in range(m):
            side_of[present[c]] = 1 - side_of[present[c]]
    return True, parent, best


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _try(ys, ws, es, n, in_left, min_leaf, best, best_mask, mask):
    """The partition ``in_left`` against the best so far: (best, best_mask) after it."""
    wl, _, ll = _side_loss(ys, ws, es, n, in_left, True)
    wr, _, lr = _side_loss(ys, ws, es, n, in_left, False)
    if wl < min_leaf or wr < min_leaf or not wl > 0.0 or not wr > 0.0:
        return best, best_mask
    loss = ll + lr
    if best_mask < 0 or loss < best - TIE_TOLERANCE * max(1.0, abs(best)):
        return loss, mask
    return best, best_mask


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _median_of(ys, ws, es, n, in_left):
    """The lower weighted median of the rows (sorted by y) whose entry is in ``in_left``."""
    w_all = 0.0
    for i in range(n):
        if in_left[es[i]]:
            w_all += ws[i]
    acc = 0.0
    for i in range(n):
        if in_left[es[i]]:
            acc += ws[i]
            if acc >= 0.5 * w_all:
                return ys[i]
    return 0.0
