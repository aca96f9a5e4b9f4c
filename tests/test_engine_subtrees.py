"""One tree on several threads (``engine/subtrees.py``): the subtrees set aside grow side by side
and are joined into the tables one thread grows. The reference is the same fit on one thread,
whose trees the rest of the suite checks against the reference builder and the peers; here every
array of the tree must be the same, bit for bit, for any number of threads."""

import numpy as np
import pandas as pd
import pytest

import rootwise as rw
from rootwise.engine import subtrees
from rootwise.tree.tree import NODE_FIELDS, SURROGATE_FIELDS


def _table(n, seed, regression=False):
    """Numbers (some missing), a 12-category column with missing cells, a 3-category column;
    a target that depends on all three, with noise, so the tree is deep."""
    rng = np.random.default_rng(seed)
    x0 = rng.standard_normal(n).round(2)
    x1 = rng.standard_normal(n)
    x1[rng.random(n) < 0.15] = np.nan
    c0 = rng.integers(0, 12, n)
    c1 = rng.integers(0, 3, n)
    effect = rng.standard_normal(12)[c0]
    score = x0 + np.nan_to_num(x1) * 0.5 + effect + 0.3 * c1 + rng.standard_normal(n) * 0.7
    cat = pd.Categorical.from_codes(np.where(rng.random(n) < 0.1, -1, c0),
                                    categories=[f"k{v}" for v in range(12)])
    X = pd.DataFrame({"x0": x0, "x1": x1, "c0": cat,
                      "c1": pd.Categorical.from_codes(c1, categories=["a", "b", "c"])})
    y = score if regression else np.digitize(score, [-0.8, 0.4]).astype(np.int64)
    return X, y


def _arrays(tree):
    out = {name: getattr(tree, name) for name in NODE_FIELDS}
    out.update({f"surrogate {name}": tree.surrogates[name] for name in SURROGATE_FIELDS})
    out["value"], out["pool"] = tree.value, tree.pool
    return out


@pytest.fixture
def parts(monkeypatch):
    """Small tables grow on several threads too; records the pieces each fit was joined from."""
    monkeypatch.setattr(subtrees, "MIN_ROWS", 64)
    seen = []
    joined = subtrees._joined

    def counting(growths, roots, n_values):
        seen.append(len(growths))
        return joined(growths, roots, n_values)

    monkeypatch.setattr(subtrees, "_joined", counting)
    return seen


CASES = [
    (rw.CARTClassifier, {}, None),
    (rw.CARTClassifier, {"criterion": "entropy", "max_surrogates": 0}, None),
    (rw.CARTClassifier, {"min_samples_leaf": 4}, None),
    (rw.CARTClassifier, {"class_weight": "balanced"}, None),
    (rw.CARTClassifier, {"max_depth": 7}, "weights"),
    (rw.CARTClassifier, {"splitter": "hist"}, None),  # class histograms of every column
    (rw.CARTRegressor, {"splitter": "hist", "max_bins": 16}, None),
    (rw.CARTRegressor, {}, None),
    (rw.CARTRegressor, {"criterion": "absolute_error", "min_samples_split": 6}, None),
    (rw.CARTRegressor, {"monotonic_cst": {"x0": 1}}, "weights"),
]


@pytest.mark.parametrize("model, options, weights", CASES)
def test_every_thread_count_grows_the_same_tree(parts, model, options, weights):
    regression = model is rw.CARTRegressor
    X, y = _table(1500, 3, regression)
    w = None
    if weights:  # weights other than 1: no class histograms, sums of fractions
        w = np.random.default_rng(4).uniform(0.2, 3.0, len(y))
    one = model(pruning=None, n_jobs=1, **options).fit(X, y, sample_weight=w).tree_
    assert parts == []  # one thread: no pieces
    for n_jobs in (2, 3):
        many = model(pruning=None, n_jobs=n_jobs, **options).fit(X, y, sample_weight=w).tree_
        assert parts[-1] > n_jobs  # the root's piece and the subtrees set aside
        a, b = _arrays(one), _arrays(many)
        for name in a:
            assert a[name].dtype == b[name].dtype, name
            assert np.array_equal(a[name], b[name], equal_nan=True), name


def test_the_pruned_default_fit_is_the_same_too(parts):
    """The default fit: the tree grown on every core, then alpha by cross-validation."""
    X, y = _table(900, 5)
    a = rw.CARTClassifier(n_jobs=1).fit(X, y)
    b = rw.CARTClassifier(n_jobs=2).fit(X, y)
    assert parts and parts[-1] > 2
    assert a.tree_.node_count == b.tree_.node_count
    for name, x in _arrays(a.tree_).items():
        assert np.array_equal(x, _arrays(b.tree_)[name], equal_nan=True), name
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize("model, options", [
    (rw.CARTClassifier, {"max_leaf_nodes": 20}),  # best-first: the next node is the tree's best
    (rw.C45Classifier, {}),  # fractional rows and multiway splits
    (rw.ID3Classifier, {}),
])
def test_growth_that_is_not_depth_first_and_binary_keeps_one_thread(parts, model, options):
    X, y = _table(600, 6)
    if model is rw.ID3Classifier:
        X = X[["c0", "c1"]].apply(lambda c: c.cat.add_categories("none").fillna("none"))
    a = model(n_jobs=1, **options).fit(X, y).tree_
    b = model(n_jobs=2, **options).fit(X, y).tree_
    assert parts == []
    assert np.array_equal(a.feature, b.feature) and np.array_equal(a.value, b.value)


def test_below_min_rows_one_thread_grows_the_tree(monkeypatch):
    monkeypatch.setattr(subtrees, "_joined", lambda *a: pytest.fail("no tree is joined"))
    X, y = _table(300, 7)
    assert subtrees.MIN_ROWS > len(y)
    rw.CARTClassifier(pruning=None, n_jobs=2).fit(X, y)


def test_pool_runs_are_copied_from_the_parts_laid_end_to_end():
    """A run is an offset into the parts' pools laid end to end; one may start in a part and go
    on into the next, as the pools of a subtree and of the subtree after it can."""
    pools = [np.arange(0, 5, dtype=np.int8), np.arange(10, 13, dtype=np.int8),
             np.arange(20, 24, dtype=np.int8)]
    whole = np.concatenate(pools)  # the reference: the pools laid end to end
    bases = np.array([0, 5, 8], dtype=np.int64)
    runs = [(0, 9, 3), (3, 3, 4), (7, 0, 2)]  # within part 2; parts 0 into 1; within part 0
    out = np.full(9, -1, dtype=np.int8)
    subtrees._copy_runs(runs, pools, bases, out)
    assert out.tolist() == whole[9:12].tolist() + whole[3:7].tolist() + whole[0:2].tolist()
