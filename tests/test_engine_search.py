"""The bound that lets the split search skip a category subset test (``engine.search``): no
two-way grouping of the categories present gains more than one branch per category does, so a
column whose bound falls short of the best gain at the node cannot be chosen. Checked against
every partition (tests/naive.py), Gini and entropy, weights, 2-4 classes."""

import naive
import numpy as np
import pytest

from rootwise._config import ENTROPY, GINI
from rootwise.engine.search import _class_bound

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
    # the best grouping is never ruled out, even as the best gain at the node
    assert not _class_bound(stats, p, W, best, CODES[criterion], parent)
    # a gain above the one-branch-per-category gain rules the column out
    assert _class_bound(stats, p, W, multiway + 1e-6, CODES[criterion], parent)
    # and one just above it, within the margin, does not
    assert not _class_bound(stats, p, W, multiway + 1e-10, CODES[criterion], parent)
