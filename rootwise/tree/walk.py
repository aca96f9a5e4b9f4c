"""Routing rows through the flat tree arrays: apply (node reached), decision paths, and C4.5's
fractional prediction for rows with missing values."""

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .._config import LEAF, MISSING_FRACTIONAL, MULTIWAY, SUBSET, THRESHOLD


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _branch(x, node, feature, kind, threshold, pool_offset, pool, n_categories):
    """Child slot a known value ``x`` takes at ``node``; -1 when the node has no branch for it
    (a category never seen in training, or without a branch here)."""
    if kind[node] == THRESHOLD:
        return 0 if x <= threshold[node] else 1
    code = np.int64(x)
    if code < 0 or code >= n_categories[feature[node]]:
        return -1
    return pool[pool_offset[node] + code]


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _surrogate_branch(X, i, node, pool, n_categories, sur_offset, n_sur, s_feature, s_kind,
                      s_threshold, s_left, s_pool_offset):
    """Child slot given by the first surrogate of ``node`` whose value row ``i`` has; -1 if none."""
    for s in range(sur_offset[node], sur_offset[node] + n_sur[node]):
        x = X[i, s_feature[s]]
        if np.isnan(x):
            continue
        if s_kind[s] == THRESHOLD:
            return s_left[s] if x <= s_threshold[s] else 1 - s_left[s]
        code = np.int64(x)
        if code < 0 or code >= n_categories[s_feature[s]]:
            continue
        b = pool[s_pool_offset[s] + code]
        if b >= 0:
            return b
    return -1


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _next(X, i, node, feature, kind, threshold, first_child, pool_offset, pool, n_categories,
          missing_branch, sur_offset, n_sur, s_feature, s_kind, s_threshold, s_left, s_pool_offset):
    """The child row ``i`` moves to from split ``node``, or -1 to stop there. A missing value
    tries the surrogates, then ``missing_branch`` (a child, or a negative code meaning stop). At a
    subset node (CART) a category without a branch there says nothing about the split, so it is
    treated as missing too (rpart); at a multiway node it stops (the textbook's empty branch,
    Zhou 2016 §4.2)."""
    x = X[i, feature[node]]
    b = -1
    if not np.isnan(x):
        b = _branch(x, node, feature, kind, threshold, pool_offset, pool, n_categories)
    if np.isnan(x) or (b < 0 and kind[node] == SUBSET):
        b = _surrogate_branch(X, i, node, pool, n_categories, sur_offset, n_sur, s_feature,
                              s_kind, s_threshold, s_left, s_pool_offset)
        if b < 0:
            b = missing_branch[node]
    if b < 0:
        return -1
    return first_child[node] + b


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _step(X, i, node, feature, kind, threshold, first_child, pool_offset, pool, n_categories,
          missing_branch, sur_offset, n_sur, s_feature, s_kind, s_threshold, s_left, s_pool_offset):
    """The next node of row ``i`` from split ``node``, or -1 to stop. A threshold test on a known
    value is decided here directly: passing the many arrays on to ``_next`` costs more than the
    test itself, and it is by far the most common step."""
    x = X[i, feature[node]]
    if kind[node] == THRESHOLD and not np.isnan(x):
        return first_child[node] + (0 if x <= threshold[node] else 1)
    return _next(X, i, node, feature, kind, threshold, first_child, pool_offset, pool,
                 n_categories, missing_branch, sur_offset, n_sur, s_feature, s_kind,
                 s_threshold, s_left, s_pool_offset)


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _walk_rows(X, lo, hi, ends, feature, kind, threshold, first_child, pool_offset, pool,
               n_categories, missing_branch, sur_offset, n_sur, s_feature, s_kind, s_threshold,
               s_left, s_pool_offset):
    """The general walk, node kind by node kind, for each row i of lo..hi-1 with ends[i] <= -2:
    from node -2 - ends[i] to the node the row ends in, which replaces it. Other rows are left
    as they are."""
    for i in range(lo, hi):
        if ends[i] > -2:
            continue
        node = -2 - ends[i]
        while kind[node] != LEAF:
            # _step's threshold test, written out here: calling _step (even with numba's
            # inline="always") measured 10x slower on 10^6 rows than this loop, and moving the
            # loop into a function called per row 2.5x slower
            x = X[i, feature[node]]
            if kind[node] == THRESHOLD and not np.isnan(x):
                node = first_child[node] + (0 if x <= threshold[node] else 1)
                continue
            nxt = _next(X, i, node, feature, kind, threshold, first_child, pool_offset, pool,
                        n_categories, missing_branch, sur_offset, n_sur, s_feature, s_kind,
                        s_threshold, s_left, s_pool_offset)
            if nxt < 0:
                break
            node = nxt
        ends[i] = node


@njit(cache=True, no_cfunc_wrapper=True)
def apply_rows(X, feature, kind, threshold, first_child, pool_offset, pool, n_categories,
               missing_branch, sur_offset, n_sur, s_feature, s_kind, s_threshold, s_left,
               s_pool_offset, max_depth):
    """Index of the node each row ends in. A row stops at a split node that has no branch for
    it (unseen category, or a missing value routed nowhere, e.g. C4.5's fractional split).
    The general walk alone, from the root: the reference for the compact walk below."""
    out = np.full(X.shape[0], -2, dtype=np.int64)  # -2 - 0: every row starts at the root
    _walk_rows(X, 0, X.shape[0], out, feature, kind, threshold, first_child, pool_offset, pool,
               n_categories, missing_branch, sur_offset, n_sur, s_feature, s_kind, s_threshold,
               s_left, s_pool_offset)
    return out


# ------------------------------------------------------------------ the compact walk
#
# Prediction walks one 16-byte record per node: (threshold, feature, left). The records of a
# node's children are consecutive (left, left + 1, ...), laid out in depth-first order of the
# child groups, so a node's children sit next to the records the walk has just read. The
# feature field says what the record is:
#
#   feature >= 0     a threshold test on that column: x <= threshold -> left, else left + 1
#   COMPACT_LEAF     a leaf (-1); left = its node id in the Tree
#   feature <= -2    a categorical test on column v >> 1, where v = -2 - feature: a subset test
#                    when v is even, a multiway test when v is odd. The threshold field holds an
#                    offset (exact in a float64): a subset test's into ``bits``, a multiway
#                    test's into the Tree's pool (category code c -> left + pool[offset + c]).
#
# A subset test keeps its categories as bits, two 64-bit words per 64 categories: "has a branch
# here" and "goes to child 1". The bits of a subset test fill a cache line or two where its
# slice of the pool (one int32 per category) fills hundreds of bytes. Measured on the benchmark
# table (benchmarks/data.real_table: a tree of 5,473 subset and 3,731 threshold tests, 300,000
# rows, one thread): 69 ms with the bits, 98 ms with the same walk reading the pool.
#
# A missing value, or a category without a branch at the node, takes a detour (``DETOUR``, one
# per record): the node's surrogates, then its missing_branch, exactly as ``_next``. Surrogates
# have compact records of their own (``COMPACT_SURROGATE``; a subset surrogate's categories are
# bits too). A multiway test whose category has no branch stops there.

COMPACT_NODE = np.dtype([("threshold", np.float64), ("feature", np.int32), ("left", np.int32)])
COMPACT_LEAF = -1
COMPACT_SURROGATE = np.dtype([("threshold", np.float64), ("feature", np.int32),
                              ("kind", np.int8), ("left", np.int8), ("unused", np.int16)])
DETOUR = np.dtype([("node", np.int32), ("missing_branch", np.int32),
                   ("first_surrogate", np.int32), ("n_surrogates", np.int32)])
# rows walked at once by one thread: while one row waits for a node record or an X value from
# memory the others go on. 8 and 16 measured alike (``speed.py --sections predict``, a fully
# grown tree of 12,519 leaves on 20 numeric columns, one thread, alternating: 10^6 rows 62.6 /
# 63.4 ms with 8 against 61.3 / 63.0 ms with 16; 10^4 rows 0.60 / 0.63 against 0.58 / 0.59 ms).
LANES = 8
# rows per block: a block is walked, then its outputs are written while its end nodes are still
# in cache; the unit of work of a thread
BLOCK = 4096
# a node's rows of a block are split together down to this many; fewer are walked one by one
# (``_walk_lanes``; in trees with subset tests only: ``Tree.split_min``)
SPLIT_MIN = 8


@njit(cache=True, no_cfunc_wrapper=True)
def compact_layout(kind, feature, threshold, first_child, n_children, pool_offset, out, origin):
    """Fill ``out`` (COMPACT_NODE records) with the records of the nodes reachable from the
    root, and ``origin`` with each record's node id; returns how many. Depth-first: when a split
    node is visited its children get the next records, side by side. A subset record's offset
    into the bits is set by ``category_bits``; here it holds the node's pool offset."""
    n = kind.shape[0]
    where = np.empty(n, dtype=np.int64)  # record of each node
    stack = np.empty(n, dtype=np.int64)
    where[0] = 0
    stack[0] = 0
    top = 1
    used = 1
    while top > 0:
        top -= 1
        node = stack[top]
        r = where[node]
        origin[r] = node
        if kind[node] == LEAF:
            out[r].threshold = np.inf
            out[r].feature = COMPACT_LEAF
            out[r].left = node
            continue
        if kind[node] == THRESHOLD:
            out[r].threshold = threshold[node]
            out[r].feature = feature[node]
        else:
            out[r].threshold = pool_offset[node]
            out[r].feature = -2 - (2 * feature[node] + (1 if kind[node] == MULTIWAY else 0))
        out[r].left = used
        c = first_child[node]
        k = n_children[node]
        for b in range(k):
            where[c + b] = used + b
        used += k
        for b in range(k - 1, -1, -1):  # the first child is popped first: its group comes next
            stack[top] = c + b
            top += 1
    return used


# subset tests whose bits are packed at once (bounds the temporaries on very large trees)
BITS_CHUNK = 65536


def category_bits(records, origin, feature, pool, n_categories, s_feature, s_kind,
                  s_pool_offset, s_records) -> np.ndarray:
    """The bits of every subset record and subset surrogate in one uint64 array, two words per
    64 categories (has a branch, goes to child 1), interleaved; each such record's threshold
    field is set to its offset. NumPy, not numba: nothing to compile on the first prediction."""
    f = records["feature"]
    subset = np.flatnonzero((f <= -2) & ((-2 - f) % 2 == 0))
    sur = np.flatnonzero(s_kind == SUBSET)
    k = np.concatenate([n_categories[feature[origin[subset]]], n_categories[s_feature[sur]]])
    offset = np.concatenate([records["threshold"][subset], s_pool_offset[sur]]).astype(np.int64)
    words = 2 * ((k + 63) // 64)
    start = np.cumsum(words) - words
    bits = np.zeros(int(words.sum()), dtype=np.uint64)
    for size in np.unique(k):  # the tests of one category count at once
        tests = np.flatnonzero(k == size)
        width = int(size + 63) // 64 * 64
        for lo in range(0, len(tests), BITS_CHUNK):
            part = tests[lo:lo + BITS_CHUNK]
            branch = np.full((len(part), width), -1, dtype=np.int64)
            branch[:, :size] = pool[offset[part][:, None] + np.arange(size)]
            pair = np.empty((len(part), width // 64, 2), dtype=np.uint64)
            for side, bit_set in enumerate((branch >= 0, branch == 1)):
                packed = np.packbits(bit_set, axis=1, bitorder="little")  # bit c of byte c // 8
                pair[:, :, side] = packed.view("<u8")
            bits[start[part][:, None] + np.arange(2 * (width // 64))] = pair.reshape(len(part), -1)
    records["threshold"][subset] = start[:len(subset)]
    s_records["threshold"][sur] = start[len(subset):]
    return bits


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def category_sides(bits, at, code):
    """(has a branch, goes to child 1) of category ``code`` in the bits from bits[at]."""
    word = at + 2 * (code >> 6)
    bit = np.uint64(1) << np.uint64(code & 63)
    return (bits[word] & bit) != 0, (bits[word + 1] & bit) != 0


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _surrogate_slot(X, i, first, count, s_records, bits, n_categories):
    """Child slot given by the first of the surrogates first..first+count-1 whose value row ``i``
    has (a category without a branch counts as not having it); -1 if none."""
    for s in range(first, first + count):
        f = s_records[s].feature
        x = X[i, f]
        if x != x:
            continue
        if s_records[s].kind == THRESHOLD:
            left = np.int64(s_records[s].left)
            return left if x <= s_records[s].threshold else 1 - left
        if not (x > -1.0 and x < n_categories[f]):  # np.int64(x) in 0..k-1, as ``_branch``
            continue
        has, right = category_sides(bits, np.int64(s_records[s].threshold), np.int64(x))
        if has:
            return 1 if right else 0
    return -1


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _detour(X, i, r, detours, s_records, bits, n_categories):
    """Child slot of row ``i`` at record ``r`` when its value is missing, or a category without
    a branch at a subset test: the first surrogate it has, else the node's missing_branch
    (negative: stop there)."""
    b = _surrogate_slot(X, i, detours[r].first_surrogate, detours[r].n_surrogates, s_records,
                        bits, n_categories)
    return b if b >= 0 else detours[r].missing_branch


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _mark_infinite(X, lo, hi, ends):
    """ends[i] = -1 for the rows of lo..hi-1 holding an infinite value (the caller refuses
    them), 0 for the others. One branch-free pass per row, which the compiler vectorises."""
    for i in range(lo, hi):
        bad = False
        for j in range(X.shape[1]):
            v = X[i, j]
            bad |= (v - v) != 0.0  # v - v: 0 for a number, NaN for NaN and +-inf
        ends[i] = 0
        if bad:
            for j in range(X.shape[1]):
                if np.isinf(X[i, j]):
                    ends[i] = -1


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _walk_lanes(X, rows, starts, count, ends, records, bits, detours, s_records, pool,
                n_categories, lane_row, lane_node):
    """Rows rows[0..count-1] through the compact layout, row rows[k] from record starts[k]:
    ends[row] = the node it ends in (a leaf, or the split node where it stops). LANES rows are
    walked together, each lane taking the next row as soon as its own is done. For a known x,
    x > t is exactly "not x <= t" (child 1). lane_row, lane_node: LANES each."""
    nxt = 0
    active = 0
    for g in range(LANES):
        lane_row[g] = -1
        if nxt < count:
            lane_row[g] = rows[nxt]
            lane_node[g] = starts[nxt]
            nxt += 1
            active += 1
    while active > 0:
        for g in range(LANES):
            r = lane_row[g]
            if r < 0:
                continue
            n = lane_node[g]
            f = records[n].feature
            b = -1  # the child slot taken when the common step does not apply; -1: stop here
            if f >= 0:  # a threshold test
                x = X[r, f]
                if x == x:  # a known value: the common step
                    lane_node[g] = records[n].left + (1 if x > records[n].threshold else 0)
                    continue
                b = _detour(X, r, n, detours, s_records, bits, n_categories)
            elif f != COMPACT_LEAF:  # a categorical test
                v = -2 - f
                col = v >> 1
                x = X[r, col]
                offset = np.int64(records[n].threshold)
                # np.int64(x) only for x in (-1, k): the conversion of a larger float is undefined
                if x > -1.0 and x < n_categories[col]:
                    code = np.int64(x)
                    if v & 1:  # multiway: the category's branch, or stop (none here)
                        b = pool[offset + code]
                    else:  # subset: its bits, or the detour when the category has no branch
                        word = offset + 2 * (code >> 6)
                        bit = np.uint64(1) << np.uint64(code & 63)
                        if (bits[word] & bit) != 0:  # the common step
                            lane_node[g] = records[n].left + (1 if (bits[word + 1] & bit) != 0
                                                              else 0)
                            continue
                        b = _detour(X, r, n, detours, s_records, bits, n_categories)
                elif x != x or (v & 1) == 0:  # missing; or a subset test's unknown category
                    b = _detour(X, r, n, detours, s_records, bits, n_categories)
            if f != COMPACT_LEAF:
                if b >= 0:
                    lane_node[g] = records[n].left + b
                    continue
                ends[r] = detours[n].node
            else:
                ends[r] = records[n].left
            lane_row[g] = -1
            if nxt < count:
                lane_row[g] = rows[nxt]
                lane_node[g] = starts[nxt]
                nxt += 1
            else:
                active -= 1


class Scratch(NamedTuple):
    """Working arrays of one block of rows (``new_scratch``): its rows by segment (idx; right:
    a split's child-1 rows while it is written), the segments still to split, the rows left to
    walk one by one with their records, and the lanes."""

    idx: np.ndarray
    right: np.ndarray
    seg_node: np.ndarray
    seg_lo: np.ndarray
    seg_hi: np.ndarray
    tail_row: np.ndarray
    tail_node: np.ndarray
    lane_row: np.ndarray
    lane_node: np.ndarray


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def new_scratch(m):
    """The working arrays of a block of at most m rows."""
    return Scratch(np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64),
                   np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64),
                   np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64),
                   np.empty(m, dtype=np.int64), np.empty(LANES, dtype=np.int64),
                   np.zeros(LANES, dtype=np.int64))


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _partition(X, n, a, e, ends, records, bits, detours, s_records, n_categories, sc):
    """The rows sc.idx[a:e] at binary test record n split by its test: those of child 0 first,
    then those of child 1 (in any order: each row's end is its own); a row that stops here gets
    ends[row] = the node. Returns (rows of child 0, rows of child 1). A detour gives 0, 1 or a
    negative stop at a binary test (``integrity.check_tree`` refuses any other missing_branch,
    surrogate side or category entry): the write positions below rely on it."""
    seg = sc.idx[a:e]  # views indexed from 0 and unsigned positions: no negative-index fix-ups
    right = sc.right
    n_left = 0
    n_right = 0
    f = records[n].feature
    if f >= 0:  # a threshold test: x > t goes right, a missing value takes the detour
        t = records[n].threshold
        for p in range(e - a):
            r = seg[p]
            x = X[np.uint64(r), np.uint64(f)]
            g = np.int64(x > t)
            if x != x:
                g = _detour(X, r, n, detours, s_records, bits, n_categories)
                if g < 0:
                    ends[r] = detours[n].node
                    continue
            seg[np.uint64(n_left)] = r  # branch-free: either side is as likely
            right[np.uint64(n_right)] = r
            n_left += 1 - g
            n_right += g
    else:  # a subset test: the category's bits, else the detour
        col = np.uint64((-2 - f) >> 1)
        k = n_categories[col]
        offset = np.int64(records[n].threshold)
        for p in range(e - a):
            r = seg[p]
            x = X[np.uint64(r), col]
            g = -1
            if x > -1.0 and x < k:  # np.int64(x) is undefined for larger floats
                code = np.int64(x)
                word = np.uint64(offset + 2 * (code >> 6))
                bit = np.uint64(1) << np.uint64(code & 63)
                if (bits[word] & bit) != 0:
                    g = np.int64((bits[word + np.uint64(1)] & bit) != 0)
            if g < 0:
                g = _detour(X, r, n, detours, s_records, bits, n_categories)
                if g < 0:
                    ends[r] = detours[n].node
                    continue
            seg[np.uint64(n_left)] = r
            right[np.uint64(n_right)] = r
            n_left += 1 - g
            n_right += g
    for p in range(n_right):
        seg[np.uint64(n_left + p)] = right[p]
    return n_left, n_right


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def push_segment(sc, top, n, a, e):
    """Segment [a, e) of sc.idx at record n onto the stack, unless empty; returns the top. The
    segments on the stack are disjoint and non-empty: never more than the block's rows."""
    if e > a:
        sc.seg_node[top], sc.seg_lo[top], sc.seg_hi[top] = n, a, e
        top += 1
    return top


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def push_children(sc, top, left, a, n_left, n_right):
    """A split segment's children (records left and left + 1) onto the stack, child 0 on top:
    it is split next, and its records follow the parent's. Returns the top."""
    top = push_segment(sc, top, left + 1, a + n_left, a + n_left + n_right)
    return push_segment(sc, top, left, a, a + n_left)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def settle_segment(n, a, e, split_min, records, ends, sc, n_tail):
    """A segment [a, e) of sc.idx at record n that is not split: at a leaf its rows end there;
    with fewer than ``split_min`` rows, or at a multiway test, they join the rows walked one by
    one (sc.tail_row, from record n). Returns (rows in the tail, whether it was settled)."""
    f = records[n].feature
    if f == COMPACT_LEAF:
        for p in range(a, e):
            ends[sc.idx[p]] = records[n].left
        return n_tail, True
    if e - a < split_min or (f <= -2 and (-2 - f) & 1):  # few rows, or a multiway test
        for p in range(a, e):
            sc.tail_row[n_tail] = sc.idx[p]
            sc.tail_node[n_tail] = n
            n_tail += 1
        return n_tail, True
    return n_tail, False


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _walk_compact(X, lo, hi, ends, check_finite, split_min, records, bits, detours, s_records,
                  pool, n_categories, sc):
    """Rows lo..hi-1 through the compact layout: ends[i] = the node row i ends in (a leaf, or
    the split node where it stops), or -1 for a row holding an infinite value (looked for only
    with ``check_finite``).

    The block's rows go down the tree together, node by node (``_partition``: one test record
    read per node, a short loop over its rows with no branch to mispredict), until a node holds
    fewer than ``split_min`` of them or is a multiway test; those rows are walked one by one from
    there (``_walk_lanes``). Walking each row alone, the kind of test and the side taken change
    from step to step, and a mispredicted branch costs about as much as the rest of a step.
    A tree of threshold tests alone has no kind to guess and walks its sides branch-free: there
    the caller passes a ``split_min`` above the block (``Tree.split_min``)."""
    if check_finite:
        _mark_infinite(X, lo, hi, ends)
    else:
        ends[lo:hi] = 0
    m = 0
    for i in range(lo, hi):
        if ends[i] != -1:
            sc.idx[m] = i
            m += 1
    top = push_segment(sc, 0, 0, 0, m)
    n_tail = 0
    while top > 0:
        top -= 1
        n, a, e = sc.seg_node[top], sc.seg_lo[top], sc.seg_hi[top]
        n_tail, settled = settle_segment(n, a, e, split_min, records, ends, sc, n_tail)
        if not settled:
            n_left, n_right = _partition(X, n, a, e, ends, records, bits, detours, s_records,
                                         n_categories, sc)
            top = push_children(sc, top, records[n].left, a, n_left, n_right)
    _walk_lanes(X, sc.tail_row, sc.tail_node, n_tail, ends, records, bits, detours, s_records,
                pool, n_categories, sc.lane_row, sc.lane_node)


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _route_block(X, lo, hi, ends, table, out, check_finite, split_min, records, bits, detours,
                 s_records, pool, n_categories, sc):
    """Rows lo..hi-1: their end nodes into ``ends`` and table[end] into ``out`` (a class label,
    a distribution, a value; nothing when the table has no columns). Returns the first row with
    an infinite value, or -1."""
    _walk_compact(X, lo, hi, ends, check_finite, split_min, records, bits, detours, s_records,
                  pool, n_categories, sc)
    first_inf = -1
    k = table.shape[1]
    for i in range(lo, hi):
        if ends[i] == -1:  # refused by the caller; any node will do meanwhile
            ends[i] = 0
            if first_inf < 0:
                first_inf = i
        e = ends[i]
        for c in range(k):
            out[i, c] = table[e, c]
    return first_inf


@njit(cache=True, no_cfunc_wrapper=True)
def route_rows(X, table, check_finite, split_min, records, bits, detours, s_records, pool,
               n_categories):
    """(ends, out, first_inf): the node each row ends in (as ``apply_rows``), table[end] per row,
    and the first row holding an infinite value (-1: none, or not looked for; then ``ends`` /
    ``out`` are not meaningful for it). ``records`` .. ``s_records``: the tree's compact layout
    (``compact_layout``, ``category_bits``, the detours and surrogate records)."""
    n = X.shape[0]
    ends = np.empty(n, dtype=np.int64)
    out = np.empty((n, table.shape[1]), dtype=table.dtype)
    first_inf = -1
    sc = new_scratch(min(n, BLOCK))
    for lo in range(0, n, BLOCK):
        bad = _route_block(X, lo, min(n, lo + BLOCK), ends, table, out, check_finite, split_min,
                           records, bits, detours, s_records, pool, n_categories, sc)
        if bad >= 0 and first_inf < 0:
            first_inf = bad
    return ends, out, first_inf


@njit(cache=True, parallel=True, no_cfunc_wrapper=True)
def route_rows_parallel(X, table, check_finite, split_min, records, bits, detours, s_records,
                        pool, n_categories):
    """``route_rows`` with the blocks of rows shared among the threads (each row's result does
    not depend on the others, so it is the same)."""
    n = X.shape[0]
    ends = np.empty(n, dtype=np.int64)
    out = np.empty((n, table.shape[1]), dtype=table.dtype)
    n_blocks = (n + BLOCK - 1) // BLOCK
    bad = np.empty(n_blocks, dtype=np.int64)
    for b in prange(n_blocks):
        lo = b * BLOCK
        bad[b] = _route_block(X, lo, min(n, lo + BLOCK), ends, table, out, check_finite,
                              split_min, records, bits, detours, s_records, pool, n_categories,
                              new_scratch(min(n - lo, BLOCK)))
    first_inf = -1
    for b in range(n_blocks):
        if bad[b] >= 0:
            first_inf = bad[b]
            break
    return ends, out, first_inf


@njit(cache=True, no_cfunc_wrapper=True)
def path_rows(X, feature, kind, threshold, first_child, pool_offset, pool, n_categories,
              missing_branch, sur_offset, n_sur, s_feature, s_kind, s_threshold, s_left,
              s_pool_offset, max_depth):
    """Decision paths as CSR parts (indptr, indices): the nodes each row visits, root first."""
    n = X.shape[0]
    buf = np.empty((n, max_depth + 1), dtype=np.int64)
    lengths = np.empty(n, dtype=np.int64)
    for i in range(n):
        node = np.int64(0)
        m = 0
        while True:
            buf[i, m] = node
            m += 1
            if kind[node] == LEAF:
                break
            # the threshold test written out, as in _walk_rows: through _step the CV's paths
            # of 20,000 held-out rows took 124 ms instead of 51 (a default CART fit walks 10 such)
            x = X[i, feature[node]]
            if kind[node] == THRESHOLD and not np.isnan(x):
                node = first_child[node] + (0 if x <= threshold[node] else 1)
                continue
            nxt = _next(X, i, node, feature, kind, threshold, first_child, pool_offset, pool,
                        n_categories, missing_branch, sur_offset, n_sur, s_feature, s_kind,
                        s_threshold, s_left, s_pool_offset)
            if nxt < 0:
                break
            node = nxt
        lengths[i] = m
    indptr = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):
        indptr[i + 1] = indptr[i] + lengths[i]
    indices = np.empty(indptr[n], dtype=np.int64)
    for i in range(n):
        for m in range(lengths[i]):  # a loop: see ``arrays``
            indices[indptr[i] + m] = buf[i, m]
    return indptr, indices


@njit(cache=True, no_cfunc_wrapper=True)
def fractional_distribution(X, feature, kind, threshold, first_child, n_children, pool_offset,
                            pool, n_categories, missing_branch, branch_fraction, value):
    """C4.5's prediction (Quinlan 1993, ch. 3; Zhou 2016 §4.4.2): a row whose tested value is
    missing at a node with fractional routing goes down every branch with weight r_v
    (``branch_fraction``), and the class distributions it reaches are combined with those
    weights. ``value`` rows must already be normalised distributions. Returns one combined
    distribution per row."""
    n = X.shape[0]
    n_nodes = feature.shape[0]
    out = np.zeros((n, value.shape[1]))
    stack_node = np.empty(n_nodes, dtype=np.int64)
    stack_w = np.empty(n_nodes, dtype=np.float64)
    for i in range(n):
        top = 1
        stack_node[0] = 0
        stack_w[0] = 1.0
        while top > 0:
            top -= 1
            node = stack_node[top]
            w = stack_w[top]
            if kind[node] == LEAF:
                for k in range(value.shape[1]):  # loops: see ``arrays``
                    out[i, k] += w * value[node, k]
                continue
            x = X[i, feature[node]]
            if np.isnan(x):
                if missing_branch[node] == MISSING_FRACTIONAL:
                    for c in range(first_child[node], first_child[node] + n_children[node]):
                        if branch_fraction[c] > 0.0:
                            stack_node[top] = c
                            stack_w[top] = w * branch_fraction[c]
                            top += 1
                    continue
                b = missing_branch[node]
            else:
                b = _branch(x, node, feature, kind, threshold, pool_offset, pool, n_categories)
            if b < 0:
                for k in range(value.shape[1]):
                    out[i, k] += w * value[node, k]
            else:
                stack_node[top] = first_child[node] + b
                stack_w[top] = w
                top += 1
    return out
