"""Class histograms of the binned columns at large nodes: histogram subtraction.

A node's split entries (``entries``) are sums over its rows, one pass over rows x binned columns
per node. A large node keeps them instead as a histogram,

    H[q, c, k] = sum of w over the node's rows of class k whose code in binned column q is c,

and its children's histograms come from it: the smaller child is counted from its rows, the
larger is H(parent) - H(smaller), so a row is counted only on the smaller side of a split.

Exact only for counts. When every weight is 0 or 1 and never changes (CART; ``loop.fit`` checks)
each cell is a count of rows, an integer below 2^53: sums in any order and their differences are
exact, so the entries read from a histogram are the row-order sums bit for bit.

Only a node of at least ``min_rows`` rows gets a histogram: reading or subtracting one costs
O(cells), a pass over rows O(rows x binned columns). Every node of that size has a histogram
(its parent is larger), unless the slots ran out, and then the node and its subtree take the
row passes: the same numbers, more slowly.

Layout: slot s holds H at cells[s, base[q] + c * K + k], K classes, codes 0..n_values (the
missing code included, so that a row is added without a branch). Slot 0 is scratch (a smaller
child that gets no slot of its own); the others are handed out from the stack ``free``.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from .segments import code_at

SCRATCH = 0  # the slot a smaller child is counted in when it keeps no histogram
RATIO = 2.0  # a node gets a histogram when rows x binned columns >= RATIO x cells


class Histograms(NamedTuple):
    cells: np.ndarray  # (slots, cells) float64
    base: np.ndarray  # (binned columns,) int64: the first cell of each code byte's column
    free: np.ndarray  # (slots,) int64: free slots, a stack
    n_free: np.ndarray  # (1,) int64
    min_rows: int  # smallest node with a histogram (above n: none)


@njit(cache=True, no_cfunc_wrapper=True)
def new_histograms(n, binned, n_values, n_classes, enabled):
    """Histogram slots for a fit on n rows (none unless ``enabled``): the large nodes pending
    at once are disjoint, so n // min_rows slots, plus the node being split and the scratch."""
    nb = binned.shape[0]
    base = np.zeros(nb, dtype=np.int64)
    size = 0
    for q in range(nb):  # codes 0..n_values: the missing code has cells too
        base[q] = size
        size += (n_values[binned[q]] + 1) * n_classes
    min_rows = n + 1
    slots = 0
    if enabled and nb > 0 and RATIO * size <= n * nb:
        min_rows = max(np.int64(np.ceil(RATIO * size / nb)), 2)
        slots = 1 + n // min_rows + 1
    free = np.empty(slots, dtype=np.int64)
    n_free = np.zeros(1, dtype=np.int64)
    for s in range(slots - 1, SCRATCH, -1):
        free[n_free[0]] = s
        n_free[0] += 1
    return Histograms(np.zeros((slots, size)), base, free, n_free, min_rows)


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def take(h):
    """A free slot, or -1 when none is left."""
    if h.n_free[0] == 0:
        return -1
    h.n_free[0] -= 1
    return h.free[h.n_free[0]]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def release(h, slot):
    """Give a node's slot back (-1: it had none)."""
    if slot > SCRATCH:
        h.free[h.n_free[0]] = slot
        h.n_free[0] += 1


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _clear(h, slot):
    cells = h.cells[slot]
    for i in range(cells.shape[0]):
        cells[i] = 0.0


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _add_row(cells, base, seg, t, n_classes):
    """Segment position t's weight into its class's cell of every binned column."""
    wt = seg.w[t]
    k = seg.yc[t]
    for q in range(base.shape[0]):
        cells[base[q] + code_at(seg.codes, t, q) * n_classes + k] += wt


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def count_rows(h, slot, seg, start, end, n_classes):
    """H of the rows [start, end) into ``slot``."""
    _clear(h, slot)
    cells = h.cells[slot]
    for t in range(start, end):
        _add_row(cells, h.base, seg, t, n_classes)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def root_slot(h, seg, n, n_classes):
    """The root's slot, counted from all n rows (-1 when the root is too small)."""
    return rows_slot(h, seg, np.int64(0), n, n_classes)  # not a literal (``bundles``, "Literals")


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def rows_slot(h, seg, start, end, n_classes):
    """A slot counted from the rows [start, end) of ``seg`` (-1 when they are too few)."""
    if end - start < h.min_rows:
        return -1
    slot = take(h)
    if slot >= 0:
        count_rows(h, slot, seg, start, end, n_classes)
    return slot


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
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


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
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
    into = counted if counted >= 0 else SCRATCH
    count_rows(h, into, seg, c_start[small], c_end[small], n_classes)
    larger = h.cells[slot]
    smaller = h.cells[into]
    for i in range(larger.shape[0]):
        larger[i] -= smaller[i]
    if small == 0:
        return counted, slot
    return slot, counted
