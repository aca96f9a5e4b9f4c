"""Per-node split search: evaluate every candidate attribute with the kernels, pick one, and send the
node's rows down its branches.

``evaluate_feature`` is shared by the builder and by the textbook view (``explain``), so the table a
student reads is exactly the computation that chose the split.

Missing values (seed 000 §4.2): a candidate is scored on D~, the rows whose value is known, and its
gain is multiplied by rho = w(D~) / w(D). Rows with the tested value missing then go down every
branch with weight w * r_v (C4.5), or follow surrogate splits (CART, see ``_missing``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._config import CATEGORICAL, MISSING_FRACTIONAL, MULTIWAY, SUBSET, THRESHOLD, TIE_TOLERANCE
from ._core.criteria import impurity_decrease, intrinsic_value
from ._core.numeric import best_threshold_class, best_threshold_regression, midpoint
from ._core.stats import category_table, regression_table
from ._core.subsets import best_subset_class, best_subset_regression
from ._policy import Policy


@dataclass(frozen=True)
class Candidate:
    """One attribute's best test at a node.

    gain        rho * (I(D~) - sum_v r_v I(D~^v)): information gain, Gini or squared-error decrease
    iv          intrinsic value IV(a) of the branches (over D~)
    gain_ratio  gain / iv (0 when iv is 0)
    rho         share of the node's weight whose value of this attribute is known
    table       per branch: weighted class counts (classification) or (w, wy, wy^2) (regression)
    """

    feature: int
    kind: int
    gain: float
    iv: float
    gain_ratio: float
    rho: float
    table: np.ndarray
    branch_of_category: np.ndarray | None = None
    threshold: float = np.nan
    admissible: bool = True  # False when min_samples_leaf forbids this split

    @property
    def n_branches(self) -> int:
        return self.table.shape[0]


@dataclass
class NodeData:
    """The rows at a node: indices into the encoded matrix and their weights at this node."""

    idx: np.ndarray
    w: np.ndarray


class Splitter:
    """Finds the split of a node under a ``Policy``; holds the training arrays for the fit.

    ``y`` holds class codes (int64) for classification, values (float64) for regression."""

    def __init__(self, X, y, kinds, n_categories, n_classes, policy: Policy):
        self.X = X
        self.y = y
        self.kinds = kinds
        self.n_categories = n_categories
        self.n_classes = n_classes
        self.policy = policy
        self.criterion = policy.criterion_code
        self.regression = policy.regression

    # ----------------------------------------------------------------- candidates
    def evaluate_candidates(self, node: NodeData, available: np.ndarray) -> list[Candidate]:
        """Every attribute that can split this node (at least two non-empty branches)."""
        out = []
        for j in np.flatnonzero(available):
            cand = self.evaluate_feature(node, int(j))
            if cand is not None:
                out.append(cand)
        return out

    def evaluate_feature(self, node: NodeData, j: int) -> Candidate | None:
        if self.kinds[j] == CATEGORICAL:
            if self.policy.categorical_split == "multiway":
                return self._multiway(node, j)
            return self._subset(node, j)
        return self._threshold(node, j)

    def _branch_table(self, node: NodeData, j: int, k: int) -> np.ndarray:
        """Statistics per category code, last row = missing values."""
        if self.regression:
            return regression_table(self.X, j, self.y, node.idx, node.w, k)
        return category_table(self.X, j, self.y, node.idx, node.w, k, self.n_classes)

    def _candidate(self, j, kind, branches, total_w, **extra) -> Candidate:
        """Score a split given its per-branch statistics over the known rows."""
        sizes = branches[:, 0] if self.regression else branches.sum(axis=1)
        known_w = sizes.sum()
        rho = known_w / total_w if total_w > 0 else 0.0
        if self.regression:
            gain = rho * _sse_decrease(branches)
        else:
            gain = rho * impurity_decrease(branches, self.criterion)
        gain = max(gain, 0.0)
        iv = intrinsic_value(sizes.reshape(-1, 1))
        return Candidate(feature=j, kind=kind, gain=gain, iv=iv,
                         gain_ratio=gain / iv if iv > 0 else 0.0, rho=rho, table=branches,
                         admissible=self._leaf_rule(sizes), **extra)

    def _leaf_rule(self, sizes: np.ndarray) -> bool:
        """min_samples_leaf: every non-empty branch (ID3, CART) or, with C4.5's rule, at least two
        branches must hold that much weight."""
        m = self.policy.min_samples_leaf
        if self.policy.min_leaf_rule == "two_branches":
            return int(np.count_nonzero(sizes >= m)) >= 2
        nonempty = sizes[sizes > 0]
        return bool(np.all(nonempty >= m))

    def _multiway(self, node: NodeData, j: int) -> Candidate | None:
        k = int(self.n_categories[j])
        table = self._branch_table(node, j, k)
        known = table[:k]
        sizes = known[:, 0] if self.regression else known.sum(axis=1)
        if np.count_nonzero(sizes > 0) < 2:
            return None
        return self._candidate(j, MULTIWAY, known, _total(table, self.regression),
                               branch_of_category=np.arange(k, dtype=np.int32))

    def _subset(self, node: NodeData, j: int) -> Candidate | None:
        k = int(self.n_categories[j])
        table = self._branch_table(node, j, k)
        known = table[:k]
        m = self.policy.min_samples_leaf
        if self.regression:
            side, dec = best_subset_regression(known, m)
        else:
            side, dec = best_subset_class(known, self.criterion, m, self.policy.max_exhaustive)
        if dec == -np.inf:
            return None
        branches = np.zeros((2, known.shape[1]))
        for v in range(k):
            if side[v] >= 0:
                branches[side[v]] += known[v]
        return self._candidate(j, SUBSET, branches, _total(table, self.regression),
                               branch_of_category=side)

    def _threshold(self, node: NodeData, j: int) -> Candidate | None:
        values = self.X[node.idx, j]
        known = ~np.isnan(values)
        order = np.argsort(values[known], kind="stable")
        xs = values[known][order]
        rows = node.idx[known][order]
        ws = node.w[known][order]
        ys = self.y[rows]
        m = self.policy.min_samples_leaf
        if self.regression:
            i, _, _ = best_threshold_regression(xs, ys, ws, m)
        else:
            i, _, _ = best_threshold_class(xs, ys, ws, self.n_classes, self.criterion, m)
        if i < 0:
            return None
        left = np.arange(len(xs)) <= i
        if self.regression:
            branches = np.array([_reg_stats(ys[left], ws[left]), _reg_stats(ys[~left], ws[~left])])
        else:
            branches = np.zeros((2, self.n_classes))
            np.add.at(branches, (np.where(left, 0, 1), ys), ws)
        return self._candidate(j, THRESHOLD, branches, node.w.sum(),
                               threshold=midpoint(xs[i], xs[i + 1]))

    # ----------------------------------------------------------------- selection
    def select(self, candidates: list[Candidate]) -> tuple[Candidate | None, float]:
        """The chosen candidate and its score under the policy's selection rule.

        Ties go to the lowest column index: the first candidate (in column order) whose score is
        within TIE_TOLERANCE of the maximum wins.
        """
        pool = [c for c in candidates if c.admissible]
        if not pool:
            return None, 0.0
        if self.policy.selection == "gain_ratio":
            average = self.average_gain(pool)
            pool = [c for c in pool if self.above_average(c, average)]
            key = "gain_ratio"
        else:
            key = "gain"
        scores = np.array([getattr(c, key) for c in pool])
        # first (lowest column) candidate within the tolerance of the maximum
        best = pool[int(np.flatnonzero(scores >= scores.max() - TIE_TOLERANCE)[0])]
        return best, getattr(best, key)

    def average_gain(self, candidates: list[Candidate]) -> float | None:
        """C4.5's cut: the average gain of the candidates that may split the node (None if none)."""
        pool = [c.gain for c in candidates if c.admissible]
        return float(np.mean(pool)) if pool else None

    def above_average(self, c: Candidate, average: float | None) -> bool:
        """Whether a candidate's gain reaches C4.5's cut (at least the average)."""
        return average is not None and c.gain >= average - TIE_TOLERANCE

    # ----------------------------------------------------------------- partition
    def branch_of_rows(self, split: Candidate, idx: np.ndarray) -> np.ndarray:
        """Branch of each row by the split itself: -1 where the value is missing (or a category
        without a branch)."""
        x = self.X[idx, split.feature]
        out = np.full(len(idx), -1, dtype=np.int64)
        known = ~np.isnan(x)
        if split.kind == THRESHOLD:
            out[known] = np.where(x[known] <= split.threshold, 0, 1)
        else:
            # validation rows may hold UNSEEN_CODE (-1): no branch, not the last category's
            codes = x[known].astype(np.int64)
            ok = (codes >= 0) & (codes < len(split.branch_of_category))
            branch = np.full(len(codes), -1, dtype=np.int64)
            branch[ok] = split.branch_of_category[codes[ok]]
            out[known] = branch
        return out

    def partition(self, node: NodeData, split: Candidate, missing_branch=None):
        """Rows of each branch, in branch order, and the branch fractions r_v.

        Rows whose tested value is missing go down every branch with weight w * r_v
        (``missing_branch`` = MISSING_FRACTIONAL), or down the branch given per row in
        ``missing_branch`` (an array, e.g. from surrogates); never dropped."""
        branch = self.branch_of_rows(split, node.idx)
        n_b = split.n_branches
        known_w = np.bincount(branch[branch >= 0], weights=node.w[branch >= 0], minlength=n_b)
        total = known_w.sum()
        r = known_w / total if total > 0 else np.full(n_b, 1.0 / n_b)
        lost = branch < 0
        fractional = not isinstance(missing_branch, np.ndarray) and missing_branch == MISSING_FRACTIONAL
        if lost.any() and isinstance(missing_branch, np.ndarray):
            branch = np.where(lost, missing_branch, branch)
            lost = branch < 0
        parts = []
        for b in range(n_b):
            mask = branch == b
            idx, w = node.idx[mask], node.w[mask]
            if fractional and lost.any():
                idx = np.concatenate([idx, node.idx[lost]])
                w = np.concatenate([w, node.w[lost] * r[b]])
            parts.append(NodeData(idx, w))
        return parts, r


def make_splitter(X, y, kinds, n_categories, n_classes, policy: Policy) -> Splitter:
    """The splitter for a policy: the engine's own, or C4.5 release 8's (``_release8``)."""
    if policy.release8:
        from ._release8 import Release8Splitter

        return Release8Splitter(X, y, kinds, n_categories, n_classes, policy)
    return Splitter(X, y, kinds, n_categories, n_classes, policy)


def _total(table: np.ndarray, regression: bool) -> float:
    return float(table[:, 0].sum() if regression else table.sum())


def _reg_stats(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np.array([w.sum(), (w * y).sum(), (w * y * y).sum()])


def _sse_decrease(branches: np.ndarray) -> float:
    """Decrease of the weighted mean squared error: (SSE(D) - sum_v SSE(D^v)) / W, where
    SSE = sum w y^2 - (sum w y)^2 / sum w, from per-branch (w, wy, wy^2) sums."""
    w, s, q = branches[:, 0], branches[:, 1], branches[:, 2]
    total_w = w.sum()
    if total_w <= 0:
        return 0.0
    parent = q.sum() - s.sum() ** 2 / total_w
    children = sum(q[v] - s[v] ** 2 / w[v] for v in range(len(w)) if w[v] > 0)
    return (parent - children) / total_w
