"""``engine.entropy_runs``: pass 1 of the weighted entropy's threshold scan skips the boundaries
inside a run of one class. Checked against a brute force over every boundary: the same top and
first largest position, the same left weights there, the same answer to "is a second boundary
within the window", and every boundary within the window computed."""

import math

import numpy as np
import pytest

from rootwise.engine.entropy_runs import proxies_entropy_weighted
from rootwise.engine.proxies import window_floor
from rootwise.engine.scratch import ScanScratch
from rootwise.engine.segments import CODE_SHIFT, TIE_SHIFT


def xlogx(c):
    return c * math.log2(c) if c > 0.0 else 0.0


def make_words(values, classes):
    """One sorted column's words: row ids in value order, each word's class and TIE flag."""
    order = np.argsort(values, kind="stable")
    words = np.empty((1, len(values) + 1), dtype=np.int64)
    for i, r in enumerate(order):
        tie = i > 0 and values[r] == values[order[i - 1]]
        words[0, i] = int(r) | (int(classes[r]) << CODE_SHIFT) | (int(tie) << TIE_SHIFT)
    words[0, -1] = 0  # a word past the known ones, as a segment's tail has
    return words


def scratch(n, k):
    return ScanScratch(np.zeros(k), np.zeros(k), np.zeros(k), np.zeros(k, dtype=np.int64),
                       np.zeros(k), np.zeros((2, k)), np.zeros((2, k)),
                       np.zeros(k, dtype=np.bool_), np.empty(n), np.zeros(1), np.zeros(4),
                       np.zeros(k))


def brute_force(words, n, w_row, k, min_leaf):
    """Every admissible boundary's proxy, in position order, the sums running row by row."""
    total = np.zeros(k)
    for i in range(n):
        total[(words[0, i] >> CODE_SHIFT) & 0xFFFFF] += w_row[words[0, i] & 0xFFFFFFFF]
    w_all = sum(total)
    left = np.zeros(k)
    w_left = 0.0
    out = {}
    for i in range(n - 1):
        word = words[0, i]
        wt = w_row[word & 0xFFFFFFFF]
        left[(word >> CODE_SHIFT) & 0xFFFFF] += wt
        w_left += wt
        if (words[0, i + 1] >> TIE_SHIFT) & 1:
            continue
        w_right = w_all - w_left
        if w_left < min_leaf or w_right < min_leaf or w_left <= 0 or w_right <= 0:
            continue
        v = sum(xlogx(left[c]) + xlogx(total[c] - left[c]) for c in range(k))
        out[i] = (v - (xlogx(w_left) + xlogx(w_right)), left.copy())
    return out, w_all


CASES = [(seed, k, ties, purity) for seed in range(40) for k in (2, 3, 5)
         for ties in (False, True) for purity in (0.0, 0.8)]


@pytest.mark.parametrize("seed,k,ties,purity", CASES)
def test_pass_one_matches_every_boundary(seed, k, ties, purity):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 120))
    values = rng.integers(0, n // 3 + 2, n).astype(float) if ties else rng.normal(size=n)
    # long runs of one class: sorted values mostly decide the class
    classes = np.where(rng.random(n) < purity, (np.argsort(np.argsort(values)) * k) // n,
                       rng.integers(0, k, n))
    w_row = np.where(rng.random(n) < 0.3, rng.random(n), 1.0)
    min_leaf = float(rng.choice([0.0, 1.0, 2.0, 3.5]))
    words = make_words(values, classes)
    s = scratch(n, k)
    top_i, top, second = proxies_entropy_weighted(words, 0, 0, n, w_row, k, min_leaf, 0, s)
    every, w_all = brute_force(words, n, w_row, k, min_leaf)
    if not every:
        assert top_i == -1
        return
    first = max(every, key=lambda i: (every[i][0], -i))
    ranked = sorted((v for v, _ in every.values()), reverse=True)
    assert top == pytest.approx(every[first][0], rel=1e-12, abs=1e-9)
    cut = window_floor(top, w_all)
    near = [i for i, (v, _) in every.items() if v >= cut]
    if len(near) == 1:  # pass 2 is skipped: pass 1's position and left weights are the answer
        assert top_i == first
        assert second < cut
        np.testing.assert_array_equal(s.best_left, every[first][1])
    else:
        assert second >= cut  # pass 2 runs on the exact decreases
        assert second == pytest.approx(ranked[1], rel=1e-12, abs=1e-9) or second == top
    for i in near:  # pass 2 reads these
        assert s.proxy[i] == pytest.approx(every[i][0], rel=1e-12, abs=1e-9)
    for i, v in enumerate(s.proxy[:n - 1]):  # the rest: computed exactly, or -inf
        if v != -np.inf:
            assert v == pytest.approx(every[i][0], rel=1e-12, abs=1e-9)


def test_runs_are_skipped():
    """A sorted column whose classes come in long runs computes few boundaries (the point of
    the module): with runs of 30, 50 and 70 rows, only the runs' ends."""
    n = 150
    values = np.arange(n, dtype=float)
    classes = np.repeat([0, 1, 2], [30, 50, 70])
    w_row = np.full(n, 0.5)
    words = make_words(values, classes)
    s = scratch(n, 3)
    top_i, _, _ = proxies_entropy_weighted(words, 0, 0, n, w_row, 3, 2.0, 0, s)
    every, _ = brute_force(words, n, w_row, 3, 2.0)
    assert top_i == max(every, key=lambda i: every[i][0])
    assert sorted(np.flatnonzero(np.isfinite(s.proxy[:n - 1]))) == [3, 29, 79, 145]


@pytest.mark.parametrize("tiny", [1e-13, 1e-11])
def test_a_boundary_inside_a_run_within_the_window_is_computed(tiny):
    """The last class-0 row weighs almost nothing, so the boundary before it, inside the run of
    class 0, is within the window of the top (the boundary after it): pass 2 must see both, for
    the first of two decreases within the tolerance is the one chosen."""
    n = 40
    values = np.arange(n, dtype=float)
    classes = np.repeat([0, 1], 20)
    w_row = np.ones(n)
    w_row[19] = tiny
    words = make_words(values, classes)
    s = scratch(n, 2)
    top_i, top, second = proxies_entropy_weighted(words, 0, 0, n, w_row, 2, 2.0, 0, s)
    every, w_all = brute_force(words, n, w_row, 2, 2.0)
    cut = window_floor(top, w_all)
    assert sorted(i for i, (v, _) in every.items() if v >= cut) == [18, 19]
    assert second >= cut
    assert s.proxy[18] == pytest.approx(every[18][0], rel=1e-12)
