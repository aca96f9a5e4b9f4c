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

from ._config import CATEGORICAL, MISSING_FRACTIONAL, MULTIWAY, THRESHOLD
from ._core.release8 import SMALL, info_gain, numeric_split, old_ent, split_info, split_point
from ._core.stats import category_table, class_counts
from ._splitter import Candidate, NodeData, Splitter

MANY_VALUES = 0.3  # categorical attributes with >= 0.3 N declared values stay out of the average
MIN_SPLIT_SHARE = 0.1  # min_split = 0.1 * known weight / classes ...
MIN_SPLIT_CAP = 25.0  # ... at most 25
AVERAGE_SLACK = 1e-3  # J48: "gain >= average - 1e-3" to approximate the original C code


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
    """``Splitter`` with J48's split search; partitioning and routing are the engine's own."""

    def __init__(self, X, y, kinds, n_categories, n_classes, policy):
        super().__init__(X, y, kinds, n_categories, n_classes, policy)
        self.min_objects = float(policy.min_samples_leaf)
        n_rows = X.shape[0]
        categorical = np.asarray(kinds) == CATEGORICAL
        many = categorical & (MANY_VALUES * n_rows - np.asarray(n_categories) <= SMALL)
        # J48's "multiVal": every attribute categorical with many values
        self.all_many_valued = bool(np.all(many))
        self.many_valued = many

    # ----------------------------------------------------------------- candidates
    def evaluate_candidates(self, node: NodeData, available: np.ndarray) -> list[Candidate]:
        """Nothing when J48 makes the node a leaf before looking at attributes: less than
        2 * min_samples_leaf weight, or (within 1e-6) a single class."""
        counts = class_counts(self.y, node.idx, node.w, self.n_classes)
        total = counts.sum()
        if 2.0 * self.min_objects - total > SMALL or abs(total - counts.max()) < SMALL:
            return []
        return super().evaluate_candidates(node, available)

    def evaluate_feature(self, node: NodeData, j: int) -> Candidate | None:
        if self.kinds[j] == CATEGORICAL:
            return self._multiway(node, j)
        return self._threshold(node, j)

    def _multiway(self, node: NodeData, j: int) -> Candidate | None:
        k = int(self.n_categories[j])
        table = category_table(self.X, j, self.y, node.idx, node.w, k, self.n_classes)
        known = table[:k]
        sizes = known.sum(axis=1)
        if np.count_nonzero(sizes > 0) < 2:
            return None
        total_w = float(table.sum())
        # Distribution.check: at least two branches with min_samples_leaf (within 1e-6)
        admissible = int(np.count_nonzero(self.min_objects - sizes < SMALL)) >= 2
        return self._scored(j, MULTIWAY, known, total_w, admissible=admissible,
                            branch_of_category=np.arange(k, dtype=np.int32),
                            in_average=self.all_many_valued or not self.many_valued[j])

    def _threshold(self, node: NodeData, j: int) -> Candidate | None:
        values = self.X[node.idx, j]
        known = ~np.isnan(values)
        order = np.argsort(values[known], kind="stable")
        xs = values[known][order]
        rows = node.idx[known][order]
        ws = node.w[known][order]
        ys = self.y[rows]
        total_w = float(node.w.sum())
        min_split = MIN_SPLIT_SHARE * ws.sum() / self.n_classes
        if min_split - self.min_objects < SMALL:
            min_split = self.min_objects
        elif min_split - MIN_SPLIT_CAP > SMALL:
            min_split = MIN_SPLIT_CAP
        if 2.0 * min_split - len(xs) > SMALL:  # J48 counts rows here, not weight
            return None
        i, gain, cuts = numeric_split(xs, ys, ws, self.n_classes, min_split, total_w)
        if cuts == 0 or i < 0:
            return None
        penalty = np.log2(cuts) / total_w
        gain -= penalty
        if gain < SMALL:
            return None
        mid = (xs[i] + xs[i + 1]) / 2.0
        if mid == xs[i + 1]:  # rounding: keep the lower value
            mid = xs[i]
        left = np.arange(len(xs)) <= i
        branches = np.zeros((2, self.n_classes))
        np.add.at(branches, (np.where(left, 0, 1), ys), ws)
        return self._scored(j, THRESHOLD, branches, total_w, gain=gain,
                            threshold=self._training_value_below(j, mid), midpoint=mid,
                            mdl_penalty=penalty, cuts=int(cuts))

    def _training_value_below(self, j: int, point: float) -> float:
        """The largest value of column j in the whole training set not above ``point``."""
        value = split_point(np.ascontiguousarray(self.X[:, j]), point)
        return float(value) if np.isfinite(value) else point

    def _scored(self, j, kind, known, total_w, gain=None, **extra) -> Release8Candidate:
        sizes = known.sum(axis=1)
        known_w = float(sizes.sum())
        if gain is None:
            gain = info_gain(known, total_w, old_ent(known.sum(axis=0)))
        iv = split_info(sizes, total_w)
        return Release8Candidate(feature=j, kind=kind, gain=float(gain), iv=float(iv),
                                 gain_ratio=float(gain / iv) if iv > 0 else 0.0,
                                 rho=known_w / total_w if total_w > 0 else 0.0, table=known,
                                 **extra)

    # ----------------------------------------------------------------- selection
    def average_gain(self, candidates: list[Candidate]) -> float | None:
        """J48's average gain over the attributes that have a test (None if none has)."""
        pool = [c for c in candidates if c.admissible and getattr(c, "in_average", True)]
        if not pool:
            return None
        return float(np.sum([c.gain for c in pool])) / len(pool)

    def above_average(self, c: Candidate, average: float | None) -> bool:
        return average is not None and c.gain >= average - AVERAGE_SLACK

    def select(self, candidates: list[Candidate]) -> tuple[Candidate | None, float]:
        average = self.average_gain(candidates)
        best, best_ratio = None, 0.0
        for c in candidates:  # in column order
            if c.admissible and self.above_average(c, average) \
                    and c.gain_ratio - best_ratio > SMALL:
                best, best_ratio = c, c.gain_ratio
        if best is None:
            return None, 0.0
        return best, best_ratio

    # ----------------------------------------------------------------- partition
    def partition(self, node: NodeData, split: Candidate, missing_branch=None):
        """As the engine's, except that a row with an unknown value skips the branches whose
        fraction r_v is at most 1e-6 (J48's ``ClassifierSplitModel.split``)."""
        parts, r = super().partition(node, split, missing_branch)
        if not (isinstance(missing_branch, int) and missing_branch == MISSING_FRACTIONAL):
            return parts, r
        lost = np.isnan(self.X[node.idx, split.feature])
        if not lost.any() or np.all((r > SMALL) | (r == 0)):
            return parts, r
        out = []
        for b, part in enumerate(parts):
            if r[b] > SMALL:
                out.append(part)
            else:  # keep only the rows whose value is known
                keep = ~np.isnan(self.X[part.idx, split.feature])
                out.append(NodeData(part.idx[keep], part.w[keep]))
        return out, r
