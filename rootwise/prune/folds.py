"""Shuffled K-fold and stratified K-fold splits for choosing ``ccp_alpha`` by cross-validation.

They give, row for row, the folds of scikit-learn's ``KFold(shuffle=True)`` and
``StratifiedKFold(shuffle=True)`` for the same ``random_state`` (same random draws, in the same
order), so choosing alpha does not depend on which of the two made the folds; written here
because ``import sklearn.model_selection`` alone takes longer than a whole small fit.
``tests/test_prune_folds.py`` checks them against scikit-learn.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np


def check_random_state(seed) -> np.random.RandomState:
    """None: numpy's global RandomState; an integer: a new RandomState seeded with it; a
    RandomState: itself (its draws advance, as scikit-learn's splitters do)."""
    if seed is None or seed is np.random:
        return np.random.mtrand._rand
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        return np.random.RandomState(seed)
    if isinstance(seed, np.random.RandomState):
        return seed
    raise ValueError(f"random_state must be None, an integer or a numpy RandomState, got {seed!r}.")


class FoldPairs(Sequence):
    """(training rows, held-out rows) of each fold, made when the pair is read: pair i holds out
    the rows of ``rows`` whose label in ``labels[i // k]`` (one labelling per repeat) is i mod k
    and trains on the others, both in ascending order. A label per row instead of K arrays of
    training rows held at once, (K - 1) n row ids: 72 MB at 10^6 rows and K = 10."""

    def __init__(self, rows: np.ndarray, labels: list[np.ndarray], k: int):
        self.rows, self.labels, self.k = rows, labels, k

    def __len__(self) -> int:
        return len(self.labels) * self.k

    def __getitem__(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        if not 0 <= i < len(self):
            raise IndexError(f"fold {i} of {len(self)}")
        held_out = self.labels[i // self.k] == i % self.k
        return self.rows[~held_out], self.rows[held_out]


def _pairs(test_fold: np.ndarray, k: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(training rows, held-out rows) of each fold, both in ascending row order."""
    return [(np.flatnonzero(test_fold != f), np.flatnonzero(test_fold == f)) for f in range(k)]


def kfold(n_rows: int, k: int, random_state) -> list[tuple[np.ndarray, np.ndarray]]:
    """``kfold_labels``'s folds as (training rows, held-out rows) pairs."""
    return _pairs(kfold_labels(n_rows, k, random_state), k)


def stratified_kfold(y: np.ndarray, k: int, random_state) -> list[tuple[np.ndarray, np.ndarray]]:
    """``stratified_kfold_labels``'s folds as (training rows, held-out rows) pairs."""
    return _pairs(stratified_kfold_labels(y, k, random_state), k)


def kfold_labels(n_rows: int, k: int, random_state) -> np.ndarray:
    """Each row's fold: shuffle the rows, then cut them into k consecutive folds; the first
    n mod k folds hold one row more than the others (n // k)."""
    if not 2 <= k <= n_rows:
        raise ValueError(f"k-fold needs 2 <= k <= rows, got k={k} for {n_rows} rows.")
    order = np.arange(n_rows)
    check_random_state(random_state).shuffle(order)
    sizes = np.full(k, n_rows // k)
    sizes[: n_rows % k] += 1
    test_fold = np.empty(n_rows, dtype=np.int64)
    test_fold[order] = np.repeat(np.arange(k), sizes)
    return test_fold


def stratified_kfold_labels(y: np.ndarray, k: int, random_state) -> np.ndarray:
    """Each row's fold, k folds that each hold about 1/k of every class.

    Number the classes by first appearance in ``y`` and list the rows class by class; dealing that
    list to the folds in turn (position p to fold p mod k) fixes how many rows of each class each
    fold gets. Then, class by class, the fold labels (fold 0 repeated its count, then fold 1, ...)
    are shuffled and given to the class's rows in row order. Every class needs at least k rows.
    """
    y = np.asarray(y)
    _, first, inverse = np.unique(y, return_index=True, return_inverse=True)
    by_appearance = np.argsort(np.argsort(first))  # sorted-class number -> appearance number
    cls = by_appearance[inverse.ravel()]
    counts = np.bincount(cls)
    if counts.min() < k:
        raise ValueError(f"stratified k-fold needs at least k={k} rows of every class, the "
                         f"smallest class has {counts.min()}.")
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    ends = starts + counts
    rng = check_random_state(random_state)
    test_fold = np.empty(len(y), dtype=np.int64)
    folds = np.arange(k)
    for c in range(len(counts)):
        # positions p in [start, end) with p = f (mod k): ceil((end - f) / k) - ceil((start - f) / k)
        share = -((folds - ends[c]) // k) + ((folds - starts[c]) // k)
        labels = np.repeat(folds, share)
        rng.shuffle(labels)
        test_fold[cls == c] = labels
    return test_fold
