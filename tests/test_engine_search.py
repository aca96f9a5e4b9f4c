"""The bounds that let the split search skip a category subset test (``engine.search``): no
two-way grouping of the categories present gains more than one branch per category does, nor
(Gini) more than the largest eigenvalue of the categories' scatter allows
(``engine.subset_bound``), so a column whose bound falls short of the best gain at the node
cannot be chosen. Checked against every partition (tests/naive.py), Gini and entropy, weights,
2-6 classes."""

import naive
import numpy as np
import pytest

from rootwise._config import ENTROPY, GINI, TIE_TOLERANCE
from rootwise.engine.search import _class_bound
from rootwise.engine.subset_bound import SCATTER_CLASSES, scatter_bound

CODES = {"gini": GINI, "entropy": ENTROPY}


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("seed", range(30))
def test_no_grouping_gains_more_than_one_branch_per_category(seed, criterion):
    rng = np.random.default_rng(seed)
    n_classes = int(rng.integers(2, 5))
    p = int(rng.integers(2, 9))
    stats = rng.integers(0, 6, size=(p, n_classes)).astype(float)
    if seed % 2:
        stats *= rng.random(stats.shape) * 2
    stats[stats.sum(axis=1) == 0, 0] = 1.0  # entries hold weight
    W = stats.sum() * float(rng.choice([1.0, 1.25]))  # rows with the value missing too
    rho = stats.sum() / W
    best = max(d for _, d, _ in naive.all_subset_splits(stats, criterion, 0.0)) * rho
    multiway = rho * (naive.information_gain(stats) if criterion == "entropy"
                      else naive.gini_decrease(stats))
    assert best <= multiway + 1e-12
    parent = np.empty(n_classes)
    bound = _class_bound(stats, p, W, CODES[criterion], parent)
    # the best grouping is never ruled out, even as the best gain at the node
    assert not bound < best - TIE_TOLERANCE
    # a gain above the one-branch-per-category gain rules the column out
    assert bound < multiway + 1e-6 - TIE_TOLERANCE
    # and one just above it, within the margin, does not
    assert not bound < multiway + 1e-10 - TIE_TOLERANCE


def _scatter(stats, W):
    """The categories' total scatter T = sum_c w_c (p_c - mu)(p_c - mu)^T, from proportions."""
    w = stats.sum(axis=1)
    mu = stats.sum(axis=0) / w.sum()
    d = stats / w[:, None] - mu
    return (w[:, None] * d).T @ d


@pytest.mark.parametrize("seed", range(40))
def test_no_grouping_gains_more_than_the_largest_eigenvalue_of_the_scatter(seed):
    rng = np.random.default_rng(100 + seed)
    n_classes = int(rng.integers(2, 7))
    p = int(rng.integers(2, 9))
    stats = rng.integers(0, 6, size=(p, n_classes)).astype(float)
    if seed % 2:
        stats *= rng.random(stats.shape) * 2
    stats[stats.sum(axis=1) == 0, 0] = 1.0
    W = stats.sum() * float(rng.choice([1.0, 1.25]))
    rho = stats.sum() / W
    best = max(d for _, d, _ in naive.all_subset_splits(stats, "gini", 0.0)) * rho
    top = np.linalg.eigvalsh(_scatter(stats, W))[-1] / W
    assert best <= top + 1e-12  # the eigenvalue bounds every two-way grouping
    mats = np.empty((3, n_classes, n_classes))
    bound = scatter_bound(stats, p, W, mats, np.empty(n_classes))
    margin = 1e-9 + 1e-14 * p
    # at least the eigenvalue, at most (rank <= k - 1) (k - 1)^(1/8) times it, margin and slack
    assert top + margin <= bound <= top * (max(n_classes - 1, 1) ** 0.125 + 1e-5) + margin
    assert not bound < best - TIE_TOLERANCE
    # never looser than one branch per category but for its slack (with two classes T has rank
    # one: they agree)
    assert bound <= _class_bound(stats, p, W, GINI, np.empty(n_classes)) + 1e-5 * top + 1e-12


def test_the_scatter_bound_is_tighter_than_one_branch_per_category():
    # three classes, categories spread over the whole simplex: tr(T) counts every direction
    stats = np.array([[9, 0, 0], [0, 9, 0], [0, 0, 9], [3, 3, 3], [6, 3, 0], [0, 3, 6.0]])
    W = stats.sum()
    loose = _class_bound(stats, 6, W, GINI, np.empty(3))
    tight = scatter_bound(stats, 6, W, np.empty((3, 3, 3)), np.empty(3))
    best = max(d for _, d, _ in naive.all_subset_splits(stats, "gini", 0.0))
    assert best <= tight < 0.7 * loose


def test_the_scatter_bound_skips_entries_without_weight_and_refuses_bad_ones():
    stats = np.array([[4, 1, 0], [0, 0, 0], [1, 4, 2], [0, 2, 5.0]])
    mats, t = np.empty((3, 3, 3)), np.empty(3)
    without = scatter_bound(stats[[0, 2, 3]], 3, 20.0, mats, t)  # a margin of 1e-14 less
    assert scatter_bound(stats, 4, 20.0, mats, t) == pytest.approx(without + 1e-14, abs=1e-15)
    stats[1, 0] = -1.0
    assert scatter_bound(stats, 4, 20.0, mats, t) == np.inf
    stats[1, 0] = np.nan
    assert scatter_bound(stats, 4, 20.0, mats, t) == np.inf
    assert 3 <= SCATTER_CLASSES
