"""A regression node of two rows of weight 1 is split on its own path (``engine.two_rows``): the
trees stay the reference builder's, bit for bit, on tables where such splits abound (ties,
missing cells, repeated codes, targets equal or not, rows of weight 0 beside them)."""

import numpy as np
import pytest
from test_engine_loop import assert_identical, both, cart

from rootwise._config import CATEGORICAL, CONTINUOUS

OPTIONS = [{}, {"max_surrogates": 0}, {"min_impurity_decrease": 0.002}, {"epsilon": 0.3},
           {"max_depth": 7}, {"min_samples_leaf": 2.0}]


def two_row_table(rng, n_cont, n_cat, zeros):
    """n rows of rounded normals (ties) and categorical codes (a few categories, repeated), 8%
    missing cells; a target of a few decimals (equal targets make pure pairs); weights 1, or 0
    for some rows when ``zeros``."""
    n = int(rng.integers(120, 260))
    cols, kinds, n_categories = [], [], []
    for _ in range(n_cont):
        cols.append(rng.normal(size=n).round(1))
        kinds.append(CONTINUOUS)
        n_categories.append(0)
    for _ in range(n_cat):
        k = int(rng.integers(2, 12))
        cols.append(rng.integers(0, k, n).astype(float))
        kinds.append(CATEGORICAL)
        n_categories.append(k)
    X = np.stack(cols, axis=1)
    X[rng.random(X.shape) < 0.08] = np.nan
    y = (np.nan_to_num(X).sum(axis=1) + rng.normal(size=n)).round(1) * 2.5
    w = np.ones(n)
    if zeros:
        w[rng.random(n) < 0.1] = 0.0
        w[0] = 1.0
    return X, y, w, np.array(kinds, dtype=np.int64), np.array(n_categories, dtype=np.int64)


@pytest.mark.parametrize("seed", range(12))
def test_two_row_splits_are_the_reference_builders(seed):
    rng = np.random.default_rng(5000 + seed)
    n_cont, n_cat = [(3, 3), (4, 0), (0, 4), (2, 5)][seed % 4]
    X, y, w, kinds, n_cat_of = two_row_table(rng, n_cont, n_cat, zeros=seed % 3 == 2)
    policy = cart("squared_error", **OPTIONS[seed % len(OPTIONS)])
    tree, ref = both(X, y, w, kinds, n_cat_of, 0, policy)
    assert_identical(tree, ref)
    if seed % len(OPTIONS) in (0, 1):  # fully grown: the path was taken, many times
        pairs = (tree.kind != 0) & (tree.n_node_samples == 2) & (tree.weighted_n_node_samples == 2)
        assert pairs.sum() >= 10
