"""A column's *entries* at a node: the codes (categories, or histogram bins) its rows of positive
weight hold, ascending, with their sums. Split search and surrogate search read only the entries,
so no table of every category is made per node and column.

    split entries      per code: weighted class counts, or (sum w, sum w y, sum w y^2)
    surrogate entries  per code: the weight and the rows the primary split sends each way, and
                       the rows without a primary value

Every cell adds its rows in the node's row order: the reference's category tables, bit for bit.

Binned columns (a byte code per row) are gathered in one pass over the node's rows for all of
them: each row adds into a cleared table of 256 codes per column and marks its code in a bitmap,
then each column's marked codes are read in ascending order and only they are cleared again:
O(rows x columns + codes present), never O(all codes). A WIDE column (more categories than a byte
holds) reads its int32 codes by row id (``scratch.wide_codes``), one column at a time, with a
bitmap of its codes.
"""

import numpy as np
from numba import njit

from .segments import code_at

CODES = 256  # codes per binned column (0..255; the column's missing code included)
FEW_ROWS = 8  # a node of at most this many rows finds its entries by insertion


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _bit_index(low):
    """k for low = 2^k: the number of bits set in low - 1 (a SWAR population count)."""
    x = low - np.uint64(1)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _read_marked(bits, q, table, width, out_code, out_stats, n_missing_code):
    """The marked codes of binned column q in ascending order into out_code[q] / out_stats[q]
    (the missing code skipped), clearing their cells and bits; returns how many."""
    one = np.uint64(1)
    p = 0
    for word in range(4):
        x = bits[q * 4 + word]
        while x != 0:
            low = x & (~x + one)
            c = word * 64 + _bit_index(low)
            off = (q * CODES + c) * width
            if c != n_missing_code:
                out_code[q, p] = c
                for k in range(width):
                    out_stats[q, p, k] = table[off + k]
                p += 1
            for k in range(width):
                table[off + k] = 0.0
            x ^= low
        bits[q * 4 + word] = 0
    return p


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def binned_split_entries(seg, start, end, binned, n_values, regression, scr):
    """Split entries of every binned column (``binned[q]``: the column of code byte q) at the
    node into scr.ent_code / scr.ent_stats / scr.ent_n."""
    if end - start <= FEW_ROWS:
        _few_split_entries(seg, start, end, binned, n_values, regression, scr)
        return
    nb = binned.shape[0]
    width = scr.ent_stats.shape[2]
    table = scr.table
    bits = scr.bits
    one = np.uint64(1)
    for t in range(start, end):
        wt = seg.w[t]
        if not wt > 0.0:
            continue  # a row of weight 0 holds no code
        if regression:
            yv = seg.yr[t]
            wy = wt * yv
            wyy = wy * yv
        else:
            k = seg.yc[t]
        for q in range(nb):
            c = code_at(seg.codes, t, q)
            off = (q * CODES + c) * width
            if regression:
                table[off] += wt
                table[off + 1] += wy
                table[off + 2] += wyy
            else:
                table[off + k] += wt
            bits[q * 4 + (c >> 6)] |= one << np.uint64(c & 63)
    for q in range(nb):
        scr.ent_n[q] = _read_marked(bits, q, table, width, scr.ent_code, scr.ent_stats,
                                    n_values[binned[q]])


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _few_split_entries(seg, start, end, binned, n_values, regression, scr):
    """``binned_split_entries`` of a node of at most FEW_ROWS rows: each column's codes kept
    ascending by insertion, each entry's sums added from 0 in row order (the table's numbers
    bit for bit), without the table and the bitmap (a column's fixed cost there, reading its
    four bitmap words, was more than its few rows)."""
    nb = binned.shape[0]
    width = scr.ent_stats.shape[2]
    for q in range(nb):
        missing = n_values[binned[q]]
        codes = scr.ent_code[q]
        stats = scr.ent_stats[q]
        p = 0
        for t in range(start, end):
            wt = seg.w[t]
            if not wt > 0.0:
                continue  # a row of weight 0 holds no code
            c = code_at(seg.codes, t, q)
            if c == missing:
                continue
            e = 0
            while e < p and codes[e] < c:
                e += 1
            if e == p or codes[e] != c:  # a new code: its entry at e, the later ones moved up
                for u in range(p, e, -1):
                    codes[u] = codes[u - 1]
                    for k in range(width):
                        stats[u, k] = stats[u - 1, k]
                codes[e] = c
                for k in range(width):
                    stats[e, k] = 0.0
                p += 1
            if regression:
                yv = seg.yr[t]
                wy = wt * yv
                stats[e, 0] += wt
                stats[e, 1] += wy
                stats[e, 2] += wy * yv
            else:
                stats[e, seg.yc[t]] += wt
        scr.ent_n[q] = p


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def wide_split_entries(seg, start, end, j, regression, scr):
    """Split entries of WIDE column j (codes from scr.codes) into scr.wide_code /
    scr.wide_stats; returns how many."""
    width = scr.wide_stats.shape[1]
    table = scr.wide_table
    bits = scr.wide_bits
    codes = scr.codes[scr.column[j]]
    one = np.uint64(1)
    for t in range(start, end):
        wt = seg.w[t]
        if not wt > 0.0:
            continue
        c = np.int64(codes[seg.row[t]])
        if c < 0:  # missing
            continue
        off = c * width
        if regression:
            yv = seg.yr[t]
            wy = wt * yv
            table[off] += wt
            table[off + 1] += wy
            table[off + 2] += wy * yv
        else:
            table[off + seg.yc[t]] += wt
        bits[c >> 6] |= one << np.uint64(c & 63)
    m = 0
    for word in range(bits.shape[0]):  # the codes present, ascending (``_read_marked``)
        x = bits[word]
        while x != 0:
            low = x & (~x + one)
            c = word * 64 + _bit_index(low)
            scr.wide_code[m] = c
            for k in range(width):
                scr.wide_stats[m, k] = table[c * width + k]
                table[c * width + k] = 0.0
            m += 1
            x ^= low
        bits[word] = 0
    return m


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def binned_surrogate_entries(seg, start, end, direction, binned, n_values, skip, scr):
    """Surrogate entries of every binned column but ``skip`` (a code byte; -1: none): per code,
    the weight (scr.se_w) and rows (scr.se_n) the primary sends each way and the rows without a
    primary value (scr.se_pm), over the rows of positive weight; and per column the weight of its
    known rows per primary side added in row order (scr.se_side). ``direction``: each segment
    position's primary branch, -1 when missing."""
    nb = binned.shape[0]
    table = scr.table  # 5 cells per code: w0, w1, n0, n1, rows without the primary
    bits = scr.bits
    one = np.uint64(1)
    for q in range(nb):
        scr.se_side[q, 0] = 0.0
        scr.se_side[q, 1] = 0.0
    for t in range(start, end):
        wt = seg.w[t]
        if not wt > 0.0:
            continue
        d = direction[t - start]
        for q in range(nb):
            if q == skip:
                continue
            c = code_at(seg.codes, t, q)
            if c == n_values[binned[q]]:
                continue
            off = (q * CODES + c) * 5
            if d < 0:
                table[off + 4] += 1.0
            else:
                table[off + d] += wt
                table[off + 2 + d] += 1.0
                scr.se_side[q, d] += wt
            bits[q * 4 + (c >> 6)] |= one << np.uint64(c & 63)
    for q in range(nb):
        scr.se_n_entries[q] = 0
        if q == skip:
            continue
        scr.se_n_entries[q] = _read_surrogate_marked(bits, q, table, scr)


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def counted_surrogate_entries(seg, start, end, direction, binned, n_values, skip, regression,
                              scr, listed):
    """``binned_surrogate_entries`` when every weight is 0 or 1, from the node's split entries
    (scr.ent_code / scr.ent_stats, made by the search at this node: class counts, or a
    regression's (w, wy, wy^2)). Only the rows the primary sends to its side with fewer rows and
    those it sends nowhere are counted; per code the other side holds the rest,

        w_other = w - w_side - w_missing,   w = sum_k ent_stats[q, e, k]  (regression: w column)

    integers all (counts of rows of weight 1), so every cell equals the row-order sum.
    ``listed``: scratch per position."""
    m = end - start
    n0, n1 = 0, 0
    for t in range(m):
        n0 += np.int64(direction[t] == 0)
        n1 += np.int64(direction[t] == 1)
    side = 0 if n0 <= n1 else 1
    # the rows to count, each as 2 t + cell, listed without a branch (the primary's side of a
    # row is a coin toss to the branch predictor)
    n_listed = 0
    for t in range(m):
        d = direction[t]
        listed[n_listed] = 2 * t + np.int64(d < 0)
        n_listed += np.int64((d == side) | (d < 0))
    nb = binned.shape[0]
    table = scr.table  # 2 cells per code: the weight on ``side``, and without a primary branch
    for i in range(n_listed):
        t = start + (listed[i] >> 1)
        cell = listed[i] & 1
        wt = seg.w[t]
        for q in range(nb):
            table[(q * CODES + code_at(seg.codes, t, q)) * 2 + cell] += wt
    width = scr.ent_stats.shape[2]
    for q in range(nb):
        scr.se_side[q, 0] = 0.0
        scr.se_side[q, 1] = 0.0
        missing = (q * CODES + n_values[binned[q]]) * 2
        table[missing] = 0.0
        table[missing + 1] = 0.0
        for e in range(scr.ent_n[q]):  # codes of rows of weight 1: the rows counted hold no other
            off = (q * CODES + scr.ent_code[q, e]) * 2
            w_side, w_missing = table[off], table[off + 1]
            table[off] = 0.0
            table[off + 1] = 0.0
            if q == skip:
                continue
            w = 0.0
            if regression:
                w = scr.ent_stats[q, e, 0]
            else:
                for k in range(width):
                    w += scr.ent_stats[q, e, k]
            w_other = w - w_side - w_missing
            scr.se_code[q, e] = scr.ent_code[q, e]
            scr.se_w[q, e, side] = w_side
            scr.se_w[q, e, 1 - side] = w_other
            scr.se_n[q, e, side] = np.int64(w_side)
            scr.se_n[q, e, 1 - side] = np.int64(w_other)
            scr.se_pm[q, e] = np.int64(w_missing)
            scr.se_side[q, side] += w_side
            scr.se_side[q, 1 - side] += w_other
        scr.se_n_entries[q] = 0 if q == skip else scr.ent_n[q]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _read_surrogate_marked(bits, q, table, scr):
    one = np.uint64(1)
    p = 0
    for word in range(4):
        x = bits[q * 4 + word]
        while x != 0:
            low = x & (~x + one)
            c = word * 64 + _bit_index(low)
            off = (q * CODES + c) * 5
            scr.se_code[q, p] = c
            scr.se_w[q, p, 0] = table[off]
            scr.se_w[q, p, 1] = table[off + 1]
            scr.se_n[q, p, 0] = np.int64(table[off + 2])
            scr.se_n[q, p, 1] = np.int64(table[off + 3])
            scr.se_pm[q, p] = np.int64(table[off + 4])
            p += 1
            for k in range(5):
                table[off + k] = 0.0
            x ^= low
        bits[q * 4 + word] = 0
    return p


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def wide_surrogate_entries(seg, start, end, direction, j, scr):
    """``binned_surrogate_entries`` for WIDE column j, into the first row of scr.se_* of the
    WIDE slot (``scr.wide_se_*``); returns (entries, w0, w1) with w0/w1 the column's known
    weight per primary side added in row order."""
    table = scr.wide_table
    bits = scr.wide_bits
    codes = scr.codes[scr.column[j]]
    one = np.uint64(1)
    side0, side1 = 0.0, 0.0
    for t in range(start, end):
        wt = seg.w[t]
        if not wt > 0.0:
            continue
        c = np.int64(codes[seg.row[t]])
        if c < 0:  # missing
            continue
        off = c * 5
        d = direction[t - start]
        if d < 0:
            table[off + 4] += 1.0
        else:
            table[off + d] += wt
            table[off + 2 + d] += 1.0
            if d == 0:
                side0 += wt
            else:
                side1 += wt
        bits[c >> 6] |= one << np.uint64(c & 63)
    m = 0
    for word in range(bits.shape[0]):  # the codes present, ascending
        x = bits[word]
        while x != 0:
            low = x & (~x + one)
            c = word * 64 + _bit_index(low)
            off = c * 5
            scr.wide_se_code[m] = c
            scr.wide_se_w[m, 0] = table[off]
            scr.wide_se_w[m, 1] = table[off + 1]
            scr.wide_se_n[m, 0] = np.int64(table[off + 2])
            scr.wide_se_n[m, 1] = np.int64(table[off + 3])
            for k in range(5):
                table[off + k] = 0.0
            m += 1
            x ^= low
        bits[word] = 0
    return m, side0, side1
