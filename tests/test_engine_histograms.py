"""Class histograms of large nodes (``engine.histograms``) against brute force: the histogram of
a segment, the split entries read from it, and the children's histograms (one counted, one
subtracted), all equal to counts taken row by row with numpy. The trees grown with them are
checked against the reference builder in test_engine_loop.py."""

import numpy as np
import pytest
from binned_node import binned_node

from rootwise.engine import histograms


def _counts(codes, y, w, rows, n_values, n_classes):
    """Per column, the (codes + missing) x classes table of weights over ``rows``, row by row."""
    out = []
    for q, k in enumerate(n_values):
        table = np.zeros((k + 1, n_classes))
        np.add.at(table, (codes[rows, q], y[rows]), w[rows])
        out.append(table)
    return out


def _cells(h, slot, n_values, n_classes):
    """The slot's cells as one (codes + missing) x classes table per column."""
    return [h.cells[slot, h.base[q]:h.base[q] + (k + 1) * n_classes].reshape(k + 1, n_classes)
            for q, k in enumerate(n_values)]


@pytest.mark.parametrize("seed", range(12))
def test_split_entries_are_the_codes_present_with_their_class_weights(seed):
    seg, scr, codes, y, w, n_values, n_classes = binned_node(seed)
    n = len(y)
    start, end = 37, n - 11  # any segment of positions
    slot = histograms.take(scr.hist)
    histograms.count_rows(scr.hist, slot, seg, start, end, n_classes)
    rows = np.arange(start, end)
    for got, want in zip(_cells(scr.hist, slot, n_values, n_classes),
                         _counts(codes, y, w, rows, n_values, n_classes), strict=True):
        np.testing.assert_array_equal(got, want)
    ent = scr.ent
    histograms.split_entries(scr.hist, slot, ent.binned, n_values, ent)
    for q, k in enumerate(n_values):
        present = [c for c in range(k) if w[rows][codes[rows, q] == c].sum() > 0]
        p = ent.ent_n[q]
        assert list(ent.ent_code[q, :p]) == present
        for e, c in enumerate(present):
            mask = (codes[rows, q] == c)
            want = np.bincount(y[rows][mask], weights=w[rows][mask], minlength=n_classes)
            np.testing.assert_array_equal(ent.ent_stats[q, e, :n_classes], want)


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("free", [True, False])
def test_children_are_counted_or_subtracted(seed, free):
    """The children of a binary split: each with at least min_rows rows gets the histogram of its
    rows, the smaller counted and the larger its parent's less it; a child too small gets none.
    With no free slot the counted child goes without one (it will take row passes), the larger
    still gets its parent's slot."""
    seg, scr, codes, y, w, n_values, n_classes = binned_node(seed)
    rng = np.random.default_rng(200 + seed)
    n = len(y)
    min_rows = int(rng.integers(20, 250))
    h = scr.hist._replace(min_rows=min_rows)
    if not free:
        h.n_free[0] = 0
        slot = 1
    else:
        slot = histograms.take(h)
    histograms.count_rows(h, slot, seg, 0, n, n_classes)
    mid = int(rng.integers(0, n + 1))
    c_start = np.array([0, mid], dtype=np.int64)
    c_end = np.array([mid, n], dtype=np.int64)
    slots = histograms.child_slots(h, slot, seg, c_start, c_end, n_classes)
    sizes = c_end - c_start
    larger = 1 if sizes[0] <= sizes[1] else 0  # a tie: the first child is counted
    for b in range(2):
        if sizes[b] < min_rows or (not free and b != larger):
            assert slots[b] == -1
            continue
        assert slots[b] > histograms.SCRATCH
        rows = np.arange(c_start[b], c_end[b])
        for got, want in zip(_cells(h, slots[b], n_values, n_classes),
                             _counts(codes, y, w, rows, n_values, n_classes), strict=True):
            np.testing.assert_array_equal(got, want)
    if max(sizes) < min_rows:  # neither child needs it: the parent's slot is free again
        assert histograms.take(h) == slot


def test_no_slots_unless_enabled_and_worth_it():
    """A fit whose weights or splits rule histograms out gets no slot; so does one whose rows are
    too few for any node to pay for a histogram's cells."""
    binned = np.arange(3, dtype=np.int64)
    n_values = np.array([10, 20, 30], dtype=np.int64)
    off = histograms.new_histograms(10_000, binned, n_values, 2, False)
    assert off.cells.shape[0] == 0 and off.min_rows > 10_000
    small = histograms.new_histograms(50, binned, n_values, 2, True)
    assert small.cells.shape[0] == 0 and small.min_rows > 50
    on = histograms.new_histograms(10_000, binned, n_values, 2, True)
    cells = (11 + 21 + 31) * 2
    assert on.cells.shape[1] == cells
    assert on.min_rows == int(np.ceil(histograms.RATIO * cells / 3))
    assert on.cells.shape[0] == 1 + 10_000 // on.min_rows + 1
