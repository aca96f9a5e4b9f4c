"""One pruning decision judged on validation data, and the score it reports."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PruningStep:
    """One pruning decision judged on validation data: the validation score of the whole tree
    (accuracy, or minus the mean squared error) with ``node`` as a subtree (post-pruning) or split
    into leaves (pre-pruning), and with ``node`` a leaf; ``pruned``: it was made / left a leaf.

    ``node`` numbers the tree the decision was taken on: the grown tree for pre-pruning (the fitted
    tree), the unpruned tree for reduced-error pruning (whose pruned subtrees are gone from the
    fitted tree). ``n_validation``: weight of the validation rows reaching the node. ``path``: the
    tests leading to the node, in the words of ``export_text`` ("" for the root, or when unknown)."""

    node: int
    n_validation: float
    score_as_subtree: float
    score_as_leaf: float
    pruned: bool
    path: str = ""


def score(loss: float, total_w: float, regression: bool) -> float:
    """Validation score from a weighted loss: accuracy, or minus the mean squared error."""
    return float(-loss / total_w if regression else 1.0 - loss / total_w)


def better_or_tie(leaf_loss: float, subtree_loss: float, prune_on_tie: bool) -> bool:
    """Prune: the leaf loses less on the validation rows, or as much and ``prune_on_tie``."""
    if np.isclose(leaf_loss, subtree_loss, rtol=1e-12, atol=1e-12):
        return bool(prune_on_tie)
    return bool(leaf_loss < subtree_loss)
