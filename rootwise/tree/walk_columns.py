"""The compact walk (``walk``) over column-wise input: ``num`` (continuous columns, one row each,
float64) and ``codes`` (categorical columns, one row each, int16 codes, or int32 for columns of
more than 32,768 categories; ``input/columns``).

Prediction from a DataFrame then reads the table's own float columns and a small code matrix,
never an n x d float64 matrix. The records are the tree's compact records with each feature
renumbered to its row in ``num`` or ``codes`` (``column_records``); every row takes the steps of
``walk._walk_compact``, so the end nodes are the same.

Rows go in blocks (``block_rows``). A block is first read column by column in order
(``_scan_block``, which also looks for infinite values), so that the later scattered reads find
its lines in cache. Then its rows go down the tree together, node by node (``_walk_block``): at
a binary test the node's rows of the block are split into its two children in one short loop
with no branch (``_split``; walking rows one at a time, the kind of test and the side taken
change from step to step, and a mispredicted branch cost about as much as the rest of the
step). Below ``Tree.split_min`` rows of a node, and at multiway tests, the rows are walked one
by one (``_walk_lanes``). Measured on the benchmark table (``benchmarks/data.real_table``,
10^6 rows, one thread, CPU time): 179 -> 105 ms on the full tree of 9,205 leaves, 116 -> 54 ms
at depth 10, splitting rows with a branch per row; then on the hard table
(``benchmarks/data.hard_table``, 4 classes, 15 % missing cells, up to 1,000 categories, 10^6
rows, one thread, CPU time, the walk alone) 43 -> 34 ms at depth 8 with the branch-free split.
"""

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .._config import CODE_MISSING, THRESHOLD
from .walk import COMPACT_LEAF, LANES, category_sides

# rows: on the benchmark table (about 120 bytes a row) a block's columns stay in the core's L2 cache
BLOCK = 16384
# rows of a block in a tree of more than LARGE_TREE records. Its records (16 bytes each) and bits
# do not stay in cache, and below the depth where a node holds SPLIT_MIN rows of the block each
# row's steps are misses; more rows a block keep more levels split together. The hard benchmark
# table's fully grown tree (244,845 records, 10^6 rows, one thread): 465 ms a walk with blocks of
# 16,384 rows, 327 ms with 262,144; the depth-8 tree (511 records) is fastest with 16,384.
LARGE_BLOCK = 262144
LARGE_TREE = 16384


def block_rows(n_records: int) -> int:
    """Rows of a block for a tree of ``n_records`` compact records."""
    return LARGE_BLOCK if n_records > LARGE_TREE else BLOCK


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


class Scratch(NamedTuple):
    """Working arrays of one block of rows (``new_scratch``): its rows by segment, in two
    buffers (a split reads a segment from one and writes its children into the other, at the
    same positions), the rows of a split that take a detour, the segments still to split (node
    and buffer, first and last position), the rows left to walk one by one with their records,
    and the lanes."""

    rows: np.ndarray
    other: np.ndarray
    detour: np.ndarray
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
                   np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64),
                   np.empty(LANES, dtype=np.int64), np.zeros(LANES, dtype=np.int64))


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _split(num, codes, n, src, dst, a, e, detour, ends, records, bits, detours, s_records,
           n_categories):
    """The rows src[a:e] at binary test record n written into dst[a:e] by its test: child 0's
    from a up, child 1's from e - 1 down; a row that stops here gets ends[row] = the node.
    Returns (rows of child 0, rows of child 1).

    The loop over the rows has no branch: each row is written at the next free place of both
    children and of the detour list, and only the count of the side it takes moves on (the two
    children's places never cross, and meet at the last row). Rows with a missing value, or a
    category without a branch here, are taken from the detour list afterwards, one by one. With
    a branch per row for them (15 % missing cells: one row in seven at every level) the
    mispredictions cost as much as the rest of the loop."""
    one = np.uint64(1)
    n_left = np.uint64(0)
    n_right = np.uint64(0)
    n_detour = np.uint64(0)
    first = np.uint64(a)  # unsigned positions: no negative-index fix-ups
    last = np.uint64(e - 1)
    f = records[n].feature
    if f >= 0:  # a threshold test: x > t goes right, NaN (x != x) takes the detour
        t = records[n].threshold
        column = num[f]
        for p in range(first, np.uint64(e)):
            r = src[p]
            x = column[np.uint64(r)]
            g = np.uint64(x > t)
            known = np.uint64(x == x)
            dst[first + n_left] = r
            dst[last - n_right] = r
            detour[n_detour] = r
            n_right += g
            n_left += known - g
            n_detour += one - known
    else:  # a subset test: the category's bits; a missing, unseen or branchless one detours
        col = (-2 - f) >> 1
        k = np.uint64(n_categories[col])
        offset = np.uint64(records[n].threshold)
        column = codes[col]
        for p in range(first, np.uint64(e)):
            r = src[p]
            code = np.uint64(np.int64(column[np.uint64(r)]))  # a negative code: past k
            inside = np.uint64(code < k)
            c = code & (np.uint64(0) - inside)  # category 0's bits for a code outside 0..k-1
            word = offset + ((c >> np.uint64(6)) << one)
            shift = c & np.uint64(63)
            has = (bits[word] >> shift) & inside
            g = (bits[word + one] >> shift) & has
            dst[first + n_left] = r
            dst[last - n_right] = r
            detour[n_detour] = r
            n_right += g
            n_left += has - g
            n_detour += one - has
    for p in range(np.int64(n_detour)):
        r = detour[p]
        b = _detour(num, codes, r, n, detours, s_records, bits, n_categories)
        if b < 0:
            ends[r] = detours[n].node
        elif b == 0:
            dst[first + n_left] = r
            n_left += one
        else:
            dst[last - n_right] = r
            n_right += one
    return np.int64(n_left), np.int64(n_right)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _push(sc, top, n, buffer, a, e):
    """Segment [a, e) of buffer ``buffer`` (0: sc.rows, 1: sc.other) at record n onto the stack,
    unless empty; returns the top. The segments on the stack are disjoint and non-empty: never
    more than the block's rows."""
    if e > a:
        sc.seg_node[top], sc.seg_lo[top], sc.seg_hi[top] = 2 * n + buffer, a, e
        top += 1
    return top


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _walk_block(num, codes, lo, hi, ends, split_min, records, bits, detours, s_records, pool,
                n_categories, sc):
    """Rows lo..hi-1 through the tree: ends[i] = the node row i ends in. The block's rows go
    down together, split node by node (``_split``: one test record read per node, a loop over
    its rows with no branch), until a node holds fewer than split_min of them or is a multiway
    test; those rows are walked one by one from there (``_walk_lanes``). The same steps as the
    walk alone, so the same end nodes."""
    m = hi - lo
    for p in range(m):
        sc.rows[p] = lo + p
    top = _push(sc, 0, 0, 0, 0, m)
    n_tail = 0
    while top > 0:
        top -= 1
        at, a, e = sc.seg_node[top], sc.seg_lo[top], sc.seg_hi[top]
        n, buffer = at >> 1, at & 1
        src = sc.other if buffer else sc.rows
        f = records[n].feature
        if f == COMPACT_LEAF:
            leaf = records[n].left
            for p in range(a, e):
                ends[src[p]] = leaf
        elif e - a < split_min or (f <= -2 and (-2 - f) & 1):  # few rows, or a multiway test
            for p in range(a, e):
                sc.tail_row[n_tail] = src[p]
                sc.tail_node[n_tail] = n
                n_tail += 1
        else:
            dst = sc.rows if buffer else sc.other
            n_left, n_right = _split(num, codes, n, src, dst, a, e, sc.detour, ends, records,
                                     bits, detours, s_records, n_categories)
            left = records[n].left
            # child 0 on top: it is split next, and its records follow the parent's
            top = _push(sc, top, left + 1, 1 - buffer, e - n_right, e)
            top = _push(sc, top, left, 1 - buffer, a, a + n_left)
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
def route_columns(rows_of, first, codes, n, table, split_min, records, bits, detours, s_records,
                  pool, n_categories, block):
    """(ends, out, first_inf) for ``n`` rows given column-wise, ``block`` rows at a time
    (``block_rows``): as ``walk.route_rows`` (infinite values are always looked for; an infinite
    value is routed as a number meanwhile). The continuous columns are rows_of[:, first:first + n]
    (``Tree.route_columns``: a DataFrame's float block may hold more rows than the table)."""
    num = rows_of[:, first:first + n]
    ends = np.empty(n, dtype=np.int64)
    out = np.empty((n, table.shape[1]), dtype=table.dtype)
    first_inf = -1
    sc = new_scratch(min(n, block))
    for lo in range(0, n, block):
        bad = _route_block(num, codes, lo, min(n, lo + block), ends, table, out, split_min,
                           records, bits, detours, s_records, pool, n_categories, sc)
        if bad >= 0 and first_inf < 0:
            first_inf = bad
    return ends, out, first_inf


@njit(cache=True, parallel=True, no_cfunc_wrapper=True)
def route_columns_parallel(rows_of, first, codes, n, table, split_min, records, bits, detours,
                           s_records, pool, n_categories, block):
    """``route_columns`` with the blocks of rows shared among the threads (same result)."""
    num = rows_of[:, first:first + n]
    ends = np.empty(n, dtype=np.int64)
    out = np.empty((n, table.shape[1]), dtype=table.dtype)
    n_blocks = (n + block - 1) // block
    bad = np.empty(n_blocks, dtype=np.int64)
    for b in prange(n_blocks):
        lo = b * block
        bad[b] = _route_block(num, codes, lo, min(n, lo + block), ends, table, out, split_min,
                              records, bits, detours, s_records, pool, n_categories,
                              new_scratch(min(n - lo, block)))
    first_inf = -1
    for b in range(n_blocks):
        if bad[b] >= 0:
            first_inf = bad[b]
            break
    return ends, out, first_inf
