"""C4.5's error-based (pessimistic) pruning with subtree raising (Quinlan 1993, ch. 4), and release
8's collapse of subtrees that do not lower the training error, as J48 does them
(``C45PruneableClassifierTree`` in Weka 3.6).

A leaf holding N training cases (weighted, fractional) with E errors is expected to make
E + pessimistic_errors(N, E, CF) errors on unseen cases (``pessimistic``). Bottom-up, after its
branches have been pruned, each node is compared as
  - a leaf:                       the estimate for its own class distribution;
  - its subtree:                  the sum of the estimates of its leaves;
  - its largest branch (raising): that branch's subtree with all the node's cases sent into it.
The node becomes a leaf if that is no worse than both others (within 0.1 case, as release 8 and
J48 do), else it is replaced by its largest branch if that is no worse than the subtree; the
raised subtree then takes all the node's cases and is pruned again.

Every node is judged, as J48 judges it, by the rows that reach it with their weights there, and a
row whose tested value is unknown goes down each branch with the fraction r_v of the known weight
that the node's rows send there. When cases move (raising), the fractions are recomputed from the
rows that now reach the node (J48's ``C45Split.resetDistribution``). ``release8`` uses J48's
tolerances: a branch with r_v <= 1e-6 receives no unknown rows, comparisons allow 1e-6, and of
equally large branches the last one is raised.

Collapse (``collapse=True``, J48 always does it, before pruning): top-down, a subtree whose leaves
make at least as many training errors as its root would as a leaf (within 1e-3) becomes that leaf.

The passes are compiled walks over the flat tree with the rows of each node on one stack
(``cases``, ``error_based_kernels``): a few kernel calls per pass, whatever the size of the tree.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._config import ENTROPY, LEAF, MISSING_FRACTIONAL, MISSING_STOP
from ..engine.j48 import SMALL
from ..tree import Tree
from .cases import Cases, Tests, new_record, new_stack, tests_of
from .error_based_kernels import (
    Settings,
    new_raising,
    new_walk,
    number_nodes,
    prune_tree,
    route_cases,
)
from .pessimistic import normal_quantile, pessimistic_errors

COLLAPSE_SLACK = 1e-3  # J48's collapse: subtree errors >= leaf errors - 1e-3

__all__ = ["Grown", "TrainingRows", "collapse_tree", "error_based_prune", "pessimistic_errors"]


class TrainingRows(NamedTuple):
    """The rows a tree was grown on: encoded matrix, class codes, number of classes, and the
    criterion whose impurity the pruned tree's nodes report (C4.5: entropy)."""

    X: np.ndarray
    y: np.ndarray
    n_classes: int
    criterion: int = ENTROPY


class Grown(NamedTuple):
    """An unpruned tree given up to the pruning (``given_up``): its tests, which the pruning
    changes in place, and its depth. The rest of it is freed before the pruning's records are
    made: an unpruned C4.5 tree of the benchmarks' ``real_table`` at 10^6 rows has 2.2 million
    nodes (a child per category of each multiway test) of 109 bytes, of which its tests are 25."""

    tests: Tests
    max_depth: int


def given_up(tree: Tree) -> Grown:
    """``tree``'s tests, in place: the caller drops ``tree`` and every other reference to it,
    for the pruning changes these arrays."""
    return _grown(tree, copy=False)


def _grown(tree: Tree, *, copy: bool = True) -> Grown:
    return Grown(tests_of(tree, copy=copy), tree.max_depth if tree.node_count else 0)


def error_based_prune(tree: Tree | Grown, rows, w: np.ndarray, *, confidence: float = 0.25,
                      subtree_raising: bool = True, collapse: bool = False,
                      release8: bool = False) -> Tree:
    """The pruned tree. ``rows`` (a ``TrainingRows``, or anything with ``X``, ``y``, ``n_classes``
    and ``criterion``) holds the rows the tree was grown on, weighted ``w`` (rows of weight 0
    are carried along and count for nothing); ``collapse`` first collapses subtrees that do not
    lower the training error; ``release8`` follows J48 (module docstring). A ``Tree`` is left as
    it is; a ``Grown`` (``given_up``) is pruned in place."""
    grown = tree if isinstance(tree, Grown) else _grown(tree)
    return _run(grown, rows, w, confidence=confidence, subtree_raising=subtree_raising,
                collapse=collapse, prune=True, release8=release8)


def collapse_tree(tree: Tree, rows, w: np.ndarray, *, release8: bool = True) -> Tree:
    """Release 8's collapse alone (what J48 -U does after growing): every subtree whose leaves make
    at least as many training errors as its root would as a leaf (within 1e-3) becomes that leaf."""
    return _run(_grown(tree), rows, w, confidence=0.25, subtree_raising=False, collapse=True,
                prune=False, release8=release8)


def _run(grown: Grown, rows, w, *, confidence: float, subtree_raising: bool, collapse: bool,
         prune: bool, release8: bool) -> Tree:
    cases = Cases(np.ascontiguousarray(rows.X, dtype=np.float64),
                  np.ascontiguousarray(rows.y, dtype=np.int64), int(rows.n_classes))
    tests = grown.tests
    n_rows, n_nodes = cases.y.shape[0], tests.feature.shape[0]
    # J48 keeps CF as a Java float
    cf = float(np.float32(confidence)) if release8 else float(confidence)
    settings = Settings(cf, normal_quantile(1.0 - cf), SMALL if release8 else 0.0, bool(release8),
                        bool(subtree_raising))
    record, scratch = new_record(n_nodes, cases.n_classes), new_record(n_nodes, cases.n_classes)
    # frames by depth, not by node: an unpruned C4.5 tree has a node per category of each
    # multiway test (242,436 nodes at 10^5 rows of the benchmarks' ``real_table``), at most 15 levels deep
    walk = new_walk(grown.max_depth)
    stack, raising = new_stack(n_rows), new_raising(n_nodes, cases.n_classes)
    if collapse or not prune:
        # every node's counts and fractions, and each subtree's training errors
        _root_cases(stack, w, n_rows)
        stack = route_cases(0, 0, n_rows, n_rows, 0, 0, tests, cases, stack, record, walk, True,
                            settings)
        if collapse:
            _collapse(tests, record)
    if prune:
        _root_cases(stack, w, n_rows)
        prune_tree(n_rows, tests, cases, stack, record, scratch, walk, raising, settings)
    return _written(tests, record, int(getattr(rows, "criterion", ENTROPY)), tests.n_categories)


def _collapse(tests: Tests, record) -> None:
    """Release 8's collapse: a split whose subtree makes at least as many training errors
    (``record.estimate``, from the routing walk) as the node would as a leaf, within 1e-3, becomes
    that leaf. J48 judges top-down and stops at a collapsed node; here every such split is made a
    leaf, which leaves the same tree, for what lies below a collapsed node is not reached.
    Training errors as ``total_and_errors`` takes them: the sum of the counts (in order) minus the
    largest."""
    counts = record.counts
    as_leaf = counts.sum(axis=1) - counts.max(axis=1)
    collapsed = (tests.n_children > 0) & (record.estimate >= as_leaf - COLLAPSE_SLACK)
    tests.n_children[collapsed] = 0
    tests.kind[collapsed] = LEAF


def _written(tests: Tests, record, criterion: int, n_categories) -> Tree:
    """The flat tree reachable from the root, numbered by ``number_nodes``; each node's value is
    its class counts (a node without cases: its parent's), split nodes send missing values down
    every branch (r_v, the fractions their cases gave)."""
    origin, parent, depth, first, source, node_impurity, written = number_nodes(
        tests.first_child, tests.n_children, record.counts, criterion)
    split = tests.n_children[origin] > 0
    feature = np.where(split, tests.feature[origin], -1)
    categorical = split & (tests.pool_offset[origin] >= 0)
    sizes = np.where(categorical, tests.n_categories[np.maximum(feature, 0)], 0)
    # each categorical split's branch per category, added to the pool as the node is written
    in_order = sizes[written]
    starts = np.empty_like(sizes)
    starts[written] = np.cumsum(in_order) - in_order
    within = np.arange(int(in_order.sum())) - np.repeat(starts[written], in_order)
    pool = tests.pool[np.repeat(tests.pool_offset[origin][written], in_order) + within]
    fraction = record.fraction[origin]
    fraction[0] = 1.0
    counts = record.counts[origin]
    fields = dict(feature=feature, kind=np.where(split, tests.kind[origin], LEAF),
                  threshold=np.where(split, tests.threshold[origin], np.nan), first_child=first,
                  n_children=np.where(split, tests.n_children[origin], 0),
                  pool_offset=np.where(categorical, starts, -1),
                  missing_branch=np.where(split, MISSING_FRACTIONAL, MISSING_STOP), parent=parent,
                  depth=depth, impurity=node_impurity, n_node_samples=record.n_positive[origin],
                  weighted_n_node_samples=counts.sum(axis=1), branch_fraction=fraction)
    return Tree(fields, record.counts[source], pool, n_categories)


def _root_cases(stack, w, n_rows: int) -> None:
    """Every row at the root, in row order, with its weight."""
    stack.row[:n_rows] = np.arange(n_rows)
    stack.weight[:n_rows] = np.asarray(w, dtype=np.float64)
