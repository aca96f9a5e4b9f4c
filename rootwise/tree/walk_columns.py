"""The compact walk (``walk``) over column-wise input: ``num`` (continuous columns, one row each,
float64) and ``codes`` (categorical columns, one row each, int16 codes, or int32 for columns of
more than 32,768 categories; ``input/columns``).

Prediction from a DataFrame then reads the table's own float columns and a small code matrix,
never an n x d float64 matrix. The records are the tree's compact records with each feature
renumbered to its row in ``num`` or ``codes`` (``column_records``); every row takes the steps of
``walk._walk_compact``, so the end nodes are the same.

Rows go in blocks of BLOCK. A block is first read column by column in order (``_scan_block``,
which also looks for infinite values), so that the later scattered reads find its lines in
cache. Then its rows go down the tree together, node by node (``_walk_block``): at a binary test
the node's rows of the block are split into its two children in one short loop, which reads the
test once and has no branch to mispredict (walking rows one at a time, the kind of test and the
side taken change from step to step, and a mispredicted branch cost about as much as the rest
of the step). Below ``Tree.split_min`` rows of a node, and at multiway tests, the rows are
walked one by one (``_walk_lanes``). Measured on the benchmark table
(``benchmarks/data.real_table``, 10^6 rows, one thread, CPU time): 179 -> 105 ms on the full
tree of 9,205 leaves, 116 -> 54 ms at depth 10.
"""

import numpy as np
from numba import njit, prange

from .._config import CODE_MISSING, THRESHOLD
from .walk import (
    COMPACT_LEAF,
    LANES,
    category_sides,
    new_scratch,
    push_children,
    push_segment,
    settle_segment,
)

# rows: on the benchmark table (about 120 bytes a row) a block's columns stay in the core's L2 cache
BLOCK = 16384


def column_records(records, s_records, slot):
    """Copies of the compact node and surrogate records with each feature ``f`` replaced by
    ``slot[f]`` (its row in ``num`` or ``codes``). NumPy: nothing to compile."""
    out = records.copy()
    f = records["feature"]
    test = f >= 0
    out["feature"][test] = slot[f[test]]
    cat = f <= -2
    v = -2 - f[cat]  # 2 x feature + (1 for a multiway test)
    out["feature"][cat] = -2 - (2 * slot[v >> 1] + (v & 1))
    s_out = s_records.copy()
    s_out["feature"] = slot[s_records["feature"]]
    return out, s_out


def fold_fixed_detours(records, origin, bits, missing_branch, n_surrogates, n_categories):
    """A copy of ``bits`` in which a subset test whose detour has a fixed answer (its node has no
    surrogates, and its missing_branch is child 0 or 1) gives that answer to the categories
    without a branch there: they then take the common step instead of a detour, to the same
    child. ``records`` from ``column_records``; ``n_categories`` per row of ``codes``. The
    surrogates' bits are left as they are. NumPy: nothing to compile."""
    f = records["feature"]
    v = -2 - f
    test = np.flatnonzero((f <= -2) & (v % 2 == 0))
    node = origin[test]
    goes = missing_branch[node]
    test = test[(n_surrogates[node] == 0) & ((goes == 0) | (goes == 1))]
    k = n_categories[v[test] >> 1]
    pairs = (k + 63) // 64  # (has a branch, goes to child 1) words per 64 categories
    owner = np.repeat(np.arange(len(test)), pairs)
    p = np.arange(int(pairs.sum())) - np.repeat(np.cumsum(pairs) - pairs, pairs)
    word = records["threshold"][test].astype(np.int64)[owner] + 2 * p
    width = np.minimum(k[owner] - 64 * p, 64).astype(np.uint64)  # categories in this word
    every = np.where(width == 64, np.uint64(0xFFFFFFFFFFFFFFFF),
                     (np.uint64(1) << np.minimum(width, np.uint64(63))) - np.uint64(1))
    out = bits.copy()
    without = every & ~out[word]  # the categories without a branch
    out[word] |= without
    out[word + 1] |= np.where(missing_branch[origin[test]][owner] == 1, without, np.uint64(0))
    return out


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _surrogate_slot(num, codes, r, first, count, s_records, bits, n_categories):
    """``walk._surrogate_slot`` on columns: the child slot of the first of the surrogates
    first..first+count-1 whose value row ``r`` has, else -1."""
    for s in range(first, first + count):
        f = s_records[s].feature
        if s_records[s].kind == THRESHOLD:
            x = num[f, r]
            if x != x:
                continue
            left = np.int64(s_records[s].left)
            return left if x <= s_records[s].threshold else 1 - left
        code = np.int64(codes[f, r])
        if code < 0 or code >= n_categories[f]:
            continue
        has, right = category_sides(bits, np.int64(s_records[s].threshold), code)
        if has:
            return 1 if right else 0
    return -1


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _detour(num, codes, r, n, detours, s_records, bits, n_categories):
    """``walk._detour`` on columns: the first surrogate row ``r`` has, else missing_branch."""
    b = _surrogate_slot(num, codes, r, detours[n].first_surrogate, detours[n].n_surrogates,
                        s_records, bits, n_categories)
    return b if b >= 0 else detours[n].missing_branch


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _scan_block(num, codes, lo, hi):
    """Read rows lo..hi-1 of every column in order (the walk then finds them in cache); returns
    the first of those rows holding an infinite value in ``num``, or -1."""
    first_inf = -1
    for j in range(num.shape[0]):
        bad = False
        for i in range(lo, hi):  # branch-free: the compiler vectorises it
            bad |= np.abs(num[j, i]) == np.inf
        if bad:
            for i in range(lo, hi):
                if np.isinf(num[j, i]):
                    if first_inf < 0 or i < first_inf:
                        first_inf = i
                    break
    touched = 0
    for j in range(codes.shape[0]):
        for i in range(lo, hi, 16):  # a code of each 64-byte line (or 32 bytes, for int16)
            touched |= codes[j, i]
    if touched == -12345:  # never true (codes are >= -2): keeps the reads from being dropped
        first_inf = -2
    return first_inf


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _walk_lanes(num, codes, rows, starts, count, ends, records, bits, detours, s_records, pool,
                n_categories, lane_row, lane_node):
    """``walk._walk_lanes`` on columns, for rows[0..count-1], row rows[k] from record
    starts[k]: ends[row] = the node it ends in. ``n_categories`` per row of ``codes``;
    ``records`` and ``s_records`` from ``column_records``; lane_row, lane_node: LANES each."""
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
                x = num[f, r]
                if x == x:  # a known value: the common step
                    lane_node[g] = records[n].left + (1 if x > records[n].threshold else 0)
                    continue
                b = _detour(num, codes, r, n, detours, s_records, bits, n_categories)
            elif f != COMPACT_LEAF:  # a categorical test
                v = -2 - f
                col = v >> 1
                code = np.int64(codes[col, r])
                offset = np.int64(records[n].threshold)
                if code >= 0 and code < n_categories[col]:
                    if v & 1:  # multiway: the category's branch, or stop (none here)
                        b = pool[offset + code]
                    else:  # subset: its bits, or the detour when the category has no branch
                        word = offset + 2 * (code >> 6)
                        bit = np.uint64(1) << np.uint64(code & 63)
                        if (bits[word] & bit) != 0:  # the common step
                            lane_node[g] = records[n].left + (1 if (bits[word + 1] & bit) != 0
                                                              else 0)
                            continue
                        b = _detour(num, codes, r, n, detours, s_records, bits, n_categories)
                elif code == CODE_MISSING or (v & 1) == 0:  # missing; or unseen at a subset test
                    b = _detour(num, codes, r, n, detours, s_records, bits, n_categories)
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


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _partition(num, codes, n, a, e, ends, records, bits, detours, s_records, n_categories, sc):
    """``walk._partition`` on columns: the rows sc.idx[a:e] at binary test record n split by its
    test, child 0's first; a row that stops here gets ends[row] = the node. Returns (rows of
    child 0, rows of child 1)."""
    seg = sc.idx[a:e]  # views indexed from 0 and unsigned positions: no negative-index fix-ups
    right = sc.right
    n_left = 0
    n_right = 0
    f = records[n].feature
    if f >= 0:  # a threshold test: x > t goes right, a missing value takes the detour
        t = records[n].threshold
        column = num[f]
        for p in range(e - a):
            r = seg[p]
            x = column[np.uint64(r)]
            g = np.int64(x > t)
            if x != x:
                g = _detour(num, codes, r, n, detours, s_records, bits, n_categories)
                if g < 0:
                    ends[r] = detours[n].node
                    continue
            seg[np.uint64(n_left)] = r  # branch-free: either side is as likely
            right[np.uint64(n_right)] = r
            n_left += 1 - g
            n_right += g
    else:  # a subset test: the category's bits, else the detour
        col = (-2 - f) >> 1
        k = n_categories[col]
        offset = np.int64(records[n].threshold)
        column = codes[col]
        for p in range(e - a):
            r = seg[p]
            code = np.int64(column[np.uint64(r)])
            g = -1
            if code >= 0 and code < k:
                word = np.uint64(offset + 2 * (code >> 6))
                bit = np.uint64(1) << np.uint64(code & 63)
                if (bits[word] & bit) != 0:
                    g = np.int64((bits[word + np.uint64(1)] & bit) != 0)
            if g < 0:
                g = _detour(num, codes, r, n, detours, s_records, bits, n_categories)
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
def _walk_block(num, codes, lo, hi, ends, split_min, records, bits, detours, s_records, pool,
                n_categories, sc):
    """Rows lo..hi-1 through the tree: ends[i] = the node row i ends in. The block's rows go
    down together, split node by node (``_partition``: one test record read per node, a short
    loop over its rows with no branch to mispredict), until a node holds fewer than split_min
    of them or is a multiway test; those rows are walked one by one from there
    (``_walk_lanes``). The same steps as the walk alone, so the same end nodes."""
    m = hi - lo
    for p in range(m):
        sc.idx[p] = lo + p
    top = push_segment(sc, 0, 0, 0, m)
    n_tail = 0
    while top > 0:
        top -= 1
        n, a, e = sc.seg_node[top], sc.seg_lo[top], sc.seg_hi[top]
        n_tail, settled = settle_segment(n, a, e, split_min, records, ends, sc, n_tail)
        if not settled:
            n_left, n_right = _partition(num, codes, n, a, e, ends, records, bits, detours,
                                         s_records, n_categories, sc)
            top = push_children(sc, top, records[n].left, a, n_left, n_right)
    _walk_lanes(num, codes, sc.tail_row, sc.tail_node, n_tail, ends, records, bits, detours,
                s_records, pool, n_categories, sc.lane_row, sc.lane_node)


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _route_block(num, codes, lo, hi, ends, table, out, split_min, records, bits, detours,
                 s_records, pool, n_categories, sc):
    """Rows lo..hi-1: scanned, walked, their end nodes into ``ends`` and table[end] into ``out``.
    Returns the first row holding an infinite value, or -1."""
    first_inf = _scan_block(num, codes, lo, hi)
    _walk_block(num, codes, lo, hi, ends, split_min, records, bits, detours, s_records, pool,
                n_categories, sc)
    k = table.shape[1]
    for i in range(lo, hi):
        e = ends[i]
        for c in range(k):
            out[i, c] = table[e, c]
    return first_inf


@njit(cache=True, no_cfunc_wrapper=True)
def route_columns(num, codes, n, table, split_min, records, bits, detours, s_records, pool,
                  n_categories):
    """(ends, out, first_inf) for ``n`` rows given column-wise: as ``walk.route_rows`` (infinite
    values are always looked for; an infinite value is routed as a number meanwhile)."""
    ends = np.empty(n, dtype=np.int64)
    out = np.empty((n, table.shape[1]), dtype=table.dtype)
    first_inf = -1
    sc = new_scratch(min(n, BLOCK))
    for lo in range(0, n, BLOCK):
        bad = _route_block(num, codes, lo, min(n, lo + BLOCK), ends, table, out, split_min,
                           records, bits, detours, s_records, pool, n_categories, sc)
        if bad >= 0 and first_inf < 0:
            first_inf = bad
    return ends, out, first_inf


@njit(cache=True, parallel=True, no_cfunc_wrapper=True)
def route_columns_parallel(num, codes, n, table, split_min, records, bits, detours, s_records,
                           pool, n_categories):
    """``route_columns`` with the blocks of rows shared among the threads (same result)."""
    ends = np.empty(n, dtype=np.int64)
    out = np.empty((n, table.shape[1]), dtype=table.dtype)
    n_blocks = (n + BLOCK - 1) // BLOCK
    bad = np.empty(n_blocks, dtype=np.int64)
    for b in prange(n_blocks):
        lo = b * BLOCK
        bad[b] = _route_block(num, codes, lo, min(n, lo + BLOCK), ends, table, out, split_min,
                              records, bits, detours, s_records, pool, n_categories,
                              new_scratch(min(n - lo, BLOCK)))
    first_inf = -1
    for b in range(n_blocks):
        if bad[b] >= 0:
            first_inf = bad[b]
            break
    return ends, out, first_inf
