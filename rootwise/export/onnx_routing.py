"""A fitted tree as the node lists of ONNX's ``TreeEnsembleRegressor`` (ai.onnx.ml, opset 3).

An ONNX tree node compares one number with one constant (``<=``, ``==``), sends a missing value
(NaN) one fixed way, and has one parent: ONNX Runtime refuses a node reached from two places. A
rootwise node routes a missing value through its surrogate splits, and a category by a table, so
the routing is written in two stages, both tree ensembles:

1. Directions. One small tree per split node i of the rootwise tree reads the feature matrix and
   outputs d_i: the child slot a row takes there (0, 1, ...), ``STOP`` (the row stays at the node
   and gets its prediction) or ``FRACTIONAL`` (C4.5 sends the row down every branch). The tree
   is the node's own test, then -- for a missing value and, at a subset test, a category
   without a branch there -- each surrogate split in turn, then the node's missing branch (the
   larger child, or stop), as ``tree.walk._next`` routes a row. A categorical test is a chain
   of equality tests, one per category that has a branch; "is the value missing" is the test
   x <= +inf, which only NaN fails.
2. Routing. The rootwise tree itself over d: at node i the tests d_i <= o + 0.5, for the
   outcomes o the node can have, pick the child (a threshold test without surrogates is
   tested here directly, with no stage 1: ``Directions``). Its leaves hold the class distribution and
   the index of the predicted class, or the regression value.

A row's directions depend on its values only, never on its path, so every cascade is written
once and both stages grow linearly with the tree.

C4.5's fractional routing (a missing value goes down every branch) is not a walk to one leaf:
its model combines the directions of every node (``onnx_fractional``) instead of stage 2.
"""

from __future__ import annotations

import numpy as np

from .._config import LEAF, MISSING_FRACTIONAL, SUBSET, THRESHOLD
from ..tree.majority import majority_class

STOP = -1  # d_i: the row stays at node i
FRACTIONAL = -2  # d_i: C4.5 sends the row down every branch of node i


class Forest:
    """Node and leaf lists of one TreeEnsembleRegressor, filled tree by tree."""

    def __init__(self):
        self.tree, self.node, self.feature, self.mode = [], [], [], []
        self.value, self.true, self.false, self.missing_true = [], [], [], []
        self.t_tree, self.t_node, self.t_target, self.t_weight = [], [], [], []
        self.n_trees = 0
        self._ids = 0  # next node id in the current tree

    def new_tree(self) -> int:
        self.n_trees += 1
        self._ids = 0
        return self.n_trees - 1

    def __len__(self) -> int:
        return len(self.node)

    def _add(self, feature: int, mode: str, value: float, missing_true: bool) -> int:
        self.tree.append(self.n_trees - 1)
        self.node.append(self._ids)
        self._ids += 1
        self.feature.append(int(feature))
        self.mode.append(mode)
        self.value.append(float(value))
        self.true.append(0)
        self.false.append(0)
        self.missing_true.append(int(missing_true))
        return len(self.node) - 1

    def split(self, feature: int, mode: str, value: float, missing_true: bool = False) -> int:
        """A test node (its children are set with ``link``); returns its position."""
        return self._add(feature, mode, value, missing_true)

    def leaf(self, weights) -> int:
        """A leaf adding ``weights`` ((target, weight) pairs; none: adds nothing)."""
        at = self._add(0, "LEAF", 0.0, False)
        # ONNX Runtime (1.32) misreads a leaf without a weight: it takes another leaf's
        for target, w in weights or [(0, 0.0)]:
            self.t_tree.append(self.tree[at])
            self.t_node.append(self.node[at])
            self.t_target.append(int(target))
            self.t_weight.append(float(w))
        return at

    def link(self, hole: tuple[int, bool] | None, child: int) -> None:
        """Make ``child`` the true (or false) child of the split at ``hole`` = (position, true)."""
        if hole is None:
            return
        at, true = hole
        (self.true if true else self.false)[at] = self.node[child]

    def attributes(self) -> dict:
        """The operator's node and target lists (thresholds and weights as float64 tensors are
        added by the caller, which imports onnx)."""
        return {
            "nodes_treeids": self.tree, "nodes_nodeids": self.node,
            "nodes_featureids": self.feature, "nodes_modes": self.mode,
            "nodes_truenodeids": self.true, "nodes_falsenodeids": self.false,
            "nodes_missing_value_tracks_true": self.missing_true,
            "target_treeids": self.t_tree, "target_nodeids": self.t_node,
            "target_ids": self.t_target,
        }


# ---------------------------------------------------------------------------- stage 1

class Directions:
    """Stage 1: one tree per split node, its output d_i as target ``target[i]``. ``value_of(f,
    code)`` is the number the model's input matrix holds for category ``code`` of feature ``f``.

    A threshold test without surrogates needs no stage 1: stage 2 tests x <= t itself, a missing
    value joining a side (NaN fails x <= t; ``missing_true`` sends it the other way) or, after
    the test x <= +inf, going to its own outcome. Such nodes are in ``inline``: node ->
    (feature, threshold, missing outcome). Stage 2 reads the feature matrix and then the
    directions: d_i is its column ``n_features + target[i]``."""

    def __init__(self, tree, value_of, n_features: int, inline: bool = True):
        self.tree = tree
        self.value_of = value_of
        self.n_features = n_features
        self.forest = Forest()
        self.target: dict[int, int] = {}
        self.outcomes: dict[int, set] = {}  # node -> the values its d_i can take
        self.inline: dict[int, tuple] = {}
        for i in np.flatnonzero(tree.kind != LEAF):
            i = int(i)
            if inline and tree.kind[i] == THRESHOLD and tree.n_surrogates[i] == 0:
                self.inline[i] = (int(tree.feature[i]), float(tree.threshold[i]),
                                  _fallback(int(tree.missing_branch[i])))
            else:
                self._node(i)

    # a step of a cascade: a test whose outcomes are slots or constants, and "go on" (None)
    def _node(self, i: int) -> None:
        t = self.tree
        self.target[i] = len(self.target)
        self.outcomes[i] = set()
        self.forest.new_tree()
        f = int(t.feature[i])
        kind = int(t.kind[i])
        steps = []
        if kind == THRESHOLD:
            steps.append(("threshold", f, float(t.threshold[i]), 0))
        else:
            slots = t.branch_of_category(i)
            # a category without a branch: CART's subset test asks its surrogates (as for a
            # missing value), a multiway test stops (Zhou 2016, section 4.1: an empty branch)
            other = None if kind == SUBSET else STOP
            steps.append(("categories", f, slots, other))
        for s in range(int(t.surrogate_offset[i]), int(t.surrogate_offset[i]) + int(t.n_surrogates[i])):
            sur = t.surrogates
            g = int(sur["feature"][s])
            if sur["kind"][s] == THRESHOLD:
                steps.append(("threshold", g, float(sur["threshold"][s]), int(sur["left_branch"][s])))
            else:
                off = int(sur["pool_offset"][s])
                steps.append(("categories", g, t.pool[off: off + int(t.n_categories[g])], None))
        fallback = _fallback(int(t.missing_branch[i]))
        hole = None
        for n, step in enumerate(steps):
            last = n == len(steps) - 1
            hole = self._step(step, hole, fallback if last else None, i)
        if hole is not None or not steps:
            self.forest.link(hole, self._leaf(i, fallback))

    def _leaf(self, i: int, outcome: int) -> int:
        self.outcomes[i].add(outcome)
        return self.forest.leaf([(self.target[i], outcome)])

    def _step(self, step, hole, then, i: int):
        """Write one step below ``hole``; a missing value goes on to ``then`` (a constant outcome,
        written here) or, when None, to the hole returned for the next step."""
        forest = self.forest
        if step[0] == "threshold":
            _, f, threshold, left = step
            # x <= threshold: the left slot; NaN fails every comparison
            a = forest.split(f, "BRANCH_LEQ", threshold, missing_true=then == left)
            forest.link(hole, a)
            forest.link((a, True), self._leaf(i, left))
            if then is not None and then in (left, 1 - left):
                forest.link((a, False), self._leaf(i, 1 - left))  # NaN joins a side: no test
                return None
            b = forest.split(f, "BRANCH_LEQ", np.inf)  # false for NaN alone
            forest.link((a, False), b)
            forest.link((b, True), self._leaf(i, 1 - left))
            if then is not None:
                forest.link((b, False), self._leaf(i, then))
                return None
            return (b, False)
        _, f, slots, other = step
        way_on = None
        if other is not None and other != then:
            # a category without a branch and a missing value go different ways: NaN first
            a = forest.split(f, "BRANCH_LEQ", np.inf)
            forest.link(hole, a)
            if then is None:
                way_on = (a, False)
            else:
                forest.link((a, False), self._leaf(i, then))
            hole, end = (a, True), other
        else:
            end = then  # NaN and a category without a branch both fall through the tests
        # equality tests, one per category with a branch, but for those going where the end goes
        for c, b in enumerate(slots):
            if b < 0 or b == end:
                continue
            a = forest.split(f, "BRANCH_EQ", self.value_of(f, c))
            forest.link(hole, a)
            forest.link((a, True), self._leaf(i, int(b)))
            hole = (a, False)
        if end is None:
            return hole  # (a step with no category with a branch never decides: the hole as given)
        forest.link(hole, self._leaf(i, end))
        return way_on


def _fallback(missing_branch: int) -> int:
    """The outcome of a missing value that no surrogate decides."""
    if missing_branch >= 0:
        return missing_branch
    return FRACTIONAL if missing_branch == MISSING_FRACTIONAL else STOP


# ---------------------------------------------------------------------------- stage 2

def routing(tree, directions: Directions, leaf_weights) -> Forest:
    """Stage 2: one tree over the features and then the directions. ``leaf_weights(node)``
    gives the (target, weight) pairs of a row ending at ``node``."""
    forest = Forest()
    forest.new_tree()
    stack = [(0, None)]
    while stack:
        i, hole = stack.pop()
        if tree.kind[i] == LEAF:
            forest.link(hole, forest.leaf(leaf_weights(i)))
            continue
        for o, here in _tests(forest, directions, i, hole):
            if o == STOP:  # the row stays at node i: its own prediction
                forest.link(here, forest.leaf(leaf_weights(i)))
            else:
                stack.append((int(tree.first_child[i]) + o, here))
    return forest


def _tests(forest, directions: Directions, i: int, hole) -> list:
    """Stage 2's tests of node ``i`` below ``hole``: (outcome, hole of that outcome) pairs."""
    if i in directions.inline:
        f, threshold, missing = directions.inline[i]
        a = forest.split(f, "BRANCH_LEQ", threshold, missing_true=missing == 0)
        forest.link(hole, a)
        if missing in (0, 1):
            return [(0, (a, True)), (1, (a, False))]
        b = forest.split(f, "BRANCH_LEQ", np.inf)  # false for NaN alone
        forest.link((a, False), b)
        return [(0, (a, True)), (1, (b, True)), (missing, (b, False))]
    out = []
    outcomes = sorted(directions.outcomes[i])
    feature = directions.n_features + directions.target[i]
    for n, o in enumerate(outcomes):
        if n < len(outcomes) - 1:
            a = forest.split(feature, "BRANCH_LEQ", o + 0.5)
            forest.link(hole, a)
            hole, here = (a, False), (a, True)
        else:
            here = hole
        out.append((o, here))
    return out


def class_leaves(tree, priority):
    """``leaf_weights`` of a classifier: the class distribution (targets 0..k-1) and the index
    of the predicted class (target k; exact, ties as ``predict`` breaks them)."""
    dist = tree.distribution()
    k = dist.shape[1]
    label = majority_class(tree.value, priority)

    def weights(node: int):
        out = [(c, dist[node, c]) for c in range(k) if dist[node, c] != 0.0]
        out.append((k, float(label[node])))
        return out
    return weights


def value_leaves(tree):
    """``leaf_weights`` of a regressor: the node's value (a mean or a median)."""
    def weights(node: int):
        return [(0, float(tree.value[node, 0]))]
    return weights


