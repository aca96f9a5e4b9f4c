"""A node's own statistics (rootwise.engine.node_stats.regression_stats) against a brute force:
the weighted mean or lower weighted median, the weight, the impurity (weighted squared error, half
Poisson deviance or absolute deviation from a median), and purity, over the rows of positive
weight of a segment [start, end)."""

import numpy as np
import pytest

from rootwise._config import ABSOLUTE_ERROR, POISSON, SQUARED_ERROR
from rootwise.engine.node_stats import regression_stats
from rootwise.engine.segments import Segments


def _segment(y, w):
    n = len(y)
    return Segments(np.arange(n, dtype=np.int64), np.asarray(w, dtype=np.float64),
                    np.zeros(0, dtype=np.int64), np.asarray(y, dtype=np.float64),
                    np.zeros((n, 1), dtype=np.int64), np.zeros((0, n), dtype=np.int64))


def _brute(y, w, median, criterion=SQUARED_ERROR):
    """(value, W, impurity, pure) by definition, over the rows of positive weight."""
    keep = w > 0
    y, w = y[keep], w[keep]
    if len(y) == 0:
        return 0.0, 0.0, 0.0, True
    W = float(np.sum(w))
    mean = float(np.sum(w * y) / W)
    impurity = float(np.sum(w * (y - mean) ** 2) / W)
    if criterion == POISSON:  # sum w (y log(y / mean) - y + mean) / W, 0 log 0 = 0
        ylogy = np.array([v * np.log(v / mean) if v > 0 else 0.0 for v in y])
        impurity = float(np.sum(w * (ylogy - y + mean)) / W)
    if criterion == ABSOLUTE_ERROR:  # the least sum w |y - m| over m (a weighted median)
        impurity = min(float(np.sum(w * np.abs(y - m))) for m in y) / W
    value = mean
    if median:
        order = np.argsort(y, kind="stable")
        cum = np.cumsum(w[order])
        half = cum[-1] / 2
        i = int(np.argmax(cum >= half))
        if abs(cum[i] - half) <= 1e-12 * abs(half) and i + 1 < len(y):
            value = (y[order[i]] + y[order[i + 1]]) / 2
        else:
            value = y[order[i]]
    return value, W, impurity, bool(np.all(y == y[0]))


@pytest.mark.parametrize("criterion", [SQUARED_ERROR, POISSON, ABSOLUTE_ERROR])
@pytest.mark.parametrize("median", [False, True])
@pytest.mark.parametrize("seed", range(30))
def test_regression_stats_match_a_brute_force(seed, median, criterion):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    # few distinct targets (pure nodes, ties), weights 0 (rows that count in nothing), 1 and
    # fractions; the node is a slice of the segment, not all of it
    y = rng.integers(-3, 4, size=n).astype(np.float64) * (0.5 if seed % 2 else 1.7)
    if seed % 5 == 0:
        y[:] = y[0]
    if criterion == POISSON:
        y = np.abs(y)
    w = rng.choice([0.0, 1.0, 0.25, 2.0], size=n, p=[0.25, 0.45, 0.15, 0.15])
    start = int(rng.integers(0, n))
    end = int(rng.integers(start, n + 1))
    out = np.zeros(1)
    ys, ws = np.zeros(n), np.zeros(n)
    W, impurity, pure = regression_stats(_segment(y, w), start, end, criterion, median, out, ys,
                                         ws)
    value, W0, impurity0, pure0 = _brute(y[start:end], w[start:end], median, criterion)
    assert W == pytest.approx(W0, rel=1e-12, abs=0)
    assert impurity == pytest.approx(impurity0, rel=1e-9, abs=1e-12)
    assert out[0] == pytest.approx(value, rel=1e-12, abs=1e-12)
    assert pure == pure0


def test_a_mean_leaf_needs_no_copy_of_the_targets():
    """Mean leaves read the segment twice and leave the scratch alone, so a fit of mean leaves
    keeps no copy of the targets by row (``scratch.new_scratch(medians=False)``)."""
    y = np.array([3.0, 1.0, 2.0, 2.0, 7.0])
    w = np.array([1.0, 0.0, 2.0, 1.0, 1.0])
    out = np.zeros(1)
    ys, ws = np.full(5, np.nan), np.full(5, np.nan)
    W, impurity, pure = regression_stats(_segment(y, w), 0, 5, SQUARED_ERROR, False, out, ys, ws)
    assert (W, out[0], pure) == (5.0, 16.0 / 5.0, False)
    assert impurity == pytest.approx((0.04 + 2 * 1.44 + 1.44 + 14.44) / 5.0, rel=1e-12)
    assert np.isnan(ys).all() and np.isnan(ws).all()
