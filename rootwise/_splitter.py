"""Per-node split search: evaluate every candidate attribute with the kernels, then pick one.

``evaluate_candidates`` is shared by the builder and by the textbook view (``explain``), so the
table a student reads is exactly the computation that chose the split.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._config import MULTIWAY, TIE_TOLERANCE
from ._core.criteria import impurity_decrease, intrinsic_value
from ._core.stats import category_table
from ._policy import Policy


@dataclass(frozen=True)
class Candidate:
    """One attribute's best test at a node.

    gain        rho * (I(D~) - sum_v r_v I(D~^v)), D~ = rows whose value is known, rho = |D~|/|D|
    iv          intrinsic value IV(a) of the branches
    gain_ratio  gain / iv (0 when iv is 0)
    table       weighted class counts per branch (rows) of the known rows
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
    admissible: bool = True  # False when a stopping rule (min_samples_leaf) forbids this split

    @property
    def n_branches(self) -> int:
        return self.table.shape[0]


@dataclass
class NodeData:
    """The rows at a node: indices into the encoded matrix and their weights at this node."""

    idx: np.ndarray
    w: np.ndarray


class Splitter:
    """Finds the split of a node under a ``Policy``; holds the training arrays for the fit."""

    def __init__(self, X, y, kinds, n_categories, n_classes, policy: Policy):
        self.X = X
        self.y = y
        self.kinds = kinds
        self.n_categories = n_categories
        self.n_classes = n_classes
        self.policy = policy
        self.criterion = policy.criterion_code

    def evaluate_candidates(self, node: NodeData, available: np.ndarray) -> list[Candidate]:
        """Every attribute that can split this node (at least two non-empty branches)."""
        out = []
        for j in np.flatnonzero(available):
            cand = self._categorical(node, int(j))
            if cand is not None:
                out.append(cand)
        return out

    def _categorical(self, node: NodeData, j: int) -> Candidate | None:
        k = int(self.n_categories[j])
        table = category_table(self.X, j, self.y, node.idx, node.w, k, self.n_classes)
        known = table[:k]
        total = table.sum()
        sizes = known.sum(axis=1)
        if np.count_nonzero(sizes > 0) < 2 or total <= 0:
            return None
        rho = known.sum() / total
        gain = max(rho * impurity_decrease(known, self.criterion), 0.0)
        iv = intrinsic_value(known)
        nonempty = sizes[sizes > 0]
        admissible = bool(np.all(nonempty >= self.policy.min_samples_leaf))
        return Candidate(
            feature=j, kind=MULTIWAY, gain=gain, iv=iv, gain_ratio=gain / iv if iv > 0 else 0.0,
            rho=rho, table=known, branch_of_category=np.arange(k, dtype=np.int32),
            admissible=admissible,
        )

    def select(self, candidates: list[Candidate]) -> tuple[Candidate | None, float]:
        """The chosen candidate and its score under the policy's selection rule.

        Ties go to the lowest column index: the first candidate (in column order) whose score is
        within TIE_TOLERANCE of the maximum wins.
        """
        pool = [c for c in candidates if c.admissible]
        if not pool:
            return None, 0.0
        if self.policy.selection == "gain_ratio":
            average = float(np.mean([c.gain for c in pool]))
            pool = [c for c in pool if c.gain >= average - TIE_TOLERANCE]
            key = "gain_ratio"
        else:
            key = "gain"
        scores = np.array([getattr(c, key) for c in pool])
        # first (lowest column) candidate within the tolerance of the maximum
        best = pool[int(np.flatnonzero(scores >= scores.max() - TIE_TOLERANCE)[0])]
        best_score = getattr(best, key)
        return best, best_score

    def partition(self, node: NodeData, split: Candidate) -> list[NodeData]:
        """Rows of each branch, in branch order."""
        codes = self.X[node.idx, split.feature]
        out = []
        for b in range(split.n_branches):
            mask = codes == b
            out.append(NodeData(node.idx[mask], node.w[mask]))
        return out


