"""One pruning decision judged on validation data, the score it reports, and the decisions of a
pass as arrays (what a compiled pass records; ``PruningStep`` objects are made when read)."""

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


@dataclass(frozen=True)
class StepTable:
    """The decisions of a pruning pass, in the order taken, as one array per ``PruningStep``
    field (the paths are left to ``report.describe_steps``)."""

    node: np.ndarray  # int64
    n_validation: np.ndarray  # float64
    score_as_subtree: np.ndarray  # float64
    score_as_leaf: np.ndarray  # float64
    pruned: np.ndarray  # bool

    @classmethod
    def of(cls, steps: list[PruningStep]) -> StepTable:
        """The table of a list of steps (their paths are dropped)."""
        return cls(np.array([s.node for s in steps], dtype=np.int64),
                   np.array([s.n_validation for s in steps], dtype=np.float64),
                   np.array([s.score_as_subtree for s in steps], dtype=np.float64),
                   np.array([s.score_as_leaf for s in steps], dtype=np.float64),
                   np.array([s.pruned for s in steps], dtype=bool))

    def __len__(self) -> int:
        return len(self.node)

    def steps(self, paths: dict[int, str] | None = None) -> list[PruningStep]:
        """The decisions as ``PruningStep`` objects (Python numbers), with ``paths[node]``."""
        paths = paths or {}
        return [PruningStep(node, n_val, sub, leaf, pruned, paths.get(node, ""))
                for node, n_val, sub, leaf, pruned in zip(
                    self.node.tolist(), self.n_validation.tolist(), self.score_as_subtree.tolist(),
                    self.score_as_leaf.tolist(), self.pruned.tolist(), strict=True)]


def score(loss: float, total_w: float, regression: bool) -> float:
    """Validation score from a weighted loss: accuracy, or minus the mean squared error."""
    return float(-loss / total_w if regression else 1.0 - loss / total_w)


def better_or_tie(leaf_loss: float, subtree_loss: float, prune_on_tie: bool) -> bool:
    """Prune: the leaf loses less on the validation rows, or as much and ``prune_on_tie``."""
    if np.isclose(leaf_loss, subtree_loss, rtol=1e-12, atol=1e-12):
        return bool(prune_on_tie)
    return bool(leaf_loss < subtree_loss)
