"""Missing-value strategies that need more than the split itself: CART's surrogate splits.

(C4.5's fractional weights need only the branch fractions r_v and live in ``Splitter.partition``.)

Seed 001 §2.4: every split node keeps surrogate splits on other attributes, ranked by agreement
with the primary split; only those that beat the majority rule count. A row whose primary value is
missing follows the first surrogate it has a value for, else the larger child.

The rules follow R's rpart (the reference CART implementation, checked against its output in
``tests/test_rpart_parity.py``; ``tools/rpart/README.md`` lists its semantics):

* agreement = w(rows sent the primary's way) / w(rows with the primary known); rows missing the
  surrogate count as disagreeing. majority = max(w_0, w_1) / (w_0 + w_1) over the same rows, and
  adjusted agreement = (agreement - majority) / (1 - majority). A surrogate is kept only when the
  adjusted agreement is positive, and must send at least ``MIN_SURROGATE_SIDE`` primary-known rows
  each way. Kept surrogates are ranked by agreement, ties to the lower column.
* threshold surrogates cut between consecutive distinct values of all the node's rows that have
  the surrogate, including those whose primary is missing (the rows the surrogate will route).
* while fitting, a row missing the primary and every surrogate goes to the *majority branch*: the
  side with more primary-known weight. At prediction it goes to the *larger child* (more weight
  after fitting), and stays at the node when the children weigh the same (``MISSING_STOP``).

Deliberate differences from rpart 4.1.19 (see the ``CARTClassifier`` docstring): rows are never
left inside a split node while fitting (rpart keeps a row there when w_0 = w_1; rootwise sends it
to the child that is larger after the surrogates have routed their rows, else to branch 0), and a
categorical surrogate needs ``MIN_SURROGATE_SIDE`` rows sent each way, as rpart's code comment
intends (its code counts agreeing and disagreeing rows instead, so it drops a categorical copy of
the primary), and a surrogate category split evenly, among surrogate rows split evenly too, goes
to the majority branch (rpart: to its "right" side).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._config import (
    CATEGORICAL,
    MIN_ADJUSTED_AGREEMENT,
    MIN_SURROGATE_SIDE,
    MISSING_STOP,
    SUBSET,
    THRESHOLD,
    TIE_TOLERANCE,
)
from ..engine.arrays import total as ordered_sum
from ..engine.surrogates import agreement_key, best_surrogate_subset, best_surrogate_threshold
from .splitter import Candidate, NodeData, Splitter


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


def _heavier(mass: np.ndarray) -> int:
    """0 or 1 for the heavier of two weights, -1 when they tie (up to rounding)."""
    if abs(mass[0] - mass[1]) <= TIE_TOLERANCE * max(1.0, mass.max()):
        return -1
    return int(mass[1] > mass[0])


def find_surrogates(splitter: Splitter, node: NodeData, split: Candidate,
                    max_surrogates: int) -> tuple[list[Surrogate], int]:
    """Surrogates of a binary split, best first (ties: lower column), and the majority branch: the
    side with more primary-known weight; when both sides weigh the same, the side that is heavier
    after the surrogates have routed their rows, else branch 0."""
    primary = splitter.branch_of_rows(split, node.idx)
    live = node.w > 0
    known = (primary >= 0) & live
    mass = np.array([_sum(node.w[known & (primary == b)]) for b in (0, 1)])
    majority_branch = _heavier(mass)
    total = mass[0] + mass[1]
    if split.kind not in (THRESHOLD, SUBSET) or total <= 0 or max_surrogates <= 0 \
            or mass.min() <= 0:
        if majority_branch < 0:
            majority_branch = _settle_tie(splitter, node, split, [])
        return [], majority_branch
    majority = mass.max() / total
    direction = np.where(known, primary, -1)
    found = []
    for j in range(splitter.X.shape[1]):
        if j == split.feature:
            continue
        x = splitter.X[node.idx, j]
        has = ~np.isnan(x) & live
        if np.count_nonzero(has & known) < 2 * MIN_SURROGATE_SIDE:
            continue
        if splitter.kinds[j] == CATEGORICAL:
            both = has & known
            # a category split evenly goes where the primary sends more of these rows, else to
            # the majority branch, else to branch 0
            tie = _heavier(np.array([_sum(node.w[both & (primary == b)]) for b in (0, 1)]))
            tie = tie if tie >= 0 else max(majority_branch, 0)
            side, agree = best_surrogate_subset(x[has].astype(np.int64), direction[has],
                                                node.w[has], int(splitter.n_categories[j]), tie,
                                                MIN_SURROGATE_SIDE)
            if agree < 0:
                continue
            sur = dict(kind=SUBSET, side=side)
        else:
            order = np.argsort(x[has], kind="stable")
            t, left, agree = best_surrogate_threshold(x[has][order], direction[has][order],
                                                      node.w[has][order], MIN_SURROGATE_SIDE)
            if np.isnan(t):
                continue
            sur = dict(kind=THRESHOLD, threshold=float(t), left_branch=int(left))
        agreement = agree / total
        adjusted = (agreement - majority) / (1.0 - majority)
        if adjusted > MIN_ADJUSTED_AGREEMENT:
            found.append(Surrogate(feature=j, agreement=float(agreement),
                                   adjusted_agreement=float(adjusted), **sur))
    # best agreement first; equal agreements (up to rounding) keep column order
    found.sort(key=lambda s: (-agreement_key(s.agreement), s.feature))
    found = found[:max_surrogates]
    if majority_branch < 0:
        majority_branch = _settle_tie(splitter, node, split, found)
    return found, majority_branch


def _settle_tie(splitter: Splitter, node: NodeData, split: Candidate,
                surrogates: list[Surrogate]) -> int:
    """The primary sent equal weight each way: the side that is heavier once the surrogates have
    routed their rows, or branch 0 if that ties too."""
    branch = _by_primary_and_surrogates(splitter, node, split, surrogates)
    mass = np.array([_sum(node.w[branch == b]) for b in (0, 1)])
    return max(_heavier(mass), 0)


def _by_primary_and_surrogates(splitter: Splitter, node: NodeData, split: Candidate,
                               surrogates: list[Surrogate]) -> np.ndarray:
    branch = splitter.branch_of_rows(split, node.idx)
    for s in surrogates:
        lost = branch < 0
        if not lost.any():
            break
        cand = splitter.surrogate_branches(s, node.idx[lost])
        branch[np.flatnonzero(lost)] = cand
    return branch


def route_missing(splitter: Splitter, node: NodeData, split: Candidate,
                  surrogates: list[Surrogate], majority_branch: int) -> np.ndarray:
    """Branch of every row of the node: the primary's where known, else the first surrogate with
    a value (and a branch for it), else the majority branch. No row is left behind."""
    branch = _by_primary_and_surrogates(splitter, node, split, surrogates)
    branch[branch < 0] = majority_branch
    return branch


def larger_child(parts: list[NodeData]) -> int:
    """Where a row missing the primary and every surrogate goes at prediction: the child with more
    training weight (Breiman et al. 1984, §5.3), or ``MISSING_STOP`` (stay at the node) when they weigh the
    same, as rpart's predict does."""
    mass = np.array([_sum(p.w) for p in parts])
    b = _heavier(mass) if len(parts) == 2 else -1
    return MISSING_STOP if b < 0 else b


def _sum(a) -> float:
    """The values added in order from 0 (the engine's canonical sum)."""
    return ordered_sum(np.ascontiguousarray(a, dtype=np.float64))
