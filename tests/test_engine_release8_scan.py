"""``engine.release8_scan``: J48's threshold scan that passes over the cuts inside a run of one
class. Checked against the reference scan over every cut (``j48.numeric_split``, which the
reference builder runs): the same cut, gain, number of admissible cuts and branch table, bit for
bit, on columns with long runs (where records fall inside runs), ties within J48's 1e-5, and row
weights down to below J48's 1e-6 cut-off."""

import numpy as np
import pytest

from rootwise.engine.j48 import numeric_split
from rootwise.engine.release8_scan import release8_totals, scan_release8
from rootwise.engine.scratch import ScanScratch
from rootwise.engine.segments import GAP_SHIFT, RANK_SHIFT, ROW_MASK, TIE_BIT, TIE_SHIFT, presort_column


def make_words(values, classes, keep=None):
    """The words of the rows ``keep`` (a node's segment) of one column: its words at the root
    (``presort_column``, with the TIE and FAR flags), the kept ones in order, a kept row tied
    when it equals the kept row before it, FAR as at the root."""
    n = len(values)
    root = np.empty(n, dtype=np.int64)
    presort_column(values, np.ones(n), classes.astype(np.int64), root, True)
    rows = root & ROW_MASK
    if keep is not None:
        root = root[keep[rows]]
        rows = root & ROW_MASK
    tie = np.r_[False, values[rows[1:]] == values[rows[:-1]]]
    words = np.zeros((1, len(root) + 1), dtype=np.int64)
    words[0, :-1] = (root & ~np.int64(TIE_BIT)) | (tie.astype(np.int64) << TIE_SHIFT)
    return words, rows


def scratch(n, k):
    return ScanScratch(np.zeros(k), np.zeros(k), np.zeros(k), np.zeros(k, dtype=np.int64),
                       np.zeros(k), np.zeros((2, k)), np.zeros((2, k)),
                       np.zeros(k, dtype=np.bool_), np.empty(n), np.zeros(1), np.zeros(4),
                       np.zeros(k))


def both(values, classes, w_row, k, min_split, total_w, keep=None):
    words, order = make_words(values, classes, keep)
    n = len(order)
    s = scratch(n, k)
    known_w = release8_totals(words, 0, 0, n, w_row, k, s.right)
    assert known_w == sum(float(w) for w in w_row[order])  # row by row, as J48 sums
    got = scan_release8(words, 0, 0, n, values[None, :], w_row, k, min_split, total_w, s)
    want = numeric_split(values[order], classes[order].astype(np.int64), w_row[order], k,
                         min_split, total_w)
    return got, want, s


def assert_same(got, want, s):
    i, gain, cuts = got
    assert (i, cuts) == (want[0], want[2])
    assert gain == want[1]  # bit for bit
    if i >= 0:
        np.testing.assert_array_equal(s.branches, want[3])


CASES = [(seed, k, ties, purity) for seed in range(30) for k in (2, 3, 5)
         for ties in (False, True) for purity in (0.0, 0.7, 0.95)]


@pytest.mark.parametrize("seed,k,ties,purity", CASES)
def test_scan_matches_every_cut(seed, k, ties, purity):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    values = rng.normal(size=n)
    if ties:  # neighbours closer than 1e-5 are no cut for J48
        values = np.round(values * 3e4) / 3e4 + rng.choice([0.0, 4e-6, 2e-5], n)
    # long runs of one class: the sorted values mostly decide the class
    classes = np.where(rng.random(n) < purity, (np.argsort(np.argsort(values)) * k) // n,
                       rng.integers(0, k, n))
    w_row = np.where(rng.random(n) < 0.3, rng.random(n), 1.0)
    if seed % 5 == 0:  # fractions under J48's 1e-6 cut-off
        w_row[rng.random(n) < 0.1] = 3e-7
    min_split = float(rng.choice([1e-7, 2.0, 3.5, 25.0]))
    keep = rng.random(n) < 0.6 if seed % 2 else None  # a node's rows, FAR flags of the root
    if keep is not None and keep.sum() < 2:
        keep = None
    total_w = float(w_row.sum()) * float(rng.choice([1.0, 1.25]))
    assert_same(*both(values, classes, w_row, k, min_split, total_w, keep))


def test_records_inside_a_run():
    """Two pure halves: the gain climbs along the first run by more than 1e-6 a row, so J48
    records a cut at every row up to the end of the run; the last record is the run's end."""
    n = 200
    values = np.arange(n, dtype=float)
    classes = np.repeat([0, 1], [120, 80])
    got, want, s = both(values, classes, np.ones(n), 2, 2.0, float(n))
    assert want[0] == 119
    assert_same(got, want, s)


def test_first_record_inside_a_run_is_kept():
    """The best cut ends a run whose gain climbs by less than 1e-6 from a cut inside it, so J48
    keeps that earlier cut (the first to beat the best by more than 1e-6): the scan must replay the
    run to find it, not take the run's end."""
    n = 200
    values = np.arange(n, dtype=float)
    classes = np.repeat([0, 1], 100)
    w_row = np.ones(n)
    w_row[99] = 3e-6  # the cut before the last class-0 row is 4e-7 below the run's end
    got, want, s = both(values, classes, w_row, 2, 2.0, float(w_row.sum()))
    assert want[0] == 98
    assert_same(got, want, s)


@pytest.mark.parametrize("classes,w_row,min_split", [
    ([0, 1, 1, 1, 1], [1e-6, 3e-7, 1.0, 3e-7, 1.0], 1e-7),
    ([0, 0, 0, 1], [1.0, 1e-6, 9e-7, 3e-7], 1e-6),
])
def test_weights_under_the_cut_off_are_replayed(classes, w_row, min_split):
    """Rows under J48's 1e-6 inside a run make its gains jump where xlog2x is cut to 0, above the
    bound of its ends: the run must be computed cut by cut (found by a random search with that
    guard removed)."""
    values = np.arange(len(classes), dtype=float)
    w_row = np.array(w_row)
    got, want, s = both(values, np.array(classes), w_row, 2, min_split, float(w_row.sum()))
    assert_same(got, want, s)


def test_j48_fields_at_the_root():
    """GAP is the distance back to the last sorted value more than 1e-5 below (0 beyond 7 or
    when there is none) and RANK the position mod 64, by brute force over the sorted column."""
    rng = np.random.default_rng(3)
    values = rng.integers(0, 300, 700) * 4e-6  # gaps of 0, 4e-6, 8e-6, 1.2e-5, ...
    words = np.empty(700, dtype=np.int64)
    presort_column(values, np.ones(700), np.zeros(0, dtype=np.int64), words, True)
    x = values[words & ROW_MASK]
    for i in range(700):
        below = [j for j in range(i) if x[j] + 1e-5 < x[i]]
        g = i - below[-1] if below and i - below[-1] <= 7 else 0
        assert (words[i] >> GAP_SHIFT) & 7 == g
        assert (words[i] >> RANK_SHIFT) & 63 == i % 64
    gaps = (words >> GAP_SHIFT) & 7
    assert len(set(gaps.tolist())) == 8  # every field value occurs


@pytest.mark.parametrize("seed", range(6))
def test_sparse_nodes(seed):
    """A node holding 1 row in 40 of a dense column: neighbours in the node lie up to hundreds
    of positions apart in the column, so their RANK difference wraps around 64."""
    rng = np.random.default_rng(seed)
    n = 6000
    values = rng.integers(0, 2000, n) * 3e-6
    classes = (np.argsort(np.argsort(values)) * 2 // n + (rng.random(n) < 0.2)) % 2
    keep = rng.random(n) < 0.025
    w_row = np.ones(n)
    assert_same(*both(values, classes, w_row, 2, 2.0, float(keep.sum()), keep))
