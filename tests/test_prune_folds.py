"""rootwise's own K-fold splits (``_folds``) against scikit-learn's, run side by side."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import KFold, StratifiedKFold

from rootwise.prune.folds import check_random_state, kfold, stratified_kfold


def _same(ours, theirs):
    theirs = list(theirs)
    assert len(ours) == len(theirs)
    for (a_train, a_test), (b_train, b_test) in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a_train, b_train)
        np.testing.assert_array_equal(a_test, b_test)


@pytest.mark.parametrize("seed", range(40))
def test_kfold_is_scikit_learns(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    k = int(rng.integers(2, min(n, 12) + 1))
    _same(kfold(n, k, seed), KFold(k, shuffle=True, random_state=seed).split(np.zeros(n)))


@pytest.mark.parametrize("seed", range(40))
def test_stratified_kfold_is_scikit_learns(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 8))
    m = int(rng.integers(1, 6))
    # m classes of uneven sizes (each at least k), labelled so that first appearance is not
    # sorted order, rows shuffled
    y = np.repeat(rng.permutation(10)[:m] * 7, rng.integers(k, 4 * k, size=m))
    rng.shuffle(y)
    _same(stratified_kfold(y, k, seed),
          StratifiedKFold(k, shuffle=True, random_state=seed).split(np.zeros(len(y)), y))


def test_a_random_state_object_advances_as_in_scikit_learn():
    ours, theirs = np.random.RandomState(5), np.random.RandomState(5)
    y = np.array([0, 1] * 10)
    for _ in range(2):  # the second split must use the state the first left behind
        _same(stratified_kfold(y, 3, ours),
              StratifiedKFold(3, shuffle=True, random_state=theirs).split(np.zeros(20), y))


def test_bad_inputs():
    with pytest.raises(ValueError, match="at least k=3 rows of every class"):
        stratified_kfold(np.array([0, 0, 0, 1, 1]), 3, 0)
    with pytest.raises(ValueError, match="2 <= k <= rows"):
        kfold(3, 4, 0)
    with pytest.raises(ValueError, match="random_state must be None, an integer or a numpy"):
        check_random_state("seed")
