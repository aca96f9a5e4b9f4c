"""Every option is grown by the compiled engine: with the reference builder made to raise, every
estimator and option still fits, and the Python calls of a fit do not grow with the node count
(issue 11 item 1)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from python_calls import python_calls

import rootwise.reference.builder as builder
import rootwise.reference.splitters as splitters
from rootwise import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier


def _forbidden(*args, **kwargs):
    raise AssertionError("a fit called the reference builder")


@pytest.fixture
def no_reference(monkeypatch):
    for module, name in ((builder, "build_tree"), (builder, "build_tree_with_report"),
                         (builder, "_Growth"), (splitters, "make_splitter")):
        monkeypatch.setattr(module, name, _forbidden)


def _table(n, seed=0, wide=300):
    """Numeric and categorical columns (one of more than 255 categories), 5 % missing cells."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "a": rng.normal(size=n), "b": rng.integers(0, 7, size=n).astype(float),
        "c": pd.Categorical(rng.choice(list("pqrstu"), size=n), categories=list("pqrstu")),
        "d": pd.Categorical(rng.integers(0, wide, size=n), categories=range(wide)),
    })
    for col in X:
        X.loc[rng.random(n) < 0.05, col] = np.nan
    y = (X["a"].fillna(0) + (X["c"] == "p") + rng.normal(0, 0.7, size=n) > 0.5).astype(int)
    y = y + (X["b"].fillna(0) > 4)
    return X, y.to_numpy(), rng.random(n) + 0.5


OPTIONS = [
    (CARTClassifier, dict(pruning=None)),
    (CARTClassifier, dict(pruning=None, splitter="hist", max_bins=16)),
    (CARTClassifier, dict(pruning=None, criterion="entropy", max_surrogates=0)),
    (CARTClassifier, dict(pruning=None, max_leaf_nodes=12)),
    (CARTClassifier, dict(random_state=0, cv=3)),
    (CARTClassifier, dict(pruning="pre", random_state=0)),
    (CARTClassifier, dict(pruning="reduced-error", random_state=0)),
    (CARTRegressor, dict(pruning=None)),
    (CARTRegressor, dict(pruning=None, leaf_value="median", splitter="hist")),
    (C45Classifier, dict()),
    (C45Classifier, dict(release8=True)),
    (C45Classifier, dict(pruning="pre", random_state=0)),
]


@pytest.mark.parametrize("cls, params", OPTIONS, ids=lambda v: getattr(v, "__name__", str(v)))
def test_every_option_fits_without_the_reference_builder(no_reference, cls, params):
    X, y, w = _table(400)
    target = y.astype(float) * 1.5 if cls is CARTRegressor else y
    model = cls(**params).fit(X, target, sample_weight=w)
    assert model.tree_.node_count > 1
    assert np.all(np.isfinite(model.predict(X)) if cls is CARTRegressor else True)


def test_id3_fits_without_the_reference_builder(no_reference):
    X, y, _ = _table(300)
    known = X[["c", "d"]].notna().all(axis=1).to_numpy()  # ID3 refuses missing cells
    assert ID3Classifier().fit(X.loc[known, ["c", "d"]], y[known]).tree_.node_count > 1


@pytest.mark.parametrize("cls, params", [
    (CARTClassifier, dict(pruning=None)),
    (CARTRegressor, dict(pruning=None)),
    (C45Classifier, dict(pruning=None)),
    (CARTClassifier, dict(pruning=None, splitter="hist")),
], ids=["cart", "regressor", "c45", "hist"])
def test_python_calls_do_not_grow_with_the_nodes(cls, params):
    """A tree several times larger costs no more Python calls (kernels are one C call each)."""
    counts, nodes = [], []
    for n in (300, 3000):
        X, y, w = _table(n, seed=1)
        target = y.astype(float) + X["a"].fillna(0).to_numpy() if cls is CARTRegressor else y
        model = cls(**params)
        model.fit(X, target, sample_weight=w)  # compiled and warm
        counts.append(python_calls(model.fit, X, target, sample_weight=w))
        nodes.append(model.tree_.node_count)
    assert nodes[1] > 2.5 * nodes[0]
    assert counts[1] <= counts[0] * 1.1 + 50, (counts, nodes)


def _readonly_growth() -> set:
    """The growth loop's kernels compiled in this process for a read-only array argument (only
    ``build_tree_with_report`` calls them)."""
    from rootwise.engine import loop

    return {name for name in ("_root", "_grow_from", "_find_split")
            for sig in getattr(loop, name).signatures if "readonly" in str(sig)}


@pytest.mark.parametrize("cls", [CARTClassifier, CARTRegressor])
def test_read_only_inputs_fit_the_same_tree_without_read_only_kernels(cls):
    """numba compiles a kernel again for a read-only array: a read-only view of writable memory
    (pandas' copy-on-write arrays) goes in as a writable view, other read-only memory as a copy.
    Neither is written: the caller's arrays keep their values and flags."""
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(200, 3)), 1)
    y = (X[:, 0] > 0).astype(np.int64) if cls is CARTClassifier else X[:, 1] * 2.0
    w = rng.uniform(0.5, 2.0, 200)
    expected = cls(pruning=None).fit(X, y, sample_weight=w).tree_
    owner = X.copy()
    owner.flags.writeable = False  # read-only memory of its own: copied
    view = X.copy()[:, :]
    view.flags.writeable = False  # a read-only view of writable memory: made writable
    for data in (owner, view):
        labels, weights = y.copy(), w.copy()
        labels.flags.writeable = weights.flags.writeable = False
        tree = cls(pruning=None).fit(data, labels, sample_weight=weights).tree_
        assert np.array_equal(tree.feature, expected.feature)
        assert np.array_equal(tree.threshold, expected.threshold, equal_nan=True)
        assert np.array_equal(tree.value, expected.value)
        assert not data.flags.writeable and not labels.flags.writeable
        assert np.array_equal(data, X)
    assert _readonly_growth() == set()
