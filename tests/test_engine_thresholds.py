"""Threshold search on a continuous attribute (rootwise.engine.thresholds) against a brute force that
scores every midpoint from scratch (naive.all_thresholds): weights, ties, min_samples_leaf and the
midpoint of adjacent floats."""

import math

import naive
import numpy as np
import pytest

from rootwise import CARTClassifier, CARTRegressor
from rootwise._config import ENTROPY, GINI
from rootwise.engine import thresholds
from rootwise.engine.criteria import impurity
from rootwise.engine.entry_scan import threshold_class
from rootwise.engine.scratch import new_scratch
from rootwise.engine.thresholds import midpoint

CODES = {"gini": GINI, "entropy": ENTROPY}


def best_threshold_class(xs, ys, ws, n_classes, criterion, min_leaf):
    """(i, decrease, left weight) of the kernel's cut, the decrease from its branch table."""
    i, b = thresholds.best_threshold_class(xs, ys, ws, n_classes, criterion, min_leaf)
    if i < 0:
        return i, -np.inf, 0.0
    wl, wr = b[0].sum(), b[1].sum()
    total = b[0] + b[1]
    dec = impurity(total, criterion) - wl / (wl + wr) * impurity(b[0], criterion) \
        - wr / (wl + wr) * impurity(b[1], criterion)
    return i, dec, wl


def best_threshold_regression(xs, ys, ws, min_leaf):
    """(i, decrease of the weighted MSE, left weight) of the kernel's cut."""
    i, b = thresholds.best_threshold_regression(xs, ys, ws, min_leaf)
    if i < 0:
        return i, -np.inf, 0.0
    w, s, q = b.sum(axis=0)
    sse = lambda r: r[2] - r[1] ** 2 / r[0] if r[0] > 0 else 0.0  # noqa: E731
    return i, ((q - s * s / w) - sse(b[0]) - sse(b[1])) / w, b[0, 0]


def _random_column(rng):
    """A node's rows: values on a coarse grid (many repeated values), weights 0, fractional or 1."""
    n = int(rng.integers(1, 60))
    x = rng.integers(0, int(rng.integers(1, 15)), size=n) * 0.5 - 2.0
    u = rng.random(n)
    w = np.where(u < 0.15, 0.0, np.where(u < 0.5, rng.random(n) * 3, 1.0))
    return x, w


def _sorted(x, *columns):
    order = np.argsort(x, kind="stable")
    return (x[order], *(c[order] for c in columns))


def _check_against_brute_force(i, dec, wl, xs, ws, expected_t, expected_dec):
    if expected_t is None:
        assert i == -1
        return
    assert i >= 0
    assert midpoint(xs[i], xs[i + 1]) == expected_t
    assert dec == pytest.approx(expected_dec, rel=1e-10, abs=1e-12)
    np.testing.assert_allclose(wl, ws[xs <= expected_t].sum(), rtol=1e-12)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("seed", range(40))
def test_class_threshold_is_the_best_midpoint(seed, criterion):
    rng = np.random.default_rng(seed)
    x, w = _random_column(rng)
    n_classes = int(rng.integers(2, 5))
    y = rng.integers(0, n_classes, size=len(x)).astype(np.int64)
    min_leaf = float(rng.choice([1.0, 0.5, 2.0, 4.5]))
    xs, ys, ws = _sorted(x, y, w)
    i, dec, wl = best_threshold_class(xs, ys, ws, n_classes, CODES[criterion], min_leaf)
    t, d = naive.best_of(naive.all_thresholds(xs, ys, ws, n_classes, criterion, min_leaf))
    _check_against_brute_force(i, dec, wl, xs, ws, t, d)


@pytest.mark.parametrize("seed", range(40))
def test_regression_threshold_is_the_best_midpoint(seed):
    rng = np.random.default_rng(seed)
    x, w = _random_column(rng)
    y = np.round(rng.normal(size=len(x)), 2)
    min_leaf = float(rng.choice([1.0, 0.5, 2.0, 4.5]))
    xs, ys, ws = _sorted(x, y, w)
    i, dec, wl = best_threshold_regression(xs, ys, ws, min_leaf)
    t, d = naive.best_of(naive.all_thresholds_regression(xs, ys, ws, min_leaf))
    _check_against_brute_force(i, dec, wl, xs, ws, t, d)


def test_brute_force_visits_every_midpoint():
    """The reference itself: one candidate per pair of adjacent distinct values."""
    x = [3.0, 1.0, 1.0, 2.0, 7.0]
    cands = naive.all_thresholds(x, [0, 1, 1, 0, 1], [1.0] * 5, 2, "gini", 1.0)
    assert [t for t, _, _ in cands] == [1.5, 2.5, 5.0]


@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error"])
def test_equal_decreases_go_to_the_lowest_threshold(criterion):
    # symmetric: cutting after the first or before the last row scores the same
    xs = np.array([1.0, 2.0, 3.0, 4.0])
    if criterion == "squared_error":
        i, _, _ = best_threshold_regression(xs, np.array([0.0, 1.0, 1.0, 0.0]), np.ones(4), 1.0)
    else:
        i, _, _ = best_threshold_class(xs, np.array([0, 1, 1, 0]), np.ones(4), 2, CODES[criterion], 1.0)
    assert midpoint(xs[i], xs[i + 1]) == 1.5


def test_equal_values_are_never_separated():
    xs = np.array([1.0, 1.0, 1.0, 2.0])
    ys = np.array([0, 1, 0, 1])
    i, _, wl = best_threshold_class(xs, ys, np.ones(4), 2, GINI, 1.0)
    assert (i, wl) == (2, 3.0)  # the only boundary: after the last 1.0
    assert best_threshold_class(np.ones(3), np.array([0, 1, 0]), np.ones(3), 2, GINI, 1.0)[0] == -1


def test_min_samples_leaf_moves_the_threshold_inwards():
    # the pure cut 1.5 leaves one row on the left; with min_leaf 2 the best admissible cut is 2.5
    xs = np.arange(1.0, 7.0)
    ys = np.array([1, 0, 0, 0, 0, 0])
    assert midpoint(*xs[[0, 1]]) == 1.5
    i1, _, _ = best_threshold_class(xs, ys, np.ones(6), 2, GINI, 1.0)
    i2, _, wl = best_threshold_class(xs, ys, np.ones(6), 2, GINI, 2.0)
    assert (i1, i2, wl) == (0, 1, 2.0)
    # weighted: the first row alone weighs 2, so it may stand alone again
    w = np.array([2.0, 1, 1, 1, 1, 1])
    assert best_threshold_class(xs, ys, w, 2, GINI, 2.0)[0] == 0
    # no admissible boundary at all
    assert best_threshold_class(xs, ys, np.ones(6), 2, GINI, 3.5)[0] == -1
    assert best_threshold_regression(xs, ys.astype(float), np.ones(6), 3.5)[0] == -1


@pytest.mark.parametrize("seed", range(10))
def test_integer_weights_equal_repeated_rows(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 30))
    x = rng.integers(0, 8, size=n).astype(float)
    y = rng.integers(0, 3, size=n).astype(np.int64)
    yr = rng.normal(size=n)
    w = rng.integers(1, 4, size=n).astype(float)
    rep = np.repeat(np.arange(n), w.astype(int))
    for min_leaf in (1.0, 3.0):
        a = best_threshold_class(*_sorted(x, y, w), 3, GINI, min_leaf)
        b = best_threshold_class(*_sorted(x[rep], y[rep], np.ones(len(rep))), 3, GINI, min_leaf)
        xs_a, xs_b = np.sort(x), np.sort(x[rep])
        assert (a[0] < 0) == (b[0] < 0)
        if a[0] >= 0:
            assert midpoint(xs_a[a[0]], xs_a[a[0] + 1]) == midpoint(xs_b[b[0]], xs_b[b[0] + 1])
            assert a[1] == pytest.approx(b[1], abs=1e-12)
            assert a[2] == b[2]
        a = best_threshold_regression(*_sorted(x, yr, w), min_leaf)
        b = best_threshold_regression(*_sorted(x[rep], yr[rep], np.ones(len(rep))), min_leaf)
        assert (a[0] < 0) == (b[0] < 0)
        if a[0] >= 0:
            assert midpoint(xs_a[a[0]], xs_a[a[0] + 1]) == midpoint(xs_b[b[0]], xs_b[b[0] + 1])
            assert a[1] == pytest.approx(b[1], rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("seed", range(40))
def test_threshold_over_entries_is_the_scan_over_rows(seed, criterion):
    """A binned column's cut from its entries (``entry_scan.threshold_class``: a proxy first,
    the exact decrease near the top only) is the reference's scan over the rows, each entry's
    class weights one row apiece: the same cut and branch table bit for bit. Mirrored entries on
    some seeds make cuts tie exactly (the first must win); weights are counts or quarters."""
    rng = np.random.default_rng(300 + seed)
    n_classes = int(rng.integers(2, 5))
    p = int(rng.integers(2, 40))
    stats = rng.integers(0, 6, size=(p, n_classes)).astype(float)
    if seed % 2:
        stats *= rng.choice([0.25, 1.0, 1.75], size=stats.shape)
    if seed % 3 == 0:
        stats[p - p // 2:] = stats[:p // 2][::-1]
    stats[stats.sum(axis=1) == 0, 0] = 1.0  # an entry is a code holding weight
    min_leaf = float(rng.choice([1.0, 0.5, 3.0]))
    xs = np.repeat(np.arange(p, dtype=float), n_classes)
    ys = np.tile(np.arange(n_classes), p).astype(np.int64)
    ws = stats.reshape(-1)
    i, branches = thresholds.best_threshold_class(xs, ys, ws, n_classes, CODES[criterion],
                                                  min_leaf)
    scan = new_scratch(64, 1, n_classes, n_classes, np.zeros(0, dtype=np.int64),
                       np.zeros(1, dtype=np.int64), 2, 0, 0, True, False).scan
    counts = seed % 2 == 0  # integer weights: the kernel may add them in any order
    e = threshold_class(np.ascontiguousarray(stats), p, n_classes, CODES[criterion], min_leaf,
                        counts, scan)
    assert e == (-1 if i < 0 else int(xs[i]))
    if e >= 0:
        np.testing.assert_array_equal(scan.branches, branches)


ADJACENT = [0.0, 1.0, -1.0, 0.1, 97.5, 1e-300, 5e-324, -5e-324, 1e300, -1e300,
            np.nextafter(np.finfo(float).max, 0.0), -np.finfo(float).max]


@pytest.mark.parametrize("a", ADJACENT)
def test_midpoint_of_adjacent_floats_stays_below_the_upper_value(a):
    b = np.nextafter(a, np.inf)
    t = midpoint(a, b)
    assert a <= t < b  # x <= t must send a left and b right
    assert t == naive.midpoint(a, b) or not math.isfinite((a + b) / 2.0)


@pytest.mark.parametrize("a, b", [(1e308, 1.7e308), (-1.7e308, -1e308), (-1e308, 1e308)])
def test_midpoint_of_huge_values_does_not_overflow(a, b):
    t = midpoint(a, b)
    assert a < t < b and math.isfinite(t)


def test_midpoint_matches_the_reference_on_random_pairs():
    rng = np.random.default_rng(0)
    a = rng.normal(size=2000) * 10.0 ** rng.integers(-5, 6, size=2000)
    b = a + np.abs(rng.normal(size=2000)) * 10.0 ** rng.integers(-12, 3, size=2000)
    for u, v in zip(a, b, strict=True):
        if u < v:
            assert midpoint(u, v) == naive.midpoint(u, v)


@pytest.mark.parametrize("a", [1.0, 0.1, 1e300, -7.25])
def test_trees_separate_adjacent_floats(a):
    b = np.nextafter(a, np.inf)
    X = np.array([[a], [b], [a], [b]])
    clf = CARTClassifier(pruning=None).fit(X, ["lo", "hi", "lo", "hi"])
    assert clf.get_n_leaves() == 2
    assert clf.predict(X).tolist() == ["lo", "hi", "lo", "hi"]
    reg = CARTRegressor(pruning=None).fit(X, [0.0, 1.0, 0.0, 1.0])
    np.testing.assert_array_equal(reg.predict(X), [0.0, 1.0, 0.0, 1.0])
