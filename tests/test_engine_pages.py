"""The segment's finished rows given back while a tree grows (rootwise.engine.pages): nothing
reads a position once its nodes are grown.

With ``pages.POISON`` every finished position is overwritten (row ids -1, weights, targets and
codes NaN or -1, words -1) instead of released, at every small fit: any later read of one would
change the tree, which the reference builder grows without any of this. A fit large enough to
release pages for real grows the tree it grows without releasing them."""

import numpy as np
import pytest
from test_engine_loop import STOPPING, assert_identical, both, c45, cart, table

from rootwise.engine import pages
from rootwise.engine.dispatch import build_tree_with_report


@pytest.fixture
def releases(monkeypatch):
    """The positions each release gave back, in order."""
    seen = []
    release = pages.FinishedRows.release

    def counted(self, done):
        seen.append(int(done))
        return release(self, done)

    monkeypatch.setattr(pages.FinishedRows, "release", counted)
    return seen


@pytest.mark.parametrize("seed", range(40))
def test_poisoned_finished_rows_change_no_tree(seed, monkeypatch, releases):
    monkeypatch.setattr(pages, "POISON", True)
    rng = np.random.default_rng(31000 + seed)
    regression = seed % 2 == 1
    X, y, w, kinds, n_cat, n_classes = table(rng, regression=regression, wide=seed % 8 == 0,
                                             n_max=400)
    criterion = "squared_error" if regression else ("gini", "entropy")[seed % 4 // 2]
    splitter = ("exact", "hist")[seed % 3 == 0]
    policy = cart(criterion, splitter=splitter, **STOPPING[seed % len(STOPPING)])
    validation = None
    if seed % 5 == 0:  # pre-pruning's validation rows are not the segment's
        m = len(y) // 3
        validation = (X[:m].copy(), y[:m].copy(), np.ones(m))
        X, y, w = X[m:], y[m:], w[m:]
    integer = np.all(w == np.round(w)) and (not regression or np.all(y == np.round(y)))
    tree, ref = both(X, y, w, kinds, n_cat, n_classes, policy, validation)
    assert_identical(tree, ref, exact_floats=bool(integer) or splitter == "exact")
    if tree.node_count > 200:  # growth returned to give rows back, and some were finished
        assert any(done > 0 for done in releases)


def test_no_release_where_children_are_written_elsewhere(monkeypatch, releases):
    """Best-first growth and C4.5's or multiway splits keep every row: the finished ones are
    not a prefix of the segment there."""
    monkeypatch.setattr(pages, "POISON", True)
    rng = np.random.default_rng(5)
    X, y, w, kinds, n_cat, n_classes = table(rng, n_max=400)
    both(X, y, w, kinds, n_cat, n_classes, cart("gini", max_leaf_nodes=40))
    both(X, y, w, kinds, n_cat, n_classes, c45())
    assert releases == []


def test_pages_given_back_for_real_grow_the_same_tree(monkeypatch, releases):
    """Past ``MIN_ROWS`` rows the pages are released (Linux): the same tree as without."""
    monkeypatch.setattr(pages, "MIN_ROWS", 1 << 14)
    rng = np.random.default_rng(0)
    n = 30_000  # 59 pages of 4 kB in each array of 8 bytes a row
    X = np.column_stack([rng.normal(size=n).round(2), rng.normal(size=n),
                         rng.integers(0, 12, n).astype(float)])
    X[rng.random(X.shape) < 0.05] = np.nan
    y = np.nan_to_num(X[:, 0]) * 2 + np.nan_to_num(X[:, 2]) % 3 + rng.normal(size=n)
    w = np.ones(n)
    kinds = np.array([0, 0, 1], dtype=np.int64)
    n_cat = np.array([0, 0, 12], dtype=np.int64)
    policy = cart("squared_error")
    given_back, _ = build_tree_with_report(X, y, w, kinds, n_cat, 0, policy)
    if pages.available():
        assert releases and releases[-1] > n // 2
    monkeypatch.setattr(pages, "MIN_ROWS", 10 * n)
    kept, _ = build_tree_with_report(X, y, w, kinds, n_cat, 0, policy)
    assert_identical(given_back, kept)
