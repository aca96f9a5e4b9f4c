"""Impurities and split scores (rootwise.engine.criteria) against the naive reference."""

import math

import naive
import numpy as np
import pytest

from rootwise._config import ENTROPY, GINI
from rootwise.engine.criteria import (
    conditional_impurity,
    entropy,
    gini,
    impurity,
    impurity_decrease,
    intrinsic_value,
    parent_counts,
)

# Gains are differences of nearly equal numbers: an absolute slack of a few ulps of log2(6) for them.
GAIN_ATOL = 1e-14


def _random_table(rng):
    """A branches x classes table of weighted counts with empty branches, empty classes, ties and
    fractional weights; sometimes 50 branches."""
    n_branches = int(rng.choice([1, 2, 3, 5, 50]))
    n_classes = int(rng.integers(2, 7))
    style = rng.integers(0, 3)
    if style == 0:  # small integers: many exact ties between branches
        table = rng.integers(0, 3, size=(n_branches, n_classes)).astype(np.float64)
    elif style == 1:  # fractional weights
        table = rng.random((n_branches, n_classes)) * rng.integers(0, 2, size=(n_branches, n_classes))
    else:  # mixed magnitudes
        table = rng.integers(0, 1000, size=(n_branches, n_classes)) * rng.random((n_branches, 1))
    table[rng.random(n_branches) < 0.2] = 0.0  # empty branches
    return np.ascontiguousarray(table, dtype=np.float64)


@pytest.mark.parametrize("seed", range(60))
def test_scores_match_naive(seed):
    rng = np.random.default_rng(seed)
    table = _random_table(rng)
    parent = table.sum(axis=0)
    np.testing.assert_allclose(parent_counts(table), parent, rtol=1e-12, atol=0)
    np.testing.assert_allclose(entropy(parent), naive.entropy(parent), rtol=1e-12, atol=0)
    np.testing.assert_allclose(gini(parent), naive.gini(parent), rtol=1e-12, atol=0)
    np.testing.assert_allclose(impurity(parent, ENTROPY), naive.entropy(parent), rtol=1e-12, atol=0)
    np.testing.assert_allclose(impurity(parent, GINI), naive.gini(parent), rtol=1e-12, atol=0)
    np.testing.assert_allclose(conditional_impurity(table, ENTROPY), naive.conditional_entropy(table),
                               rtol=1e-12, atol=0)
    np.testing.assert_allclose(conditional_impurity(table, GINI), naive.gini_index(table),
                               rtol=1e-12, atol=0)
    np.testing.assert_allclose(intrinsic_value(table), naive.intrinsic_value(table), rtol=1e-12, atol=0)
    np.testing.assert_allclose(impurity_decrease(table, ENTROPY), naive.information_gain(table),
                               rtol=1e-12, atol=GAIN_ATOL)
    np.testing.assert_allclose(impurity_decrease(table, GINI), naive.gini_decrease(table),
                               rtol=1e-12, atol=GAIN_ATOL)


@pytest.mark.parametrize("seed", range(20))
def test_scores_ignore_scale_and_class_order(seed):
    # proportions are all that matter: weights scaled by a constant give the same scores
    rng = np.random.default_rng(500 + seed)
    table = _random_table(rng)
    scaled = table * 0.37
    permuted = np.ascontiguousarray(table[:, rng.permutation(table.shape[1])])
    for crit in (ENTROPY, GINI):
        for other in (scaled, permuted):
            np.testing.assert_allclose(impurity_decrease(other, crit), impurity_decrease(table, crit),
                                       rtol=1e-12, atol=GAIN_ATOL)
            np.testing.assert_allclose(conditional_impurity(other, crit),
                                       conditional_impurity(table, crit), rtol=1e-12, atol=1e-15)


def test_values_by_hand():
    assert entropy(np.array([1.0, 1.0])) == 1.0
    assert entropy(np.array([4.0, 0.0, 0.0])) == 0.0
    assert entropy(np.array([1.0, 1.0, 1.0, 1.0])) == pytest.approx(2.0, rel=1e-15)
    assert gini(np.array([1.0, 1.0])) == 0.5
    assert gini(np.array([3.0, 0.0])) == 0.0
    # an empty node has no impurity (and no division by zero)
    for f in (entropy, gini):
        assert f(np.zeros(3)) == 0.0
    empty = np.zeros((4, 2))
    assert conditional_impurity(empty, ENTROPY) == 0.0
    assert intrinsic_value(empty) == 0.0
    assert impurity_decrease(empty, ENTROPY) == 0.0
    # a perfect binary split of a 50/50 node: gain 1 bit, IV 1 bit; Gini 0.5 -> 0
    table = np.array([[5.0, 0.0], [0.0, 5.0]])
    assert impurity_decrease(table, ENTROPY) == 1.0
    assert intrinsic_value(table) == 1.0
    assert impurity_decrease(table, GINI) == 0.5
    # empty branches change neither the gain nor the intrinsic value
    padded = np.array([[5.0, 0.0], [0.0, 0.0], [0.0, 5.0]])
    assert impurity_decrease(padded, ENTROPY) == 1.0
    assert intrinsic_value(padded) == 1.0


def test_seed_002_loan_root_numbers():
    """Seed 002 §1.4: H(D) = 0.971, gains 0.083 / 0.324 / 0.420 / 0.363, IVs 1.585 / 0.918 / 0.971 /
    1.566, gain ratios 0.052 / 0.352 / 0.433 / 0.232 (branch x [是, 否] counts of the loan table)."""
    tables = {
        "年龄": [[2, 3], [3, 2], [4, 1]],
        "有工作": [[5, 0], [4, 6]],
        "有自己的房子": [[6, 0], [3, 6]],
        "信贷情况": [[1, 4], [4, 2], [4, 0]],
    }
    gains = {"年龄": 0.083, "有工作": 0.324, "有自己的房子": 0.420, "信贷情况": 0.363}
    ivs = {"年龄": 1.585, "有工作": 0.918, "有自己的房子": 0.971, "信贷情况": 1.566}
    ratios = {"年龄": 0.052, "有工作": 0.352, "有自己的房子": 0.433, "信贷情况": 0.232}
    assert round(entropy(np.array([9.0, 6.0])), 3) == 0.971
    for name, t in tables.items():
        table = np.array(t, dtype=np.float64)
        gain = impurity_decrease(table, ENTROPY)
        iv = intrinsic_value(table)
        assert round(gain, 3) == gains[name], name
        assert round(iv, 3) == ivs[name], name
        assert round(gain / iv, 3) == ratios[name], name


def test_gini_by_hand():
    # Gini(D) for 3 of 10 positive: 1 - 0.3^2 - 0.7^2 = 0.42
    assert gini(np.array([3.0, 7.0])) == pytest.approx(0.42, rel=1e-14)
    # Gini_index of branches [3, 0] and [0, 7] is 0; of [1, 1] and [2, 6] it is 0.2*0.5 + 0.8*0.375
    assert conditional_impurity(np.array([[3.0, 0.0], [0.0, 7.0]]), GINI) == 0.0
    assert conditional_impurity(np.array([[1.0, 1.0], [2.0, 6.0]]), GINI) == pytest.approx(0.4, rel=1e-14)
    assert math.isclose(impurity(np.array([3.0, 7.0]), GINI), 0.42, rel_tol=1e-14)
