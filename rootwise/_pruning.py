"""Tree -> Tree pruning passes.

- ``cost_complexity_path`` / ``prune_to_alpha``: CART's weakest-link pruning (seed 001 §2.6).
- ``reduced_error_prune``: seed 000 §3.2 post-pruning, judged on validation data.
Each pass only decides which internal nodes become leaves; ``collapse`` then writes the smaller
tree, keeping node order (so children stay consecutive and every index stays valid).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._config import LEAF, MISSING_STOP
from ._core.ccp import weakest_link_sequence
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
    into leaves (pre-pruning), and with ``node`` a leaf; ``pruned``: it was made / left a leaf."""

    node: int
    n_validation: float
    score_as_subtree: float
    score_as_leaf: float
    pruned: bool


def reduced_error_prune(tree: Tree, X_val: np.ndarray, y_val: np.ndarray, w_val: np.ndarray, *,
                        regression: bool = False, prune_on_tie: bool = True):
    """Seed 000 §3.2: visit internal nodes bottom-up (children before parents) and make a node a
    leaf whenever that does not lower the validation score (on a tie only if ``prune_on_tie``).

    A node's decision changes only the rows that reach it, so it is judged on those rows; the score
    reported is that of the whole tree. Returns (pruned tree, list of PruningStep)."""
    paths = tree.decision_path(X_val)
    rows = np.repeat(np.arange(X_val.shape[0]), np.diff(paths.indptr))
    as_leaf = leaf_losses(tree, y_val, w_val, rows, paths.indices, regression)
    ends = tree.apply(X_val)
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
        tie = np.isclose(as_leaf[node], below, rtol=1e-12, atol=1e-12)
        prune = bool((as_leaf[node] < below and not tie) or (tie and prune_on_tie))
        steps.append(PruningStep(node, float(reach_w[node]), score(current, total_w, regression),
                                 score(after_loss, total_w, regression), prune))
        if prune:
            make_leaf[node] = True
            subtree[node] = as_leaf[node]
            current = after_loss
    return collapse(tree, make_leaf), steps


def score(loss: float, total_w: float, regression: bool) -> float:
    """Validation score from a weighted loss: accuracy, or minus the mean squared error."""
    return -loss / total_w if regression else 1.0 - loss / total_w


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


def choose_alpha_by_cv(tree: Tree, folds, grow, row_losses, rule: str) -> CPTable:
    """Breiman's cross-validated choice of alpha (seed 001 §2.6).

    ``folds``: (train_rows, test_rows) pairs; ``grow(train_rows)`` grows an unpruned tree on them;
    ``row_losses(tree, test_rows)`` gives each test row's weighted loss and weight. Subtree T_k of
    the full tree stands for alphas in [alpha_k, alpha_k+1); each fold's tree is pruned at the
    geometric mean sqrt(alpha_k alpha_k+1) and scored on its held-out rows.
    rule "cv-min": the lowest CV error; "cv-1se": the simplest tree within one standard error
    of it. Ties go to the simpler tree."""
    path = cost_complexity_path(tree)
    a = path.alphas
    # T_k is optimal on [alpha_k, alpha_k+1); the last, the root alone, on [alpha_m, inf)
    probe = np.append(np.sqrt(a[:-1] * a[1:]), np.inf)
    losses = [[] for _ in a]
    weights = []
    for train, test in folds:
        fold_tree = grow(train)
        fold_path = cost_complexity_path(fold_tree)
        for k, alpha in enumerate(probe):
            pruned = _prune_with_path(fold_tree, fold_path, alpha)
            loss, w = row_losses(pruned, test)
            losses[k].append(loss)
        weights.append(w)
    w_all = np.concatenate(weights)
    total = w_all.sum()
    cv_error = np.empty(len(a))
    se = np.empty(len(a))
    for k in range(len(a)):
        per_row = np.concatenate(losses[k])  # weighted loss per held-out row
        cv_error[k] = per_row.sum() / total
        # standard error of a weighted mean of per-row losses
        rate = np.divide(per_row, w_all, out=np.zeros_like(per_row), where=w_all > 0)
        se[k] = np.sqrt(np.sum(w_all * (rate - cv_error[k]) ** 2) / total / max(len(w_all) - 1, 1))
    best = cv_error.min()
    within = cv_error <= best + 1e-12 * max(1.0, abs(best))
    if rule == "cv-1se":
        k_min = int(np.flatnonzero(within)[-1])
        within = cv_error <= best + se[k_min] + 1e-12 * max(1.0, abs(best))
    chosen = int(np.flatnonzero(within)[-1])  # later rows are simpler trees
    return CPTable(a, path.n_leaves, path.impurities, cv_error, se, chosen, rule)


def _prune_with_path(tree: Tree, path: PruningPath, alpha: float) -> Tree:
    make_leaf = np.zeros(tree.node_count, dtype=bool)
    make_leaf[path.pruned[1:][path.alphas[1:] <= alpha]] = True
    return collapse(tree, make_leaf)
