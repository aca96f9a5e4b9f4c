"""What an algorithm is: a choice of criterion, selection rule, split shapes, missing-value strategy
and stopping rules. ID3, C4.5 and CART are presets of this one record (see ``estimators``)."""

from __future__ import annotations

from dataclasses import dataclass

from ._config import ABSOLUTE_ERROR, ENTROPY, GINI, POISSON, SQUARED_ERROR

CRITERIA = {"entropy": ENTROPY, "gini": GINI, "squared_error": SQUARED_ERROR, "poisson": POISSON,
            "absolute_error": ABSOLUTE_ERROR}
REGRESSION_CRITERIA = ("squared_error", "poisson", "absolute_error")
SELECTIONS = ("gain", "gain_ratio")
CATEGORICAL_SPLITS = ("multiway", "subset")
MISSING_STRATEGIES = ("error", "fractional", "surrogate")


@dataclass(frozen=True)
class Policy:
    """Everything the builder and splitter need to know about the algorithm being run.

    criterion           "entropy" (information gain), "gini", or for regression "squared_error",
                        "poisson" (half Poisson deviance) or "absolute_error" (absolute deviation)
    selection           "gain": the largest impurity decrease wins (ID3, CART);
                        "gain_ratio": C4.5's rule, the largest Gain/IV among the candidates whose
                        gain is at least the average gain
    categorical_split   "multiway" (one branch per category; the attribute is then used up on
                        the path) or "subset" (binary: a subset of categories against the rest)
    numeric_as_category continuous columns become categorical, one value per category (ID3);
                        otherwise they are split at a threshold (bi-partition at midpoints)
    missing             "error" (ID3), "fractional" (C4.5: rows go down every branch with weight
                        w * r_v), "surrogate" (CART: surrogate splits, then the larger child)
    epsilon             a node whose best score is below epsilon becomes a leaf (Li Hang 2012,
                        algorithm 5.2, step 4)
    min_impurity_decrease  a split must lower the total weighted impurity by at least this much:
                        W_t / W * gain >= min_impurity_decrease
    impurity_threshold  a node whose impurity is below this is not split (a stopping rule of
                        Breiman et al. 1984)
    max_leaf_nodes      grow best-first (largest weighted impurity decrease first) up to this many
                        leaves; None grows depth-first
    leaf_value          regression leaves predict the weighted "mean" or "median" (Breiman et al. 1984, ch. 8)
    max_surrogates      surrogate splits kept per node (CART)
    max_exhaustive      subset splits with more classes than two: all 2^(k-1)-1 partitions up to
                        this many categories present at the node, a heuristic above
    min_leaf_rule       "all_branches": every non-empty branch needs min_samples_leaf weight;
                        "two_branches": C4.5's rule, at least two branches need it
    prune_on_tie        pre-pruning: a split that leaves validation accuracy unchanged is not made
    splitter            CART's split search: "exact" (every midpoint of adjacent distinct values) or
                        "hist" (columns binned into at most ``max_bins`` bins, ``engine.hist``)
    max_bins            bins per continuous column with splitter="hist" (2..255)
    release8            C4.5 release 8 as Weka's J48 grows it (``reference.release8``): MDL-penalised gains
                        of continuous tests, J48's minimum split size, thresholds moved to training
                        values, split information with unknowns, J48's tolerances; needs
                        selection="gain_ratio", multiway categorical splits, fractional missing
    monotonic           per column -1, 0 or 1: the prediction (regression: the value; binary
                        classification: the second class's probability) may only fall, is free,
                        may only rise as the column grows (scikit-learn's ``monotonic_cst``,
                        ``engine.monotone``); () for none
    min_split_rows      a node with fewer rows of positive weight is a leaf (0: off); unlike
                        min_samples_split, which is a weight here, a count of rows
    min_leaf_rows       each side of a threshold cut needs this many rows of positive weight
                        (0: off; the estimators state a count of rows this way when the weights
                        differ, and as a weight in min_samples_leaf when they are equal)
    """

    criterion: str = "entropy"
    selection: str = "gain"
    categorical_split: str = "multiway"
    numeric_as_category: bool = True
    missing: str = "error"
    epsilon: float = 0.0
    max_depth: int | None = None
    min_samples_split: float = 2.0
    min_samples_leaf: float = 1.0
    min_impurity_decrease: float = 0.0
    impurity_threshold: float = 0.0
    max_leaf_nodes: int | None = None
    leaf_value: str = "mean"
    max_surrogates: int = 5
    max_exhaustive: int = 12
    min_leaf_rule: str = "all_branches"
    prune_on_tie: bool = True
    release8: bool = False
    splitter: str = "exact"
    max_bins: int = 255
    monotonic: tuple = ()
    min_split_rows: int = 0
    min_leaf_rows: int = 0

    def __post_init__(self):
        # the engine writes without bounds checks, so a combination it was not built for is
        # refused here, not grown into memory it does not own
        if self.missing == "surrogate" and self.categorical_split != "subset":
            raise ValueError(f"Policy: missing='surrogate' (CART) needs categorical_split="
                             f"'subset': surrogates stand in for binary tests, got "
                             f"categorical_split={self.categorical_split!r}.")
        if self.missing == "error" and self.categorical_split != "multiway":
            raise ValueError("Policy: missing='error' (ID3) needs categorical_split='multiway': "
                             "a binary subset test leaves rows of categories without weight at "
                             "the node without a branch, and 'error' has no way to send them; "
                             "use missing='surrogate' for subset tests.")
        if self.missing == "fractional" and self.max_leaf_nodes is not None:
            raise ValueError(f"Policy: max_leaf_nodes={self.max_leaf_nodes!r} (best-first "
                             f"growth) does not go with missing='fractional' (C4.5): the copies "
                             f"of a row without a value run past its node's rows, which only "
                             f"depth-first growth leaves free; use max_leaf_nodes=None.")

    @property
    def criterion_code(self) -> int:
        return CRITERIA[self.criterion]

    @property
    def regression(self) -> bool:
        return self.criterion in REGRESSION_CRITERIA

    @property
    def reuse_categorical(self) -> bool:
        """A multiway test uses its attribute up; a subset test leaves it for further splits."""
        return self.categorical_split == "subset"
