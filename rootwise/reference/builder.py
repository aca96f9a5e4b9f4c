"""TreeGenerate (Zhou 2016, figure 4.2): the growth loop and its stopping rules.

A node becomes a leaf when
  1. all its rows belong to one class, or share one target value (stopping case 1);
  2. no attribute can split it: none left, or all rows agree on the remaining ones (case 2);
  3. it is an empty branch: it takes its parent's prediction (case 3);
plus the user's limits: max_depth, min_samples_split (weighted mass), min_samples_leaf (checked by
the splitter), epsilon (best score below it: the threshold of Li Hang 2012, §5.3), impurity_threshold
(a node purer than it is a leaf), min_impurity_decrease, max_leaf_nodes, and pre-pruning on
validation data (Zhou 2016, §4.3.1).

Growth is depth-first (children left to right), or best-first by weighted impurity decrease when
``max_leaf_nodes`` is set. Either way the children of a node get consecutive ids.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from .._config import MISSING_FRACTIONAL, MISSING_STOP, MULTIWAY, SUBSET
from .._policy import Policy
from ..engine.arrays import total as ordered_sum
from ..engine.stats import node_statistics
from ..prune.steps import PruningStep
from ..prune.steps import score as _score
from ..tree import Tree
from ..tree.records import NodeRecords
from .missing import find_surrogates, larger_child, route_missing
from .splitter import Candidate, NodeData, Splitter
from .splitters import make_splitter


@dataclass
class _Item:
    """A node waiting to be grown: its rows, the attributes it may still test, what an empty
    branch predicts, and the validation rows that reach it (pre-pruning)."""

    node: int
    data: NodeData
    available: np.ndarray
    parent_value: np.ndarray | None
    val: NodeData | None = None
    split: Candidate | None = None
    counts: np.ndarray | None = None


class _Growth:
    """One fit: the training arrays, the policy and the tree being written."""

    def __init__(self, X, y, w, kinds, n_categories, n_classes, policy: Policy, validation):
        if not np.any(w > 0):
            raise ValueError("sample weights sum to zero: there is nothing to grow a tree on.")
        self.X, self.y, self.policy = X, y, policy
        self.n_classes = n_classes
        self.splitter = make_splitter(X, y, kinds, n_categories, n_classes, policy)
        self.rec = NodeRecords(1 if policy.regression else n_classes)
        self.n_categories = n_categories
        self.total_w = _sum(w)
        self.max_depth = np.inf if policy.max_depth is None else policy.max_depth
        self.validation = validation  # (X_val, y_val, w_val) for pre-pruning, or None
        self.steps: list[PruningStep] = []  # pre-pruning decisions, in growth order
        self.val_loss = None  # validation loss of the tree grown so far (unexpanded = leaves)

    # ----------------------------------------------------------------- node statistics
    def node_value(self, data: NodeData) -> tuple[np.ndarray, float, float, bool]:
        """(value, weight, impurity, pure) of the rows at a node."""
        if self.policy.regression:
            live = data.w > 0
            w, y = data.w[live], self.y[data.idx[live]]
            total = _sum(w)
            if total <= 0:
                return np.zeros(1), 0.0, 0.0, True
            mean = _sum(w * y) / total
            dev = y - mean
            mse = _sum(w * (dev * dev)) / total
            centre = _weighted_median(y, w) if self.policy.leaf_value == "median" else mean
            return np.array([centre]), total, mse, bool(np.all(y == y[0]))
        counts, total, imp, pure = node_statistics(self.y, data.idx, data.w, self.n_classes,
                                                   self.policy.criterion_code)
        return counts, float(total), imp, bool(pure)

    # ----------------------------------------------------------------- one node
    def visit(self, item: _Item) -> bool:
        """Record the node's statistics and look for its split; True when it should be split."""
        p = self.policy
        value, total, imp, pure = self.node_value(item.data)
        if total <= 0.0:
            value, imp = item.parent_value, 0.0  # stopping case 3: the parent's prediction
            self.rec.value[item.node] = np.array(value, dtype=np.float64)
        else:  # a new array of the node's own
            self.rec.value[item.node] = value
        self.rec.set(item.node, impurity=imp, n_node_samples=len(item.data.idx),
                     weighted_n_node_samples=total)
        item.counts = value
        depth = self.rec.fields["depth"][item.node]
        if (total <= 0.0 or pure or depth >= self.max_depth or total < p.min_samples_split
                or imp < p.impurity_threshold):
            return False
        live = item.data.w > 0
        live_data = item.data if live.all() else NodeData(item.data.idx[live], item.data.w[live])
        split, score = self.splitter.best_split(live_data, item.available)
        if split is None or score < p.epsilon:
            return False
        if split.gain * total / self.total_w < p.min_impurity_decrease:
            return False
        item.split = split
        return True

    def expand(self, item: _Item) -> list[_Item] | None:
        """Split the node; returns the children's work items, or None when pre-pruning keeps it
        a leaf."""
        p, split, data = self.policy, item.split, item.data
        surrogates, majority = [], 0
        if p.missing == "surrogate":
            surrogates, majority = find_surrogates(self.splitter, data, split, p.max_surrogates)
            routed = route_missing(self.splitter, data, split, surrogates, majority)
            parts, fractions = self.splitter.partition(data, split, routed)
            # fitting sends a row without primary and surrogates to the majority branch (side
            # with more primary-known weight); prediction sends it to the larger child
            missing_branch = larger_child(parts)
        elif p.missing == "fractional":
            parts, fractions = self.splitter.partition(data, split, MISSING_FRACTIONAL)
            missing_branch = MISSING_FRACTIONAL
        else:
            parts, fractions = self.splitter.partition(data, split)
            missing_branch = MISSING_STOP
        val_parts = None
        if item.val is not None:
            val_parts, stopped = self._route_validation(item.val, split, surrogates,
                                                        missing_branch, fractions)
            if not self._split_helps(item, parts, val_parts, stopped):
                return None
        rec = self.rec
        depth = rec.fields["depth"][item.node] + 1
        first = rec.new_nodes(item.node, depth, [fractions[b] for b in range(len(parts))])
        pool_offset = -1
        if split.branch_of_category is not None:
            pool_offset = rec.add_to_pool(split.branch_of_category)
        rec.set(item.node, feature=split.feature, kind=split.kind, threshold=split.threshold,
                first_child=first, n_children=len(parts), pool_offset=pool_offset,
                missing_branch=missing_branch,
                improvement=split.gain * rec.fields["weighted_n_node_samples"][item.node])
        rec.add_surrogates(item.node, surrogates)
        available = item.available
        if split.kind == MULTIWAY:
            available = available.copy()
            available[split.feature] = False  # a multiway test uses its attribute up
        return [_Item(first + b, parts[b], available, item.counts,
                      None if val_parts is None else val_parts[b]) for b in range(len(parts))]

    # ----------------------------------------------------------------- pre-pruning
    def _route_validation(self, val: NodeData, split, surrogates, missing_branch,
                          fractions) -> tuple[list[NodeData], NodeData]:
        """The validation rows of each branch, and those that stop at the node, routed as
        ``predict`` will route them (``_core.predict._next``): a known value takes its branch; a
        missing value, or at a subset node a category without a branch there, tries the
        surrogates, then ``missing_branch``: a child, a stop, or every branch with weight w * r_v,
        r_v from the training rows (C4.5); at a multiway node a category without a branch (unseen
        in training) stops here."""
        X_val = self.validation[0]
        splitter = _ValidationSplitter(X_val, self.splitter)
        branch = splitter.branch_of_rows(split, val.idx)
        missing = np.isnan(X_val[val.idx, split.feature])
        lost = missing | ((branch < 0) & (split.kind == SUBSET))
        for s in surrogates:
            rows = np.flatnonzero(lost & (branch < 0))
            if len(rows) == 0:
                break
            branch[rows] = splitter.surrogate_branches(s, val.idx[rows])
        if missing_branch >= 0:
            branch[lost & (branch < 0)] = missing_branch
        spread = missing & (missing_branch == MISSING_FRACTIONAL)
        parts = []
        for b in range(len(fractions)):  # a spread row in its place, weighted w * r_v
            mine = (branch == b) | spread
            parts.append(NodeData(val.idx[mine], np.where(spread[mine], val.w[mine] * fractions[b],
                                                          val.w[mine])))
        stop = (branch < 0) & ~spread
        return parts, NodeData(val.idx[stop], val.w[stop])

    def _split_helps(self, item: _Item, parts, val_parts, stopped: NodeData) -> bool:
        """Seed 000 §3.1: split only if the children, as leaves, do better on the validation rows
        reaching this node than the node itself as a leaf (on a tie, only if not prune_on_tie).
        Rows that stop at the node (no branch for their value) keep its prediction either way.

        A validation row missing the value of a C4.5 split counts in every branch with weight
        w * r_v: its expected loss, which approximates the loss of C4.5's combined prediction
        (the rest of the tree is not grown yet). Reduced-error pruning scores it exactly."""
        y_val, w_val = self.validation[1], self.validation[2]
        regression = self.policy.regression
        as_leaf = _loss(item.counts, y_val, item.val, regression)
        as_split = _loss(item.counts, y_val, stopped, regression)
        for part, vpart in zip(parts, val_parts, strict=True):
            value, total, _, _ = self.node_value(part)
            as_split += _loss(value if total > 0 else item.counts, y_val, vpart, regression)
        if np.isclose(as_split, as_leaf, rtol=1e-12, atol=1e-12):
            helps = not self.policy.prune_on_tie
        else:
            helps = as_split < as_leaf
        if self.val_loss is None:  # the root: the whole tree is this one leaf
            self.val_loss = as_leaf
        total_w = _sum(w_val)
        after = self.val_loss - as_leaf + as_split
        self.steps.append(PruningStep(item.node, _sum(item.val.w),
                                      _score(after, total_w, regression),
                                      _score(self.val_loss, total_w, regression), not helps))
        if helps:
            self.val_loss = after
        return helps


class _ValidationSplitter(Splitter):
    """The fitted splitter's routing, applied to the validation matrix (with ``splitter=
    "hist"``: by the validation rows' real values, as ``predict`` routes them)."""

    def __init__(self, X_val, base: Splitter):
        self.__dict__.update(base.__dict__)
        self.X = X_val
        self.routing = None if base.routing is None else base.routing.validation()


def _loss(value: np.ndarray, y_val: np.ndarray, val: NodeData, regression: bool) -> float:
    """Weighted validation loss of predicting ``value`` for the rows in ``val``."""
    if len(val.idx) == 0:
        return 0.0
    y = y_val[val.idx]
    if regression:
        dev = y - value[0]
        return _sum(val.w * (dev * dev))
    return _sum(val.w * (y != int(np.argmax(value))))


def _sum(a) -> float:
    """The values added in order from 0 (the engine's canonical sum)."""
    return ordered_sum(np.ascontiguousarray(a, dtype=np.float64))


def _weighted_median(y: np.ndarray, w: np.ndarray) -> float:
    """Smallest y at which the cumulative weight reaches half the total (the lower median);
    the average of the two middle values when the halves balance exactly."""
    order = np.argsort(y, kind="stable")
    ys, cw = y[order], np.cumsum(w[order])
    half = cw[-1] / 2.0
    i = int(np.searchsorted(cw, half))
    if np.isclose(cw[i], half, rtol=1e-12, atol=0.0) and i + 1 < len(ys):
        return float((ys[i] + ys[i + 1]) / 2.0)
    return float(ys[i])


def build_tree(X, y, w, kinds, n_categories, n_classes, policy: Policy,
               validation=None) -> Tree:
    """Grow a tree on the encoded matrix ``X`` (rows weighted by ``w``); ``y`` holds class codes
    (n_classes > 0) or regression targets. ``validation`` = (X_val, y_val, w_val) turns on
    pre-pruning."""
    return build_tree_with_report(X, y, w, kinds, n_categories, n_classes, policy, validation)[0]


def build_tree_with_report(X, y, w, kinds, n_categories, n_classes, policy: Policy,
                           validation=None, routing=None) -> tuple[Tree, list[PruningStep]]:
    """``build_tree``, plus the pre-pruning decisions (empty without validation data). The
    splitter is always the exact one (``reference.hist`` runs it on binned columns, with
    ``routing``: the real values that rows are routed by)."""
    g = _Growth(X, y, w, kinds, n_categories, n_classes, policy, validation)
    g.splitter.routing = routing
    root = g.rec.new_node(parent=-1, depth=0, branch_fraction=1.0)
    val = None
    if validation is not None:
        val = NodeData(np.arange(len(validation[1]), dtype=np.int64),
                       np.asarray(validation[2], dtype=np.float64))
    first = _Item(root, NodeData(np.arange(X.shape[0], dtype=np.int64), w.astype(np.float64)),
                  np.ones(X.shape[1], dtype=bool), None, val)
    if policy.max_leaf_nodes is None:
        _depth_first(g, first)
    else:
        _best_first(g, first, policy.max_leaf_nodes)
    return g.rec.tree(n_categories), g.steps


def _depth_first(g: _Growth, root: _Item) -> None:
    stack = [root]
    while stack:
        item = stack.pop()
        if g.visit(item):
            children = g.expand(item)
            if children:
                stack.extend(reversed(children))  # branch 0 grows first


def _best_first(g: _Growth, root: _Item, max_leaf_nodes: int) -> None:
    """Expand the waiting node with the largest weighted impurity decrease first, while the leaf
    budget allows (ties: the earlier node)."""
    heap, n_leaves = [], 1

    def push(item: _Item) -> None:
        if g.visit(item):
            w = g.rec.fields["weighted_n_node_samples"][item.node]
            heapq.heappush(heap, (-item.split.gain * w, item.node, item))

    push(root)
    while heap:
        _, _, item = heapq.heappop(heap)
        if n_leaves + item.split.n_branches - 1 > max_leaf_nodes:
            continue
        children = g.expand(item)
        if children:
            n_leaves += len(children) - 1
            for child in children:
                push(child)
