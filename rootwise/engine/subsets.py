"""CART's binary split of a categorical attribute: the best subset of categories against the rest
(Breiman et al. 1984, §4.2.2; Li Hang 2012, §5.5).

Two classes and regression: Breiman's theorem — sort the categories by p(class 1) (or by mean y);
the best subset is a prefix of that order, so k - 1 candidates suffice. With min_samples_leaf only
the admissible prefixes are tried, as rpart does: an admissible partition that is not a prefix
can be missed (tests/test_engine_subsets.py has an example). More classes: every one of
the 2^(k-1) - 1 partitions up to ``max_exhaustive`` present categories (ranked by their proxies,
the exact rule near the top only); above it, a heuristic
(prefixes of the order by each class's proportion, then single-category moves while they help).

The search runs over *entries*: the categories present at the node (ascending codes) and their
statistics; absent categories get no branch (-1: a row with one stops at the node, like an empty
branch). The first present category is always on the left, so equal partitions have one spelling.
Sums are taken in a fixed order: a partition's left side is the previous candidate's left side
with the categories that change added or taken away (the exhaustive search counts through the
partitions in binary; a move changes one category), which costs O(classes) per candidate instead
of O(categories x classes). The reference builder and the engine run these same kernels.

Ties: a candidate replaces the best only when its decrease is larger by TIE_TOLERANCE, so the
first in search order wins.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from .._config import GINI, POISSON, SQUARED_ERROR, TIE_TOLERANCE
from .arrays import insertion_sort
from .criteria import impurity, regression_proxy
from .proxies import WINDOW, gini_proxy_above, ranked, split_proxy, squares, window_floor
from .subset_bound import SCATTER_CLASSES

RUN = 32  # items a sort orders by insertion before it merges
INNER = 3  # categories the exhaustive search on counts runs through in an inner loop


class SubsetScratch(NamedTuple):
    """Working memory of one subset search (per entry, per class)."""

    sizes: np.ndarray  # per entry
    present: np.ndarray  # per entry, int64: the entries with weight
    key: np.ndarray  # per entry: the sort key (a class proportion, a mean)
    order: np.ndarray  # per entry, int64
    spare: np.ndarray  # per entry, int64: the merge sort's buffer
    sorted_key: np.ndarray  # per entry: the keys in the order being sorted
    spare_key: np.ndarray  # per entry: their merge buffer
    in_left: np.ndarray  # per entry, bool: the candidate
    best_in_left: np.ndarray  # per entry, bool
    dot_total: np.ndarray  # per entry: t.s, its counts s against the totals t (``_top_counts``)
    square: np.ndarray  # per entry: |s|^2
    bucket_end: np.ndarray  # per entry, int64: the bucket sort's counts (``class_order``)
    blocks: np.ndarray  # (2^INNER, 4): ``_gray_top_blocks``' sums per inner combination
    scatter: np.ndarray  # (3, k, k), k classes up to SCATTER_CLASSES: ``subset_bound``
    kept_code: np.ndarray  # per entry, int64: ``keep_sides``
    kept_side: np.ndarray  # per entry, int64
    kept: np.ndarray  # (2,) int64: the column kept (-1: none) and its entries
    kept_gain: np.ndarray  # (1,)
    total: np.ndarray  # per class
    left: np.ndarray  # per class
    trial: np.ndarray  # per class
    right: np.ndarray  # per class


@njit(cache=True, no_cfunc_wrapper=True)
def new_subset_scratch(n_entries, width):
    m = max(n_entries, 1)
    k = max(min(width, SCATTER_CLASSES), 1)
    return SubsetScratch(np.empty(m), np.empty(m, dtype=np.int64), np.empty(m),
                         np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64), np.empty(m),
                         np.empty(m), np.zeros(m, dtype=np.bool_), np.zeros(m, dtype=np.bool_),
                         np.empty(m), np.empty(m), np.empty(m, dtype=np.int64),
                         np.empty((1 << INNER, 4)), np.empty((3, k, k)),
                         np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64),
                         np.full(2, -1, dtype=np.int64), np.full(1, -np.inf),
                         np.empty(width), np.empty(width), np.empty(width), np.empty(width))


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def forget_sides(scr):
    """No subset test kept (``keep_sides``): at the start of a node's search."""
    scr.kept[0] = -1
    scr.kept_gain[0] = -np.inf


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def keep_sides(scr, j, gain, codes, side, p):
    """Keep column j's subset test (its p entries' codes and sides) when its gain is the
    largest kept at the node so far: the test the selection rule chooses is nearly always the
    one of the largest gain, and ``kept_sides`` then returns it without a second search."""
    if not gain > scr.kept_gain[0]:
        return
    scr.kept[0], scr.kept[1] = j, p
    scr.kept_gain[0] = gain
    for e in range(p):
        scr.kept_code[e] = codes[e]
        scr.kept_side[e] = side[e]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def kept_sides(scr, j, out):
    """out[code] = the kept side of each category of column j (-1: absent at the node), when
    the test kept is column j's; returns whether it was."""
    if scr.kept[0] != j:
        return False
    for c in range(out.shape[0]):
        out[c] = -1
    for e in range(scr.kept[1]):
        out[scr.kept_code[e]] = scr.kept_side[e]
    return True


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _sum(a):
    s = 0.0
    for k in range(a.shape[0]):
        s += a[k]
    return s


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _decrease(parent, left, total, right, criterion):
    """I(D) - W_l/W I(D_l) - W_r/W I(D_r) for left side ``left`` of ``total``; ``right``:
    scratch for total - left."""
    w_all = _sum(total)
    w_left = _sum(left)
    for k in range(total.shape[0]):
        right[k] = total[k] - left[k]
    w_right = w_all - w_left
    return parent - (w_left / w_all) * impurity(left, criterion) \
        - (w_right / w_all) * impurity(right, criterion)


@njit(cache=True, _nrt=False, inline="always", no_cfunc_wrapper=True)
def stable_order(key, items, m, scr):
    """scr.order[:m] = items[:m] sorted by key[item], ties keeping their order (``np.argsort(...,
    kind="mergesort")`` of the keys, applied to the items): ``_sort_run``."""
    order = scr.order
    for i in range(m):
        order[i] = items[i]
    _sort_run(key, order[:m], m, scr)


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _sort_run(key, order, m, scr):
    """Sort the m items of ``order`` (a view) in place by key[item], ties keeping their order:
    insertion sort for a few; else the keys travel with the items (scr.sorted_key), runs of RUN
    are sorted by insertion and merged bottom-up through scr.spare. Every loop indexes a view
    from 0: numba then adds no fix-up for negative indices to each access."""
    if m <= RUN:
        for i in range(1, m):
            t = order[i]
            k = key[t]
            s = i - 1
            while s >= 0 and key[order[s]] > k:
                order[s + 1] = order[s]
                s -= 1
            order[s + 1] = t
        return
    keys = scr.sorted_key
    for i in range(m):
        keys[i] = key[order[i]]
    for lo in range(0, m, RUN):
        insertion_sort(order[lo:min(lo + RUN, m)], keys[lo:min(lo + RUN, m)])
    width = RUN
    src, src_k, dst, dst_k = order, keys, scr.spare[:m], scr.spare_key
    in_spare = False
    while width < m:
        for lo in range(0, m, 2 * width):
            mid = min(lo + width, m)
            hi = min(lo + 2 * width, m)
            _merge(src[lo:mid], src_k[lo:mid], src[mid:hi], src_k[mid:hi], dst[lo:hi],
                   dst_k[lo:hi])
        src, src_k, dst, dst_k = dst, dst_k, src, src_k
        in_spare = not in_spare
        width *= 2
    if in_spare:
        for i in range(m):
            order[i] = scr.spare[i]


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def class_order(stats, k_class, present, m, scr):
    """``stable_order`` of the present entries by their proportion of class k_class (keys into
    scr.key): the entries at 0 first and those at 1 last, each group in code order (in small
    nodes most categories are pure or lack the class), and the others between them by
    ``_bucket_sort``. A key outside (0, 1) among the others (no weight is negative, so none
    should be) sends them all to the plain sort."""
    key, sizes, order = scr.key, scr.sizes, scr.order
    mid, mid_key, ones = scr.spare, scr.spare_key, scr.bucket_end
    n0, n1, n_mid = 0, 0, 0
    odd = False
    for c in range(m):  # one pass: the zeros into place, the ones and the others aside
        e = present[c]
        v = stats[e, k_class] / sizes[e]
        key[e] = v
        if v == 0.0:
            order[n0] = e
            n0 += 1
        elif v == 1.0:
            ones[n1] = e
            n1 += 1
        else:
            odd |= not (0.0 < v < 1.0)
            mid[n_mid] = e
            mid_key[n_mid] = v
            n_mid += 1
    if odd:
        stable_order(key, present, m, scr)
        return
    for i in range(n1):  # before the bucket sort takes scr.bucket_end
        order[m - n1 + i] = ones[i]
    if n_mid > 0:
        _bucket_sort(key, order[n0:n0 + n_mid], n_mid, scr)


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _bucket_sort(key, out, n, scr):
    """out[:n] = the items scr.spare[:n] (keys scr.spare_key[:n], in (0, 1)) in the order of a
    stable sort by key: a counting sort into n buckets, then each bucket sorted (``_sort_run``:
    stable). The bucket of a key never decreases with the key, so the whole is the stable
    sort's order. The buckets split the range of the keys' bit patterns evenly (the bits of a
    positive double grow with it, about as its logarithm): keys crowded near 0, as a rare
    class's proportions are, still spread."""
    items, keys, ends = scr.spare, scr.spare_key, scr.bucket_end
    bits = keys.view(np.int64)
    lo, hi = bits[0], bits[0]
    for i in range(n):
        lo = min(lo, bits[i])
        hi = max(hi, bits[i])
    if n <= RUN or hi == lo:
        if n > 1 and hi > lo:  # the keys beside the items: no load through an index
            insertion_sort(items[:n], keys[:n])
        for i in range(n):
            out[i] = items[i]
        return
    scale = n / np.float64(hi - lo)
    for b in range(n):
        ends[b] = 0
    for i in range(n):
        ends[min(np.int64(np.float64(bits[i] - lo) * scale), n - 1)] += 1
    at = 0
    for b in range(n):  # each bucket's start
        size = ends[b]
        ends[b] = at
        at += size
    for i in range(n):
        b = min(np.int64(np.float64(bits[i] - lo) * scale), n - 1)
        out[ends[b]] = items[i]
        ends[b] += 1  # ends at the bucket's end
    start = 0  # scr.spare and scr.spare_key are free: _sort_run's buffers
    for b in range(n):
        if ends[b] - start > 1:
            _sort_run(key, out[start:ends[b]], ends[b] - start, scr)
        start = ends[b]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _merge(a_items, a_keys, b_items, b_keys, out_items, out_keys):
    """Merge two sorted runs, a before b, into out: ties take a's first. Each item is taken
    without a branch (which run gives the next one is a coin toss to the branch predictor)."""
    na, nb = a_items.shape[0], b_items.shape[0]
    a, b, out = 0, 0, 0
    while a < na and b < nb:
        take_b = np.int64(b_keys[b] < a_keys[a])
        out_items[out] = b_items[b] if take_b else a_items[a]
        out_keys[out] = b_keys[b] if take_b else a_keys[a]
        b += take_b
        a += 1 - take_b
        out += 1
    while a < na:
        out_items[out], out_keys[out] = a_items[a], a_keys[a]
        a += 1
        out += 1
    while b < nb:
        out_items[out], out_keys[out] = b_items[b], b_keys[b]
        b += 1
        out += 1


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _prefix_scan(order, m, stats, parent, criterion, min_leaf, exact_total, counts, scr):
    """Best prefix of order[:m] (entries) as the left side: (cut, decrease); cut = 0 when none
    is admissible. The first prefix whose decrease beats the best so far by TIE_TOLERANCE wins:
    pass 1 ranks the prefixes by the proxy of their decrease, and the exact decrease is taken
    over those within the window of the best only (``proxies``), of the best alone when no
    other is within it (from the left sums pass 1 kept: the same sums, in the same order).
    The class totals are summed in this order, unless ``exact_total``: counts, whose sums in
    scr.total are the same in any order. ``counts``: Gini on counts at a node of weight at
    most 2^25, pass 1 by ``_top_counts``."""
    total, left = scr.total, scr.left
    C = stats.shape[1]
    if not exact_total:
        for k in range(C):
            total[k] = 0.0
        for c in range(m):
            for k in range(C):
                total[k] += stats[order[c], k]
    w_all = _sum(total)
    if C == 2 and criterion == GINI:
        top_cut, top, second = _top_prefix_gini_two(order, m, stats, w_all, min_leaf, scr)
    elif counts:
        top_cut, top, second = _top_counts(order, m, stats, w_all, min_leaf, scr)
    else:
        top_cut, top, second = _top_prefix(order, m, stats, w_all, criterion, min_leaf, scr)
    if top_cut == 0:
        return 0, -np.inf
    floor = window_floor(top, w_all)
    if second < floor:  # the best alone is within the window: its decrease is the one needed
        d = _decrease(parent, scr.right, total, scr.trial, criterion)
        if d > -np.inf + TIE_TOLERANCE:
            return top_cut, d
        return 0, -np.inf
    for k in range(C):
        left[k] = 0.0
    best_cut, best = 0, -np.inf
    for c in range(m - 1):
        for k in range(C):
            left[k] += stats[order[c], k]
        wl = _sum(left)
        if wl < min_leaf or w_all - wl < min_leaf:
            continue
        if split_proxy(left, total, wl, w_all - wl, C, criterion) < floor:
            continue
        d = _decrease(parent, left, total, scr.trial, criterion)
        if d > best + TIE_TOLERANCE:
            best_cut, best = c + 1, d
    return best_cut, best


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _top_prefix(order, m, stats, w_all, criterion, min_leaf, scr):
    """Pass 1 of ``_prefix_scan``: (the first prefix length with the largest proxy, 0 when none
    is admissible; that proxy; the largest of the others). The left sums at that prefix go to
    scr.right."""
    total, left, at_top = scr.total, scr.left, scr.right
    C = stats.shape[1]
    if C == 3 and criterion == GINI:
        return _top_prefix_gini_three(order, m, stats, w_all, min_leaf, scr)
    for k in range(C):
        left[k] = 0.0
    top, top_cut, second = -np.inf, 0, -np.inf
    gini = criterion == GINI
    for c in range(m - 1):
        e = order[c]
        if gini:  # one loop for the sums, W_l and ``squares``: each summed from 0 in class order
            wl, sl, sr = 0.0, 0.0, 0.0
            for k in range(C):
                x = left[k] + stats[e, k]
                left[k] = x
                wl += x
                r = total[k] - x
                sl += x * x
                sr += r * r
            wr = w_all - wl
            if wl < min_leaf or wr < min_leaf:
                continue
            v = gini_proxy_above(sl, sr, wl, wr, second)  # split_proxy's numbers, without its
        else:  # divisions when surely below the second so far
            for k in range(C):
                left[k] += stats[e, k]
            wl = _sum(left)
            if wl < min_leaf or w_all - wl < min_leaf:
                continue
            v = split_proxy(left, total, wl, w_all - wl, C, criterion)
        top, second, is_top = ranked(v, top, second)
        if is_top:
            top_cut = c + 1
            for k in range(C):
                at_top[k] = left[k]
    return top_cut, top, second


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _dots_of(present, m, stats, scr):
    """t.s and |s|^2 of each present entry (counts s, totals t = scr.total) into scr.dot_total
    and scr.square: whole numbers, exact in any order."""
    total = scr.total
    for c in range(m):
        e = present[c]
        ts, ss = 0.0, 0.0
        for k in range(stats.shape[1]):
            x = stats[e, k]
            ts += total[k] * x
            ss += x * x
        scr.dot_total[e], scr.square[e] = ts, ss


@njit(cache=True, _nrt=False, fastmath={"reassoc", "contract"}, no_cpython_wrapper=True,
      no_cfunc_wrapper=True)
def _dot_move(left, stats, e, sign):
    """l.s for the sums ``left`` and entry e's counts s, then l += sign s. Whole numbers below
    2^53: exact in any order, so the compiler may reassociate (and vectorise) the sum."""
    d = 0.0
    for k in range(left.shape[0]):
        x = stats[e, k]
        d += left[k] * x
        left[k] += sign * x
    return d


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _top_counts(order, m, stats, w_all, min_leaf, scr):
    """``_top_prefix`` for Gini on counts at a node of weight W <= 2^25 (``_gray_top_dots``'s
    identities): a prefix costs one dot product and the update of its sums, every number a
    whole number below 2^53, so the same sums of squares and proxies. scr.dot_total,
    scr.square: ``_dots_of``."""
    total, left, at_top = scr.total, scr.left, scr.right
    C = stats.shape[1]
    tt = 0.0
    for k in range(C):
        left[k] = 0.0
        tt += total[k] * total[k]
    sl, tl, wl = 0.0, 0.0, 0.0
    top, top_cut, second = -np.inf, 0, -np.inf
    for c in range(m - 1):
        e = order[c]
        sl += 2.0 * _dot_move(left[:C], stats, e, 1.0) + scr.square[e]
        tl += scr.dot_total[e]
        wl += scr.sizes[e]
        wr = w_all - wl
        if wl < min_leaf or wr < min_leaf:
            continue
        v = gini_proxy_above(sl, tt - 2.0 * tl + sl, wl, wr, second)
        top, second, is_top = ranked(v, top, second)
        if is_top:
            top_cut = c + 1
            for k in range(C):
                at_top[k] = left[k]
    return top_cut, top, second


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _top_prefix_gini_three(order, m, stats, w_all, min_leaf, scr):
    """``_top_prefix`` for three classes and Gini, the left sums in registers (the heuristic's
    three class orders of up to hundreds of categories). Its proxies are ``split_proxy``'s
    numbers: sums from 0 in class order, and 0.0 + x is x. The top's sums go to scr.right."""
    t0, t1, t2 = scr.total[0], scr.total[1], scr.total[2]
    l0, l1, l2 = 0.0, 0.0, 0.0
    top, top_cut, second = -np.inf, 0, -np.inf
    for c in range(m - 1):
        e = order[c]
        l0 += stats[e, 0]
        l1 += stats[e, 1]
        l2 += stats[e, 2]
        wl = l0 + l1 + l2
        wr = w_all - wl
        if wl < min_leaf or wr < min_leaf:
            continue
        r0 = t0 - l0
        r1 = t1 - l1
        r2 = t2 - l2
        v = gini_proxy_above(l0 * l0 + l1 * l1 + l2 * l2, r0 * r0 + r1 * r1 + r2 * r2, wl, wr,
                             second)
        top, second, is_top = ranked(v, top, second)
        if is_top:
            top_cut = c + 1
            scr.right[0], scr.right[1], scr.right[2] = l0, l1, l2
    return top_cut, top, second


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _top_prefix_gini_two(order, m, stats, w_all, min_leaf, scr):
    """``_top_prefix`` for two classes and Gini: the left sums in registers, and the divisions
    skipped for a prefix whose proxy is surely below the second largest so far (cross-multiplied,
    less the margin SURE). Its proxies are ``split_proxy``'s numbers; the top's sums go to
    scr.right."""
    t0, t1 = scr.total[0], scr.total[1]
    l0, l1 = 0.0, 0.0
    top, top_cut, second = -np.inf, 0, -np.inf
    for c in range(m - 1):
        e = order[c]
        l0 += stats[e, 0]
        l1 += stats[e, 1]
        wl = l0 + l1  # _sum(left): 0.0 + l0 is l0
        wr = w_all - wl
        if wl < min_leaf or wr < min_leaf:
            continue
        r0 = t0 - l0
        r1 = t1 - l1
        v = gini_proxy_above(l0 * l0 + l1 * l1, r0 * r0 + r1 * r1, wl, wr, second)
        top, second, is_top = ranked(v, top, second)
        if is_top:
            top_cut = c + 1
            scr.right[0], scr.right[1] = l0, l1
    return top_cut, top, second


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def best_subset_class_entries(stats, p, criterion, min_leaf, max_exhaustive, side_of, scr):
    """The best subset split of p entries (rows of ``stats``: class weights, ascending codes):
    writes each entry's side into ``side_of`` (0 left, 1 right, -1 for an entry without weight)
    and returns whether an admissible split exists."""
    C = stats.shape[1]
    present, sizes, best_in_left = scr.present, scr.sizes, scr.best_in_left
    m = np.int64(0)  # not a literal (``bundles``, "Literals")
    whole = True  # every present entry's class weights whole numbers (``_is_whole``)
    for e in range(p):
        side_of[e] = -1
        s = 0.0
        for k in range(C):
            s += stats[e, k]
        sizes[e] = s
        if s > 0.0:
            present[m] = e
            m += 1
            for k in range(C):
                whole &= _is_whole(stats[e, k])
    if m < 2:
        return False
    total = scr.total
    for k in range(C):
        total[k] = 0.0
    for c in range(m):  # every present entry, in code order
        for k in range(C):
            total[k] += stats[present[c], k]
    parent = impurity(total, criterion)
    best = -np.inf
    for c in range(m):
        best_in_left[present[c]] = False
    if C <= 2:
        # Breiman: order by the proportion of the second class; ties by code (a stable sort)
        for c in range(m):
            scr.key[present[c]] = stats[present[c], C - 1] / sizes[present[c]]
        stable_order(scr.key, present, m, scr)
        cut, best = _prefix_scan(scr.order, m, stats, parent, criterion, min_leaf, False, False,
                                 scr)
        for c in range(cut):
            best_in_left[scr.order[c]] = True
    elif m <= max_exhaustive:
        best = _exhaustive(present, m, stats, parent, criterion, min_leaf, whole, scr)
    else:
        exact_total = whole and _sum(total) < 2.0 ** 52
        counts = exact_total and criterion == GINI and C > 3 and _sum(total) <= 2.0 ** 25
        if counts:
            _dots_of(present, m, stats, scr)
        for k_class in range(C):
            class_order(stats, k_class, present, m, scr)
            cut, d = _prefix_scan(scr.order, m, stats, parent, criterion, min_leaf, exact_total,
                                  counts, scr)
            if cut > 0 and d > best + TIE_TOLERANCE:
                best = d
                for c in range(m):
                    best_in_left[present[c]] = False
                for c in range(cut):
                    best_in_left[scr.order[c]] = True
        if best > -np.inf:
            best = _improve_by_moves(present, m, stats, parent, criterion, min_leaf, best, counts,
                                     scr)
    if best == -np.inf:
        return False
    flip = not best_in_left[present[0]]  # canonical: the lowest present code on the left
    for c in range(m):
        side_of[present[c]] = 0 if best_in_left[present[c]] != flip else 1
    return True


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _first_partition(present, m, stats, left, in_left):
    """The first present category alone on the left (every partition keeps it there)."""
    for k in range(stats.shape[1]):
        left[k] = stats[present[0], k]
    for c in range(m):
        in_left[present[c]] = c == 0


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _next_partition(present, stats, left, in_left):
    """The next subset of the others, counted in binary: mask + 1 clears the trailing ones and
    sets the next bit."""
    C = stats.shape[1]
    b = 0
    while in_left[present[b + 1]]:  # the trailing ones of mask - 1 leave
        in_left[present[b + 1]] = False
        for k in range(C):
            left[k] -= stats[present[b + 1], k]
        b += 1
    in_left[present[b + 1]] = True
    for k in range(C):
        left[k] += stats[present[b + 1], k]


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _partition_at(mask, present, stats, left, in_left, w_all, min_leaf):
    """Step to partition number ``mask`` (from the previous one; 0 is the first, set by
    ``_first_partition``): (W_l, whether both sides weigh at least min_leaf)."""
    if mask > 0:
        _next_partition(present, stats, left, in_left)
    wl = _sum(left)
    return wl, not (wl < min_leaf or w_all - wl < min_leaf)


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _is_whole(x):
    """Whether a class weight is a whole number up to 2^40 (counts): sums of them below 2^53
    are then exact in any order. The conversion is in range (weights are not negative)."""
    return -2.0 ** 62 <= x <= 2.0 ** 40 and x == np.float64(np.int64(x))


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _gray_top(present, m, stats, w_all, min_leaf, scr):
    """Pass 1 of ``_exhaustive`` for Gini on counts: the partitions in Gray-code order, each one
    category moved across from the last (the counting order moves two on average, and keeps a
    flag per category). Sums of counts are exact in any order, so every proxy is the number
    the counting order computes; the largest and the largest of the others do not depend on
    the order, and the partition of the largest matters only when it is alone in the window,
    where the order cannot break a tie. Writes that partition to scr.best_in_left; returns
    (top, second)."""
    full = (1 << (m - 1)) - 1  # every category on the left: not a split
    if w_all <= 2.0 ** 25 and m > INNER + 1:
        top, second, top_mask = _gray_top_blocks(present, m, full, stats, w_all, min_leaf, scr)
    elif stats.shape[1] == 3:
        top, second, top_mask = _gray_top_three(present, full, stats, scr.total, w_all, min_leaf)
    elif w_all <= 2.0 ** 25:
        top, second, top_mask = _gray_top_dots(present, m, full, stats, w_all, min_leaf, scr)
    else:
        top, second, top_mask = _gray_top_any(present, full, stats, scr.total, scr.left, w_all,
                                              min_leaf)
    best_in_left = scr.best_in_left
    if top_mask >= 0:
        best_in_left[present[0]] = True
        for c in range(1, m):
            best_in_left[present[c]] = (top_mask >> (c - 1)) & 1 == 1
    return top, second


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _gray_top_any(present, full, stats, total, left, w_all, min_leaf):
    """``_gray_top``'s loop: (top, second, the top's mask of the other categories); ``left``:
    scratch per class."""
    C = stats.shape[1]
    for k in range(C):
        left[k] = stats[present[0], k]
    top, second = -np.inf, -np.inf
    mask, top_mask = 0, -1
    for g in range(full + 1):
        if g > 0:
            e, sign, mask = _gray_step(g, mask, present)
            for k in range(C):
                left[k] += sign * stats[e, k]
        if mask == full:
            continue
        wl = _sum(left)
        wr = w_all - wl
        if wl < min_leaf or wr < min_leaf:
            continue
        sl, sr = squares(left, total, C)
        top, second, is_top = ranked(gini_proxy_above(sl, sr, wl, wr, second), top, second)
        if is_top:
            top_mask = mask
    return top, second, top_mask


@njit(cache=True, _nrt=False, fastmath={"reassoc", "contract"}, no_cpython_wrapper=True,
      no_cfunc_wrapper=True)
def _dot(left, stats, e):
    """l.s for the sums ``left`` and entry e's counts s: whole numbers below 2^53, exact in any
    order (``_dot_move``)."""
    d = 0.0
    for k in range(left.shape[0]):
        d += left[k] * stats[e, k]
    return d


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _gray_top_blocks(present, m, full, stats, w_all, min_leaf, scr):
    """``_gray_top_dots`` with the first INNER categories after present[0] in an inner loop:
    for each partition of the others (Gray-code order, left sums l), the 2^INNER ways to add
    some of the inner ones, X_j their summed counts, score from

        |l + X_j|^2 = |l|^2 + 2 l.X_j + |X_j|^2,    t.(l + X_j) = t.l + t.X_j,

    where |X_j|^2, t.X_j and W(X_j) are taken once (scr.blocks) and l.X_j from INNER dot
    products per outer partition: a partition costs a few additions and no loop over classes.
    Whole numbers below 2^53, so exact: the same proxies. The order differs from the Gray code
    over all categories, which changes neither the largest proxy nor the largest of the others,
    and the largest's partition is read only when no other is within its window (``_gray_top``)."""
    total, left, blk = scr.total, scr.left, scr.blocks
    C = stats.shape[1]
    _dots_of(present, m, stats, scr)
    ts_of, ss_of = scr.dot_total, scr.square
    n_in = 1 << INNER
    for j in range(n_in):  # |X_j|^2, t.X_j, W(X_j): present[1 + i] in X_j for bit i of j
        q = 0.0
        for k in range(C):
            x = 0.0
            for i in range(INNER):
                if (j >> i) & 1:
                    x += stats[present[1 + i], k]
            q += x * x
        u, w = 0.0, 0.0
        for i in range(INNER):
            if (j >> i) & 1:
                u += ts_of[present[1 + i]]
                w += scr.sizes[present[1 + i]]
        blk[j, 0], blk[j, 1], blk[j, 2] = q, u, w
    e = present[0]
    tt, tl, sl, wl = 0.0, ts_of[e], ss_of[e], scr.sizes[e]
    for k in range(C):
        left[k] = stats[e, k]
        tt += total[k] * total[k]
    outer_present = present[INNER:]  # outer bit b: present[INNER + 1 + b], mask bit INNER + b
    top, second = -np.inf, -np.inf
    outer, top_mask = 0, -1
    for g in range((full >> INNER) + 1):
        if g > 0:
            e, sign, outer = _gray_step(g, outer, outer_present)
            sl += sign * (2.0 * _dot_move(left[:C], stats, e, sign)) + ss_of[e]
            tl += sign * ts_of[e]
            wl += sign * scr.sizes[e]
        a0 = _dot(left[:C], stats, present[1])  # l.s of the INNER (3) inner categories
        a1 = _dot(left[:C], stats, present[2])
        a2 = _dot(left[:C], stats, present[3])
        for j in range(n_in):
            blk[j, 3] = (a0 if j & 1 else 0.0) + (a1 if j & 2 else 0.0) + (a2 if j & 4 else 0.0)
        base = outer << INNER
        for j in range(n_in):
            mask = base | j
            if mask == full:
                continue
            wl_j = wl + blk[j, 2]
            wr = w_all - wl_j
            if wl_j < min_leaf or wr < min_leaf:
                continue
            sl_j = sl + 2.0 * blk[j, 3] + blk[j, 0]
            v = gini_proxy_above(sl_j, tt - 2.0 * (tl + blk[j, 1]) + sl_j, wl_j, wr, second)
            top, second, is_top = ranked(v, top, second)
            if is_top:
                top_mask = mask
    return top, second, top_mask


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _gray_top_dots(present, m, full, stats, w_all, min_leaf, scr):
    """``_gray_top_any`` for counts at a node of weight W <= 2^25, in fewer operations: with
    l the left sums, t the totals and s the moving category's counts (sign +-1),

        |l + s|^2 = |l|^2 + 2 l.s + |s|^2,    |t - l|^2 = |t|^2 - 2 t.l + |l|^2,

    so a step costs one dot product and the update of l; t.s and |s|^2 are taken once per
    category (``_dots_of``). Every number is a whole number below 2^53 (at most
    2 W^2), so exact: the same sums of squares as ``squares`` takes, hence the same proxies."""
    total, left = scr.total, scr.left
    C = stats.shape[1]
    _dots_of(present, m, stats, scr)
    ts_of, ss_of = scr.dot_total, scr.square
    e = present[0]
    tt, tl, sl, wl = 0.0, ts_of[e], ss_of[e], 0.0
    for k in range(C):
        x = stats[e, k]
        left[k] = x
        tt += total[k] * total[k]
        wl += x
    top, second = -np.inf, -np.inf
    mask, top_mask = 0, -1
    for g in range(full + 1):
        if g > 0:
            e, sign, mask = _gray_step(g, mask, present)
            sl += sign * (2.0 * _dot_move(left[:C], stats, e, sign)) + ss_of[e]
            tl += sign * ts_of[e]
            wl += sign * scr.sizes[e]
        if mask == full:
            continue
        wr = w_all - wl
        if wl < min_leaf or wr < min_leaf:
            continue
        v = gini_proxy_above(sl, tt - 2.0 * tl + sl, wl, wr, second)
        top, second, is_top = ranked(v, top, second)
        if is_top:
            top_mask = mask
    return top, second, top_mask


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _gray_top_three(present, full, stats, total, w_all, min_leaf):
    """``_gray_top_any`` for three classes, the left sums in registers (the same sums:
    counts, exact)."""
    t0, t1, t2 = total[0], total[1], total[2]
    e = present[0]
    l0, l1, l2 = stats[e, 0], stats[e, 1], stats[e, 2]
    top, second = -np.inf, -np.inf
    mask, top_mask = 0, -1
    for g in range(full + 1):
        if g > 0:
            e, sign, mask = _gray_step(g, mask, present)
            l0 += sign * stats[e, 0]
            l1 += sign * stats[e, 1]
            l2 += sign * stats[e, 2]
        if mask == full:
            continue
        wl = l0 + l1 + l2
        wr = w_all - wl
        if wl < min_leaf or wr < min_leaf:
            continue
        r0, r1, r2 = t0 - l0, t1 - l1, t2 - l2
        v = gini_proxy_above(l0 * l0 + l1 * l1 + l2 * l2, r0 * r0 + r1 * r1 + r2 * r2, wl, wr,
                             second)
        top, second, is_top = ranked(v, top, second)
        if is_top:
            top_mask = mask
    return top, second, top_mask


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _gray_step(g, mask, present):
    """Gray code step g > 0 from partition ``mask`` (bit b: entry present[b + 1] on the left):
    (the entry that moves, +1.0 onto the left or -1.0 off it, the new mask)."""
    b = 0
    while not (g >> b) & 1:  # step g flips the bit of g's trailing zeros
        b += 1
    return present[b + 1], -1.0 if (mask >> b) & 1 else 1.0, mask ^ (1 << b)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _exhaustive(present, m, stats, parent, criterion, min_leaf, whole, scr):
    """Every one of the 2^(m-1) - 1 partitions of m present entries: the first, in counting
    order, whose decrease beats the best so far by TIE_TOLERANCE goes to scr.best_in_left.
    Returns its decrease (-inf: none admissible).

    Two passes, as the threshold scans (``proxies``): pass 1 ranks the partitions by the proxy
    (two divisions, where a decrease costs 2k + 2) and keeps the first largest; pass 2 runs the
    rule on the exact decrease over the partitions within the window of the largest only, and
    only when a second one lies there. A partition with an empty side by weight (possible only
    through rounding) sends the search to the exact rule over every partition."""
    C = stats.shape[1]
    total, left, trial = scr.total, scr.left, scr.trial
    in_left, best_in_left = scr.in_left, scr.best_in_left
    w_all = _sum(total)
    n_parts = (1 << (m - 1)) - 1
    top, second = -np.inf, -np.inf
    exact = False
    if criterion == GINI and whole:
        top, second = _gray_top(present, m, stats, w_all, min_leaf, scr)
        n_pass1 = 0
    else:
        _first_partition(present, m, stats, left, in_left)
        n_pass1 = n_parts
    for mask in range(n_pass1):
        wl, ok = _partition_at(mask, present, stats, left, in_left, w_all, min_leaf)
        if not ok:
            continue
        wr = w_all - wl
        if wl <= 0.0 or wr <= 0.0:
            exact = True
            break
        if criterion == GINI:  # split_proxy's numbers, without its divisions when surely below
            sl, sr = squares(left, total, C)  # the second so far
            v = gini_proxy_above(sl, sr, wl, wr, second)
        else:
            v = split_proxy(left, total, wl, wr, C, criterion)
        top, second, is_top = ranked(v, top, second)
        if is_top:
            for c in range(m):
                best_in_left[present[c]] = in_left[present[c]]
    if top == -np.inf and not exact:
        return -np.inf
    cut = window_floor(top, w_all)
    if not exact and second < cut:
        for k in range(C):  # the decrease of the one partition within the window
            left[k] = 0.0
        for c in range(m):
            if best_in_left[present[c]]:
                for k in range(C):
                    left[k] += stats[present[c], k]
        return _decrease(parent, left, total, trial, criterion)
    best = -np.inf
    _first_partition(present, m, stats, left, in_left)
    for mask in range(n_parts):
        wl, ok = _partition_at(mask, present, stats, left, in_left, w_all, min_leaf)
        if not ok:
            continue
        if not exact and split_proxy(left, total, wl, w_all - wl, C, criterion) < cut:
            continue
        d = _decrease(parent, left, total, trial, criterion)
        if d > best + TIE_TOLERANCE:
            best = d
            for c in range(m):
                best_in_left[present[c]] = in_left[present[c]]
    return best


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _moves_floor(current, parent, w_all):
    """Gini: decrease = parent - 1 + proxy / W, so a move whose proxy lies below this (WINDOW
    tolerances under the current decrease's proxy, ``proxies``) cannot beat the current one."""
    return (current - parent + 1.0) * w_all - WINDOW * TIE_TOLERANCE * max(1.0, w_all)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _improve_by_moves(present, m, stats, parent, criterion, min_leaf, current, counts, scr):
    """Move single categories (in code order) across while that raises the decrease; the best
    partition is scr.best_in_left, updated in place. Returns its decrease. ``counts``: as
    ``_prefix_scan``'s."""
    C = stats.shape[1]
    total, left, trial = scr.total, scr.left, scr.trial
    mask = scr.best_in_left
    w_all = _sum(total)
    for k in range(C):
        left[k] = 0.0
    n_left = 0
    for c in range(m):
        if mask[present[c]]:
            n_left += 1
            for k in range(C):
                left[k] += stats[present[c], k]
    right = scr.right
    gini = criterion == GINI
    tt, sl_now, tl_now, wl_now = 0.0, 0.0, 0.0, 0.0
    if counts:  # |t|^2, |l|^2, t.l, W_l: ``_top_counts``
        for k in range(C):
            tt += total[k] * total[k]
            sl_now += left[k] * left[k]
            tl_now += total[k] * left[k]
            wl_now += left[k]
    improved = True
    while improved:
        improved = False
        floor = _moves_floor(current, parent, w_all)
        for c in range(m):
            v = present[c]
            going = -1.0 if mask[v] else 1.0
            if counts:  # the trial's |l|^2 by a dot product: exact, so ``squares``' numbers
                dot = 0.0
                for k in range(C):
                    dot += left[k] * stats[v, k]
                sl = sl_now + going * (2.0 * dot) + scr.square[v]
                tl = tl_now + going * scr.dot_total[v]
                wl = wl_now + going * scr.sizes[v]
                sr = tt - 2.0 * tl + sl
            else:
                wl, sl, sr = 0.0, 0.0, 0.0  # ``_sum`` and ``squares`` of the trial, in one loop
                for k in range(C):
                    x = left[k] + going * stats[v, k]
                    trial[k] = x
                    wl += x
                    r = total[k] - x
                    sl += x * x
                    sr += r * r
            n_trial = n_left + (-1 if mask[v] else 1)
            wr = w_all - wl
            if not (0 < n_trial < m and wl >= min_leaf and wr >= min_leaf):
                continue
            if gini and wl > 0.0 and wr > 0.0:
                if sl / wl + sr / wr < floor:
                    continue
            if counts:
                for k in range(C):
                    trial[k] = left[k] + going * stats[v, k]
            d = _decrease(parent, trial, total, right, criterion)
            if d > current + TIE_TOLERANCE:
                current = d
                floor = _moves_floor(current, parent, w_all)
                improved = True
                mask[v] = not mask[v]
                n_left = n_trial
                for k in range(C):
                    left[k] = trial[k]
                if counts:
                    sl_now, tl_now, wl_now = sl, tl, wl
    return current


@njit(cache=True, _nrt=False, inline="always", no_cfunc_wrapper=True)
def best_subset_regression_entries(stats, p, min_leaf, criterion, max_exhaustive, side_of, scr):
    """The best subset split of p entries of (sum w, sum w y, sum w y^2): writes each entry's
    side into ``side_of`` (0 left, 1 right, -1 without weight), the first entry with weight on
    the left. Returns whether an admissible split exists.

    Squared error: the categories ordered by mean y, a prefix of the order (Breiman). Poisson
    deviance: every partition up to ``max_exhaustive`` present categories, else the prefixes of
    the order by mean y (``criteria.regression_proxy`` scores both)."""
    present = scr.present
    m = np.int64(0)  # not a literal (``bundles``, "Literals")
    for e in range(p):
        side_of[e] = -1
        if stats[e, 0] > 0.0:
            present[m] = e
            m += 1
    if m < 2:
        return False
    if criterion == POISSON and m <= max_exhaustive:
        return _exhaustive_regression(stats, present, m, min_leaf, criterion, side_of)
    for c in range(m):
        scr.key[present[c]] = stats[present[c], 1] / stats[present[c], 0]
    stable_order(scr.key, present, m, scr)
    order = scr.order
    w_all, s_all = 0.0, 0.0
    for c in range(m):
        w_all += stats[present[c], 0]
        s_all += stats[present[c], 1]
    wl, sl = 0.0, 0.0
    best_cut, best_proxy = 0, -np.inf
    for c in range(m - 1):
        wl += stats[order[c], 0]
        sl += stats[order[c], 1]
        wr = w_all - wl
        if wl < min_leaf or wr < min_leaf:
            continue
        sr = s_all - sl
        proxy = regression_proxy(criterion, sl, wl, sr, wr)
        if proxy == -np.inf:
            continue
        if best_cut == 0 or proxy > best_proxy + TIE_TOLERANCE * max(1.0, abs(best_proxy)):
            best_cut, best_proxy = c + 1, proxy
    if best_cut == 0:
        return False
    for c in range(m):
        side_of[present[c]] = 1
    for c in range(best_cut):  # the prefix of the order goes left
        side_of[order[c]] = 0
    if side_of[present[0]] == 1:  # canonical: the lowest present code on the left
        for c in range(m):
            side_of[present[c]] = 1 - side_of[present[c]]
    return True


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _exhaustive_regression(stats, present, m, min_leaf, criterion, side_of):
    """Every one of the 2^(m-1) - 1 partitions of the m present entries (the first on the left,
    bit c - 1 of the mask puts present[c] on the left too), scored by ``regression_proxy``: the
    first best wins. Writes ``side_of`` as ``best_subset_regression_entries``."""
    w_all, s_all = 0.0, 0.0
    for c in range(m):
        w_all += stats[present[c], 0]
        s_all += stats[present[c], 1]
    best_mask, best = np.int64(-1), -np.inf
    for mask in range((np.int64(1) << (m - 1)) - 1):
        wl, sl = stats[present[0], 0], stats[present[0], 1]
        for c in range(1, m):
            if (mask >> (c - 1)) & 1:
                wl += stats[present[c], 0]
                sl += stats[present[c], 1]
        wr = w_all - wl
        if wl < min_leaf or wr < min_leaf or not wl > 0.0 or not wr > 0.0:
            continue
        proxy = regression_proxy(criterion, sl, wl, s_all - sl, wr)
        if proxy == -np.inf:
            continue
        if best_mask < 0 or proxy > best + TIE_TOLERANCE * max(1.0, abs(best)):
            best_mask, best = mask, proxy
    if best_mask < 0:
        return False
    side_of[present[0]] = 0
    for c in range(1, m):
        side_of[present[c]] = 0 if (best_mask >> (c - 1)) & 1 else 1
    return True


# ----------------------------------------------------------------------------- over tables


def _entries(table):
    """A full (categories x statistics) table as entries: every category, code order."""
    return np.ascontiguousarray(table, dtype=np.float64)


def best_subset_class(table, criterion, min_leaf, max_exhaustive):
    """``best_subset_class_entries`` over a (categories x classes) count table: (side per
    category, -1 for an absent one; and the decrease of the split, -inf when there is none)."""
    stats = _entries(table)
    k = stats.shape[0]
    side = np.full(k, -1, dtype=np.int64)
    scr = new_subset_scratch(k, stats.shape[1])
    if not best_subset_class_entries(stats, k, criterion, min_leaf, max_exhaustive, side, scr):
        return side.astype(np.int32), -np.inf
    left = stats[side == 0].sum(axis=0)
    total = stats[side >= 0].sum(axis=0)
    right = total - left
    wl, wr, wa = left.sum(), right.sum(), total.sum()
    dec = impurity(total, criterion) - wl / wa * impurity(left, criterion) \
        - wr / wa * impurity(right, criterion)
    return side.astype(np.int32), float(dec)


def best_subset_regression(stats, min_leaf, criterion=SQUARED_ERROR, max_exhaustive=12):
    """``best_subset_regression_entries`` over a (categories x (w, wy, wy^2)) table: (side per
    category, -1 for an absent one; the decrease of the weighted MSE, -inf when there is none)."""
    stats = _entries(stats)
    k = stats.shape[0]
    side = np.full(k, -1, dtype=np.int64)
    scr = new_subset_scratch(k, 3)
    if not best_subset_regression_entries(stats, k, min_leaf, criterion, max_exhaustive, side,
                                          scr):
        return side.astype(np.int32), -np.inf
    w, s = stats[side >= 0, 0].sum(), stats[side >= 0, 1].sum()
    wl, sl = stats[side == 0, 0].sum(), stats[side == 0, 1].sum()
    wr, sr = w - wl, s - sl
    return side.astype(np.int32), float((sl * sl / wl + sr * sr / wr - s * s / w) / w)

