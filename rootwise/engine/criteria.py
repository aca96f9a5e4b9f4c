"""Impurity measures and split scores, computed from class-count tables only.

A table has one row per branch and one column per class (weighted counts). Every score below
depends on nothing else, so a criterion is just another function of the same table.
"""

import numpy as np
from numba import njit

from .._config import ENTROPY
from .arrays import table_total, total


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def entropy(counts):
    """Ent(D) = -sum_k p_k log2 p_k, with 0 log 0 = 0."""
    w = total(counts)
    if w <= 0.0:
        return 0.0
    h = 0.0
    for c in counts:
        if c > 0.0:
            p = c / w
            h -= p * np.log2(p)
    return h


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def gini(counts):
    """Gini(D) = 1 - sum_k p_k^2."""
    w = total(counts)
    if w <= 0.0:
        return 0.0
    s = 0.0
    for c in counts:
        p = c / w
        s += p * p
    return 1.0 - s


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def impurity(counts, criterion):
    if criterion == ENTROPY:
        return entropy(counts)
    return gini(counts)


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def conditional_impurity(table, criterion):
    """sum_v |D^v|/|D| * I(D^v): the weighted impurity of the branches (H(D|A) or Gini_index)."""
    w = table_total(table)
    if w <= 0.0:
        return 0.0
    out = 0.0
    for v in range(table.shape[0]):
        size = total(table[v])
        if size > 0.0:
            out += size / w * impurity(table[v], criterion)
    return out


@njit(cache=True, no_cfunc_wrapper=True)
def intrinsic_value(table):
    """IV(a) = -sum_v |D^v|/|D| log2 |D^v|/|D| (the split information of C4.5)."""
    w = table_total(table)
    if w <= 0.0:
        return 0.0
    iv = 0.0
    for v in range(table.shape[0]):
        size = total(table[v])
        if size > 0.0:
            p = size / w
            iv -= p * np.log2(p)
    return iv


@njit(cache=True, no_cfunc_wrapper=True)
def parent_counts(table):
    """Class counts of the union of the branches."""
    out = np.zeros(table.shape[1], dtype=np.float64)
    for v in range(table.shape[0]):
        for k in range(table.shape[1]):
            out[k] += table[v, k]
    return out


@njit(cache=True, no_cfunc_wrapper=True)
def impurity_decrease(table, criterion):
    """Gain(D, a) = I(D) - sum_v |D^v|/|D| I(D^v); with ENTROPY this is the information gain."""
    return impurity(parent_counts(table), criterion) - conditional_impurity(table, criterion)
