"""The one-call builder for ID3 and C4.5 (``engine/grow_multiway.py``) grows exactly the reference
builder's tree: every node array, value and pool entry equal bit for bit (it runs the reference
builder's kernels in the reference builder's order), on random tables with categorical and
continuous columns, missing cells, zero and fractional weights, and every stopping rule."""

import sys
from pathlib import Path

import numpy as np
import pytest

from rootwise import reference
from rootwise._config import CATEGORICAL, CONTINUOUS
from rootwise._policy import Policy
from rootwise.engine.dispatch import _grows_in_one_call, build_tree
from rootwise.tree import NODE_FIELDS

sys.path.insert(0, str(Path(__file__).parent))
from j48_golden import load  # noqa: E402


def _identical(fast, ref):
    for name in NODE_FIELDS:
        a, b = getattr(fast, name), getattr(ref, name)
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True), name
        if a.dtype.kind == "f":
            assert np.array_equal(np.signbit(a), np.signbit(b)), name
    assert np.array_equal(fast.value, ref.value)
    assert np.array_equal(fast.pool, ref.pool)


def _c45(release8=False, **kw):
    return Policy(criterion="entropy", selection="gain_ratio", categorical_split="multiway",
                  numeric_as_category=False, missing="fractional", min_leaf_rule="two_branches",
                  release8=release8, **{"min_samples_leaf": 2.0, "min_samples_split": 4.0, **kw})


def _table(rng, missing=True):
    n = int(rng.integers(2, 300))
    n_cont, n_cat = int(rng.integers(0, 4)), int(rng.integers(0, 4))
    if n_cont + n_cat == 0:
        n_cont = 1
    cols, kinds, n_categories = [], [], []
    for _ in range(n_cont):
        cols.append(rng.normal(size=n).round(int(rng.integers(0, 3))))
        kinds.append(CONTINUOUS)
        n_categories.append(0)
    for _ in range(n_cat):
        k = int(rng.integers(1, 7))
        cols.append(rng.integers(0, k, n).astype(float))
        kinds.append(CATEGORICAL)
        n_categories.append(k)
    X = np.stack(cols, axis=1)
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    score = np.nan_to_num(X).sum(axis=1) + rng.normal(size=n)
    n_classes = int(rng.integers(2, 4))
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1])).astype(np.int64)
    w = np.ones(n)
    if rng.random() < 0.5:
        w = rng.integers(0, 4, n) * 0.5
        w[0] = 1.0
    return X, y, w, np.array(kinds, dtype=np.int64), np.array(n_categories, dtype=np.int64), n_classes


@pytest.mark.parametrize("seed", range(80))
def test_one_call_builder_grows_the_reference_tree(seed):
    rng = np.random.default_rng(seed)
    X, y, w, kinds, n_categories, n_classes = _table(rng)
    extra = [{}, {"max_depth": 2}, {"min_samples_split": 9.0}, {"epsilon": 0.05},
             {"min_impurity_decrease": 0.01}, {"impurity_threshold": 0.3},
             {"min_samples_leaf": 1.0}, {"min_samples_leaf": 5.0}][seed % 8]
    for policy in (_c45(**extra), _c45(release8=True, **extra)):
        assert _grows_in_one_call(policy, n_classes)
        fast = build_tree(X, y, w, kinds, n_categories, n_classes, policy)
        ref = reference.build_tree(X, y, w, kinds, n_categories, n_classes, policy)
        _identical(fast, ref)


@pytest.mark.parametrize("seed", range(20))
def test_one_call_builder_grows_id3s_tree(seed):
    rng = np.random.default_rng(seed)
    X, y, w, _, _, n_classes = _table(rng, missing=False)
    X = np.round(X)  # ID3: every column categorical, one branch per value
    codes = np.stack([np.unique(c, return_inverse=True)[1] for c in X.T], axis=1).astype(float)
    kinds = np.full(X.shape[1], CATEGORICAL, dtype=np.int64)
    n_categories = codes.max(axis=0).astype(np.int64) + 1
    policy = Policy(criterion=("entropy", "gini")[seed % 2], selection="gain",
                    categorical_split="multiway", numeric_as_category=True, missing="error")
    assert _grows_in_one_call(policy, n_classes)
    fast = build_tree(codes, y, w, kinds, n_categories, n_classes, policy)
    ref = reference.build_tree(codes, y, w, kinds, n_categories, n_classes, policy)
    _identical(fast, ref)


@pytest.mark.parametrize("name", ["labor", "credit-g", "soybean", "vote", "segment-challenge"])
def test_one_call_builder_on_weka_files(name):
    from rootwise import C45Classifier
    from rootwise.input import encode, tables, target
    from rootwise.input import schema as schema_mod

    X, y = load(name)
    model = C45Classifier()
    frame = tables.as_frame(X)
    schema = schema_mod.fit_schema(frame, schema_mod.resolve_categorical(frame, "auto"))
    Xe = encode.encode(frame, schema)
    classes, yc = target.encode_target(y, len(y))
    for release8 in (False, True):
        policy = model.set_params(release8=release8)._policy()
        args = (Xe, yc, np.ones(len(yc)), schema.kinds_array, schema.n_categories, len(classes), policy)
        _identical(build_tree(*args), reference.build_tree(*args))
