"""Class histograms of the binned columns at large nodes: histogram subtraction.

A node's split entries and surrogate entries (``entries``) are sums over its rows, one pass over
rows x binned columns per node. A large node keeps them instead as a histogram,

    H[q, c, k] = sum of w over the node's rows of class k whose code in binned column q is c,

and its children's histograms come from it: the smaller child is counted from its rows, the
larger is H(parent) - H(smaller). Its surrogate entries are read from H, H(S) and H(M), S being
the rows the primary sends to its lighter side and M those without a primary branch: the other
side is H - H(S) - H(M). Each row is then counted on the smaller side of a split only.

Exact only for counts. When every weight is 0 or 1 and never changes (CART; ``loop.fit`` checks)
each cell is a count of rows, an integer below 2^53: sums in any order and their differences are
exact, so the entries read from a histogram are the row-order sums bit for bit.

Only a node of at least ``min_rows`` rows gets a histogram: reading or subtracting one costs
O(cells), a pass over rows O(rows x binned columns). Every node of that size has a histogram
(its parent is larger), unless the slots ran out, and then the node and its subtree take the
row passes: the same numbers, more slowly.

Layout: slot s holds H at cells[s, base[q] + c * K + k], K classes, codes 0..n_values (the
missing code included, so that a row is added without a branch). Slots 0 and 1 are scratch
(S and M, or the smaller child); the others are handed out from the stack ``free``.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from .segments import code_at

SIDE = 0  # scratch slot: the primary's lighter side, or a smaller child without a slot
MISSING = 1  # scratch slot: the rows without a primary branch
RATIO = 2.0  # a node gets a histogram when rows x binned columns >= RATIO x cells


class Histograms(NamedTuple):
    cells: np.ndarray  # (slots, cells) float64
    base: np.ndarray  # (binned columns,) int64: the first cell of each code byte's column
    n_codes: np.ndarray  # (binned columns,) int64: codes of each, the missing code included
    free: np.ndarray  # (slots,) int64: free slots, a stack
    n_free: np.ndarray  # (1,) int64
    min_rows: int  # smallest node with a histogram (above n: none)


@njit(cache=True)
def new_histograms(n, binned, n_values, n_classes, enabled):
    """Histogram slots for a fit on n rows (none unless ``enabled``): the largest nodes pending
    at once are disjoint, so n // min_rows slots, plus the node being split and the scratch."""
    nb = binned.shape[0]
    base = np.zeros(nb, dtype=np.int64)
    n_codes = np.zeros(nb, dtype=np.int64)
    size = 0
    for q in range(nb):
        base[q] = size
        n_codes[q] = n_values[binned[q]] + 1
        size += n_codes[q] * n_classes
    min_rows = n + 1
    slots = 0
    if enabled and nb > 0 and RATIO * size <= n * nb:
        min_rows = max(np.int64(np.ceil(RATIO * size / nb)), 2)
        slots = 2 + n // min_rows + 1
    free = np.empty(slots, dtype=np.int64)
    n_free = np.zeros(1, dtype=np.int64)
    for s in range(slots - 1, 1, -1):
        free[n_free[0]] = s
        n_free[0] += 1
    return Histograms(np.zeros((slots, size)), base, n_codes, free, n_free, min_rows)


@njit(cache=True, _nrt=False)
def take(h):
    """A free slot, or -1 when none is left."""
    if h.n_free[0] == 0:
        return -1
    h.n_free[0] -= 1
    return h.free[h.n_free[0]]


@njit(cache=True, _nrt=False)
def release(h, slot):
    """Give a node's slot back (-1: it had none)."""
    if slot >= 2:
        h.free[h.n_free[0]] = slot
        h.n_free[0] += 1


@njit(cache=True, _nrt=False)
def _clear(h, slot):
    cells = h.cells[slot]
    for i in range(cells.shape[0]):
        cells[i] = 0.0


@njit(cache=True, _nrt=False)
def _add_row(cells, base, seg, t, n_classes):
    """Segment position t's weight into its class's cell of every binned column."""
    wt = seg.w[t]
    k = seg.yc[t]
    for q in range(base.shape[0]):
        cells[base[q] + code_at(seg.codes, t, q) * n_classes + k] += wt


@njit(cache=True, _nrt=False)
def count_rows(h, slot, seg, start, end, n_classes):
    """H of the rows [start, end) into ``slot``."""
    _clear(h, slot)
    cells = h.cells[slot]
    for t in range(start, end):
        _add_row(cells, h.base, seg, t, n_classes)


@njit(cache=True, _nrt=False)
def root_slot(h, seg, n, n_classes):
    """The root's slot, counted from all n rows (-1 when the root is too small)."""
    if n < h.min_rows:
        return -1
    slot = take(h)
    if slot >= 0:
        count_rows(h, slot, seg, 0, n, n_classes)
    return slot


@njit(cache=True, _nrt=False)
def split_entries(h, slot, binned, n_values, ent):
    """Every binned column's split entries (``entries.binned_split_entries``) read from the
    node's histogram: each code but the missing one whose cells hold weight, ascending."""
    cells = h.cells[slot]
    n_classes = ent.ent_stats.shape[2]
    for q in range(binned.shape[0]):
        p = 0
        for c in range(n_values[binned[q]]):
            off = h.base[q] + c * n_classes
            w = 0.0
            for k in range(n_classes):
                w += cells[off + k]
            if w > 0.0:
                ent.ent_code[q, p] = c
                for k in range(n_classes):
                    ent.ent_stats[q, p, k] = cells[off + k]
                p += 1
        ent.ent_n[q] = p


@njit(cache=True, _nrt=False)
def _code_weight(cells, off, n_classes):
    w = 0.0
    for k in range(n_classes):
        w += cells[off + k]
    return w


@njit(cache=True, _nrt=False)
def surrogate_entries(h, slot, seg, start, end, direction, binned, n_values, skip, n_classes,
                      ent):
    """Every binned column's surrogate entries but ``skip``'s (``entries.
    binned_surrogate_entries``) from the node's histogram: the rows of the primary's lighter side
    (fewer rows) and those without a primary branch are counted, the other side is the rest."""
    n0, n1 = 0, 0
    for t in range(end - start):
        n0 += np.int64(direction[t] == 0)
        n1 += np.int64(direction[t] == 1)
    side = 0 if n0 <= n1 else 1
    _clear(h, SIDE)
    _clear(h, MISSING)
    on_side = h.cells[SIDE]
    missing = h.cells[MISSING]
    for t in range(start, end):
        d = direction[t - start]
        if d == side:
            _add_row(on_side, h.base, seg, t, n_classes)
        elif d < 0:
            _add_row(missing, h.base, seg, t, n_classes)
    cells = h.cells[slot]
    for q in range(binned.shape[0]):
        ent.se_n_entries[q] = 0
        ent.se_side[q, 0] = 0.0
        ent.se_side[q, 1] = 0.0
        if q == skip:
            continue
        p = 0
        for c in range(n_values[binned[q]]):
            off = h.base[q] + c * n_classes
            w = _code_weight(cells, off, n_classes)
            if not w > 0.0:
                continue
            w_side = _code_weight(on_side, off, n_classes)
            w_missing = _code_weight(missing, off, n_classes)
            w_other = w - w_side - w_missing
            ent.se_code[q, p] = c
            ent.se_w[q, p, side] = w_side
            ent.se_w[q, p, 1 - side] = w_other
            ent.se_n[q, p, side] = np.int64(w_side)
            ent.se_n[q, p, 1 - side] = np.int64(w_other)
            ent.se_pm[q, p] = np.int64(w_missing)
            ent.se_side[q, side] += w_side
            ent.se_side[q, 1 - side] += w_other
            p += 1
        ent.se_n_entries[q] = p


@njit(cache=True, _nrt=False)
def child_slots(h, slot, seg, c_start, c_end, n_classes):
    """The children's slots after the node's binary split (-1 for a child too small): the
    smaller child is counted, the larger takes the parent's slot, less the smaller. The
    parent's slot is given back when neither child needs it."""
    m0 = c_end[0] - c_start[0]
    m1 = c_end[1] - c_start[1]
    small = 0 if m0 <= m1 else 1
    if max(m0, m1) < h.min_rows:
        release(h, slot)
        return -1, -1
    counted = take(h) if min(m0, m1) >= h.min_rows else -1
    count_rows(h, counted if counted >= 0 else SIDE, seg, c_start[small], c_end[small], n_classes)
    larger = h.cells[slot]
    smaller = h.cells[counted if counted >= 0 else SIDE]
    for i in range(larger.shape[0]):
        larger[i] -= smaller[i]
    if small == 0:
        return counted, slot
    return slot, counted
