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
from ..engine.release8 import SMALL, split_point_sorted
from ..engine.release8 import choose as release8_choose
from ..engine.release8 import evaluate_node as release8_node
from ..engine.stats import class_counts
from .splitter import Candidate, NodeData, NodeEvaluation, Splitter, branch_fractions

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
        self._columns: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # see _training_value_below
        self._in_average = self.all_many_valued | ~many

    # ----------------------------------------------------------------- candidates
    def _leaf_first(self, node: NodeData) -> bool:
        """Whether J48 makes the node a leaf before looking at attributes: less than
        2 * min_samples_leaf weight, or (within 1e-6) a single class."""
        counts = class_counts(self.y, node.idx, node.w, self.n_classes)
        total = counts.sum()
        return 2.0 * self.min_objects - total > SMALL or abs(total - counts.max()) < SMALL

    def evaluate_candidates(self, node: NodeData, available: np.ndarray) -> list[Candidate]:
        """Nothing when J48 makes the node a leaf before looking at attributes (``_leaf_first``)."""
        return [] if self._leaf_first(node) else super().evaluate_candidates(node, available)

    def best_split(self, node: NodeData, available: np.ndarray) -> tuple[Candidate | None, float]:
        return (None, 0.0) if self._leaf_first(node) else super().best_split(node, available)

    def evaluate_node(self, node: NodeData, features: np.ndarray) -> NodeEvaluation:
        """J48's candidates (``_core.release8.evaluate_node``), then the MDL penalty of each
        continuous test, log2(cuts) / |D|: a test whose gain does not stay above 1e-6 is dropped."""
        ranks, rank_row = self._rank_matrix()
        found, gain, iv, rho, admissible, weight, cuts, mid, tables, offsets = release8_node(
            self.X, ranks, rank_row, features, self._kinds, self._n_categories, self.y, node.idx,
            node.w, float(node.w.sum()), self.n_classes, self.min_objects, MIN_SPLIT_SHARE,
            MIN_SPLIT_CAP)
        penalty = np.zeros(len(features))
        for f in np.flatnonzero(cuts):  # the continuous tests found (a multiway test has no cuts)
            penalty[f] = np.log2(cuts[f]) / weight[f]
            g = float(gain[f]) - penalty[f]
            if g < SMALL:
                found[f] = False
            else:
                gain[f] = g
        ratio = np.zeros(len(features))
        np.divide(gain, iv, out=ratio, where=found & (iv > 0))
        return NodeEvaluation(features, found, gain, iv, ratio, rho, admissible,
                              np.full(len(features), np.nan), tables, offsets, midpoint=mid,
                              mdl_penalty=penalty, cuts=cuts, in_average=self._in_average[features])

    def candidate_at(self, ev: NodeEvaluation, f: int) -> Release8Candidate:
        j = int(ev.features[f])
        table = ev.tables[ev.offsets[f]:ev.offsets[f + 1]].reshape(-1, self.n_classes)
        common = dict(feature=j, gain=float(ev.gain[f]), iv=float(ev.iv[f]),
                      gain_ratio=float(ev.gain_ratio[f]), rho=float(ev.rho[f]), table=table,
                      admissible=bool(ev.admissible[f]), in_average=bool(ev.in_average[f]))
        if self._kinds[j] == CATEGORICAL:
            return Release8Candidate(kind=MULTIWAY, **common,
                                     branch_of_category=np.arange(len(table), dtype=np.int32))
        mid = float(ev.midpoint[f])
        return Release8Candidate(kind=THRESHOLD, threshold=self._training_value_below(j, mid),
                                 midpoint=mid, mdl_penalty=float(ev.mdl_penalty[f]),
                                 cuts=int(ev.cuts[f]), **common)

    def _training_value_below(self, j: int, point: float) -> float:
        """The largest value of column j in the whole training set not above ``point``."""
        if j not in self._columns:  # once per column and fit: the column and its distinct values
            column = np.ascontiguousarray(self.X[:, j])
            self._columns[j] = (column, np.unique(column[~np.isnan(column)]))
        column, distinct = self._columns[j]
        value = split_point_sorted(distinct, column, point)
        return float(value) if np.isfinite(value) else point

    # ----------------------------------------------------------------- selection
    def average_gain(self, candidates: list[Candidate]) -> float | None:
        """J48's average gain over the attributes that have a test (None if none has)."""
        pool = [c for c in candidates if c.admissible and getattr(c, "in_average", True)]
        if not pool:
            return None
        return float(np.sum([c.gain for c in pool])) / len(pool)

    def above_average(self, c: Candidate, average: float | None) -> bool:
        return average is not None and c.gain >= average - AVERAGE_SLACK

    def choose(self, gain: np.ndarray, gain_ratio: np.ndarray, admissible: np.ndarray,
               in_average: np.ndarray | None = None) -> tuple[int, float]:
        """J48's choice among candidates in column order: the average gain is taken over the
        admissible ones ``in_average``; among the admissible ones whose gain reaches it (less
        1e-3), the first with the largest gain ratio wins, a later one needing to beat it by more
        than 1e-6. -1 when none has a positive gain ratio."""
        if in_average is None:
            in_average = np.ones(len(gain), dtype=bool)
        best, ratio = release8_choose(gain, gain_ratio, admissible, in_average, AVERAGE_SLACK)
        return int(best), float(ratio)

    # ----------------------------------------------------------------- partition
    def partition(self, node: NodeData, split: Candidate, missing_branch=None):
        """As the engine's, except that a row with an unknown value skips the branches whose
        fraction r_v is at most 1e-6 (J48's ``ClassifierSplitModel.split``); when no fraction is
        that small but positive, every branch gets the row, as in the engine."""
        if not (isinstance(missing_branch, int) and missing_branch == MISSING_FRACTIONAL):
            return super().partition(node, split, missing_branch)
        branch, known_w = self.route(split, node.idx, node.w)
        r = branch_fractions(known_w)
        receives = r > SMALL
        if np.all(receives | (r == 0)):
            receives[:] = True
        return self.rows_of_branches(node, branch, r, receives), r
