"""A node's rows as a segment [start, end) of parallel arrays, and how a split partitions them.

Every array holds the node's rows in ascending row order (the reference builder's node order):

    row    row ids
    w      each row's weight at the node (C4.5 splits a row's weight over branches)
    yc/yr  class codes / regression targets, moved with the rows so that scans read them in order
    codes  one byte per binned column (category code, or histogram bin; the missing code is the
           column's number of values), moved as 64-bit words of 8 codes
    words  one row per presorted (exact continuous) column: the node's rows sorted by the column's
           value, ties in row order, each a 64-bit word

         bits 0-31   row id
         bits 32-51  the row's class code (classification)
         bit 52      TIE: same value as the word before it
         bit 53      END: not a known value of positive weight (missing, or a row of weight 0);
                     such rows come last in every column, in row order
         bits 54-56  GAP (J48): g = i - j for the row at position i of the whole column's
                     sorted known values, where j is the last position whose value is more than
                     1e-5 below it (J48's ``DISTINCT``); 0 when g > 7 or there is none
         bits 57-62  RANK (J48): i mod 64

The J48 fields tell release 8's scan whether two neighbours of a segment, whose positions in the
whole column are a < i, are a cut (values more than 1e-5 apart) mostly without reading their
values: they are exactly when i - a >= g (``release8_scan._cut_before``).

A column is sorted once per fit (once for all the folds of a cross-validation: ``presort``); a
split partitions every column's segment stably into the children's segments, so each stays
sorted and no node sorts again. Two rows that become
neighbours in a child tie exactly when every row between them in the parent tied with its
predecessor, so the partition carries the TIE flags with an AND per child.

Binary splits (CART) partition in place, left rows first. A multiway or C4.5 split writes the
children after one another from ``start``, the last branch first: a row whose tested value is
missing goes to every branch that receives it, so the children can take more room than the
parent, and growing depth-first with the first branch on top keeps the node being split the
topmost segment, free to grow upwards.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from .arrays import enlarged, unset
from .j48 import DISTINCT
from .radix import radix_argsort_keys

ROW_MASK = 0xFFFFFFFF
CODE_SHIFT = 32
CODE_MASK = 0xFFFFF  # 20 bits: up to 1,048,576 classes in a word
TIE_SHIFT = 52
TIE_BIT = 1 << TIE_SHIFT
END_BIT = 1 << 53
GAP_SHIFT = 54
GAP_MAX = 7
RANK_SHIFT = 57
RANK_MASK = 63
MAX_CLASSES = CODE_MASK + 1
MAX_ROWS = ROW_MASK + 1


class Segments(NamedTuple):
    row: np.ndarray  # (cap,) int64
    w: np.ndarray  # (cap,) float64
    yc: np.ndarray  # (cap,) int64, or empty
    yr: np.ndarray  # (cap,) float64, or empty
    codes: np.ndarray  # (cap, n_code_words) int64: 8 byte codes per word
    words: np.ndarray  # (n_sorted, cap) int64


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def class_of(word):
    return (word >> CODE_SHIFT) & CODE_MASK


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def row_of(word):
    return word & ROW_MASK


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def tied(word):
    """1 when the word's value equals the previous word's (in its column's order)."""
    return (word >> TIE_SHIFT) & 1


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def gap(word):
    """The word's GAP field (J48), 0 if unknown."""
    return (word >> GAP_SHIFT) & GAP_MAX


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def rank(word):
    """The word's position in its whole column, mod 64 (J48)."""
    return (word >> RANK_SHIFT) & RANK_MASK


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def is_end(word):
    return (word & END_BIT) != 0


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def code_at(codes, t, slot):
    """The byte code of binned column ``slot`` for segment position t."""
    return (codes[t, slot >> 3] >> ((slot & 7) * 8)) & 0xFF


# ----------------------------------------------------------------------------- the root


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def presort_column(column, w, yc, out, j48):
    """One column's words at the root into ``out``: the rows with a known value and positive
    weight by value (stable: ties in row order), then the others in row order, flagged END;
    with their J48 fields when ``j48`` (else 0: a pass over the sorted values saved).
    The column is read once: in a row-major matrix it is strided, a cache line per value."""
    n = column.shape[0]
    values = np.empty(n)
    ids = np.empty(n, dtype=np.int64)  # the known rows from the front, the others from the back
    m = 0
    u = n
    for r in range(n):
        x = column[r]
        if w[r] > 0.0 and not np.isnan(x):
            values[m] = x
            ids[m] = r
            m += 1
        else:
            u -= 1
            ids[u] = r
    order, keys = radix_argsort_keys(values[:m])
    has_codes = yc.shape[0] > 0
    j = -1  # the last position more than 1e-5 below position i (J48's GAP)
    for i in range(m):
        r = ids[order[i]]
        word = np.int64(r)
        if has_codes:
            word |= np.int64(yc[r]) << CODE_SHIFT
        if i > 0 and keys[i] == keys[i - 1]:  # equal keys are equal values (-0.0 == 0.0)
            word |= TIE_BIT
        if j48:
            word |= np.int64(i & RANK_MASK) << RANK_SHIFT
            x = values[order[i]]
            while j + 1 < i and values[order[j + 1]] + DISTINCT < x:
                j += 1
            if j >= 0 and i - j <= GAP_MAX:
                word |= np.int64(i - j) << GAP_SHIFT
        out[i] = word
    for p in range(m, n):  # the others were stored last row first
        r = ids[n - 1 - (p - m)]
        word = np.int64(r) | END_BIT
        if has_codes:
            word |= np.int64(yc[r]) << CODE_SHIFT
        out[p] = word


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def root_segments(X, yc, yr, w, sorted_columns, binned_columns, from_bins, binned_codes, n_values,
                  capacity, j48):
    """The root's segment arrays, with room for ``capacity`` rows (``j48``: with the words' J48
    fields, for release 8). Binned column s is column
    ``binned_columns[s]``: its codes are a categorical column's category codes, read from X
    (missing: n_values[j]), or, when ``from_bins[s]``, histogram bins from ``binned_codes``
    ((n, d) uint8, made by binning)."""
    n = X.shape[0]
    words = np.empty((sorted_columns.shape[0], capacity), dtype=np.int64)
    for s in range(sorted_columns.shape[0]):
        presort_column(X[:, sorted_columns[s]], w, yc, words[s], j48)
    return _segments_of(X, yc, yr, w, np.arange(n), binned_columns, from_bins, binned_codes,
                        n_values, capacity, words)


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def fold_segments(X, yc, yr, w, rows, binned_columns, from_bins, binned_codes, n_values, words):
    """``root_segments`` of the rows ``rows`` of X, yc, yr and w (ascending ids, read in place:
    a cross-validation fold), given their words ((n_sorted, len(rows)): ``presort.kept_words``)."""
    return _segments_of(X, yc, yr, w, rows, binned_columns, from_bins, binned_codes, n_values,
                        rows.shape[0], words)


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _segments_of(X, yc, yr, w, rows, binned_columns, from_bins, binned_codes, n_values, capacity,
                 words):
    """The segment arrays of the rows ``rows`` in row order, with room for ``capacity``."""
    m = rows.shape[0]
    row = np.empty(capacity, dtype=np.int64)
    wt = np.empty(capacity)
    for t in range(m):
        row[t] = rows[t]
        wt[t] = w[rows[t]]
    yc_s = np.empty(capacity if yc.shape[0] > 0 else 0, dtype=np.int64)
    if yc.shape[0] > 0:
        for t in range(m):
            yc_s[t] = yc[rows[t]]
    yr_s = np.empty(capacity if yr.shape[0] > 0 else 0)
    if yr.shape[0] > 0:
        for t in range(m):
            yr_s[t] = yr[rows[t]]
    n_binned = binned_columns.shape[0]
    # empty, and only the rows' own zeroed: numba's np.zeros writes every page of the room
    codes = np.empty((capacity, (n_binned + 7) // 8), dtype=np.int64)
    for t in range(m):
        for k in range(codes.shape[1]):
            codes[t, k] = 0
    for t in range(m):  # row by row: X, the bins and the codes are all row-major
        r = rows[t]
        for s in range(n_binned):
            j = binned_columns[s]
            if from_bins[s]:
                c = np.int64(binned_codes[r, j])
            else:
                x = X[r, j]
                c = n_values[j] if np.isnan(x) else np.int64(x)
            codes[t, s >> 3] |= c << ((s & 7) * 8)
    return Segments(row, wt, yc_s, yr_s, codes, words)


# ----------------------------------------------------------------------------- binary splits


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _split_1d(a, start, m, direction, buf):
    """Stable partition of a[start:start + m] by ``direction`` (0 left, 1 right), left first,
    branch-free (left or right is close to random: a branch would be mispredicted half the
    time)."""
    n_left = 0
    n_right = 0
    for i in range(m):
        x = a[start + i]
        a[start + n_left] = x
        buf[n_right] = x
        right = direction[i]
        n_left += 1 - right
        n_right += right
    for t in range(n_right):
        a[start + n_left + t] = buf[t]
    return n_left


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _split_codes(codes, start, m, direction, buf):
    """``_split_1d`` for whole rows of the codes."""
    k_words = codes.shape[1]
    n_left = 0
    n_right = 0
    for i in range(m):
        for k in range(k_words):
            x = codes[start + i, k]
            codes[start + n_left, k] = x
            buf[n_right, k] = x
        right = direction[i]
        n_left += 1 - right
        n_right += right
    for t in range(n_right):
        for k in range(k_words):
            codes[start + n_left + t, k] = buf[t, k]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _split_words(words, s, start, end, goes_left, buf):
    """Stable partition of column s's words by the row's side (``goes_left`` by row id), each side
    still sorted; a word's TIE flag in its child is the AND of the flags from its side's previous
    word up to it. The loops index a view of the segment from 0 and store at unsigned positions:
    numba adds no negative-index fix-up then, which kept the copy back from being a plain copy
    and cost a quarter of the loop."""
    seg = words[s, start:end]
    n_left = 0
    n_right = 0
    tie_left = np.int64(1)
    tie_right = np.int64(1)
    untie = ~np.int64(TIE_BIT)
    for i in range(end - start):
        word = seg[i]
        g = np.int64(goes_left[word & ROW_MASK])
        t = tied(word)
        tie_left &= t
        tie_right &= t
        moved = (word & untie) | (((tie_left & g) | (tie_right & (1 - g))) << TIE_SHIFT)
        tie_left |= g
        tie_right |= 1 - g
        seg[np.uint64(n_left)] = moved
        buf[np.uint64(n_right)] = moved
        n_left += g
        n_right += 1 - g
    right = words[s, start + n_left:end]
    for t in range(n_right):
        right[t] = buf[t]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def split_binary(seg, start, end, direction, goes_left, buf_i, buf_f, buf_codes, least):
    """Partition the segment stably by ``direction`` (0 left, 1 right, per segment position):
    returns the first position of the right child. ``goes_left``: scratch by row id; the
    buffers (at least m entries, m rows of codes) may share memory: one is used at a time.
    ``least``: the fewest rows a child needs to be split again. When neither child holds that
    many, both are leaves: only their rows, weights and targets are partitioned (a leaf's
    statistics read them), and the codes and words, which only a split search reads, are left
    as they lie (a third of a fully grown tree's splits are of two rows)."""
    m = end - start
    n_left = _split_1d(seg.row, start, m, direction, buf_i)
    _split_1d(seg.w, start, m, direction, buf_f)
    if seg.yc.shape[0] > 0:
        _split_1d(seg.yc, start, m, direction, buf_i)
    if seg.yr.shape[0] > 0:
        _split_1d(seg.yr, start, m, direction, buf_f)
    if max(n_left, m - n_left) < least:
        return start + n_left
    if seg.codes.shape[1] > 0:
        _split_codes(seg.codes, start, m, direction, buf_codes)
    for t in range(m):  # the rows' sides by row id, in their new order (the same sides)
        goes_left[seg.row[start + t]] = np.int8(t < n_left)
    for s in range(seg.words.shape[0]):
        _split_words(seg.words, s, start, end, goes_left, buf_i)
    return start + n_left


# ----------------------------------------------------------------------------- multiway splits


class MultiwayScratch(NamedTuple):
    """What a multiway partition works in (``split_multiway``): per position of the children's
    segments (at least the rows they hold, copies included), and per branch."""

    src: np.ndarray  # int64: the parent position each child position takes its row from
    factor: np.ndarray  # float64: the weight factor of that row there (1, or r_v for a copy)
    ints: np.ndarray  # int64: staging of an int64 array
    floats: np.ndarray  # float64: staging of a float64 array, the same memory as ``ints``
    fill: np.ndarray  # (max branches,) int64: each child's next position
    last: np.ndarray  # (max branches,) int64: each child's previous word
    receivers: np.ndarray  # (max branches,) int64: the children that take rows without a branch


def new_multiway_scratch(n_rows, max_branches):
    """Room for ``n_rows`` positions. ``split_multiway`` stages one array at a time, so its int64
    and float64 staging share their memory (each is 8 bytes a position of C4.5's root split:
    16 MB at 10^6 rows)."""
    k = max(max_branches, 2)
    staging = unset(n_rows, np.int64)
    return MultiwayScratch(unset(n_rows, np.int64), unset(n_rows), staging,
                           staging.view(np.float64),
                           np.empty(k, dtype=np.int64), np.empty(k, dtype=np.int64),
                           np.empty(k, dtype=np.int64))


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def child_layout(start, branch, receives, n_branches, c_start, c_end):
    """Where each child's segment lies after a multiway split, into c_start[:n_branches],
    c_end[:n_branches]: child b gets its own rows (branch b) plus, when ``receives[b]``, every
    row without a branch (-1). Children are laid out from ``start``, the last branch first.
    Returns the end of the first child, the last position they take."""
    for b in range(n_branches):
        c_end[b] = 0  # each child's own rows first
    lost = 0
    for t in range(branch.shape[0]):
        if branch[t] >= 0:
            c_end[branch[t]] += 1
        else:
            lost += 1
    pos = start
    for b in range(n_branches - 1, -1, -1):
        c_start[b] = pos
        pos += c_end[b] + (lost if receives[b] else 0)
        c_end[b] = pos
    return pos


def with_capacity(seg, needed):
    """The segment arrays with room for ``needed`` rows (the same when they have it); the new
    positions unset (a split writes what it uses)."""
    cap = seg.row.shape[0]
    if needed <= cap:
        return seg
    new = max(needed, 2 * cap)
    words = unset((seg.words.shape[0], new), seg.words.dtype)
    words[:, :cap] = seg.words
    return Segments(enlarged(seg.row, new), enlarged(seg.w, new),
                    enlarged(seg.yc, new) if seg.yc.shape[0] > 0 else seg.yc,
                    enlarged(seg.yr, new) if seg.yr.shape[0] > 0 else seg.yr,
                    enlarged(seg.codes, new), words)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def split_multiway(seg, start, end, branch, n_b, ch, branch_of_row, mw):
    """Write each child's rows into [c_start[b], c_end[b]) (``child_layout``, in the split's
    ``ch``): a row of branch b keeps its weight; a row without a branch (-1) goes to every child
    that ``ch.receives`` with weight w * ch.fractions[b]. Rows keep their order in every child,
    and so do the words of every column (their TIE flags recomputed per child).
    ``branch_of_row``: scratch by row id; ``mw``: at least c_end.max() - start positions. The
    segment must have room up to c_end.max() (``with_capacity``). Allocates nothing: it runs
    once per split, and numba counts the references of every array a function that allocates
    touches (C4.5's fits at 10^5 rows spent a tenth of their time there)."""
    c_start, c_end, receives, fractions = ch.c_start, ch.c_end, ch.receives, ch.fractions
    src, factor, scratch_i, scratch_f = mw.src, mw.factor, mw.ints, mw.floats
    fill, last, receivers = mw.fill, mw.last, mw.receivers
    m = end - start
    top = start
    n_recv = 0
    for b in range(n_b):
        top = max(top, c_end[b])
        if receives[b]:
            receivers[n_recv] = b
            n_recv += 1
    total = top - start
    for t in range(m):
        branch_of_row[seg.row[start + t]] = branch[t]

    # 1-D arrays: the destinations of each position, then a gather per array
    for b in range(n_b):
        fill[b] = c_start[b] - start
    for t in range(m):
        b = branch[t]
        if b >= 0:
            src[fill[b]] = t
            factor[fill[b]] = 1.0
            fill[b] += 1
        else:
            for r in range(n_recv):
                c = receivers[r]
                src[fill[c]] = t
                factor[fill[c]] = fractions[c]
                fill[c] += 1
    for u in range(total):
        scratch_i[u] = seg.row[start + src[u]]
    for u in range(total):
        seg.row[start + u] = scratch_i[u]
    for u in range(total):  # w * 1.0 is w exactly: a row of its own branch keeps its weight
        scratch_f[u] = seg.w[start + src[u]] * factor[u]
    for u in range(total):
        seg.w[start + u] = scratch_f[u]
    if seg.yc.shape[0] > 0:
        for u in range(total):
            scratch_i[u] = seg.yc[start + src[u]]
        for u in range(total):
            seg.yc[start + u] = scratch_i[u]
    if seg.yr.shape[0] > 0:
        for u in range(total):
            scratch_f[u] = seg.yr[start + src[u]]
        for u in range(total):
            seg.yr[start + u] = scratch_f[u]
    for k in range(seg.codes.shape[1]):  # a word of codes at a time
        for u in range(total):
            scratch_i[u] = seg.codes[start + src[u], k]
        for u in range(total):
            seg.codes[start + u, k] = scratch_i[u]

    # words: each column's segment in its own order, ties recomputed per child. A child's word
    # is tied when every word since the child's previous one (itself included) is tied: no
    # untied word lies after that previous one. Positions, not a flag per child, so a word
    # costs O(1) whatever the number of branches (a 200-category split cost 200 per word).
    untie = ~np.int64(TIE_BIT)
    for s in range(seg.words.shape[0]):  # last: each child's previous word, start - 1 at first
        for b in range(n_b):
            fill[b] = c_start[b] - start
            last[b] = start - 1
        untied = start - 1  # the last untied word so far
        for i in range(start, end):
            word = seg.words[s, i]
            if tied(word) == 0:
                untied = i
            b = branch_of_row[word & ROW_MASK]
            if b >= 0:
                scratch_i[fill[b]] = (word & untie) | (np.int64(untied <= last[b]) << TIE_SHIFT)
                fill[b] += 1
                last[b] = i
            else:
                for r in range(n_recv):
                    c = receivers[r]
                    scratch_i[fill[c]] = (word & untie) | (np.int64(untied <= last[c]) << TIE_SHIFT)
                    fill[c] += 1
                    last[c] = i
        for u in range(total):
            seg.words[s, start + u] = scratch_i[u]
