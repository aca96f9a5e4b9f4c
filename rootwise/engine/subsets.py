"""CART's binary split of a categorical attribute: the best subset of categories against the rest
(seed 001 §2.3).

Two classes and regression: Breiman's theorem — sort the categories by p(class 1) (or by mean y);
the best subset is a prefix of that order, so k - 1 candidates suffice. With min_samples_leaf only
the admissible prefixes are tried, as rpart does: an admissible partition that is not a prefix
can be missed (tests/test_engine_subsets.py has an example). More classes: every one of
the 2^(k-1) - 1 partitions up to ``max_exhaustive`` present categories; above it, a heuristic
(prefixes of the order by each class's proportion, then single-category moves while they help).

Every function returns ``side``: 0 (left) / 1 (right) per category, -1 for a category absent at
the node (a row with it stops at the node, like an empty branch), and the impurity decrease.
The left side is always the one holding the lowest present category code, so equal partitions
have one spelling.
"""

import numpy as np
from numba import njit

from .._config import TIE_TOLERANCE
from .arrays import total as _total
from .criteria import impurity


@njit(cache=True)
def _decrease(left, total, criterion):
    w_all = _total(total)
    w_left = _total(left)
    w_right = w_all - w_left
    right = total - left
    return impurity(total, criterion) - (w_left / w_all) * impurity(left, criterion) \
        - (w_right / w_all) * impurity(right, criterion)


@njit(cache=True)
def _canonical(side, present):
    """Flip sides so that the lowest present category is on the left (side 0)."""
    for v in range(side.shape[0]):
        if present[v]:
            if side[v] == 1:
                for u in range(side.shape[0]):
                    if present[u]:
                        side[u] = 1 - side[u]
            break
    return side


@njit(cache=True)
def _prefix_scan(order, table, criterion, min_leaf):
    """Best prefix of ``order`` (category codes) as the left side; returns (cut, decrease) where
    the left side is order[:cut]; cut = 0 when nothing is admissible."""
    total = np.zeros(table.shape[1])
    for v in order:
        total += table[v]
    w_all = _total(total)
    left = np.zeros(table.shape[1])
    best_cut, best = 0, -np.inf
    for c in range(order.shape[0] - 1):
        left += table[order[c]]
        wl = _total(left)
        if wl < min_leaf or w_all - wl < min_leaf:
            continue
        d = _decrease(left, total, criterion)
        if d > best + TIE_TOLERANCE:
            best_cut, best = c + 1, d
    return best_cut, best


@njit(cache=True)
def best_subset_class(table, criterion, min_leaf, max_exhaustive):
    """Best subset split of a (categories x classes) count table. Returns (side, decrease);
    decrease = -inf when no admissible split exists."""
    k = table.shape[0]
    sizes = np.zeros(k)  # table.sum(axis=1)
    for v in range(k):
        sizes[v] = _total(table[v])
    present = sizes > 0.0
    codes = np.flatnonzero(present)
    m = codes.shape[0]
    side = np.full(k, -1, dtype=np.int32)
    if m < 2:
        return side, -np.inf
    n_classes = table.shape[1]
    best = -np.inf
    best_left = np.zeros(k, dtype=np.bool_)
    if n_classes <= 2:
        # Breiman: order by proportion of the second class; ties by code (stable sort)
        p = table[codes, n_classes - 1] / sizes[codes]
        order = codes[np.argsort(p, kind="mergesort")]
        cut, best = _prefix_scan(order, table, criterion, min_leaf)
        if cut > 0:
            for c in range(cut):
                best_left[order[c]] = True
    elif m <= max_exhaustive:
        total = np.zeros(n_classes)
        for v in codes:
            total += table[v]
        w_all = _total(total)
        # the first present category stays left; every subset of the others joins it
        for mask in range(0, (1 << (m - 1)) - 1):
            left = table[codes[0]].copy()
            for b in range(m - 1):
                if mask & (1 << b):
                    left += table[codes[b + 1]]
            wl = _total(left)
            if wl < min_leaf or w_all - wl < min_leaf:
                continue
            d = _decrease(left, total, criterion)
            if d > best + TIE_TOLERANCE:
                best = d
                best_left[:] = False
                best_left[codes[0]] = True
                for b in range(m - 1):
                    if mask & (1 << b):
                        best_left[codes[b + 1]] = True
    else:
        for k_class in range(n_classes):
            p = table[codes, k_class] / sizes[codes]
            order = codes[np.argsort(p, kind="mergesort")]
            cut, d = _prefix_scan(order, table, criterion, min_leaf)
            if cut > 0 and d > best + TIE_TOLERANCE:
                best = d
                best_left[:] = False
                for c in range(cut):
                    best_left[order[c]] = True
        if best > -np.inf:
            best = _improve_by_moves(best_left, codes, table, criterion, min_leaf, best)
    if best == -np.inf:
        return side, best
    for v in codes:
        side[v] = 0 if best_left[v] else 1
    return _canonical(side, present), best


@njit(cache=True)
def _improve_by_moves(left_mask, codes, table, criterion, min_leaf, current):
    """Move single categories across while that raises the decrease (in place); returns it."""
    total = np.zeros(table.shape[1])
    for v in codes:
        total += table[v]
    w_all = _total(total)
    improved = True
    while improved:
        improved = False
        for v in codes:
            left_mask[v] = not left_mask[v]
            left = np.zeros(table.shape[1])
            n_left = 0
            for u in codes:
                if left_mask[u]:
                    left += table[u]
                    n_left += 1
            wl = _total(left)
            ok = 0 < n_left < codes.shape[0] and wl >= min_leaf and w_all - wl >= min_leaf
            d = _decrease(left, total, criterion) if ok else -np.inf
            if d > current + TIE_TOLERANCE:
                current = d
                improved = True
            else:
                left_mask[v] = not left_mask[v]
    return current


@njit(cache=True)
def best_subset_regression(stats, min_leaf):
    """Best subset split for regression. ``stats[v] = (sum w, sum w y, sum w y^2)`` per category.
    Categories ordered by mean y (Breiman); returns (side, decrease of weighted MSE)."""
    k = stats.shape[0]
    present = stats[:, 0] > 0.0
    codes = np.flatnonzero(present)
    side = np.full(k, -1, dtype=np.int32)
    if codes.shape[0] < 2:
        return side, -np.inf
    means = stats[codes, 1] / stats[codes, 0]
    order = codes[np.argsort(means, kind="mergesort")]
    w_all, s_all = 0.0, 0.0  # stats[codes, 0].sum(), stats[codes, 1].sum()
    for v in codes:
        w_all += stats[v, 0]
        s_all += stats[v, 1]
    wl, sl = 0.0, 0.0
    best_cut, best_proxy = 0, -np.inf
    for c in range(order.shape[0] - 1):
        wl += stats[order[c], 0]
        sl += stats[order[c], 1]
        wr = w_all - wl
        if wl < min_leaf or wr < min_leaf:
            continue
        sr = s_all - sl
        proxy = sl * sl / wl + sr * sr / wr
        if best_cut == 0 or proxy > best_proxy + TIE_TOLERANCE * max(1.0, abs(best_proxy)):
            best_cut, best_proxy = c + 1, proxy
    if best_cut == 0:
        return side, -np.inf
    for v in codes:
        side[v] = 1
    for c in range(best_cut):
        side[order[c]] = 0
    return _canonical(side, present), (best_proxy - s_all * s_all / w_all) / w_all


# ----------------------------------------------------------------------------- over entries
# The engine keeps a node's categories as *entries*: the codes present at the node, ascending, and
# their statistics. These give the functions above their results bit for bit (absent categories
# add nothing anywhere), without a table of every category per node and feature.


@njit(cache=True)
def _prefix_scan_entries(order, p, stats, criterion, min_leaf, total, left):
    """``_prefix_scan`` over entry indices order[:p]; ``total``/``left``: scratch of C."""
    C = stats.shape[1]
    for k in range(C):
        total[k] = 0.0
        left[k] = 0.0
    for c in range(p):
        for k in range(C):
            total[k] += stats[order[c], k]
    w_all = _total(total)
    best_cut, best = 0, -np.inf
    for c in range(p - 1):
        for k in range(C):
            left[k] += stats[order[c], k]
        wl = _total(left)
        if wl < min_leaf or w_all - wl < min_leaf:
            continue
        d = _decrease(left, total, criterion)
        if d > best + TIE_TOLERANCE:
            best_cut, best = c + 1, d
    return best_cut, best


@njit(cache=True)
def best_subset_class_entries(stats, p, criterion, min_leaf, max_exhaustive, side_of):
    """``best_subset_class`` over p entries (rows of ``stats``, in ascending code order): writes
    each entry's side into ``side_of`` (0 left, 1 right, -1 for an entry without weight), the
    first entry with weight on the left, and returns whether an admissible split exists."""
    C = stats.shape[1]
    sizes = np.empty(p)
    present = np.empty(p, dtype=np.int64)
    m = 0
    for e in range(p):
        s = 0.0
        for k in range(C):
            s += stats[e, k]
        sizes[e] = s
        if s > 0.0:
            present[m] = e
            m += 1
    for e in range(p):
        side_of[e] = -1
    if m < 2:
        return False
    codes = present[:m]
    total = np.empty(C)
    left = np.empty(C)
    best = -np.inf
    best_left = np.zeros(p, dtype=np.bool_)
    if C <= 2:
        prop = np.empty(m)
        for c in range(m):
            prop[c] = stats[codes[c], C - 1] / sizes[codes[c]]
        order = codes[np.argsort(prop, kind="mergesort")]
        cut, best = _prefix_scan_entries(order, m, stats, criterion, min_leaf, total, left)
        for c in range(cut):
            best_left[order[c]] = True
    elif m <= max_exhaustive:
        for k in range(C):
            total[k] = 0.0
        for c in range(m):
            for k in range(C):
                total[k] += stats[codes[c], k]
        w_all = _total(total)
        for mask in range(0, (1 << (m - 1)) - 1):
            for k in range(C):
                left[k] = stats[codes[0], k]
            for b in range(m - 1):
                if mask & (1 << b):
                    for k in range(C):
                        left[k] += stats[codes[b + 1], k]
            wl = _total(left)
            if wl < min_leaf or w_all - wl < min_leaf:
                continue
            d = _decrease(left, total, criterion)
            if d > best + TIE_TOLERANCE:
                best = d
                for c in range(m):
                    best_left[codes[c]] = False
                best_left[codes[0]] = True
                for b in range(m - 1):
                    if mask & (1 << b):
                        best_left[codes[b + 1]] = True
    else:
        prop = np.empty(m)
        for k_class in range(C):
            for c in range(m):
                prop[c] = stats[codes[c], k_class] / sizes[codes[c]]
            order = codes[np.argsort(prop, kind="mergesort")]
            cut, d = _prefix_scan_entries(order, m, stats, criterion, min_leaf, total, left)
            if cut > 0 and d > best + TIE_TOLERANCE:
                best = d
                for c in range(m):
                    best_left[codes[c]] = False
                for c in range(cut):
                    best_left[order[c]] = True
        if best > -np.inf:
            best = _improve_by_moves_entries(best_left, codes, stats, criterion, min_leaf, best,
                                             total, left)
    if best == -np.inf:
        return False
    flip = not best_left[codes[0]]  # canonical: the lowest present code on the left
    for c in range(m):
        side_of[codes[c]] = 0 if best_left[codes[c]] != flip else 1
    return True


@njit(cache=True)
def _improve_by_moves_entries(left_mask, codes, stats, criterion, min_leaf, current, total, left):
    """``_improve_by_moves`` over entries."""
    C = stats.shape[1]
    for k in range(C):
        total[k] = 0.0
    for v in codes:
        for k in range(C):
            total[k] += stats[v, k]
    w_all = _total(total)
    improved = True
    while improved:
        improved = False
        for v in codes:
            left_mask[v] = not left_mask[v]
            for k in range(C):
                left[k] = 0.0
            n_left = 0
            for u in codes:
                if left_mask[u]:
                    for k in range(C):
                        left[k] += stats[u, k]
                    n_left += 1
            wl = _total(left)
            ok = 0 < n_left < codes.shape[0] and wl >= min_leaf and w_all - wl >= min_leaf
            d = _decrease(left, total, criterion) if ok else -np.inf
            if d > current + TIE_TOLERANCE:
                current = d
                improved = True
            else:
                left_mask[v] = not left_mask[v]
    return current


@njit(cache=True)
def best_subset_regression_entries(stats, p, min_leaf, side_of):
    """``best_subset_regression`` over p entries of (sum w, sum w y, sum w y^2); writes each
    entry's side into ``side_of`` (0 left, 1 right, -1 without weight), the first entry with
    weight on the left. Returns whether an admissible split exists."""
    present = np.empty(p, dtype=np.int64)
    m = 0
    for e in range(p):
        side_of[e] = -1
        if stats[e, 0] > 0.0:
            present[m] = e
            m += 1
    if m < 2:
        return False
    codes = present[:m]
    means = np.empty(m)
    for c in range(m):
        means[c] = stats[codes[c], 1] / stats[codes[c], 0]
    order = codes[np.argsort(means, kind="mergesort")]
    w_all, s_all = 0.0, 0.0
    for c in range(m):
        w_all += stats[codes[c], 0]
        s_all += stats[codes[c], 1]
    wl, sl = 0.0, 0.0
    best_cut, best_proxy = 0, -np.inf
    for c in range(m - 1):
        wl += stats[order[c], 0]
        sl += stats[order[c], 1]
        wr = w_all - wl
        if wl < min_leaf or wr < min_leaf:
            continue
        sr = s_all - sl
        proxy = sl * sl / wl + sr * sr / wr
        if best_cut == 0 or proxy > best_proxy + TIE_TOLERANCE * max(1.0, abs(best_proxy)):
            best_cut, best_proxy = c + 1, proxy
    if best_cut == 0:
        return False
    for c in range(m):
        side_of[codes[c]] = 1
    for c in range(best_cut):  # the prefix of the order goes left
        side_of[order[c]] = 0
    if side_of[codes[0]] == 1:  # canonical: the lowest present code on the left
        for c in range(m):
            side_of[codes[c]] = 1 - side_of[codes[c]]
    return True
