"""CART's cost-complexity (weakest-link) pruning, (Breiman et al. 1984, ch. 3): the sequence of subtrees, the
subtree for a given alpha, and alpha chosen by (repeated) K-fold cross-validation.

The cost R(t) of a node as a leaf, as a share of the root's weight W, is one of

    "impurity"            R(t) = w_t / W * I(t)          (scikit-learn's; squared error: SS_t / W)
    "misclassification"   R(t) = (w_t - max_k w_tk) / W  (Breiman et al.'s and rpart's, classes)

where w_tk is the weight of class k at t.

A floor alpha_0 (``cp`` = alpha_0 / R(root), rpart's complexity parameter) saves growing what no
subtree T(alpha) with alpha >= alpha_0 keeps: a node with R(t) <= alpha is a leaf of T(alpha),
since its branch T_t has R(T_t) >= 0 and at least two leaves, so
g(t) = (R(t) - R(T_t)) / (|T_t| - 1) <= R(t) <= alpha at every step of the weakest-link sequence.
The growth loop leaves such nodes unsplit, and only alphas >= alpha_0 are used afterwards.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from numba import njit

from .._config import ABSOLUTE_ERROR, ENTROPY, LEAF, POISSON
from ..tree import Tree
from .collapse import collapse
from .weakest_link import weakest_link_sequence

COSTS = ("misclassification", "impurity")


def root_cost(y: np.ndarray, w: np.ndarray, n_classes: int, cost: str, criterion: int) -> float:
    """R(root) of rows with targets ``y`` (class codes, or values when ``n_classes`` is 0) and
    weights ``w``: 1 - max_k p_k ("misclassification"), I(root) ("impurity": Gini or entropy
    by ``criterion``; regression: the criterion's impurity, the weighted variance SS / W for the
    squared error)."""
    W = float(w.sum())
    if not W > 0:
        return 0.0
    if n_classes == 0:
        mean = float(np.dot(w, y)) / W
        if criterion == ABSOLUTE_ERROR:
            return float(np.dot(w, np.abs(y - _weighted_median(y, w)))) / W
        if criterion == POISSON:
            if not mean > 0:
                return 0.0
            pos = y > 0
            return float(np.dot(w[pos], y[pos] * np.log(y[pos] / mean))) / W
        return float(np.dot(w, (y - mean) ** 2)) / W
    return class_cost(np.bincount(y, weights=w, minlength=n_classes), W, cost, criterion)


def _weighted_median(y: np.ndarray, w: np.ndarray) -> float:
    """A weighted median of y (any one: the absolute deviation from each is the same)."""
    order = np.argsort(y, kind="mergesort")
    cum = np.cumsum(w[order])
    return float(y[order][np.searchsorted(cum, 0.5 * cum[-1])])


def class_cost(counts: np.ndarray, W: float, cost: str, criterion: int) -> float:
    """R(root) of ``root_cost`` from the class weights ``counts`` (sum W > 0)."""
    p = counts / W
    if cost == "misclassification":
        return float(1.0 - p.max())
    p = p[p > 0]
    if criterion == ENTROPY:
        return float(-(p * np.log2(p)).sum())
    return float(1.0 - (p * p).sum())


def node_costs(tree: Tree, cost: str = "impurity") -> np.ndarray:
    """R(t) of every node of ``tree`` under ``cost`` (see the module docstring)."""
    r, scale = _kernel_costs(tree, cost)
    return r / scale


def _kernel_costs(tree: Tree, cost: str) -> tuple[np.ndarray, float]:
    """(r, scale) with R(t) = r[t] / scale: the misclassified weight itself (exact sums for whole
    weights, so zero-gain links get g = 0 exactly, as in rpart), or scikit-learn's own numbers."""
    w = tree.weighted_n_node_samples
    if hasattr(cost, "node_risk"):  # a loss matrix's risk (``rootwise.loss.LossCost``)
        return cost.node_risk(tree.value), float(cost.counts(tree.value[:1]).sum())
    if cost == "impurity":
        return w * tree.impurity / w[0], 1.0
    if cost == "misclassification":
        v = tree.value
        return v.sum(axis=1) - v.max(axis=1), float(w[0])
    raise ValueError(f"cost must be one of {COSTS}, got {cost!r}.")


@dataclass(frozen=True)
class PruningPath:
    """The weakest-link sequence: step s has complexity ``alphas[s]``, total leaf cost
    ``impurities[s]`` and ``n_leaves[s]`` leaves; ``pruned[s]`` is the node cut at step s."""

    alphas: np.ndarray
    impurities: np.ndarray
    n_leaves: np.ndarray
    pruned: np.ndarray


def cost_complexity_path(tree: Tree, stop_alpha: float = np.inf,
                         cost: str = "impurity") -> PruningPath:
    """The weakest-link sequence of ``tree`` under ``cost``, stopping before the first alpha above
    stop_alpha."""
    r, scale = _kernel_costs(tree, cost)
    alphas, costs, leaves, pruned = weakest_link_sequence(
        tree.first_child.astype(np.int64), tree.n_children.astype(np.int64),
        tree.parent.astype(np.int64), r, float(stop_alpha), scale)
    if len(alphas) > 1 and (alphas[1] < 0 or np.any(np.diff(alphas) < 0)):
        # values clipped to monotonic bounds (``engine.monotone``) can make a branch cost more
        # than its node as a leaf (g < 0), or a later link less than an earlier one: such a link
        # is cut at the alpha of the links before it, and at 0 at least
        alphas = np.maximum.accumulate(np.maximum(alphas, 0.0))
    return PruningPath(alphas, costs, leaves, pruned)


def floor_path(path: PruningPath, floor: float) -> PruningPath:
    """The steps of ``path`` that stand for alphas >= ``floor``: the subtree optimal at the floor
    (its alpha raised to the floor) and the later ones."""
    if not floor > 0:
        return path
    start = max(int(np.searchsorted(path.alphas, floor, side="right")) - 1, 0)
    alphas = path.alphas[start:].copy()
    alphas[0] = max(alphas[0], floor)
    return PruningPath(alphas, path.impurities[start:], path.n_leaves[start:],
                       path.pruned[start:])


def prune_to_alpha(tree: Tree, alpha: float, cost: str = "impurity") -> Tree:
    """The smallest subtree minimising R(T) + alpha |T|: all weakest links with g <= alpha cut."""
    path = cost_complexity_path(tree, stop_alpha=alpha, cost=cost)
    make_leaf = np.zeros(tree.node_count, dtype=bool)
    make_leaf[path.pruned[1:]] = True
    return collapse(tree, make_leaf)


@dataclass(frozen=True)
class CPTable:
    """rpart-style table of the pruning sequence of the full tree, one row per subtree T_k:
    alpha_k, its leaves, training cost R(T_k), and the cross-validated error of the subtree size
    it stands for (averaged over the repeats of repeated K-fold), with its standard error.
    ``chosen`` is the row the rule picked."""

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


def choose_alpha_by_cv(tree: Tree, folds, grow, X: np.ndarray, row_losses, rule: str,
                       cost: str = "impurity", n_jobs: int = 1, floor: float = 0.0) -> CPTable:
    """Breiman's cross-validated choice of alpha (Breiman et al. 1984, §3.4).

    ``folds``: (train_rows, test_rows) pairs of rows of the encoded matrix ``X``, one K-fold
    partition or several (repeated K-fold: each row held out once per repeat);
    ``grow(train_rows)`` grows an unpruned tree on them; ``row_losses(tree, rows, nodes)`` gives
    the weighted loss and the weight of row ``rows[i]`` predicted by node ``nodes[i]`` of ``tree``.
    Subtree T_k of the full tree stands for alphas in [alpha_k, alpha_k+1); each fold's tree is
    pruned (under the same ``cost``) at the geometric mean sqrt(alpha_k alpha_k+1) and scored on
    its held-out rows.

    Row i's loss rate l_ik (0/1 error or squared error) is averaged over its held-out copies,
    m_ik = mean of l_ik over the repeats, and with weights w_i (W = sum w_i)

        cv_error_k = sum_i w_i m_ik / W,
        se_k = sqrt( sum_i w_i (m_ik - cv_error_k)^2 / (W (W - 1)) ),

    the standard error of a mean over rows, rows being the independent draws: with one repeat it
    is Breiman's (and rpart's xstd, up to the factor sqrt(n / (n - 1))); repeats average away
    the noise of the fold draw, not the sampling noise of the rows, so the SE barely shrinks.
    Weights count as repeated rows (as in the stopping rules): an integer weight equals repeating
    the row, a zero weight leaving it out.

    rule "cv-min": the lowest CV error; "cv-1se": the simplest tree within one standard error
    of it. Ties go to the simpler tree.

    ``n_jobs`` threads grow the fold trees, and score them one at a time (``grow`` must then be
    safe to call from several threads; the growth kernel releases the GIL). The pieces are put
    together in fold order, so the table does not depend on it.

    ``floor`` = alpha_0 > 0 (``cp``): the table starts at T(alpha_0) (``floor_path``), so every
    probe is at least alpha_0 and the trees (``tree`` and the folds') may be grown with no split
    at a node whose R(t) <= alpha_0 (the module docstring): the rows of the table are those of
    the unfloored table above alpha_0."""
    path, probe = cv_probes(tree, cost, floor)
    # a Sequence (``folds.FoldPairs``) may make each pair when it is read: only the folds
    # being grown hold their training rows
    folds = folds if isinstance(folds, Sequence) else list(folds)
    copies = np.zeros(X.shape[0], dtype=np.int64)  # held-out copies of each row
    for _, test in folds:
        np.add.at(copies, test, 1)
    # Held out once each (one K-fold), a row's m_ik is its one loss rate, so the moments add up
    # fold by fold and no fold's pieces (about one per node on each held-out row's path: 3.5 GB
    # at 10^6 rows) outlive it; repeats need a row's copies together.
    by_fold = copies.max(initial=0) <= 1
    # One fold is scored at a time: its pieces are the largest arrays of the CV after the folds'
    # own (1.6 million pieces per fold of 10^6 rows, five arrays of 13 MB), and two folds scored
    # at once held them twice. Scoring is a few per cent of a fold, so the wait is short.
    scoring = threading.Lock()

    def one_fold(i):
        train, test = folds[i]
        fold_tree = grow(train)
        del train
        with scoring:
            pieces = fold_pieces(fold_tree, cost, X[test], test, row_losses, probe)
            return probe_sums([pieces], copies, len(probe)) if by_fold else pieces

    if n_jobs > 1 and len(folds) > 1:
        with ThreadPoolExecutor(max_workers=min(n_jobs, len(folds))) as pool:
            parts = list(pool.map(one_fold, range(len(folds))))  # in fold order
    else:
        parts = [one_fold(i) for i in range(len(folds))]
    if by_fold:
        sums = (sum(p[0] for p in parts), sum(p[1] for p in parts), sum(p[2] for p in parts))
    else:
        sums = probe_sums(parts, copies, len(probe))
    cv_error, se = cv_error_and_se(*sums)
    return CPTable(path.alphas, path.n_leaves, path.impurities, cv_error, se,
                   chosen_row(cv_error, se, rule), rule)


def cv_probes(tree: Tree, cost: str, floor: float = 0.0) -> tuple[PruningPath, np.ndarray]:
    """The full tree's pruning path (rows with an empty alpha interval dropped; from the
    subtree at ``floor`` on) and the alpha at which each fold tree is pruned to stand for its
    row (``choose_alpha_by_cv``)."""
    path = floor_path(cost_complexity_path(tree, cost=cost), floor)
    # A weakest link whose alpha equals the next one's is cut at that same alpha: its subtree is
    # optimal on an empty interval and prune_to_alpha never returns it, so it gets no row.
    # (Before, such a row could be chosen while the fitted tree was the next one.)
    keep = np.append(path.alphas[1:] > path.alphas[:-1], True)
    path = PruningPath(path.alphas[keep], path.impurities[keep], path.n_leaves[keep], path.pruned[keep])
    a = path.alphas
    # T_k is optimal on [alpha_k, alpha_k+1); the last, the root alone, on [alpha_m, inf).
    # Round-off can leave an alpha at -1e-17: clip before the square root.
    nonneg = np.maximum(a, 0.0)
    return path, np.append(np.sqrt(nonneg[:-1] * nonneg[1:]), np.inf)


# held-out rows scored at once by ``fold_pieces``: their paths' temporaries are some 15 arrays
# of one entry per node on a path (16 per row of a fold tree at 10^6 rows)
SCORED_ROWS = 1 << 15


def fold_pieces(fold_tree: Tree, cost: str, X_test: np.ndarray, test: np.ndarray, row_losses,
                probe: np.ndarray):
    """One fold's pieces (row, lo, hi, rate, w): held-out row ``row`` (an index of ``test``'s
    numbering) has loss rate ``rate`` under the fold tree pruned at the probes [lo, hi); the
    rows in ``test``'s order, each row's pieces root first. Worked out SCORED_ROWS rows at a
    time (each row's pieces are its own), then put together one array after another."""
    path = cost_complexity_path(fold_tree, cost=cost)
    blocks = [_block_pieces(fold_tree, path, X_test[a:a + SCORED_ROWS], test[a:a + SCORED_ROWS],
                            row_losses, probe)
              for a in range(0, max(len(test), 1), SCORED_ROWS)]
    columns = [list(c) for c in zip(*blocks, strict=True)]
    del blocks
    pieces = []
    for column in columns:
        pieces.append(np.concatenate(column))
        column.clear()  # each block's part freed once it is copied
    return tuple(pieces)


def _block_pieces(fold_tree: Tree, path: PruningPath, X_test: np.ndarray, test: np.ndarray,
                  row_losses, probe: np.ndarray):
    """``fold_pieces`` of the held-out rows ``test`` (X_test: their cells)."""
    lower, upper, rows, nodes = _endings(fold_tree, path, fold_tree.decision_path_parts(X_test))
    loss, w = row_losses(fold_tree, test[rows], nodes)
    rate = np.divide(loss, w, out=np.zeros_like(loss), where=w > 0)
    # row i ends in nodes[i] for the probes in [lower, upper): probe indices [lo, hi)
    lo = np.searchsorted(probe, lower, side="left")
    hi = np.where(np.isposinf(upper), len(probe), np.searchsorted(probe, upper, side="left"))
    return test[rows], lo, hi, rate, w


def chosen_row(cv_error: np.ndarray, se: np.ndarray, rule: str) -> int:
    """rule "cv-min": the lowest CV error; "cv-1se": the simplest tree within one standard error
    of it. Ties go to the simpler tree (later rows)."""
    best = cv_error.min()
    within = cv_error <= best + 1e-12 * max(1.0, abs(best))
    if rule == "cv-1se":
        k_min = int(np.flatnonzero(within)[-1])
        within = cv_error <= best + se[k_min] + 1e-12 * max(1.0, abs(best))
    return int(np.flatnonzero(within)[-1])


def probe_sums(pieces, copies: np.ndarray, n_probes: int):
    """(first, second, W): per probe, the difference arrays of sum_i w_i m_ik and
    sum_i w_i m_ik^2, and W = sum w_i over the held-out rows, from the pieces (row, lo, hi, rate,
    w) of all folds: row ``row`` has loss rate ``rate`` for the probes in [lo, hi); the pieces of
    one held-out copy of a row tile [0, n_probes), and row i has ``copies[i]`` such copies. The
    sums of several sets of rows add up (a distributed fit adds its partitions')."""
    first, second = np.zeros(n_probes + 1), np.zeros(n_probes + 1)
    if not pieces:
        return first, second, 0.0
    # one fold's pieces as they are (a copy of them is some 60 MB at 10^6 rows)
    rows, lo, hi, rate, w = (p[0] if len(p) == 1 else np.concatenate(p)
                             for p in zip(*pieces, strict=True))
    weight = np.zeros(len(copies))
    weight[rows] = w
    total = float(weight[copies > 0].sum())
    if len(rows) == 0:
        return first, second, total
    share = rate / copies[rows]
    first, second = _step_moments(rows.astype(np.int64, copy=False),
                                  lo.astype(np.int64, copy=False),
                                  hi.astype(np.int64, copy=False), share, weight, n_probes)
    return first, second, total


def cv_error_and_se(first: np.ndarray, second: np.ndarray, total: float):
    """cv_error_k and se_k of ``choose_alpha_by_cv`` from ``probe_sums``."""
    n_probes = len(first) - 1
    if total <= 0:
        return np.zeros(n_probes), np.zeros(n_probes)
    cv_error = np.cumsum(first)[:-1] / total
    second = np.cumsum(second)[:-1]
    if total <= 1.0:
        return cv_error, np.zeros(n_probes)
    # sum w (m - mean)^2 = sum w m^2 - W mean^2, weights read as frequencies
    spread = np.maximum(second - total * cv_error ** 2, 0.0) / total
    return cv_error, np.sqrt(spread / (total - 1.0))


@njit(cache=True, no_cfunc_wrapper=True)
def _step_moments(rows, lo, hi, share, weight, n_probes):
    """The differences (over probes) of sum_i w_i m_ik and sum_i w_i m_ik^2.

    m_ik as a step function of k per row: +share at lo, -share at hi; each row's steps in
    probe order (ties: its +steps, then its -steps, each in piece order), the rows in row
    order. Within a row the running sum of its steps is m_ik on [pos_j, pos_j+1). The running
    sum is taken over all rows and the sum before each row's first step subtracted, and every
    interval's term is added at its start before any is taken off at its end: the same
    operations, in the same order, as the numpy version this replaced, so the CV errors are
    the same numbers. The rows are taken one at a time: only the terms taken off at the ends
    wait (one per interval), where sorting every step at once held eight arrays of two entries
    per piece (some 200 MB for a fold at 10^6 rows)."""
    m = rows.shape[0]
    grouped = _counting_order(rows, weight.shape[0], np.arange(m))  # by row, in piece order
    first = np.zeros(n_probes + 1)
    second = np.zeros(n_probes + 1)
    end_at = np.empty(2 * m, dtype=np.int64)  # the terms taken off at the intervals' ends
    end_first = np.empty(2 * m)
    end_second = np.empty(2 * m)
    n_ends = 0
    running = 0.0
    start = 0
    while start < m:
        row = rows[grouped[start]]
        stop = start
        while stop < m and rows[grouped[stop]] == row:
            stop += 1
        n_steps = 2 * (stop - start)
        pos = np.empty(n_steps, dtype=np.int64)
        step = np.empty(n_steps)
        for j in range(stop - start):
            i = grouped[start + j]
            pos[j], step[j] = lo[i], share[i]
            pos[n_steps // 2 + j], step[n_steps // 2 + j] = hi[i], -share[i]
        order = np.argsort(pos, kind="mergesort")  # stable: ties keep +steps first
        mass = weight[row]
        before = 0.0
        level = 0.0
        for u in range(n_steps):
            b = order[u]
            running += step[b]
            if u == 0:
                before = running - step[b]
            else:
                a = order[u - 1]
                if pos[a] < pos[b]:  # the row's level holds on [pos_a, pos_b)
                    first[pos[a]] += mass * level
                    second[pos[a]] += mass * (level * level)
                    end_at[n_ends] = pos[b]
                    end_first[n_ends] = mass * level
                    end_second[n_ends] = mass * (level * level)
                    n_ends += 1
            level = running - before
        start = stop
    for q in range(n_ends):
        first[end_at[q]] += -end_first[q]
    for q in range(n_ends):
        second[end_at[q]] += -end_second[q]
    return first, second


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _counting_order(key, n_keys, order):
    """``order`` stably re-sorted by key[order[i]] (keys in [0, n_keys))."""
    count = np.zeros(n_keys + 1, dtype=np.int64)
    for i in range(order.shape[0]):
        count[key[order[i]] + 1] += 1
    for k in range(n_keys):
        count[k + 1] += count[k]
    out = np.empty(order.shape[0], dtype=np.int64)
    for i in range(order.shape[0]):
        k = key[order[i]]
        out[count[k]] = order[i]
        count[k] += 1
    return out


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
