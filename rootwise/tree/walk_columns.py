"""The compact walk (``walk``) over column-wise input: ``num`` (continuous columns, one row each,
float64) and ``codes`` (categorical columns, one row each, int16 codes, or int32 for columns of
more than 32,768 categories; ``input/columns``).

Prediction from a DataFrame then reads the table's own float columns and a small code matrix,
never an n x d float64 matrix. The records are the tree's compact records with each feature
renumbered to its row in ``num`` or ``codes`` (``column_records``); every row takes the steps of
``walk._walk_compact``, so the end nodes are the same.

Rows go in blocks (``block_rows``). A block's float columns are first searched for infinite
values (``_scan_block``: a branch-free OR over each column, which the compiler vectorises; the
row is looked for only in a column that has one), which also brings them into the cache. Then
its rows go down the tree together, node by node (``_walk_block``): at a binary test the node's
rows of the block are split into its two children in one short loop with no branch (``_split``;
walking rows one at a time, the kind of test and the side taken change from step to step, and a
mispredicted branch cost about as much as the rest of the step). A subset test near the root
reads a byte per category (``category_side_tables``) rather than two bits; the rows that take a
detour are split surrogate by surrogate, each surrogate's record read once. In a large block,
whose columns do not stay in the cache, each row's value is prefetched some rows ahead. Below
``Tree.split_min`` rows of a node, and at multiway tests, the rows are walked one by one
(``_walk_lanes``).

Measured on the benchmark table (``benchmarks/data.real_table``, 10^6 rows, one thread, CPU
time): 179 -> 105 ms on the full tree of 9,205 leaves, 116 -> 54 ms at depth 10, splitting rows
with a branch per row. On the hard table (``benchmarks/data.hard_table``, 4 classes, 15 % missing
cells, up to 1,000 categories, 10^6 rows of a row slice of a larger frame, as ``engine.py
--sections predict`` predicts them; one thread, CPU time, the kernel alone): 43 -> 34 ms at
depth 8 with the branch-free split; then, with the vectorised scan (12 -> 4 ms), the byte tables,
the detours split by surrogate and the prefetch, 61 -> 42 ms at depth 8 and 342 -> 256 ms on the
fully grown tree (244,845 records): medians of 21 alternating runs on a shared, loaded machine
(their minima 43 -> 30 and 295 -> 213 ms).
"""

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .._config import CODE_MISSING, THRESHOLD
from .prefetch import prefetch
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
# rows ahead whose value a split of a large block prefetches: its columns (22 MB a block on the
# hard benchmark table) are not in the core's cache, and a miss waited for in the loop costs more
# than the rest of a row's step. The fully grown tree above: 309 -> 248 ms a walk with 48 rows
# ahead (16: 273 ms, 96 and 160 no better). In a block of BLOCK rows, whose columns the scan has
# just read, the prefetch cost 1 ms of 31 at depth 8: it is left out there.
AHEAD = 48
# A subset test's side of each category, a byte (``category_side_tables``): SIDE_LEFT,
# SIDE_RIGHT, or SIDE_DETOUR (no branch here: the detour, as a missing or unseen category); one
# load where the bits take two words and their shifts. Depth-8 tree of the hard table: 37 -> 32
# ms a walk. Tables for at most SIDES_BUDGET bytes, the tests nearest the root first (a fully
# grown tree's tests with few rows each would need tens of megabytes; they keep the bits).
SIDE_LEFT, SIDE_RIGHT, SIDE_DETOUR = 1, 2, 4
SIDES_BUDGET = 1 << 20


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


def category_side_tables(records, depth, bits, n_categories, budget=SIDES_BUDGET):
    """(sides, at): for subset records, nearest the root first (``depth`` per record) while the
    tables fit in ``budget`` bytes, a table of k + 2 bytes from sides[at[record]]: entry c + 2 is
    the side of category c (SIDE_LEFT, SIDE_RIGHT, SIDE_DETOUR, from the record's two bit words,
    as ``walk.category_sides``), entries 0 and 1 (codes -2 and -1: an unseen or missing
    category) SIDE_DETOUR. at = -1 for the other records. ``records`` and ``bits`` from
    ``column_records`` and ``fold_fixed_detours``; ``n_categories`` per row of ``codes``.
    NumPy: nothing to compile."""
    f = records["feature"].astype(np.int64)
    v = -2 - f
    subset = np.flatnonzero((f <= -2) & (v % 2 == 0))
    subset = subset[np.argsort(depth[subset], kind="stable")]
    size = n_categories[v[subset] >> 1] + 2
    fits = np.cumsum(size) <= budget
    subset, size = subset[fits], size[fits]
    start = np.cumsum(size) - size
    sides = np.full(int(size.sum()), SIDE_DETOUR, dtype=np.uint8)
    for k in np.unique(size - 2):  # the tests of one category count at once
        group = size - 2 == k
        words = records["threshold"][subset[group]].astype(np.int64)[:, None] + 2 * np.arange(
            (k + 63) // 64)
        has, right = (np.unpackbits(bits[w].astype("<u8").view(np.uint8), axis=1,
                                    bitorder="little")[:, :k] for w in (words, words + 1))
        side = np.where(has == 1, SIDE_LEFT + right, SIDE_DETOUR).astype(np.uint8)
        sides[start[group][:, None] + 2 + np.arange(k)] = side
    at = np.full(len(records), -1, dtype=np.int64)
    at[subset] = start
    return sides, at


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
def _scan_block(rows_of, start, lo, hi):
    """The first of rows lo..hi-1 holding an infinite value in a continuous column, or -1; the
    columns are rows_of[:, start:] (each row contiguous: the loop over it is vectorised). Read
    in order, the block's columns are then in the cache for the walk."""
    first_inf = -1
    for j in range(rows_of.shape[0]):
        column = rows_of[j, start + lo:start + hi]
        bad = False
        for i in range(column.shape[0]):  # branch-free: one OR a value, NaN is not infinite
            bad |= np.abs(column[i]) == np.inf
        if bad:
            for i in range(column.shape[0]):
                if np.isinf(column[i]):
                    if first_inf < 0 or lo + i < first_inf:
                        first_inf = lo + i
                    break
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


# The three loops of a split. Each takes the rows src[lo:hi] and writes each one, with no branch,
# at the next free place of both children and of ``rest`` (dst[first + n_left] up for child 0,
# dst[last - n_right] down for child 1, rest[n_rest] up for a row the test cannot place); only the
# count of the side it takes moves on. The children's places never cross: a row being placed is
# one of the rows still between them. ``rest`` may be ``src`` itself (n_rest <= p: a row is read
# before its place is written). Each returns (n_left, n_right, n_rest). ``ahead`` > 0: the value
# of the row that many places on is prefetched.


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _split_threshold(column, t, flip, src, lo, hi, dst, first, last, n_left, n_right, rest,
                     ahead):
    """A threshold test on ``column``: x > t takes child 1 (child 0 when ``flip`` is 1: a
    surrogate whose left child is 1), NaN goes to ``rest``."""
    one = np.uint64(1)
    n_rest = np.uint64(0)
    end = hi - one
    for p in range(lo, hi):
        if ahead:
            prefetch(column, src[min(p + ahead, end)])
        r = src[p]
        x = column[np.uint64(r)]
        known = np.uint64(x == x)
        g = (np.uint64(x > t) ^ flip) & known
        dst[first + n_left] = r
        dst[last - n_right] = r
        rest[n_rest] = r
        n_right += g
        n_left += known - g
        n_rest += one - known
    return n_left, n_right, n_rest


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _split_sides(column, sides, at, size, src, lo, hi, dst, first, last, n_left, n_right, rest,
                 ahead):
    """A subset test with a side table (``category_side_tables``) of ``size`` = k + 2 bytes from
    sides[at]: code c reads entry c + 2, a code outside -2..k-1 entry 0 (the detour)."""
    one = np.uint64(1)
    two = np.uint64(2)
    n_rest = np.uint64(0)
    end = hi - one
    for p in range(lo, hi):
        if ahead:
            prefetch(column, src[min(p + ahead, end)])
        r = src[p]
        c = np.uint64(np.int64(column[np.uint64(r)]) + 2)
        inside = np.uint64(c < size)
        side = np.uint64(sides[at + (c & (np.uint64(0) - inside))])
        dst[first + n_left] = r
        dst[last - n_right] = r
        rest[n_rest] = r
        n_left += side & one
        n_right += (side >> one) & one
        n_rest += side >> two
    return n_left, n_right, n_rest


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _split_bits(column, bits, offset, k, src, lo, hi, dst, first, last, n_left, n_right, rest,
                ahead):
    """A subset test (or subset surrogate) on ``column`` with k categories and its bits from
    bits[offset]: a missing, unseen or branchless category goes to ``rest``."""
    one = np.uint64(1)
    n_rest = np.uint64(0)
    end = hi - one
    for p in range(lo, hi):
        if ahead:
            prefetch(column, src[min(p + ahead, end)])
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
        rest[n_rest] = r
        n_right += g
        n_left += has - g
        n_rest += one - has
    return n_left, n_right, n_rest


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _split(rows_of, start, codes, n, src, dst, a, e, detour, ends, records, bits, sides,
           sides_at, detours, s_records, n_categories, ahead):
    """The rows src[a:e] at binary test record n written into dst[a:e] by its test: child 0's
    from a up, child 1's from e - 1 down; a row that stops here gets ends[row] = the node.
    Returns (rows of child 0, rows of child 1). The continuous columns are rows_of[:, start:].

    The test's loop has no branch (``_split_threshold``, ``_split_sides``, ``_split_bits``).
    Rows with a missing value, or a category without a branch here, go to the detour list; it
    is then split by the node's surrogates in turn, in the same loops (a row takes the first
    surrogate whose value it has, as ``_detour``), and the rows left take missing_branch. With a
    branch per row for them (15 % missing cells: one row in seven at every level) the
    mispredictions cost as much as the rest of the loop; one by one, each row read the
    surrogate records again."""
    zero = np.uint64(0)
    first = np.uint64(a)  # unsigned positions: no negative-index fix-ups
    last = np.uint64(e - 1)
    hi = np.uint64(e)
    f = records[n].feature
    if f >= 0:  # a threshold test: x > t goes right, NaN (x != x) takes the detour
        n_left, n_right, n_open = _split_threshold(
            rows_of[f, start:], records[n].threshold, zero, src, first, hi, dst, first, last,
            zero, zero, detour, ahead)
    else:  # a subset test: the category's side; a missing, unseen or branchless one detours
        col = (-2 - f) >> 1
        if sides_at[n] >= 0:
            n_left, n_right, n_open = _split_sides(
                codes[col], sides, np.uint64(sides_at[n]), np.uint64(n_categories[col] + 2),
                src, first, hi, dst, first, last, zero, zero, detour, ahead)
        else:
            n_left, n_right, n_open = _split_bits(
                codes[col], bits, np.uint64(records[n].threshold), np.uint64(n_categories[col]),
                src, first, hi, dst, first, last, zero, zero, detour, ahead)
    s = np.int64(detours[n].first_surrogate)
    stop = s + detours[n].n_surrogates
    while n_open > 0 and s < stop:
        g = np.int64(s_records[s].feature)
        if s_records[s].kind == THRESHOLD:
            n_left, n_right, n_open = _split_threshold(
                rows_of[g, start:], s_records[s].threshold, np.uint64(s_records[s].left), detour,
                zero, n_open, dst, first, last, n_left, n_right, detour, ahead)
        else:
            n_left, n_right, n_open = _split_bits(
                codes[g], bits, np.uint64(s_records[s].threshold), np.uint64(n_categories[g]),
                detour, zero, n_open, dst, first, last, n_left, n_right, detour, ahead)
        s += 1
    b = detours[n].missing_branch  # the rows without a value for any surrogate
    for p in range(n_open):
        r = detour[p]
        if b < 0:
            ends[r] = detours[n].node
        elif b == 0:
            dst[first + n_left] = r
            n_left += np.uint64(1)
        else:
            dst[last - n_right] = r
            n_right += np.uint64(1)
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
def _walk_block(rows_of, start, num, codes, lo, hi, ends, split_min, records, bits, sides,
                sides_at, detours, s_records, pool, n_categories, sc, ahead):
    """Rows lo..hi-1 through the tree: ends[i] = the node row i ends in. The block's rows go
    down together, split node by node (``_split``: one test record read per node, a loop over
    its rows with no branch), until a node holds fewer than split_min of them or is a multiway
    test; those rows are walked one by one from there (``_walk_lanes``). The same steps as the
    walk alone, so the same end nodes. ``num`` is rows_of[:, start:start + n]."""
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
            for p in range(np.uint64(a), np.uint64(e)):
                ends[np.uint64(src[p])] = leaf
        elif e - a < split_min or (f <= -2 and (-2 - f) & 1):  # few rows, or a multiway test
            for p in range(a, e):
                sc.tail_row[n_tail] = src[p]
                sc.tail_node[n_tail] = n
                n_tail += 1
        else:
            dst = sc.rows if buffer else sc.other
            n_left, n_right = _split(rows_of, start, codes, n, src, dst, a, e, sc.detour, ends,
                                     records, bits, sides, sides_at, detours, s_records,
                                     n_categories, ahead)
            left = records[n].left
            # child 0 on top: it is split next, and its records follow the parent's
            top = _push(sc, top, left + 1, 1 - buffer, e - n_right, e)
            top = _push(sc, top, left, 1 - buffer, a, a + n_left)
    _walk_lanes(num, codes, sc.tail_row, sc.tail_node, n_tail, ends, records, bits, detours,
                s_records, pool, n_categories, sc.lane_row, sc.lane_node)


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _route_block(rows_of, start, num, codes, lo, hi, ends, table, out, split_min, records, bits,
                 sides, sides_at, detours, s_records, pool, n_categories, sc, ahead):
    """Rows lo..hi-1: scanned, walked, their end nodes into ``ends`` and table[end] into ``out``
    (flat: row i's entries at i * k ...). Returns the first row holding an infinite value, or
    -1."""
    first_inf = _scan_block(rows_of, start, lo, hi)
    _walk_block(rows_of, start, num, codes, lo, hi, ends, split_min, records, bits, sides,
                sides_at, detours, s_records, pool, n_categories, sc, ahead)
    k = np.uint64(table.shape[1])
    flat = table.reshape(table.size)
    if k == 1:  # predict: one entry a row
        for i in range(np.uint64(lo), np.uint64(hi)):
            out[i] = flat[np.uint64(ends[i])]
    else:
        for i in range(np.uint64(lo), np.uint64(hi)):
            e = np.uint64(ends[i]) * k
            for c in range(k):
                out[i * k + c] = flat[e + c]
    return first_inf


@njit(cache=True, no_cfunc_wrapper=True)
def route_columns(rows_of, first, codes, n, table, split_min, records, bits, sides, sides_at,
                  detours, s_records, pool, n_categories, block):
    """(ends, out, first_inf) for ``n`` rows given column-wise, ``block`` rows at a time
    (``block_rows``): as ``walk.route_rows`` (infinite values are always looked for; an infinite
    value is routed as a number meanwhile). The continuous columns are rows_of[:, first:first + n]
    (``Tree.route_columns``: a DataFrame's float block may hold more rows than the table);
    ``table`` is C-ordered."""
    num = rows_of[:, first:first + n]
    ends = np.empty(n, dtype=np.int64)
    out = np.empty(n * table.shape[1], dtype=table.dtype)
    first_inf = -1
    sc = new_scratch(min(n, block))
    ahead = np.uint64(AHEAD if block > BLOCK else 0)  # large blocks only
    for lo in range(0, n, block):
        bad = _route_block(rows_of, first, num, codes, lo, min(n, lo + block), ends, table, out,
                           split_min, records, bits, sides, sides_at, detours, s_records, pool,
                           n_categories, sc, ahead)
        if bad >= 0 and first_inf < 0:
            first_inf = bad
    return ends, out.reshape((n, table.shape[1])), first_inf


@njit(cache=True, parallel=True, no_cfunc_wrapper=True)
def route_columns_parallel(rows_of, first, codes, n, table, split_min, records, bits, sides,
                           sides_at, detours, s_records, pool, n_categories, block):
    """``route_columns`` with the blocks of rows shared among the threads (same result)."""
    num = rows_of[:, first:first + n]
    ends = np.empty(n, dtype=np.int64)
    out = np.empty(n * table.shape[1], dtype=table.dtype)
    n_blocks = (n + block - 1) // block
    bad = np.empty(n_blocks, dtype=np.int64)
    ahead = np.uint64(AHEAD if block > BLOCK else 0)  # large blocks only
    for b in prange(n_blocks):
        lo = b * block
        bad[b] = _route_block(rows_of, first, num, codes, lo, min(n, lo + block), ends, table,
                              out, split_min, records, bits, sides, sides_at, detours, s_records,
                              pool, n_categories, new_scratch(min(n - lo, block)), ahead)
    first_inf = -1
    for b in range(n_blocks):
        if bad[b] >= 0:
            first_inf = bad[b]
            break
    return ends, out.reshape((n, table.shape[1])), first_inf
