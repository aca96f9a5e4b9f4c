"""A table's rows sorted once by each presorted column, shared by the fits on subsets of them.

    presort_table   every row of a table sorted once (``segments.presort_column``: O(n log n))
    kept_words      a subset's root words (``segments``) from the table's order: O(n)

Cross-validation grows K trees on subsets of one table (its folds). A subsequence of a sorted
sequence is sorted, and rows that tie keep their row order, so the rows of a fold, kept in the
table's order, are exactly the words the fold would sort for itself: K folds cost one sort. A
kept row ties with the kept row before it when every row between them in the table's order tied
with its predecessor (equal values are neighbours), so its TIE flag is the AND of theirs, as in
a split's partition (``segments._split_words``). Their J48 fields (``segments``) are 0: J48's
fits (release 8) grow on all of their rows and sort them themselves.

The table's order lives as long as the cross-validation, next to the words of the folds that
grow at once, so it is stored as a 32-bit row id and a TIE byte (5 bytes per row and column)
rather than as 8-byte words; a fold puts its rows' class codes back in.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from .segments import CODE_SHIFT, END_BIT, ROW_MASK, TIE_SHIFT, is_end, presort_column, tied


class SharedPresort(NamedTuple):
    """A table's rows in each presorted column's order (``presort_table``)."""

    order: np.ndarray  # (n_sorted, n) uint32: row ids, as a fit's own words would list them
    tie: np.ndarray  # (n_sorted, n) uint8: 1 when the row's value equals the previous row's
    n_known: np.ndarray  # (n_sorted,) int64: the rows before the END ones


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def presort_table(X, w, sorted_columns):
    """Every row of X (weights ``w``) in the order of each column ``sorted_columns[s]``."""
    n = X.shape[0]
    k = sorted_columns.shape[0]
    order = np.empty((k, n), dtype=np.uint32)
    tie = np.empty((k, n), dtype=np.uint8)
    n_known = np.zeros(k, dtype=np.int64)
    words = np.empty(n, dtype=np.int64)  # one column at a time: the table's is 5 bytes a row
    no_codes = np.zeros(0, dtype=np.int64)
    for s in range(k):
        presort_column(X[:, sorted_columns[s]], w, no_codes, words, np.bool_(False))
        for i in range(n):
            order[s, i] = words[i] & ROW_MASK
            tie[s, i] = tied(words[i])
            if not is_end(words[i]):
                n_known[s] += 1
    return SharedPresort(order, tie, n_known)


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def kept_words(presort, yc, rows, n_ids):
    """The words of the rows ``rows`` (ascending ids below ``n_ids``) kept from the table's
    order ``presort``: those the rows would get sorted as a table of their own, with the
    table's row ids (the module docstring)."""
    keep = np.zeros(n_ids, dtype=np.bool_)
    for t in range(rows.shape[0]):
        keep[rows[t]] = True
    has_codes = yc.shape[0] > 0
    words = np.empty((presort.order.shape[0], rows.shape[0]), dtype=np.int64)
    for s in range(presort.order.shape[0]):
        tie = np.int64(1)  # whether every row since the last kept one tied with its predecessor
        p = 0
        for i in range(presort.order.shape[1]):
            r = np.int64(presort.order[s, i])
            tie &= np.int64(presort.tie[s, i])
            if keep[r]:
                word = r | (tie << TIE_SHIFT)
                if i >= presort.n_known[s]:
                    word |= END_BIT
                if has_codes:
                    word |= np.int64(yc[r]) << CODE_SHIFT
                words[s, p] = word
                p += 1
                tie = 1
    return words
