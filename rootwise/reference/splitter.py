"""Per-node split search: evaluate every candidate attribute with the kernels, pick one, and send the
node's rows down its branches.

The builder (``best_split``) and the textbook view (``explain``, through ``evaluate_feature``) call
the same kernels, so the table a student reads is exactly the computation that chose the split.
For classification with multiway categorical tests (ID3, C4.5) one kernel call scores every
attribute of a node (``_core.candidates.evaluate_node``) and only the chosen one becomes a
``Candidate``; the kernels repeat the former numpy arithmetic bit for bit, numpy's pairwise sums
included, so the trees are the same.

Missing values (seed 000 §4.2): a candidate is scored on D~, the rows whose value is known, and its
gain is multiplied by rho = w(D~) / w(D). Rows with the tested value missing then go down every
branch with weight w * r_v (C4.5), or follow surrogate splits (CART, see ``_missing``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._config import CATEGORICAL, MISSING_FRACTIONAL, MULTIWAY, SUBSET, THRESHOLD, TIE_TOLERANCE
from .._policy import Policy
from ..engine.candidates import choose as choose_candidate
from ..engine.candidates import dense_ranks, evaluate_node, threshold_candidate
from ..engine.criteria import impurity_decrease, intrinsic_value
from ..engine.numeric import best_threshold_regression, midpoint
from ..engine.partition import branch_of_rows, split_rows
from ..engine.stats import category_table, regression_table
from ..engine.subsets import best_subset_class, best_subset_regression

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
    """The rows at a node: indices into the encoded matrix and their weights at this node."""

    idx: np.ndarray
    w: np.ndarray


@dataclass
class NodeEvaluation:
    """Every candidate of a node as arrays, one entry per feature in ``features`` (what the node
    kernels return); ``Splitter.candidate_at`` makes a ``Candidate`` of one entry.

    tables      the branch tables, flattened: feature f's is tables[offsets[f]:offsets[f + 1]]
    The release-8 entries (midpoint, mdl_penalty, cuts, in_average) are ``Release8Candidate``'s.
    """

    features: np.ndarray
    found: np.ndarray
    gain: np.ndarray
    iv: np.ndarray
    gain_ratio: np.ndarray
    rho: np.ndarray
    admissible: np.ndarray
    threshold: np.ndarray
    tables: np.ndarray
    offsets: np.ndarray
    midpoint: np.ndarray | None = None
    mdl_penalty: np.ndarray | None = None
    cuts: np.ndarray | None = None
    in_average: np.ndarray | None = None


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
        self._kinds = np.asarray(kinds, dtype=np.int64)
        self._n_categories = np.asarray(n_categories, dtype=np.int64)
        # classification with multiway categorical tests (ID3, C4.5), or no categorical column:
        # a node's candidates come from one kernel call (evaluate_node)
        self._whole_node = not self.regression and (
            policy.categorical_split == "multiway" or not np.any(self._kinds == CATEGORICAL))
        self._ranks: np.ndarray | None = None  # see ranks()
        self._rank_row: np.ndarray | None = None

    def ranks(self, j: int) -> np.ndarray:
        """``dense_ranks`` of continuous column j (the sort keys of a threshold search). Made for
        every continuous column on first use and kept for the fit: 4 bytes per row and column."""
        return self._rank_matrix()[0][self._rank_row[j]]

    def _rank_matrix(self) -> tuple[np.ndarray, np.ndarray]:
        if self._ranks is None:
            continuous = np.flatnonzero(self._kinds != CATEGORICAL)
            self._rank_row = np.full(len(self._kinds), -1, dtype=np.int64)
            self._rank_row[continuous] = np.arange(len(continuous))
            self._ranks = np.empty((len(continuous), self.X.shape[0]), dtype=np.int32)
            for row, j in enumerate(continuous):
                self._ranks[row] = dense_ranks(self.X[:, j])
        return self._ranks, self._rank_row

    # ----------------------------------------------------------------- candidates
    def evaluate_candidates(self, node: NodeData, available: np.ndarray) -> list[Candidate]:
        """Every attribute that can split this node (at least two non-empty branches)."""
        if self._whole_node:
            ev = self.evaluate_node(node, np.flatnonzero(available))
            return [self.candidate_at(ev, f) for f in np.flatnonzero(ev.found)]
        out = []
        for j in np.flatnonzero(available):
            cand = self.evaluate_feature(node, int(j))
            if cand is not None:
                out.append(cand)
        return out

    def best_split(self, node: NodeData, available: np.ndarray) -> tuple[Candidate | None, float]:
        """``select(evaluate_candidates(node, available))``: the chosen candidate and its score.
        With the node kernel, only the chosen candidate is made into a ``Candidate``."""
        if not self._whole_node:
            return self.select(self.evaluate_candidates(node, available))
        ev = self.evaluate_node(node, np.flatnonzero(available))
        found = np.flatnonzero(ev.found)
        in_average = None if ev.in_average is None else ev.in_average[found]
        i, score = self.choose(ev.gain[found], ev.gain_ratio[found], ev.admissible[found],
                               in_average)
        return (None, 0.0) if i < 0 else (self.candidate_at(ev, int(found[i])), score)

    def evaluate_node(self, node: NodeData, features: np.ndarray) -> NodeEvaluation:
        """Every feature's candidate at the node, in one kernel call (``_whole_node`` policies)."""
        ranks, rank_row = self._rank_matrix()
        found, gain, iv, ratio, rho, admissible, threshold, tables, offsets = evaluate_node(
            self.X, ranks, rank_row, features, self._kinds, self._n_categories, self.y,
            node.idx, node.w, float(node.w.sum()), self.n_classes, self.criterion,
            self._min_leaf, self._two_branches)
        return NodeEvaluation(features, found, gain, iv, ratio, rho, admissible, threshold,
                              tables, offsets)

    def candidate_at(self, ev: NodeEvaluation, f: int) -> Candidate:
        """The ``Candidate`` of entry f of a node evaluation (a found one)."""
        j = int(ev.features[f])
        table = ev.tables[ev.offsets[f]:ev.offsets[f + 1]].reshape(-1, self.n_classes)
        common = dict(feature=j, gain=float(ev.gain[f]), iv=float(ev.iv[f]),
                      gain_ratio=float(ev.gain_ratio[f]), rho=float(ev.rho[f]), table=table,
                      admissible=bool(ev.admissible[f]))
        if self._kinds[j] == CATEGORICAL:
            return Candidate(kind=MULTIWAY, branch_of_category=np.arange(len(table), dtype=np.int32),
                             **common)
        return Candidate(kind=THRESHOLD, threshold=float(ev.threshold[f]), **common)

    def evaluate_feature(self, node: NodeData, j: int) -> Candidate | None:
        if self._whole_node:
            ev = self.evaluate_node(node, np.array([j], dtype=np.int64))
            return self.candidate_at(ev, 0) if ev.found[0] else None
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
        # contiguous: a strided column (regression's branches[:, 0]) would compile it once more
        iv = intrinsic_value(np.ascontiguousarray(sizes).reshape(-1, 1))
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
        k = int(self.n_categories[j])  # regression only: classification has evaluate_node
        table = self._branch_table(node, j, k)
        known = table[:k]
        if np.count_nonzero(known[:, 0] > 0) < 2:
            return None
        return self._candidate(j, MULTIWAY, known, _total(table, True),
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
        if not self.regression:  # the steps below and _candidate's, in one kernel call
            found, branches, threshold, gain, iv, ratio, rho, admissible = threshold_candidate(
                self.X, self.ranks(j), j, self.y, node.idx, node.w, float(node.w.sum()),
                self.n_classes, self.criterion, self._min_leaf, self._two_branches)
            if not found:
                return None
            return Candidate(feature=j, kind=THRESHOLD, gain=gain, iv=iv, gain_ratio=ratio, rho=rho,
                             table=branches, admissible=admissible, threshold=threshold)
        values = self.X[node.idx, j]
        known = ~np.isnan(values)
        order = np.argsort(values[known], kind="stable")
        xs = values[known][order]
        ws = node.w[known][order]
        ys = self.y[node.idx[known][order]]
        i, _, _ = best_threshold_regression(xs, ys, ws, self.policy.min_samples_leaf)
        if i < 0:
            return None
        left = np.arange(len(xs)) <= i
        branches = np.array([_reg_stats(ys[left], ws[left]), _reg_stats(ys[~left], ws[~left])])
        return self._candidate(j, THRESHOLD, branches, node.w.sum(),
                               threshold=midpoint(xs[i], xs[i + 1]))

    # ----------------------------------------------------------------- selection
    def select(self, candidates: list[Candidate]) -> tuple[Candidate | None, float]:
        """The chosen candidate and its score under the policy's selection rule (``choose``)."""
        if not candidates:
            return None, 0.0
        i, score = self.choose(np.array([c.gain for c in candidates], dtype=np.float64),
                               np.array([c.gain_ratio for c in candidates], dtype=np.float64),
                               np.array([c.admissible for c in candidates], dtype=bool),
                               np.array([getattr(c, "in_average", True) for c in candidates],
                                        dtype=bool))
        return (None, 0.0) if i < 0 else (candidates[i], score)

    def choose(self, gain: np.ndarray, gain_ratio: np.ndarray, admissible: np.ndarray,
               in_average: np.ndarray | None = None) -> tuple[int, float]:
        """Index of the chosen candidate among candidates given in column order (-1: none) and
        its score: the admissible candidate with the largest gain or, for C4.5, the largest gain
        ratio among those whose gain reaches the average gain (``average_gain``).

        Ties go to the lowest column index: the first candidate (in column order) whose score is
        within TIE_TOLERANCE of the maximum wins.
        """
        i, score = choose_candidate(gain, gain_ratio, admissible,
                                    self.policy.selection == "gain_ratio", TIE_TOLERANCE)
        return int(i), float(score)

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
        without a branch; validation rows may hold UNSEEN_CODE, -1, which has none)."""
        return self.route(split, idx, np.zeros(len(idx)))[0]

    def route(self, split, idx: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(branch of each row as in ``branch_of_rows``, known weight per branch) for any test
        with ``feature``, ``kind``, ``threshold``, ``branch_of_category`` and ``n_branches``."""
        boc = split.branch_of_category
        return branch_of_rows(self.X, split.feature, split.kind, float(split.threshold),
                              _NO_CATEGORIES if boc is None else boc, idx, w, split.n_branches)

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
        """The rows of each branch (``split_rows``): its own rows, then the rows without a branch
        with weight w * r_v where ``receives``."""
        idx, w, offsets = split_rows(node.idx, node.w, branch, r, receives)
        bounds = offsets.tolist()
        return [NodeData(idx[a:b], w[a:b]) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def branch_fractions(known_w: np.ndarray) -> np.ndarray:
    """r_v: each branch's share of the known weight (equal shares when none is known)."""
    total = known_w.sum()
    return known_w / total if total > 0 else np.full(len(known_w), 1.0 / len(known_w))


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
