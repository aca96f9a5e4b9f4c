"""Tree -> Tree pruning passes.

- ``cost_complexity_path`` / ``prune_to_alpha``: CART's weakest-link pruning (seed 001 §2.6).
- ``reduced_error_prune``: seed 000 §3.2 post-pruning, judged on validation data.
Each pass only decides which internal nodes become leaves; ``collapse`` then writes the smaller
tree, keeping node order (so children stay consecutive and every index stays valid).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._config import LEAF, MISSING_FRACTIONAL, MISSING_STOP
from ._core.ccp import weakest_link_sequence
from ._core.predict import fractional_distribution
from ._tree import NODE_FIELDS, Tree


def collapse(tree: Tree, make_leaf: np.ndarray) -> Tree:
    """The tree in which every node of ``make_leaf`` is a leaf and its descendants are gone."""
    n = tree.node_count
    removed = np.zeros(n, dtype=bool)
    leaf = np.asarray(make_leaf, dtype=bool) | (tree.kind == LEAF)
    for i in range(1, n):  # parents come before children
        p = tree.parent[i]
        removed[i] = removed[p] or leaf[p]
    keep = np.flatnonzero(~removed)
    new_id = np.full(n, -1, dtype=np.int64)
    new_id[keep] = np.arange(len(keep))
    nodes = {name: getattr(tree, name)[keep].copy() for name in NODE_FIELDS}
    now_leaf = leaf[keep]
    nodes["kind"][now_leaf] = LEAF
    nodes["feature"][now_leaf] = -1
    nodes["threshold"][now_leaf] = np.nan
    nodes["n_children"][now_leaf] = 0
    nodes["pool_offset"][now_leaf] = -1
    nodes["missing_branch"][now_leaf] = MISSING_STOP
    nodes["surrogate_offset"][now_leaf] = -1
    nodes["n_surrogates"][now_leaf] = 0
    if "improvement" in nodes:  # a leaf made by pruning reads as one grown as a leaf
        nodes["improvement"][now_leaf] = 0.0
    fc = nodes["first_child"]
    fc[now_leaf] = -1
    fc[~now_leaf] = new_id[fc[~now_leaf]]
    par = nodes["parent"]
    par[par >= 0] = new_id[par[par >= 0]]
    return Tree(nodes, tree.value[keep], tree.pool, tree.n_categories, tree.surrogates)


def node_costs(tree: Tree) -> np.ndarray:
    """R(t) = w_t / W * impurity(t): the training cost of each node as a leaf."""
    return tree.weighted_n_node_samples * tree.impurity / tree.weighted_n_node_samples[0]


@dataclass(frozen=True)
class PruningPath:
    """The weakest-link sequence: step s has complexity ``alphas[s]``, total leaf cost
    ``impurities[s]`` and ``n_leaves[s]`` leaves; ``pruned[s]`` is the node cut at step s."""

    alphas: np.ndarray
    impurities: np.ndarray
    n_leaves: np.ndarray
    pruned: np.ndarray


def cost_complexity_path(tree: Tree, stop_alpha: float = np.inf) -> PruningPath:
    """The weakest-link sequence of ``tree``, stopping before the first alpha above stop_alpha."""
    alphas, costs, leaves, pruned = weakest_link_sequence(
        tree.first_child.astype(np.int64), tree.n_children.astype(np.int64),
        tree.parent.astype(np.int64), node_costs(tree), float(stop_alpha))
    return PruningPath(alphas, costs, leaves, pruned)


def prune_to_alpha(tree: Tree, alpha: float) -> Tree:
    """The smallest subtree minimising R(T) + alpha |T|: all weakest links with g <= alpha cut."""
    path = cost_complexity_path(tree, stop_alpha=alpha)
    make_leaf = np.zeros(tree.node_count, dtype=bool)
    make_leaf[path.pruned[1:]] = True
    return collapse(tree, make_leaf)


# --------------------------------------------------------------------------- reduced-error


def leaf_losses(tree: Tree, y_val: np.ndarray, w_val: np.ndarray, rows: np.ndarray,
                nodes: np.ndarray, regression: bool) -> np.ndarray:
    """Per node: the weighted validation loss if the node predicted, as a leaf, the rows paired
    with it in (rows, nodes): 0/1 error of its majority class, or squared error of its value."""
    if regression:
        err = (y_val[rows] - tree.value[nodes, 0]) ** 2
    else:
        err = (y_val[rows] != np.argmax(tree.value, axis=1)[nodes]).astype(np.float64)
    return np.bincount(nodes, weights=err * w_val[rows], minlength=tree.node_count)


@dataclass(frozen=True)
class PruningStep:
    """One pruning decision judged on validation data: the validation score of the whole tree
    (accuracy, or minus the mean squared error) with ``node`` as a subtree (post-pruning) or split
    into leaves (pre-pruning), and with ``node`` a leaf; ``pruned``: it was made / left a leaf.

    ``node`` numbers the tree the decision was taken on: the grown tree for pre-pruning (the fitted
    tree), the unpruned tree for reduced-error pruning (whose pruned subtrees are gone from the
    fitted tree). ``n_validation``: weight of the validation rows reaching the node. ``path``: the
    tests leading to the node, in the words of ``export_text`` ("" for the root, or when unknown)."""

    node: int
    n_validation: float
    score_as_subtree: float
    score_as_leaf: float
    pruned: bool
    path: str = ""


def reduced_error_prune(tree: Tree, X_val: np.ndarray, y_val: np.ndarray, w_val: np.ndarray, *,
                        regression: bool = False, prune_on_tie: bool = True):
    """Seed 000 §3.2: visit internal nodes bottom-up (children before parents) and make a node a
    leaf whenever that does not lower the validation score (on a tie only if ``prune_on_tie``).

    A node's decision changes only the rows that reach it, so it is judged on those rows; the score
    reported is that of the whole tree. Returns (pruned tree, list of PruningStep).

    Rows are scored as ``predict`` scores them: a row stops where prediction stops it (a leaf, or a
    split without a branch for its value) and is charged that node's prediction. When a validation
    row reaches a C4.5 split with its value missing, its prediction combines the branches by r_v
    and no longer adds up over them: the candidates are then scored by predicting the rows they
    can change (``_prune_by_prediction``)."""
    ends = tree.apply(X_val)
    if _fractional_rows(tree, X_val, ends).any():
        return _prune_by_prediction(tree, X_val, y_val, w_val, ends, regression, prune_on_tie)
    paths = tree.decision_path(X_val)
    rows = np.repeat(np.arange(X_val.shape[0]), np.diff(paths.indptr))
    as_leaf = leaf_losses(tree, y_val, w_val, rows, paths.indices, regression)
    # rows that stop at a node (a leaf, or a split node with no branch for their value)
    stop_loss = leaf_losses(tree, y_val, w_val, np.arange(len(ends)), ends, regression)
    reach_w = np.bincount(paths.indices, weights=w_val[rows], minlength=tree.node_count)
    total_w = w_val.sum()
    current = float(stop_loss.sum())
    subtree = stop_loss.copy()
    make_leaf = np.zeros(tree.node_count, dtype=bool)
    steps = []
    # children have larger ids than their parents: descending ids visit every child first
    for node in range(tree.node_count - 1, -1, -1):
        if tree.kind[node] == LEAF:
            continue
        below = stop_loss[node] + sum(subtree[c] for c in tree.children(node))
        subtree[node] = below
        after_loss = current - below + as_leaf[node]
        prune = _better_or_tie(as_leaf[node], below, prune_on_tie)
        steps.append(PruningStep(node, float(reach_w[node]), score(current, total_w, regression),
                                 score(after_loss, total_w, regression), prune))
        if prune:
            make_leaf[node] = True
            subtree[node] = as_leaf[node]
            current = after_loss
    return collapse(tree, make_leaf), steps


def score(loss: float, total_w: float, regression: bool) -> float:
    """Validation score from a weighted loss: accuracy, or minus the mean squared error."""
    return float(-loss / total_w if regression else 1.0 - loss / total_w)


def _better_or_tie(leaf_loss: float, subtree_loss: float, prune_on_tie: bool) -> bool:
    """Prune: the leaf loses less on the validation rows, or as much and ``prune_on_tie``."""
    if np.isclose(leaf_loss, subtree_loss, rtol=1e-12, atol=1e-12):
        return bool(prune_on_tie)
    return bool(leaf_loss < subtree_loss)


def _fractional_rows(tree: Tree, X: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Rows whose path ends at a C4.5 split because their tested value is missing: prediction
    sends them down every branch with weight r_v."""
    at_split = tree.kind[ends] != LEAF
    tested = np.where(at_split, tree.feature[ends], 0)
    value = np.asarray(X, dtype=np.float64)[np.arange(len(ends)), tested]
    return at_split & (tree.missing_branch[ends] == MISSING_FRACTIONAL) & np.isnan(value)


def _prune_by_prediction(tree: Tree, X_val, y_val, w_val, ends, regression: bool,
                         prune_on_tie: bool):
    """``reduced_error_prune`` for validation rows that C4.5 splits fractionally: each candidate
    is scored by C4.5's prediction (``fractional_distribution``) with the node as a subtree and as
    a leaf, on the rows it can change: those whose path passes the node, and those split
    fractionally at one of its ancestors. ``n_validation`` counts a fractional row's share r_v."""
    X = np.ascontiguousarray(X_val, dtype=np.float64)
    n_nodes = tree.node_count
    value = tree.value if regression else tree.value / tree.value.sum(axis=1, keepdims=True)

    def predict(rows, kind, val):
        return fractional_distribution(
            X[rows], tree.feature, kind, tree.threshold, tree.first_child, tree.n_children,
            tree.pool_offset, tree.pool, tree.n_categories, tree.missing_branch,
            tree.branch_fraction, val)

    def loss(rows, kind) -> float:
        out = predict(rows, kind, value)
        err = (y_val[rows] - out[:, 0]) ** 2 if regression else np.argmax(out, axis=1) != y_val[rows]
        return float(np.sum(err * w_val[rows]))

    paths = tree.decision_path(X).tocsc()
    frag = _fractional_rows(tree, X, ends)
    split_at = {int(s): np.flatnonzero(frag & (ends == s)) for s in np.unique(ends[frag])}
    all_rows = np.arange(X.shape[0])
    kind = tree.kind.copy()
    total_w = float(np.sum(w_val))
    current = loss(all_rows, kind)
    steps = []
    for node in range(n_nodes - 1, -1, -1):  # children before parents
        if tree.kind[node] == LEAF:
            continue
        reach = [paths.indices[paths.indptr[node]: paths.indptr[node + 1]]]
        a = int(tree.parent[node])
        while a >= 0:
            if a in split_at:
                reach.append(split_at[a])
            a = int(tree.parent[a])
        rows = np.unique(np.concatenate(reach))
        as_leaf = kind.copy()
        as_leaf[node] = LEAF
        below, above = loss(rows, kind), loss(rows, as_leaf)
        after = current - below + above
        only_here = np.zeros((n_nodes, 1))
        only_here[node, 0] = 1.0  # the share of each row that reaches the node, and stops there
        n_val = float(np.sum(predict(rows, as_leaf, only_here)[:, 0] * w_val[rows]))
        prune = _better_or_tie(above, below, prune_on_tie)
        steps.append(PruningStep(node, n_val, score(current, total_w, regression),
                                 score(after, total_w, regression), prune))
        if prune:
            kind = as_leaf
            current = after
    return collapse(tree, (kind == LEAF) & (tree.kind != LEAF)), steps


# --------------------------------------------------------------------------- error-based (C4.5)


def pessimistic_errors(n: float, e: float, confidence: float) -> float:
    """Extra errors C4.5 adds to the e training errors of a leaf holding n (weighted) cases: the
    upper limit of the binomial confidence interval at level ``confidence`` (CF, default 0.25),
    minus e. Quinlan (1993) §4.2; for e < 1 it interpolates between the exact e = 0 bound
    n (1 - CF^(1/n)) and the e = 1 value, as release 8 does.

        f = (e + 0.5) / n,  z = Phi^-1(1 - CF)
        U = (f + z^2/2n + z sqrt(f/n - f^2/n + z^2/4n^2)) / (1 + z^2/n)   ->   n U - e
    """
    if n <= 0:
        return 0.0
    if e < 1:
        base = n * (1.0 - confidence ** (1.0 / n))
        if e == 0:
            return base
        return base + e * (pessimistic_errors(n, 1.0, confidence) - base)
    if e + 0.5 >= n:
        return max(n - e, 0.0)
    z = _normal_quantile(1.0 - confidence)
    f = (e + 0.5) / n
    r = (f + z * z / (2 * n) + z * np.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (1 + z * z / n)
    return r * n - e


def _normal_quantile(p: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(p)


# --------------------------------------------------------------------------- alpha by CV


@dataclass(frozen=True)
class CPTable:
    """rpart-style table of the pruning sequence of the full tree, one row per subtree T_k:
    alpha_k, its leaves, training cost R(T_k), and the K-fold cross-validated error of the subtree
    size it stands for, with its standard error. ``chosen`` is the row the rule picked."""

    alpha: np.ndarray
    n_leaves: np.ndarray
    train_cost: np.ndarray
    cv_error: np.ndarray
    cv_std_error: np.ndarray
    chosen: int
    rule: str

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame({"alpha": self.alpha, "n_leaves": self.n_leaves,
                             "train_cost": self.train_cost, "cv_error": self.cv_error,
                             "cv_std_error": self.cv_std_error,
                             "chosen": np.arange(len(self.alpha)) == self.chosen})


def choose_alpha_by_cv(tree: Tree, folds, grow, X: np.ndarray, row_losses, rule: str) -> CPTable:
    """Breiman's cross-validated choice of alpha (seed 001 §2.6).

    ``folds``: (train_rows, test_rows) pairs of rows of the encoded matrix ``X``;
    ``grow(train_rows)`` grows an unpruned tree on them; ``row_losses(tree, rows, nodes)`` gives
    the weighted loss and the weight of row ``rows[i]`` predicted by node ``nodes[i]`` of ``tree``.
    Subtree T_k of the full tree stands for alphas in [alpha_k, alpha_k+1); each fold's tree is
    pruned at the geometric mean sqrt(alpha_k alpha_k+1) and scored on its held-out rows.
    rule "cv-min": the lowest CV error; "cv-1se": the simplest tree within one standard error
    of it. Ties go to the simpler tree.

    Weights count as repeated rows (as in the stopping rules): the standard error of the CV error
    divides by W - 1, W the total held-out weight, so an integer weight equals repeating the row
    and a zero weight equals leaving it out."""
    path = cost_complexity_path(tree)
    # A weakest link whose alpha equals the next one's is cut at that same alpha: its subtree is
    # optimal on an empty interval and prune_to_alpha never returns it, so it gets no row.
    # (Before, such a row could be chosen while the fitted tree was the next one.)
    keep = np.append(path.alphas[1:] > path.alphas[:-1], True)
    path = PruningPath(path.alphas[keep], path.impurities[keep], path.n_leaves[keep], path.pruned[keep])
    a = path.alphas
    # T_k is optimal on [alpha_k, alpha_k+1); the last, the root alone, on [alpha_m, inf).
    # Round-off can leave an alpha at -1e-17: clip before the square root.
    nonneg = np.maximum(a, 0.0)
    probe = np.append(np.sqrt(nonneg[:-1] * nonneg[1:]), np.inf)
    # per probe: sum of weighted losses, and sum of w * rate^2 (rate = loss / w) for the variance
    loss_sum = np.zeros(len(a) + 1)
    square_sum = np.zeros(len(a) + 1)
    total = 0.0
    for train, test in folds:
        fold_tree = grow(train)
        lower, upper, rows, nodes = _endings(fold_tree, cost_complexity_path(fold_tree),
                                             fold_tree.decision_path_parts(X[test]))
        loss, w = row_losses(fold_tree, test[rows], nodes)
        rate = np.divide(loss, w, out=np.zeros_like(loss), where=w > 0)
        # row i ends in nodes[i] for the probes in [lower, upper): add to those, as differences
        lo = np.searchsorted(probe, lower, side="left")
        hi = np.where(np.isposinf(upper), len(probe), np.searchsorted(probe, upper, side="left"))
        for acc, v in ((loss_sum, loss), (square_sum, loss * rate)):
            np.add.at(acc, lo, v)
            np.add.at(acc, hi, -v)
        total += float(w[np.flatnonzero(np.isneginf(lower))].sum())  # one entry per row
    loss_sum = np.cumsum(loss_sum)[:-1]
    square_sum = np.cumsum(square_sum)[:-1]
    cv_error = loss_sum / total if total > 0 else np.zeros(len(a))
    # standard error of a weighted mean of per-row losses, weights read as frequencies:
    # sum w (rate - mean)^2 = sum w rate^2 - W mean^2 (before: divided by the row count - 1, so
    # repeating rows and weighting them differed)
    if total > 1.0:
        spread = np.maximum(square_sum - total * cv_error ** 2, 0.0) / total
        se = np.sqrt(spread / (total - 1.0))
    else:
        se = np.zeros(len(a))
    best = cv_error.min()
    within = cv_error <= best + 1e-12 * max(1.0, abs(best))
    if rule == "cv-1se":
        k_min = int(np.flatnonzero(within)[-1])
        within = cv_error <= best + se[k_min] + 1e-12 * max(1.0, abs(best))
    chosen = int(np.flatnonzero(within)[-1])  # later rows are simpler trees
    return CPTable(a, path.n_leaves, path.impurities, cv_error, se, chosen, rule)


def _endings(tree: Tree, path: PruningPath, paths: tuple[np.ndarray, np.ndarray]):
    """Where each row of the decision paths ``paths`` (CSR parts: indptr, indices) ends as ``tree``
    is pruned at growing alpha, without building the pruned trees: one entry (lower, upper, row,
    node) per node on a row's path, meaning that pruned at any alpha in [lower, upper) the tree
    sends the row to ``node`` (a leaf by then, or the node where the row stops). The entries of one
    row tile the real line; the deepest has lower = -inf.

    Node t is a leaf of the tree pruned at alpha once alpha >= cut(t), the alpha of the weakest link
    that cut t (-inf for a leaf, +inf if t goes with an ancestor's subtree); the row ends in the
    first node of its path with cut <= alpha. With c_j the running minimum of cut along the path
    (non-increasing), that is node j for alpha in [c_j, c_j-1)."""
    cut = np.full(tree.node_count, np.inf)
    cut[tree.kind == LEAF] = -np.inf
    cut[path.pruned[1:]] = path.alphas[1:]
    indptr, indices = paths
    n_rows = len(indptr) - 1
    lengths = np.diff(indptr)
    rows = np.repeat(np.arange(n_rows), lengths)
    nodes = indices[np.lexsort((indices, rows))].astype(np.int64)  # node ids grow from the root
    starts = indptr[:-1]
    # running minimum of cut along each path, on a (rows x depth) grid padded with +inf
    pos = np.arange(len(nodes)) - np.repeat(starts, lengths)
    grid = np.full((n_rows, int(lengths.max(initial=0))), np.inf)
    grid[rows, pos] = cut[nodes]
    c = np.minimum.accumulate(grid, axis=1)[rows, pos]
    upper = np.empty_like(c)
    upper[1:] = c[:-1]
    upper[starts[lengths > 0]] = np.inf
    lower = c.copy()
    lower[indptr[1:][lengths > 0] - 1] = -np.inf  # the row's last node: below every cut
    return lower, upper, rows, nodes
