"""Very deep trees (issue 15 item 4): a staircase 10^4 levels deep goes through every export,
save / load, every pruning pass and explain without RecursionError (Python's limit is 1,000
frames), and a tree with one leaf per row through the same. Times are measured by
benchmarks/deep_trees.py (10^4 to 3 * 10^4 levels, 10^6 rows), not asserted here.

The staircase: x = 0, 1, ..., n-1 with alternating classes. Every cut leaves the same impurity,
so the tie goes to the lowest threshold: the node at depth d tests x <= d + 0.5, sends row d to
a pure leaf and rows d+1 .. n-1 on; the tree is n - 1 levels deep.
"""

import numpy as np
import pytest

import rootwise
from rootwise import C45Classifier, CARTClassifier, CARTRegressor
from rootwise._config import LEAF, THRESHOLD
from rootwise.prune.cost_complexity import cost_complexity_path, prune_to_alpha

DEPTH = 10_000
# reduced-error pruning and pre-pruning on the whole staircase (both compiled, no recursion)
PASS_DEPTH = DEPTH


def staircase(depth):
    n = depth + 1
    return np.arange(n, dtype=np.float64).reshape(-1, 1), np.arange(n) % 2


@pytest.fixture(scope="module")
def stairs():
    X, y = staircase(DEPTH)
    return X, y, CARTClassifier(pruning=None).fit(X, y)


@pytest.fixture(scope="module")
def stairs_regressor():
    X, y = staircase(DEPTH)
    return X, y + 0.0, CARTRegressor(pruning=None).fit(X, y + 0.0)


def spine(depth):
    """Node ids of the staircase's split nodes, root first: each is the second child of the
    one before (children are numbered after their parent, consecutively)."""
    return [2 * d for d in range(depth)]


def check_staircase(tree, depth):
    """The tree described in the module docstring, checked node by node."""
    assert tree.node_count == 2 * depth + 1 and tree.max_depth == depth
    nodes = spine(depth)
    assert np.all(tree.kind[nodes] == THRESHOLD)
    np.testing.assert_array_equal(tree.threshold[nodes], np.arange(depth) + 0.5)
    np.testing.assert_array_equal(tree.first_child[nodes], np.array(nodes) + 1)
    assert np.sum(tree.kind == LEAF) == depth + 1


def test_fit_grows_the_staircase(stairs, stairs_regressor):
    X, y, model = stairs
    check_staircase(model.tree_, DEPTH)
    check_staircase(stairs_regressor[2].tree_, DEPTH)
    np.testing.assert_array_equal(model.predict(X), y)  # pure leaves: the training set exactly
    np.testing.assert_array_equal(model.apply(X)[:-1], np.array(spine(DEPTH)) + 1)


def test_save_and_load(stairs, tmp_path):
    X, y, model = stairs
    rootwise.save(model, tmp_path / "deep.json")
    loaded = rootwise.load(tmp_path / "deep.json")
    assert loaded.tree_ == model.tree_
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_export_graphviz(stairs):
    dot = rootwise.export_graphviz(stairs[2])
    edges = [line for line in dot.splitlines() if " -> " in line]
    assert len(edges) == 2 * DEPTH
    assert f'{2 * DEPTH - 2} -> {2 * DEPTH} [label="> {DEPTH - 0.5:g}"] ;' in edges


def test_export_text(stairs):
    text = rootwise.export_text(stairs[2])
    lines = text.splitlines()
    assert len(lines) == 2 * DEPTH  # one line per branch, a leaf's class on its branch's line
    assert lines[0] == "├── x0 <= 0.5 → 0 (1)"
    assert lines[-1].endswith(f"└── x0 > {DEPTH - 0.5:g} → 0 (1)")
    assert len(text) < 300 * len(lines)  # not indented 4 characters per level: linear in size


def test_cost_complexity_path_and_prune_to_alpha(stairs):
    tree = stairs[2].tree_
    path = cost_complexity_path(tree)
    assert path.n_leaves[0] == DEPTH + 1 and path.n_leaves[-1] == 1
    assert np.all(np.diff(path.alphas) >= 0)
    for alpha, leaves in zip(path.alphas, path.n_leaves, strict=True):
        assert prune_to_alpha(tree, alpha).n_leaves == leaves
    assert prune_to_alpha(tree, 0.0) == tree  # every split lowers the cost: nothing to cut


def test_cost_complexity_chosen_by_cross_validation(stairs):
    X, y, _ = stairs
    # cp=0: the whole staircase is one weakest link (each split's g = 0.25 / 10^4), which is
    # exactly the floor cp=None takes on 10^4 rows or more (1e-4 x R(root)), so it would start
    # the table at the root
    model = CARTClassifier(cv=3, random_state=0, cp=0.0).fit(X, y)
    table = model.cp_table_
    assert table.n_leaves[0] == DEPTH + 1 and model.get_n_leaves() == table.n_leaves[table.chosen]


@pytest.fixture(scope="module")
def pass_stairs():
    X, y = staircase(PASS_DEPTH)
    return X, y, CARTClassifier(pruning=None).fit(X, y), CARTRegressor(pruning=None).fit(X, y + 0.0)


def test_reduced_error_pruning_keeps_a_tree_that_is_right_on_every_validation_row(pass_stairs):
    X, y, model, _ = pass_stairs
    pruned = CARTClassifier(pruning="reduced-error").fit(X, y, X_val=X, y_val=y)
    assert pruned.tree_ == model.tree_  # making any node a leaf loses a validation row


def test_pre_pruning_splits_while_the_validation_error_drops(pass_stairs):
    X, y, _, model = pass_stairs
    grown = CARTRegressor(pruning="pre").fit(X, y + 0.0, X_val=X, y_val=y + 0.0).tree_
    # every split lowers the squared error on these rows: the whole staircase is kept (grown by
    # the reference builder, whose impurities may differ from the engine's in the last bits)
    for name in ("kind", "feature", "threshold", "first_child", "value"):
        np.testing.assert_array_equal(getattr(grown, name), getattr(model.tree_, name))


C45_DEPTH = 2_500  # C4.5's growth on the staircase is quadratic in the rows: fewer rows


def test_error_based_pruning():
    """C4.5 on the staircase (two rows per leaf: half as many levels as rows) and its
    pessimistic pruning: the grown tree's leaves are right on one row of two, no better than
    the root."""
    X, y = staircase(2 * C45_DEPTH)
    full = C45Classifier(pruning=None).fit(X, y)
    assert full.get_depth() > 1_500
    pruned = C45Classifier().fit(X, y)
    assert pruned.tree_.node_count < full.tree_.node_count


def test_explain_at_the_root_and_deep_down(stairs):
    X, y, model = stairs
    for depth in (0, DEPTH // 2, DEPTH - 1):
        node = spine(DEPTH)[depth]
        table = rootwise.explain(X, y, model, node=node)
        assert table.attrs["n_rows"] == DEPTH + 1 - depth  # rows depth .. n-1
        assert table["threshold"].tolist() == [depth + 0.5] and table["chosen"].tolist() == [True]
    weights = rootwise.node_weights(X, model, node=spine(DEPTH)[-1])
    assert weights.index.tolist() == [DEPTH - 1, DEPTH]


def test_explain_a_deep_regressor(stairs_regressor):
    X, y, model = stairs_regressor
    node = spine(DEPTH)[-1]  # rows DEPTH - 1 and DEPTH: y = 1, 0
    table = rootwise.explain(X, y, model, node=node)
    assert table.attrs["n_rows"] == 2 and table["threshold"].tolist() == [DEPTH - 0.5]
    assert table["mse"].tolist() == [0.25] and table["mse_decrease"].tolist() == [0.25]


def test_one_leaf_per_row():
    """A regressor on distinct x and distinct y: one leaf per row, every export and pass."""
    rng = np.random.default_rng(0)
    n = 20_000
    X = rng.permutation(n).astype(np.float64).reshape(-1, 1)
    y = rng.normal(size=n)
    model = CARTRegressor(pruning=None).fit(X, y)
    assert model.get_n_leaves() == n
    np.testing.assert_array_equal(model.predict(X), y)
    assert len(rootwise.export_text(model).splitlines()) == 2 * (n - 1)
    assert rootwise.export_graphviz(model).count(" -> ") == 2 * (n - 1)
    path = cost_complexity_path(model.tree_)
    assert path.n_leaves[0] == n and path.n_leaves[-1] == 1
