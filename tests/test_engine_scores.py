"""Scores of a test from its branch table and the selection rules (``engine.scores``,
``engine.j48``), against plain Python written from their definitions."""

import math

import numpy as np
import pytest

from rootwise._config import ENTROPY, GINI
from rootwise.engine import j48
from rootwise.engine.scores import choose
from rootwise.engine.scores import score_table as score


def _plain_choose(gain, ratio, admissible, by_ratio):
    """The rule as the seeds state it: the largest gain, or the largest gain ratio among the
    candidates whose gain reaches the average gain (sums in order); ties to the first."""
    pool = [i for i in range(len(gain)) if admissible[i]]
    if not pool:
        return -1, 0.0
    if by_ratio:
        total = 0.0
        for i in pool:
            total += gain[i]
        pool = [i for i in pool if gain[i] >= total / len(pool) - 1e-12]
    scores = [ratio[i] if by_ratio else gain[i] for i in pool]
    top = max(scores)
    first = next(k for k, s in enumerate(scores) if s >= top - 1e-12)
    return pool[first], scores[first]


def _plain_release8_choose(gain, ratio, admissible, in_average):
    pool = [i for i in range(len(gain)) if admissible[i] and in_average[i]]
    if not pool:
        return -1, 0.0
    total = 0.0
    for i in pool:
        total += gain[i]
    average = total / len(pool)
    best, best_ratio = -1, 0.0
    for i in range(len(gain)):
        if admissible[i] and gain[i] >= average - 1e-3 and ratio[i] - best_ratio > 1e-6:
            best, best_ratio = i, float(ratio[i])
    return best, best_ratio


@pytest.mark.parametrize("seed", range(20))
def test_choose_is_the_rule(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 9))
    gain = rng.choice([0.0, 0.1, 0.25, 0.3, 0.3 + 1e-13], m)
    ratio = rng.choice([0.0, 0.2, 0.5, 0.5 + 1e-13], m)
    admissible = rng.random(m) < 0.8
    found = np.ones(m, dtype=bool)
    for by_ratio in (False, True):
        got = choose(found, gain, ratio, admissible, by_ratio)
        assert (int(got[0]), float(got[1])) == _plain_choose(gain, ratio, admissible, by_ratio)
    in_average = rng.random(m) < 0.7
    got = j48.choose(found, gain, ratio, admissible, in_average)
    assert (int(got[0]), float(got[1])) == _plain_release8_choose(gain, ratio, admissible,
                                                                  in_average)


def test_choose_skips_columns_without_a_test():
    gain = np.array([0.9, 0.2, 0.4])
    found = np.array([False, True, True])
    assert choose(found, gain, gain, np.ones(3, bool), False) == (2, 0.4)


def test_score_of_the_loan_table_split():
    """Seed 002: 有自己的房子 splits the 15 loans into 6 (all yes) and 9 (3 yes, 6 no):
    gain 0.420, IV = H(6/15, 9/15) = 0.971, gain ratio 0.433."""
    branches = np.array([[0.0, 6.0], [6.0, 3.0]])
    gain, iv, ratio, rho, admissible = score(branches, 15.0, ENTROPY, False, 1.0, False)
    assert round(gain, 3) == 0.420 and round(iv, 3) == 0.971 and round(ratio, 3) == 0.433
    assert rho == 1.0 and admissible
    # with 3 more rows whose value is missing: rho = 15/18 scales the gain
    g2, *_ = score(branches, 18.0, ENTROPY, False, 1.0, False)
    assert g2 == pytest.approx(gain * 15 / 18, rel=1e-15)
    # Gini index of seed 001's 有房情况 split: 0.343 -> decrease 0.42 - 0.343
    b = np.array([[0.0, 3.0], [3.0, 4.0]])
    assert round(score(b, 10.0, GINI, False, 1.0, False)[0], 3) == round(0.42 - 0.343, 3)


def test_leaf_rules():
    b = np.array([[1.0, 0.0], [3.0, 2.0], [0.0, 0.0]])
    assert not score(b, 6.0, ENTROPY, False, 2.0, False)[4]  # a non-empty branch of weight 1
    assert not score(b, 6.0, ENTROPY, False, 2.0, True)[4]  # C4.5: only one branch reaches 2
    b2 = np.array([[2.0, 0.0], [3.0, 2.0], [1.0, 0.0]])
    assert score(b2, 8.0, ENTROPY, False, 2.0, True)[4]


@pytest.mark.parametrize("seed", range(20))
def test_split_point_sorted_is_the_row_order_scan(seed):
    """J48's split point by binary search, including values within 1e-6 of each other (where the
    first met wins) and zeros of either sign."""
    rng = np.random.default_rng(seed)
    pool = np.array([0.0, -0.0, 1.0, 1.0000005, 1.000001, 1.0000015, 2.0, 0.833335, 0.8333355,
                     np.nan, -1e-7, 1e-7, 3.5])
    for _ in range(300):
        col = rng.choice(pool, int(rng.integers(1, 30)))
        _, first = j48.distinct_values(col)
        for point in [rng.normal(1, 1), 0.0, -0.0, 1.0, 1.0000005, float(rng.choice(col))]:
            a = j48.split_point_sorted(first, col, point)
            b = j48.split_point(col, point)
            assert a == b and math.copysign(1, a) == math.copysign(1, b)


@pytest.mark.parametrize("seed", range(10))
def test_split_point_sorted_on_dense_chains(seed):
    """Long chains of values less than 1e-6 apart, in shuffled row order: chains shorter and
    longer than CLUSTER_LIMIT (the latter scan the column), with repeated values and zeros."""
    rng = np.random.default_rng(seed)
    for size, p in [(5, 0.4), (40, 0.4), (1000, 0.4), (40, 1.0), (200, 1.0)]:  # 1.0: one chain
        steps = rng.choice([4e-7, 9e-7, 1.1e-6, 3e-6], size, p=[p, 0.5 * (1 - p), 0.3 * (1 - p),
                                                                0.2 * (1 - p)])
        values = np.cumsum(steps) - rng.uniform(0, steps.sum())
        col = rng.permutation(np.concatenate([values, rng.choice(values, size // 3),
                                              [0.0, -0.0, np.nan]]))
        _, first = j48.distinct_values(col)
        for point in np.concatenate([rng.choice(values, 20), [0.0, -0.0, values.max() + 1]]):
            a = j48.split_point_sorted(first, col, point)
            b = j48.split_point(col, point)
            assert a == b and math.copysign(1, a) == math.copysign(1, b)


@pytest.mark.parametrize("seed", range(12))
def test_distinct_values_are_numpys_unique(seed):
    """J48's distinct values and the row of each one's first occurrence: numpy's unique with
    its index, bit for bit (the sign of a zero is its first row's), NaN left out."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 4000))
    col = rng.choice([0.0, -0.0, 1.0, 2.5, np.nan, -3.0], n) if seed % 3 == 0 else \
        rng.normal(size=n).round(int(rng.integers(0, 4)))
    col[rng.random(n) < 0.1] = np.nan
    distinct, first = j48.distinct_values(col)
    known = np.flatnonzero(~np.isnan(col))
    want, index = np.unique(col[known], return_index=True)
    np.testing.assert_array_equal(distinct.view(np.uint64), want.view(np.uint64))
    np.testing.assert_array_equal(first, known[index])
    assert first.dtype == np.uint32
