"""Sending a node's rows down the branches of its test (``Splitter.partition`` and C4.5's pruning).

Two passes, so that the caller can decide from the known weight per branch where the rows with a
missing value go (C4.5: every branch, or every branch whose fraction r_v is large enough):

    branch_of_rows   the branch of each row (-1: value missing, or a category without a branch)
                     and the known weight per branch
    split_rows       the rows of every branch, concatenated, each branch's in node order: its own
                     rows and, if the branch receives them, the rows without a branch, with
                     weight w * r_v

The arithmetic is numpy's (``np.bincount``
adds the weights in row order), so the partitions are the ones the numpy code made, bit for bit.
"""

import numpy as np
from numba import njit

from .._config import THRESHOLD


@njit(cache=True, no_cfunc_wrapper=True)
def branch_of_rows(X, j, kind, threshold, branch_of_category, idx, w, n_branches):
    """(branch per row, known weight per branch) for the test on column j: ``kind`` THRESHOLD sends
    x <= threshold to branch 0 and the rest to 1; otherwise a category code c goes to
    branch_of_category[c] (-1 for a code outside it, e.g. an unseen category)."""
    n = idx.shape[0]
    branch = np.full(n, -1, dtype=np.int64)
    known_w = np.zeros(n_branches)
    n_codes = branch_of_category.shape[0]
    for t in range(n):
        x = X[idx[t], j]
        if np.isnan(x):
            continue
        if kind == THRESHOLD:
            b = 0 if x <= threshold else 1
        else:
            code = np.int64(x)
            b = branch_of_category[code] if 0 <= code < n_codes else -1
        branch[t] = b
        if b >= 0:
            known_w[b] += w[t]
    return branch, known_w


@njit(cache=True, no_cfunc_wrapper=True)
def split_rows(idx, w, branch, fractions, receives):
    """The rows of every branch, concatenated in branch order: (idx, w, offsets), branch b holding
    entries offsets[b]:offsets[b + 1] in the node's row order. A row with branch -1 goes to every
    branch b with receives[b], weighted w * fractions[b], in its place in that order."""
    n_branches = fractions.shape[0]
    n = idx.shape[0]
    size = np.zeros(n_branches, dtype=np.int64)
    n_lost = 0
    for t in range(n):
        if branch[t] >= 0:
            size[branch[t]] += 1
        else:
            n_lost += 1
    offsets = np.zeros(n_branches + 1, dtype=np.int64)
    for b in range(n_branches):
        offsets[b + 1] = offsets[b] + size[b] + (n_lost if receives[b] else 0)
    out_idx = np.empty(offsets[n_branches], dtype=idx.dtype)
    out_w = np.empty(offsets[n_branches])
    fill = offsets[:n_branches].copy()
    for t in range(n):
        b = branch[t]
        if b >= 0:
            out_idx[fill[b]] = idx[t]
            out_w[fill[b]] = w[t]
            fill[b] += 1
        else:
            for c in range(n_branches):
                if receives[c]:
                    out_idx[fill[c]] = idx[t]
                    out_w[fill[c]] = w[t] * fractions[c]
                    fill[c] += 1
    return out_idx, out_w, offsets
