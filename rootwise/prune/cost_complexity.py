"""CART's cost-complexity (weakest-link) pruning, seed 001 §2.6: the sequence of subtrees, the
subtree for a given alpha, and alpha chosen by K-fold cross-validation."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._config import LEAF
from ..tree import Tree
from .collapse import collapse
from .weakest_link import weakest_link_sequence


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
