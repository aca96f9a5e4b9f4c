"""Missing-value strategies that need more than the split itself: CART's surrogate splits.

(C4.5's fractional weights need only the branch fractions r_v and live in ``Splitter.partition``.)

Seed 001 §2.4: every split node keeps surrogate splits on other attributes, ranked by agreement
with the primary split; only those that beat the majority rule count. A row whose primary value is
missing follows the first surrogate it has a value for, else the larger child.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._config import CATEGORICAL, SUBSET, THRESHOLD
from ._core.surrogates import best_surrogate_subset, best_surrogate_threshold
from ._splitter import Candidate, NodeData, Splitter


@dataclass(frozen=True)
class Surrogate:
    """A split on ``feature`` standing in for the primary split.

    agreement           weighted share of the primary-known rows it sends the primary's way
    adjusted_agreement  (agreement - majority) / (1 - majority): how much it beats sending every
                        row to the primary's larger side
    """

    feature: int
    kind: int
    agreement: float
    adjusted_agreement: float
    threshold: float = np.nan
    left_branch: int = 0  # THRESHOLD: the branch taken when x <= threshold
    side: np.ndarray | None = None  # SUBSET: branch per category code (-1 = no branch)

    def branch(self, x: np.ndarray, n_categories: int) -> np.ndarray:
        """Branch of each value (-1 where missing or without a branch)."""
        out = np.full(len(x), -1, dtype=np.int64)
        known = ~np.isnan(x)
        if self.kind == THRESHOLD:
            out[known] = np.where(x[known] <= self.threshold, self.left_branch, 1 - self.left_branch)
        else:
            codes = x[known].astype(np.int64)
            ok = (codes >= 0) & (codes < n_categories)
            vals = np.full(len(codes), -1, dtype=np.int64)
            vals[ok] = self.side[codes[ok]]
            out[known] = vals
        return out


def find_surrogates(splitter: Splitter, node: NodeData, split: Candidate,
                    max_surrogates: int) -> tuple[list[Surrogate], int]:
    """Surrogates of a binary split, best first (ties: lower column), and the majority branch (the
    child with more known weight; 0 on a tie)."""
    primary = splitter.branch_of_rows(split, node.idx)
    known = (primary >= 0) & (node.w > 0)
    w_p = node.w[known]
    direction = primary[known]
    mass = np.array([w_p[direction == 0].sum(), w_p[direction == 1].sum()])
    majority_branch = int(np.argmax(mass))
    total = mass.sum()
    if split.kind not in (THRESHOLD, SUBSET) or total <= 0 or max_surrogates <= 0:
        return [], majority_branch
    majority = mass.max() / total
    rows = node.idx[known]
    found = []
    for j in range(splitter.X.shape[1]):
        if j == split.feature:
            continue
        x = splitter.X[rows, j]
        has = ~np.isnan(x)
        if np.count_nonzero(has) < 2:
            continue
        if splitter.kinds[j] == CATEGORICAL:
            k = int(splitter.n_categories[j])
            side, agree = best_surrogate_subset(x[has].astype(np.int64), direction[has], w_p[has], k)
            sur = dict(kind=SUBSET, side=side)
        else:
            order = np.argsort(x[has], kind="stable")
            t, left, agree = best_surrogate_threshold(x[has][order], direction[has][order],
                                                      w_p[has][order], 1)
            if np.isnan(t):
                continue
            sur = dict(kind=THRESHOLD, threshold=float(t), left_branch=int(left))
        agreement = agree / total
        if agreement > majority + 1e-12:
            adjusted = (agreement - majority) / (1.0 - majority)
            found.append(Surrogate(feature=j, agreement=float(agreement),
                                   adjusted_agreement=float(adjusted), **sur))
    found.sort(key=lambda s: (-s.agreement, s.feature))
    return found[:max_surrogates], majority_branch


def route_missing(splitter: Splitter, node: NodeData, split: Candidate,
                  surrogates: list[Surrogate], majority_branch: int) -> np.ndarray:
    """Branch of every row of the node: the primary's where known, else the first surrogate with
    a value, else the majority branch."""
    branch = splitter.branch_of_rows(split, node.idx)
    for s in surrogates:
        lost = branch < 0
        if not lost.any():
            break
        cand = s.branch(splitter.X[node.idx[lost], s.feature], int(splitter.n_categories[s.feature]))
        branch[np.flatnonzero(lost)] = cand
    branch[branch < 0] = majority_branch
    return branch
