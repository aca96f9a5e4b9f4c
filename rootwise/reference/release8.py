"""C4.5 release 8 as Weka's J48 (3.6) grows it: the split search of ``C45ModelSelection`` and
``C45Split``, on top of the textbook engine (``Policy.release8``).

What changes against the textbook C4.5 of the seeds (each is a rule of Quinlan's release 8 that
J48 reproduces; the tolerances are J48's):

- stopping: a node lighter than 2 * min_samples_leaf, or whose majority class holds all but 1e-6
  of its weight, is a leaf;
- categorical attributes: as the seeds, but the split information counts unknown values as one
  more branch, and at least two branches need min_samples_leaf weight;
- continuous attributes: each side needs ``min_split`` = 0.1 * known weight / number of classes,
  clamped to [min_samples_leaf, 25]; the attribute needs at least 2 * min_split rows with a known
  value; values closer than 1e-5 are one value; the gain of the best cut is lowered by the MDL
  penalty log2(number of admissible cuts) / |D| and must stay positive; the threshold is moved
  down from the midpoint to the largest value of the attribute in the whole training set that is
  not above it (so every threshold is a value seen in training);
- selection: the average gain is taken over the attributes that have a test (leaving out
  categorical attributes with at least 0.3 * N declared values, unless every attribute is such
  one), a candidate needs gain >= average - 1e-3, and among those the first (lowest column) with
  the largest gain ratio wins, a later one needing to beat it by more than 1e-6; a best gain ratio
  of 0 makes the node a leaf;
- a row with an unknown value goes down only the branches whose fraction r_v exceeds 1e-6.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._config import CATEGORICAL, MISSING_FRACTIONAL, MULTIWAY, THRESHOLD
from ..engine.arrays import total as ordered_sum
from ..engine.j48 import (
    AVERAGE_SLACK,
    MIN_SPLIT_CAP,
    MIN_SPLIT_SHARE,
    SMALL,
    in_average_mask,
    min_split_size,
    multiway_scores,
    numeric_split,
    release8_midpoint,
    split_info,
    split_point,
)
from ..engine.j48 import choose as release8_choose
from ..engine.stats import class_counts
from .splitter import Candidate, NodeData, Splitter, branch_fractions


@dataclass(frozen=True)
class Release8Candidate(Candidate):
    """A candidate test with release 8's extra facts (shown by ``explain``).

    midpoint        continuous: the midpoint of the best cut, before it is moved to a training value
    mdl_penalty     continuous: log2(cuts) / |D|, already subtracted from ``gain``
    cuts            continuous: the number of admissible cuts
    in_average      whether the attribute's gain counts in the average gain
    """

    midpoint: float = np.nan
    mdl_penalty: float = 0.0
    cuts: int = 0
    in_average: bool = True


class Release8Splitter(Splitter):
    """``Splitter`` with J48's split search; partitioning and routing are the textbook's."""

    def __init__(self, X, y, kinds, n_categories, n_classes, policy):
        super().__init__(X, y, kinds, n_categories, n_classes, policy)
        self.min_objects = float(policy.min_samples_leaf)
        self._in_average = in_average_mask(kinds, n_categories, X.shape[0])

    # ----------------------------------------------------------------- candidates
    def _leaf_first(self, node: NodeData) -> bool:
        """Whether J48 makes the node a leaf before looking at attributes: less than
        2 * min_samples_leaf weight, or (within 1e-6) a single class."""
        counts = class_counts(self.y, node.idx, np.ascontiguousarray(node.w, dtype=np.float64),
                              self.n_classes)
        total = ordered_sum(counts)
        return 2.0 * self.min_objects - total > SMALL or abs(total - counts.max()) < SMALL

    def evaluate_candidates(self, node: NodeData, available: np.ndarray) -> list[Candidate]:
        """Nothing when J48 makes the node a leaf before looking at attributes (``_leaf_first``)."""
        return [] if self._leaf_first(node) else super().evaluate_candidates(node, available)

    def evaluate_feature(self, node: NodeData, j: int, W: float | None = None):
        if W is None:
            W = self.node_weight(node)
        if self.kinds[j] == CATEGORICAL:
            return self._multiway_r8(node, j, W)
        return self._threshold_r8(node, j, W)

    def _candidate(self, j, kind, gain, iv, rho, admissible, table, **extra) -> Release8Candidate:
        return Release8Candidate(feature=j, kind=kind, gain=gain, iv=iv,
                                 gain_ratio=gain / iv if iv > 0 else 0.0, rho=rho, table=table,
                                 admissible=bool(admissible),
                                 in_average=bool(self._in_average[j]), **extra)

    def _multiway_r8(self, node: NodeData, j: int, W: float) -> Release8Candidate | None:
        """One branch per category; two of them need ``min_samples_leaf`` (within 1e-6)."""
        k = int(self.n_categories[j])
        known = np.ascontiguousarray(self._branch_table(node, j, k)[:k])
        sizes = np.array([ordered_sum(known[v]) for v in range(k)])
        if np.count_nonzero(sizes > 0) < 2:
            return None
        gain, iv, rho, admissible = multiway_scores(known, sizes, W, self.min_objects,
                                                    np.zeros(known.shape[1]))
        return self._candidate(j, MULTIWAY, gain, iv, rho, admissible, known,
                               branch_of_category=np.arange(k, dtype=np.int32))

    def _threshold_r8(self, node: NodeData, j: int, W: float) -> Release8Candidate | None:
        """J48's cut of a continuous column: its minimum split size, the scan
        (``engine.j48.numeric_split``), the MDL penalty log2(cuts) / |D| (a gain that does not
        stay above 1e-6 drops the test), the threshold moved down to a training value."""
        xs, ys, ws = self._sorted_known(node, j)
        min_split = min_split_size(ordered_sum(ws), self.n_classes, self.min_objects,
                                   MIN_SPLIT_SHARE, MIN_SPLIT_CAP)
        if 2.0 * min_split - xs.shape[0] > SMALL:  # J48 counts rows here, not weight
            return None
        i, gain, cuts, branches = numeric_split(xs, ys, ws, self.n_classes, min_split, W)
        if cuts == 0 or i < 0:
            return None
        penalty = float(np.log2(cuts)) / W
        gain -= penalty
        if gain < SMALL:
            return None
        sizes = np.array([ordered_sum(branches[v]) for v in range(2)])
        rho = ordered_sum(sizes) / W if W > 0 else 0.0
        mid = release8_midpoint(xs[i], xs[i + 1])
        return self._candidate(j, THRESHOLD, gain, split_info(sizes, W), rho, True, branches,
                               threshold=self._training_value_below(j, mid), midpoint=mid,
                               mdl_penalty=penalty, cuts=int(cuts))

    def _training_value_below(self, j: int, point: float) -> float:
        """The largest value of column j in the whole training set not above ``point``."""
        # J48's own row-order scan of the column: the oracle for the engine's binary search
        value = split_point(np.ascontiguousarray(self.X[:, j]), point)
        return float(value) if np.isfinite(value) else point

    # ----------------------------------------------------------------- selection
    def average_gain(self, candidates: list[Candidate]) -> float | None:
        """J48's average gain over the attributes that have a test (None if none has)."""
        pool = [c.gain for c in candidates if c.admissible and getattr(c, "in_average", True)]
        return ordered_sum(np.array(pool, dtype=np.float64)) / len(pool) if pool else None

    def above_average(self, c: Candidate, average: float | None) -> bool:
        return average is not None and c.gain >= average - AVERAGE_SLACK

    def choose(self, gain: np.ndarray, gain_ratio: np.ndarray, admissible: np.ndarray,
               in_average: np.ndarray | None = None) -> tuple[int, float]:
        """J48's choice among candidates in column order (``engine.j48.choose``)."""
        if in_average is None:
            in_average = np.ones(len(gain), dtype=bool)
        found = np.ones(len(gain), dtype=bool)
        best, ratio = release8_choose(found, gain, gain_ratio, admissible, in_average)
        return int(best), float(ratio)

    # ----------------------------------------------------------------- partition
    def partition(self, node: NodeData, split: Candidate, missing_branch=None):
        """As the textbook's, except that a row with an unknown value skips the branches whose
        fraction r_v is at most 1e-6 (J48's ``ClassifierSplitModel.split``); when no fraction is
        that small but positive, every branch gets the row."""
        if not (isinstance(missing_branch, int) and missing_branch == MISSING_FRACTIONAL):
            return super().partition(node, split, missing_branch)
        branch, known_w = self.route(split, node.idx, node.w)
        r = branch_fractions(known_w)
        return self.rows_of_branches(node, branch, r, receiving_branches(r)), r


def receiving_branches(r: np.ndarray) -> np.ndarray:
    """J48's branches that receive a row with an unknown value: those with r_v > 1e-6, or every
    branch when no positive fraction is that small."""
    receives = r > SMALL
    if np.all(receives | (r == 0)):
        receives[:] = True
    return receives
