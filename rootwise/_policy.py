"""What an algorithm is: a choice of criterion, selection rule, split shapes, missing-value strategy
and stopping rules. ID3, C4.5 and CART are presets of this one record (see ``estimators``)."""

from __future__ import annotations

from dataclasses import dataclass

from ._config import ENTROPY, GINI

CRITERIA = {"entropy": ENTROPY, "gini": GINI}
SELECTIONS = ("gain", "gain_ratio")
MISSING_STRATEGIES = ("error",)


@dataclass(frozen=True)
class Policy:
    """Everything the builder and splitter need to know about the algorithm being run.

    criterion           impurity measure: "entropy" (information gain) or "gini"
    selection           "gain": the largest impurity decrease wins (ID3, CART);
                        "gain_ratio": C4.5's rule, the largest Gain/IV among the candidates whose
                        gain is at least the average gain
    numeric_as_category continuous columns are treated as categorical, one value per category
                        (ID3); otherwise they are split at a threshold
    reuse_categorical   may a categorical attribute be tested again below (False for multiway)
    missing             what to do with missing cells: "error" (ID3 cannot use them)
    epsilon             a node whose best score is below epsilon becomes a leaf (seed 002 step 4)
    """

    criterion: str = "entropy"
    selection: str = "gain"
    numeric_as_category: bool = True
    reuse_categorical: bool = False
    missing: str = "error"
    epsilon: float = 0.0
    max_depth: int | None = None
    min_samples_split: float = 2.0
    min_samples_leaf: float = 1.0

    @property
    def criterion_code(self) -> int:
        return CRITERIA[self.criterion]
