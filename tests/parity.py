"""Helpers for comparing rootwise's CART with scikit-learn's DecisionTree* on numeric data.

scikit-learn breaks ties between equally good splits by a random permutation of the features (and
by round-off), rootwise by the lowest column index and the lowest threshold, so the two can only be
expected to grow the same tree when no two candidate splits of a node tie. ``tie_free`` checks that
honestly, by brute force over every (feature, midpoint) of every node of the rootwise tree: the
first node where two trees part would be a node of both, with the same rows, so a tie there is
the only excuse for a difference. ``sklearn_agrees`` is the second test: several random_states of
scikit-learn must grow the same tree.

Data are float32-exact (scikit-learn computes in float32) with distinct values at least 1e-3 apart
(scikit-learn treats values within 1e-7 as equal).
"""

from __future__ import annotations

import numpy as np

TIE_MARGIN = 1e-10  # two candidate decreases closer than this count as a tie


def float32_exact(a):
    return np.asarray(a, dtype=np.float32).astype(np.float64)


def features(rng, n, p):
    return float32_exact(np.round(rng.normal(size=(n, p)), 3))


# --------------------------------------------------------------------------- tree shapes


def sklearn_shape(tree, node=0):
    """Nested (feature, threshold, left, right) of a scikit-learn tree; a leaf is ()."""
    if tree.children_left[node] == -1:
        return ()
    return (int(tree.feature[node]), float(tree.threshold[node]),
            sklearn_shape(tree, tree.children_left[node]), sklearn_shape(tree, tree.children_right[node]))


def rootwise_shape(tree, node=0):
    """The same for a rootwise Tree with threshold splits only."""
    if tree.n_children[node] == 0:
        return ()
    c = int(tree.first_child[node])
    return (int(tree.feature[node]), float(tree.threshold[node]),
            rootwise_shape(tree, c), rootwise_shape(tree, c + 1))


def sklearn_agrees(cls, X, y, sample_weight=None, seeds=(0, 1, 2, 3), **params):
    """The tree of ``cls(random_state=0, **params)`` if every seed grows the same one, else None."""
    fits = [cls(random_state=s, **params).fit(X, y, sample_weight=sample_weight) for s in seeds]
    shapes = {sklearn_shape(f.tree_) for f in fits}
    return fits[0] if len(shapes) == 1 else None


# --------------------------------------------------------------------------- brute-force ties


def _impurity(counts, criterion):
    total = counts.sum(axis=-1, keepdims=True)
    p = np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)
    if criterion == "gini":
        return 1.0 - (p * p).sum(axis=-1)
    logs = np.log2(p, out=np.zeros_like(p), where=p > 0)
    return -(p * logs).sum(axis=-1)


def split_decreases(X, y, w, rows, criterion, min_leaf, n_classes=0):
    """Impurity decrease of every admissible (feature, midpoint) split of ``rows`` (positive
    weights only), scored from cumulative sums after sorting each column."""
    rows = rows[w[rows] > 0]
    out = []
    for j in range(X.shape[1]):
        order = rows[np.argsort(X[rows, j], kind="stable")]
        xs, ws = X[order, j], w[order]
        if criterion == "squared_error":
            stats = np.column_stack([ws, ws * y[order], ws * y[order] ** 2])
        else:
            stats = np.zeros((len(order), n_classes))
            stats[np.arange(len(order)), y[order]] = ws
        left = np.cumsum(stats, axis=0)[:-1]
        total = stats.sum(axis=0)
        right = total - left
        if criterion == "squared_error":
            wl, wr, W = left[:, 0], right[:, 0], total[0]
            with np.errstate(divide="ignore", invalid="ignore"):
                sse = lambda s: s[..., 2] - s[..., 1] ** 2 / s[..., 0]  # noqa: E731
                dec = (sse(total) - sse(left) - sse(right)) / W
        else:
            wl, wr, W = left.sum(axis=1), right.sum(axis=1), total.sum()
            dec = _impurity(total, criterion) - wl / W * _impurity(left, criterion) \
                - wr / W * _impurity(right, criterion)
        ok = (xs[1:] > xs[:-1]) & (wl >= min_leaf) & (wr >= min_leaf) & (wl > 0) & (wr > 0)
        out.append(dec[ok])
    return np.concatenate(out) if out else np.zeros(0)


def tie_free(model, X, y, w=None, criterion="gini", min_leaf=1.0, best_first=False):
    """No node of the fitted rootwise tree has two candidate splits within TIE_MARGIN of its best.

    ``y``: class codes (classification) or targets. With ``best_first`` also the order in which
    nodes are expanded must be unambiguous: the weighted best decreases of all nodes (split or
    not) are distinct."""
    tree = model.tree_
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    n_classes = 0 if criterion == "squared_error" else int(np.max(y)) + 1
    paths = model.decision_path(X).tocsc()
    priorities = []
    for node in range(tree.node_count):
        rows = paths.indices[paths.indptr[node]:paths.indptr[node + 1]]
        if tree.n_children[node] == 0 and not best_first:
            continue
        dec = np.sort(split_decreases(X, y, w, rows, criterion, min_leaf, n_classes))[::-1]
        if tree.n_children[node] > 0 and (len(dec) == 0 or (len(dec) > 1 and dec[0] - dec[1] <= TIE_MARGIN)):
            return False
        if best_first and len(dec) and tree.impurity[node] > 0:
            priorities.append(dec[0] * w[rows].sum())
    gaps = np.diff(np.sort(priorities))
    return not best_first or bool(np.all(gaps > TIE_MARGIN))


# --------------------------------------------------------------------------- random cases


def _settings(rng):
    """One of: scikit-learn's defaults, max_depth, min_samples_leaf or min_samples_split."""
    return [{}, {"max_depth": int(rng.integers(2, 6))}, {"min_samples_leaf": int(rng.integers(2, 8))},
            {"min_samples_split": int(rng.integers(4, 20))}][int(rng.integers(0, 4))]


def classification_case(seed):
    """(X, y, params): a noisy linear score cut into 2-3 classes under a stopping rule (fully grown,
    the small mixed nodes of noisy data tie), two axis-aligned boundaries without noise, or one
    noisy feature with any settings; y holds codes 0..k-1."""
    rng = np.random.default_rng(seed)
    family = int(rng.integers(0, 3))
    n = int(rng.integers(30, 160))
    params = _settings(rng)
    if family == 0:
        p = int(rng.integers(2, 5))
        X = features(rng, n, p)
        score = X @ rng.normal(size=p) + 0.5 * rng.normal(size=n)
        k = int(rng.integers(2, 4))
        y = np.digitize(score, np.quantile(score, np.linspace(0, 1, k + 1)[1:-1]))
        while not params:
            params = _settings(rng)
    elif family == 1:
        X = features(rng, n, int(rng.integers(2, 5)))
        y = (X[:, 0] > 0.3).astype(int) + 2 * (X[:, 1] > -0.2).astype(int)
    else:
        X = features(rng, n, 1)
        y = (np.sin(3 * X[:, 0]) + 0.5 * rng.normal(size=n) > 0).astype(int)
    y = np.unique(y, return_inverse=True)[1].astype(np.int64)  # codes 0..k-1, every one used
    return X, y, params


def regression_case(seed):
    """(X, y, params): a smooth signal plus noise, several features under a stopping rule (a fully
    grown tree ties at every two-row node), or one feature with any settings."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 160))
    if rng.random() < 0.7:
        p = int(rng.integers(2, 5))
        params = {}
        while not params:
            params = _settings(rng)
    else:
        p, params = 1, _settings(rng)
    X = features(rng, n, p)
    y = np.sin(X @ rng.normal(size=p)) + 0.3 * rng.normal(size=n)
    return X, y, params


def new_points(seed, p, n=200):
    """Fresh float32-exact points to predict (between and beyond the training values)."""
    return float32_exact(np.random.default_rng(10_000 + seed).normal(size=(n, p)) * 1.5)
