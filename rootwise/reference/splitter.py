"""Per-node split search, written plainly: score every candidate attribute, pick one, and send the
node's rows down its branches.

The builder (``best_split``) and the textbook view (``explain``, through ``evaluate_feature``) call
the same code, so the table a student reads is exactly the computation that chose the split.

Missing values (Zhou 2016, §4.4.2): a candidate is scored on D~, the rows whose value is known, and its
gain is multiplied by rho = w(D~) / w(D). Rows with the tested value missing then go down every
branch with weight w * r_v (C4.5), or follow surrogate splits (CART, see ``missing``).

Arithmetic is the engine's canonical one (``engine.scores``): every sum is taken in order from 0,
a node's rows in ascending row order, a column's sorted rows by (value, row); branch tables hold a
scan's running left sums and total - left on the right.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .._config import CATEGORICAL, MISSING_FRACTIONAL, MULTIWAY, SUBSET, THRESHOLD
from .._policy import Policy
from ..engine.arrays import total as ordered_sum
from ..engine.partition import branch_of_rows, split_rows
from ..engine.scores import choose as choose_candidate
from ..engine.scores import score_table
from ..engine.stats import category_table, class_counts, regression_table
from ..engine.subsets import best_subset_class, best_subset_regression
from ..engine.thresholds import best_threshold_class, best_threshold_regression, midpoint

_NO_CATEGORIES = np.zeros(0, dtype=np.int32)  # what a threshold test's routing kernel reads


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


@dataclass(slots=True)
class NodeData:
    """The rows at a node: indices into the encoded matrix (ascending) and their weights here."""

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
        self._min_leaf = float(policy.min_samples_leaf)
        self._two_branches = policy.min_leaf_rule == "two_branches"
        # where rows are routed from, when not X: hist's reference searches bin stand-ins but
        # routes real values (``reference.hist``); None: X itself
        self.routing = None

    # ----------------------------------------------------------------- candidates
    def node_weight(self, node: NodeData) -> float:
        """W: the node's weight as the builder records it: its class weights added class by
        class (classification), or its rows' weights added in row order (regression)."""
        w = np.ascontiguousarray(node.w, dtype=np.float64)
        if self.regression:
            return ordered_sum(w)
        return ordered_sum(class_counts(self.y, node.idx, w, self.n_classes))

    def evaluate_candidates(self, node: NodeData, available: np.ndarray) -> list[Candidate]:
        """Every attribute that can split this node (at least two non-empty branches)."""
        W = self.node_weight(node)
        out = []
        for j in np.flatnonzero(available):
            cand = self.evaluate_feature(node, int(j), W)
            if cand is not None:
                out.append(cand)
        return out

    def best_split(self, node: NodeData, available: np.ndarray) -> tuple[Candidate | None, float]:
        """``select(evaluate_candidates(node, available))``: the chosen candidate and its score."""
        return self.select(self.evaluate_candidates(node, available))

    def evaluate_feature(self, node: NodeData, j: int, W: float | None = None) -> Candidate | None:
        """Attribute j's best test at the node (None when it has none); ``W``: the node weight."""
        if W is None:
            W = self.node_weight(node)
        if self.kinds[j] == CATEGORICAL:
            if self.policy.categorical_split == "multiway":
                return self._multiway(node, j, W)
            return self._subset(node, j, W)
        return self._threshold(node, j, W)

    def _scored(self, j, kind, branches, W, **extra) -> Candidate:
        """A candidate from its branch table (``engine.scores.score``)."""
        gain, iv, ratio, rho, admissible = score_table(branches, W, self.criterion,
                                                       self.regression, self._min_leaf,
                                                       self._two_branches)
        return Candidate(feature=j, kind=kind, gain=gain, iv=iv, gain_ratio=ratio, rho=rho,
                         table=branches, admissible=bool(admissible), **extra)

    def _branch_table(self, node: NodeData, j: int, k: int) -> np.ndarray:
        """Statistics per category code, last row = missing values."""
        if self.regression:
            return regression_table(self.X, j, self.y, node.idx, node.w, k)
        return category_table(self.X, j, self.y, node.idx, node.w, k, self.n_classes)

    def _multiway(self, node: NodeData, j: int, W: float) -> Candidate | None:
        """One branch per category of column j (every category seen in training: a category
        absent here is an empty branch); at least two branches must hold weight."""
        k = int(self.n_categories[j])
        known = self._branch_table(node, j, k)[:k]
        sizes = known[:, 0] if self.regression else known.sum(axis=1)
        if np.count_nonzero(sizes > 0) < 2:
            return None
        return self._scored(j, MULTIWAY, known, W, branch_of_category=np.arange(k, dtype=np.int32))

    def _subset(self, node: NodeData, j: int, W: float) -> Candidate | None:
        """The best subset of column j's categories against the rest (``engine.subsets``)."""
        k = int(self.n_categories[j])
        known = np.ascontiguousarray(self._branch_table(node, j, k)[:k])
        m = self.policy.min_samples_leaf
        if self.regression:
            side, dec = best_subset_regression(known, m)
        else:
            side, dec = best_subset_class(known, self.criterion, m, self.policy.max_exhaustive)
        if dec == -np.inf:
            return None
        branches = np.zeros((2, known.shape[1]))
        for v in range(k):  # each category's row added to its side, in code order
            if side[v] >= 0:
                branches[side[v]] += known[v]
        return self._scored(j, SUBSET, branches, W, branch_of_category=side)

    def _sorted_known(self, node: NodeData, j: int):
        """(values, targets, weights) of the rows whose value of column j is known, sorted by
        value; equal values keep the node's row order (a stable sort)."""
        values = self.X[node.idx, j]
        known = ~np.isnan(values)
        order = np.argsort(values[known], kind="stable")
        return (np.ascontiguousarray(values[known][order]),
                np.ascontiguousarray(self.y[node.idx[known][order]]),
                np.ascontiguousarray(node.w[known][order], dtype=np.float64))

    def _threshold(self, node: NodeData, j: int, W: float) -> Candidate | None:
        """The best cut of continuous column j at a midpoint (``engine.thresholds``)."""
        xs, ys, ws = self._sorted_known(node, j)
        if self.regression:
            i, branches = best_threshold_regression(xs, ys, ws, self.policy.min_samples_leaf)
        else:
            i, branches = best_threshold_class(xs, ys, ws, self.n_classes, self.criterion,
                                               self.policy.min_samples_leaf)
        if i < 0:
            return None
        return self._scored(j, THRESHOLD, branches, W, threshold=midpoint(xs[i], xs[i + 1]))

    # ----------------------------------------------------------------- selection
    def select(self, candidates: list[Candidate]) -> tuple[Candidate | None, float]:
        """The chosen candidate and its score under the policy's selection rule (``choose``)."""
        if not candidates:
            return None, 0.0
        i, score_ = self.choose(np.array([c.gain for c in candidates], dtype=np.float64),
                                np.array([c.gain_ratio for c in candidates], dtype=np.float64),
                                np.array([c.admissible for c in candidates], dtype=bool),
                                np.array([getattr(c, "in_average", True) for c in candidates],
                                         dtype=bool))
        return (None, 0.0) if i < 0 else (candidates[i], score_)

    def choose(self, gain: np.ndarray, gain_ratio: np.ndarray, admissible: np.ndarray,
               in_average: np.ndarray | None = None) -> tuple[int, float]:
        """Index of the chosen candidate among candidates given in column order (-1: none) and
        its score: the admissible candidate with the largest gain or, for C4.5, the largest gain
        ratio among those whose gain reaches the average gain (``average_gain``). Ties go to the
        lowest column index (``engine.scores.choose``)."""
        found = np.ones(len(gain), dtype=bool)
        i, s = choose_candidate(found, gain, gain_ratio, admissible,
                                self.policy.selection == "gain_ratio")
        return int(i), float(s)

    def average_gain(self, candidates: list[Candidate]) -> float | None:
        """C4.5's cut: the average gain of the candidates that may split the node (None if none)."""
        pool = [c.gain for c in candidates if c.admissible]
        return ordered_sum(np.array(pool, dtype=np.float64)) / len(pool) if pool else None

    def above_average(self, c: Candidate, average: float | None) -> bool:
        """Whether a candidate's gain reaches C4.5's cut (at least the average)."""
        from .._config import TIE_TOLERANCE

        return average is not None and c.gain >= average - TIE_TOLERANCE

    # ----------------------------------------------------------------- partition
    def branch_of_rows(self, split: Candidate, idx: np.ndarray) -> np.ndarray:
        """Branch of each row by the split itself: -1 where the value is missing (or a category
        without a branch; validation rows may hold UNSEEN_CODE, -1, which has none)."""
        return self.route(split, idx, np.zeros(len(idx)))[0]

    def route(self, split, idx: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(branch of each row as in ``branch_of_rows``, known weight per branch) for any test
        with ``feature``, ``kind``, ``threshold``, ``branch_of_category`` and ``n_branches``."""
        boc = split.branch_of_category
        X, threshold = self._routed(split.feature, split.kind, float(split.threshold))
        return branch_of_rows(X, split.feature, split.kind, threshold,
                              _NO_CATEGORIES if boc is None else boc, idx,
                              np.ascontiguousarray(w, dtype=np.float64), split.n_branches)

    def surrogate_branches(self, sur, idx: np.ndarray) -> np.ndarray:
        """Branch of each row ``idx`` by the surrogate ``sur`` (-1 where it has none)."""
        X, threshold = self._routed(sur.feature, sur.kind, float(sur.threshold))
        if sur.kind == THRESHOLD:
            sur = replace(sur, threshold=threshold)
        return sur.branch(X[idx, sur.feature], int(self.n_categories[sur.feature]))

    def _routed(self, feature: int, kind: int, threshold: float) -> tuple[np.ndarray, float]:
        """The matrix rows are routed from and the test's threshold in its units."""
        if self.routing is None:
            return self.X, threshold
        if kind == THRESHOLD:
            threshold = self.routing.threshold(feature, threshold)
        return self.routing.X, threshold

    def partition(self, node: NodeData, split: Candidate, missing_branch=None):
        """Rows of each branch, in branch order, and the branch fractions r_v.

        Rows whose tested value is missing go down every branch with weight w * r_v
        (``missing_branch`` = MISSING_FRACTIONAL), or down the branch given per row in
        ``missing_branch`` (an array, e.g. from surrogates); never dropped."""
        branch, known_w = self.route(split, node.idx, node.w)
        r = branch_fractions(known_w)
        fractional = not isinstance(missing_branch, np.ndarray) and missing_branch == MISSING_FRACTIONAL
        if isinstance(missing_branch, np.ndarray):
            branch = np.where(branch < 0, missing_branch, branch)
        return self.rows_of_branches(node, branch, r, np.full(len(r), fractional)), r

    @staticmethod
    def rows_of_branches(node: NodeData, branch: np.ndarray, r: np.ndarray,
                         receives: np.ndarray) -> list[NodeData]:
        """The rows of each branch (``split_rows``): its own rows and, where ``receives``, the rows
        without a branch with weight w * r_v, in the node's row order."""
        idx, w, offsets = split_rows(node.idx, np.ascontiguousarray(node.w, dtype=np.float64),
                                     branch, r, receives)
        bounds = offsets.tolist()
        return [NodeData(idx[a:b], w[a:b]) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def branch_fractions(known_w: np.ndarray) -> np.ndarray:
    """r_v: each branch's share of the known weight (equal shares when none is known)."""
    total = ordered_sum(np.ascontiguousarray(known_w, dtype=np.float64))
    return known_w / total if total > 0 else np.full(len(known_w), 1.0 / len(known_w))
