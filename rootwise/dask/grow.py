"""The client's side of a distributed fit: CART grown level by level on summed histograms.

Per level (the open nodes: the root, then the children of the last level's splits):

  1. node statistics of every open node, summed over partitions (``kernels.*_node_stats``): a
     node's weight, class counts or target sums; it becomes a leaf by the local loop's rules
     (``engine.loop._visit``: pure, max_depth, min_samples_split, impurity_threshold);
  2. histograms of the nodes that may split, at most ``nodes_per_round`` nodes per round (the
     memory bound): per node, column and code the class weights or (w, wy, wy^2); each node's
     entries go through the engine's own search (``engine.search.search_entries``: the same
     column kernels, scores, ties and selection rule as the local fit);
  3. surrogate histograms of the split nodes (``engine.surrogate_split.surrogates_from_entries``);
  4. the workers route their rows to the children (``kernels.route``).

Node ids are then given as the local depth-first loop gives them (children consecutive, when
their parent is split, branch 0 first), so the Tree is laid out as the local fit lays it out.
"""

from __future__ import annotations

import time

import numpy as np

from .._config import LEAF, MISSING_STOP, SUBSET, THRESHOLD
from ..engine.bundles import BINNED, Features
from ..engine.criteria import impurity
from ..engine.paths import paths_of
from ..engine.scratch import new_scratch
from ..engine.search import entry_sides, new_candidates, search_entries
from ..engine.surrogate_split import (
    entry_surrogate_sides,
    heavier,
    new_surrogate_candidates,
    surrogates_from_entries,
)
from ..prune.cost_complexity import class_cost
from ..tree import Tree
from . import worker
from .reduce import tree_reduce


class Node:
    """A node as the client knows it."""

    def __init__(self, parent: int, depth: int, fraction: float):
        self.parent, self.depth, self.fraction = parent, depth, fraction
        self.rows, self.weight, self.impurity, self.value = 0, 0.0, 0.0, None
        self.wsum = 0.0  # every row's weight (the parent's missing branch compares these)
        self.split = None  # (feature, kind, threshold, sides, improvement)
        self.surrogates = []  # (feature, kind, threshold, left, sides, agreement, adjusted)
        self.children = None


def features_of(categorical, n_values, bin_min, bin_max) -> Features:
    """Every column binned: column j's entries are row j of the entry arrays."""
    d = len(categorical)
    return Features(np.full(d, BINNED, dtype=np.int64), np.asarray(categorical, dtype=bool),
                    np.asarray(n_values, dtype=np.int64), np.arange(d, dtype=np.int64),
                    np.ascontiguousarray(bin_min), np.ascontiguousarray(bin_max),
                    np.zeros(0, dtype=np.uint32), np.zeros(d + 1, dtype=np.int64), np.zeros((0, 0)),
                    np.ones(d, dtype=bool), np.zeros(1))


class LevelGrower:
    """Grows one tree on the partitions ``parts`` (futures of ``worker.Part``)."""

    def __init__(self, client, parts, feat, params, n_classes, n_categories, nodes_per_round, key,
                 log=None, cp=0.0, alpha_floor=None, misclassified=False):
        """``cp`` or ``alpha_floor``: CART's floor (``engine.loop._visit``): no split at a node
        whose cost c(t) is at most alpha_0 W, alpha_0 = ``alpha_floor``, or cp x R(root) of this
        tree's rows when it is None (``alpha_floor`` afterwards); c(t) = W - max_k w_k with
        ``misclassified``, else W I(t)."""
        self.client, self.parts, self.feat, self.params = client, parts, feat, params
        self.cp, self.alpha_floor, self.misclassified = float(cp), alpha_floor, misclassified
        self.cost_floor = 0.0
        self.n_categories = np.asarray(n_categories, dtype=np.int64)
        self.n_classes = n_classes
        self.width = 3 if n_classes == 0 else n_classes
        self.n_codes = int(feat.n_values.max(initial=1)) + 1
        self.nodes_per_round = max(1, int(nodes_per_round))
        self.key = key
        self.log = log if log is not None else []
        d = len(feat.search)
        max_categories = int(max(feat.n_values[feat.categorical].max(initial=2), 2))
        self.scr = new_scratch(1, d, n_classes, self.width, np.arange(d, dtype=np.int64),
                               feat.n_values, max_categories, 0, 1, True, False)
        self.cand = new_candidates(d)
        self.sc = new_surrogate_candidates(d, params.max_surrogates)

    # ------------------------------------------------------------------ one round on the cluster
    def _sum(self, fn, nodes, ops, *args, name):
        """``fn(part, node_map, *args)`` on every partition, combined by a tree reduction."""
        partials = [self.client.submit(fn, p, m, *args, key=f"{self.key}-{name}-{i}", pure=False)
                    for i, (p, m) in enumerate(zip(self.parts, nodes, strict=True))]
        return tree_reduce(self.client, partials, ops, f"{self.key}-{name}").result()

    def grow(self, hold_out=None):
        """The tree (``Tree``) of every row but those of CV fold ``hold_out`` (None: all)."""
        c = self.client
        nodes = [Node(-1, 0, 1.0)]
        node_maps = [c.submit(worker.root_nodes, p, hold_out, key=f"{self.key}-root-{i}",
                              pure=False)
                     for i, p in enumerate(self.parts)]
        open_ids = [0]
        total_weight = None
        level = 0
        while open_ids:
            started = time.time()
            tag = f"l{level}"
            slot_of = self._slots(len(nodes), open_ids)
            if self.n_classes > 0:
                rows, wsum, counts = self._sum(worker.node_stats, node_maps, ("sum",) * 3,
                                               slot_of, len(open_ids), self.n_classes,
                                               name=f"{tag}-stats")
                sse = None
            else:
                rows, wsum, sums, y_min, y_max = self._sum(
                    worker.node_stats, node_maps, ("sum", "sum", "sum", "min", "max"), slot_of,
                    len(open_ids), 0, name=f"{tag}-stats")
                means = np.where(sums[:, 0] > 0, sums[:, 1] / np.where(sums[:, 0] > 0,
                                                                       sums[:, 0], 1.0), 0.0)
                sse = self._sum(worker.squared_deviations, node_maps, "sum", slot_of,
                                len(open_ids), means, name=f"{tag}-sse")
            if total_weight is None:
                total_weight = float(wsum[0])
                self._set_floor(counts[0] if self.n_classes > 0 else None,
                                None if sse is None else float(sse[0]), total_weight)
            splittable = []
            for s, i in enumerate(open_ids):
                node = nodes[i]
                node.rows, node.wsum = int(rows[s]), float(wsum[s])
                if self.n_classes > 0:
                    ok = self._visit_class(nodes, node, counts[s])
                else:
                    ok = self._visit_regression(nodes, node, sums[s], y_min[s], y_max[s],
                                                means[s], sse[s])
                if ok:
                    splittable.append(i)
            splits = []
            for b in range(0, len(splittable), self.nodes_per_round):
                batch = splittable[b:b + self.nodes_per_round]
                t0 = time.time()
                h = self._sum(worker.histograms, node_maps, "sum", self._slots(len(nodes), batch),
                              len(batch), self.n_codes, self.n_classes,
                              name=f"{tag}-hist-{b}")
                self.log.append(("histogram", level, len(batch), h.nbytes, len(self.parts),
                                 t0, time.time()))
                for s, i in enumerate(batch):
                    if self._find_split(nodes[i], h[s], total_weight):
                        splits.append(i)
            if not splits:
                self.log.append(("level", level, len(open_ids), started, time.time()))
                break
            self._surrogates(nodes, splits, node_maps, tag)
            node_maps = self._route(nodes, splits, node_maps, tag)
            self.log.append(("level", level, len(open_ids), started, time.time()))
            open_ids = []
            for i in splits:
                node = nodes[i]
                node.children = [len(nodes), len(nodes) + 1]
                for b in range(2):
                    nodes.append(Node(i, node.depth + 1, node.fractions[b]))
                open_ids += node.children
            level += 1
        return self._tree(nodes)

    @staticmethod
    def _slots(n_nodes, ids):
        slot_of = np.full(n_nodes, -1, dtype=np.int64)
        slot_of[ids] = np.arange(len(ids))
        return slot_of

    # ------------------------------------------------------------------ the local loop's rules
    def _set_floor(self, counts, sse, W) -> None:
        """alpha_0 from the root's statistics (as ``prune.cost_complexity.root_cost``), then
        the cost floor alpha_0 W of this tree."""
        if self.alpha_floor is None:
            r = 0.0
            if W > 0 and self.cp > 0:
                if counts is None:
                    r = sse / W
                else:
                    r = class_cost(np.asarray(counts, dtype=np.float64), W,
                                   "misclassification" if self.misclassified else "impurity",
                                   self.params.criterion)
            self.alpha_floor = self.cp * r
        self.cost_floor = self.alpha_floor * W

    def _stop(self, node, imp, pure) -> bool:
        p = self.params
        return (pure or node.depth >= p.max_depth or node.weight < p.min_samples_split
                or imp < p.impurity_threshold
                or (self.cost_floor > 0.0 and self._cost(node, imp) <= self.cost_floor))

    def _cost(self, node, imp) -> float:
        """c(t) as ``engine.loop._cost`` counts it."""
        if self.misclassified:
            return node.weight - float(np.max(node.value))
        return node.weight * imp

    def _empty(self, nodes, node) -> bool:
        """An empty branch takes its parent's prediction (stopping case 3)."""
        if node.weight > 0.0:
            return False
        node.value = nodes[node.parent].value.copy() if node.parent >= 0 else node.value
        node.impurity = 0.0
        return True

    def _visit_class(self, nodes, node, counts) -> bool:
        value = np.array(counts, dtype=np.float64)
        total = 0.0
        for k in range(len(value)):  # in class order, as engine.node_stats adds them
            total += value[k]
        node.value, node.weight = value, total
        imp = impurity(value, self.params.criterion)
        if self._empty(nodes, node):
            return False
        node.impurity = imp
        return not self._stop(node, imp, int(np.count_nonzero(value > 0.0)) <= 1)

    def _visit_regression(self, nodes, node, sums, y_min, y_max, mean, sse) -> bool:
        total = float(sums[0])
        node.value = np.array([mean if total > 0.0 else 0.0])
        node.weight = total if total > 0.0 else 0.0
        if self._empty(nodes, node):
            return False
        imp = sse / total
        node.impurity = imp
        return not self._stop(node, imp, y_min == y_max)

    def _entries(self, h):
        """Each column's entries (codes of positive weight, ascending, missing code left out)
        from one node's summed histogram, into the scratch's entry arrays."""
        scr, feat = self.scr, self.feat
        mass = h[:, :, 0] if self.n_classes == 0 else h.sum(axis=2)
        for j in range(h.shape[0]):
            present = np.flatnonzero(mass[j] > 0.0)
            present = present[present != feat.n_values[j]]
            p = len(present)
            scr.ent.ent_code[j, :p] = present
            scr.ent.ent_stats[j, :p] = h[j, present]
            scr.ent.ent_n[j] = p

    def _find_split(self, node, h, total_weight) -> bool:
        """The local loop's ``_find_split`` on the node's summed histogram; records the test."""
        params, feat, scr, cand = self.params, self.feat, self.scr, self.cand
        self._entries(h)
        W = node.weight
        paths = paths_of(params, feat.search)
        j, score = search_entries(scr.ent.ent_code, scr.ent.ent_stats, scr.ent.ent_n, feat, params, scr, cand,
                                  W, paths.reg, paths.clf, paths.multi, paths.subset, paths.r8)
        if j < 0 or score < params.epsilon:
            return False
        if cand.gain[j] * W / total_weight < params.min_impurity_decrease:
            return False
        p = scr.ent.ent_n[j]
        codes, stats = scr.ent.ent_code[j, :p], scr.ent.ent_stats[j, :p]
        sizes = stats[:, 0] if self.n_classes == 0 else stats.sum(axis=1)
        if feat.categorical[j]:
            kind, threshold = SUBSET, np.nan
            sides = np.full(feat.n_values[j], -1, dtype=np.int64)
            entry_sides(scr.ent.ent_code[j], scr.ent.ent_stats[j], p, params, scr, sides, paths.reg,
                        paths.clf)
            side = sides[codes]
        else:
            kind, threshold = THRESHOLD, float(cand.threshold[j])
            sides = np.zeros(0, dtype=np.int64)
            side = np.where(feat.bin_max[j, codes] <= threshold, 0, 1)
        known = np.zeros(2)
        for e in range(p):  # a branch's known weight, entry by entry
            if side[e] >= 0:
                known[side[e]] += sizes[e]
        total = known[0] + known[1]
        node.fractions = known / total if total > 0.0 else np.full(2, 0.5)
        node.masses = known
        node.split = (int(j), kind, threshold, sides, float(cand.gain[j] * W))
        return True

    # ------------------------------------------------------------------ surrogates and routing
    def _split_arrays(self, nodes, splits):
        k = max(2, int(self.feat.n_values.max(initial=2)))
        n = len(splits)
        feature = np.zeros(n, dtype=np.int64)
        kind = np.zeros(n, dtype=np.int64)
        threshold = np.full(n, np.nan)
        sides = np.full((n, k), -1, dtype=np.int64)
        for s, i in enumerate(splits):
            j, kd, t, sd, _ = nodes[i].split
            feature[s], kind[s], threshold[s] = j, kd, t
            sides[s, :len(sd)] = sd
        m = max(1, max(len(nodes[i].surrogates) for i in splits))
        n_s = np.zeros(n, dtype=np.int64)
        s_feature = np.zeros((n, m), dtype=np.int64)
        s_kind = np.zeros((n, m), dtype=np.int64)
        s_threshold = np.full((n, m), np.nan)
        s_left = np.zeros((n, m), dtype=np.int64)
        s_sides = np.full((n, m, k), -1, dtype=np.int64)
        for s, i in enumerate(splits):
            n_s[s] = len(nodes[i].surrogates)
            for t, (f, kd, th, left, sd, _, _) in enumerate(nodes[i].surrogates):
                s_feature[s, t], s_kind[s, t], s_threshold[s, t], s_left[s, t] = f, kd, th, left
                s_sides[s, t, :len(sd)] = sd
        return (feature, kind, threshold, sides, n_s, s_feature, s_kind, s_threshold, s_left,
                s_sides)

    def _surrogates(self, nodes, splits, node_maps, tag):
        params, feat, scr, sc = self.params, self.feat, self.scr, self.sc
        for i in splits:
            m0, m1 = nodes[i].masses
            nodes[i].majority = heavier(m0, m1)
        wanted = [i for i in splits if params.max_surrogates > 0
                  and nodes[i].masses.sum() > 0.0 and min(nodes[i].masses) > 0.0]
        for b in range(0, len(wanted), self.nodes_per_round):
            batch = wanted[b:b + self.nodes_per_round]
            arrays = self._split_arrays(nodes, batch)
            h = self._sum(worker.surrogate_histograms, node_maps, "sum",
                          self._slots(len(nodes), batch), len(batch), self.n_codes, arrays[:4],
                          name=f"{tag}-surrogates-{b}")
            self.log.append(("surrogates", -1, len(batch), h.nbytes, len(self.parts), 0.0, 0.0))
            for s, i in enumerate(batch):
                node = nodes[i]
                self._surrogate_entries(h[s], node.split[0])
                m0, m1 = node.masses
                n_s = surrogates_from_entries(node.split[0], m0, m1, node.majority, feat, params,
                                              scr, sc)
                majority = max(m0, m1) / (m0 + m1)
                for t in range(n_s):
                    f = int(sc.order[t])
                    sides = np.zeros(0, dtype=np.int64)
                    if sc.kind[f] == SUBSET:
                        sides = np.full(feat.n_values[f], -1, dtype=np.int64)
                        entry_surrogate_sides(f, feat, scr, sc, sides)
                    a = float(sc.agreement[f])
                    node.surrogates.append((f, int(sc.kind[f]), float(sc.threshold[f]),
                                            int(sc.left_branch[f]), sides, a,
                                            (a - majority) / (1.0 - majority)))
        tied = [i for i in splits if nodes[i].majority < 0 and nodes[i].surrogates]
        if tied:  # where the rest goes is decided after the surrogates (``route.to_majority``)
            h = self._sum(worker.routed_weights, node_maps, "sum", self._slots(len(nodes), tied),
                          len(tied), self._split_arrays(nodes, tied), name=f"{tag}-tied")
            for s, i in enumerate(tied):
                h0, h1 = h[s]
                nodes[i].majority = 1 if (abs(h0 - h1) > 1e-12 * max(1.0, max(h0, h1))
                                          and h1 > h0) else 0
        for i in splits:
            nodes[i].majority = max(nodes[i].majority, 0)

    def _surrogate_entries(self, h, primary):
        """Surrogate entries of every column but the primary from one node's summed cells."""
        scr, feat = self.scr, self.feat
        rows = h[:, :, 2] + h[:, :, 3] + h[:, :, 4]
        for j in range(h.shape[0]):
            scr.ent.se_n_entries[j] = 0
            scr.ent.se_side[j, 0] = scr.ent.se_side[j, 1] = 0.0
            if j == primary:
                continue
            present = np.flatnonzero(rows[j] > 0.0)
            present = present[present != feat.n_values[j]]
            p = len(present)
            scr.ent.se_code[j, :p] = present
            scr.ent.se_w[j, :p] = h[j, present, 0:2]
            scr.ent.se_n[j, :p] = h[j, present, 2:4].astype(np.int64)
            scr.ent.se_pm[j, :p] = h[j, present, 4].astype(np.int64)
            scr.ent.se_n_entries[j] = p
            for e in range(p):  # the column's known weight per primary side, entry by entry
                scr.ent.se_side[j, 0] += h[j, present[e], 0]
                scr.ent.se_side[j, 1] += h[j, present[e], 1]

    def _route(self, nodes, splits, node_maps, tag):
        arrays = self._split_arrays(nodes, splits)
        majority = np.array([nodes[i].majority for i in splits], dtype=np.int64)
        first = np.array([len(nodes) + 2 * s for s in range(len(splits))], dtype=np.int64)
        slot_of = self._slots(len(nodes), splits)
        return [self.client.submit(worker.route, p, m, slot_of, arrays + (majority, first),
                                   key=f"{self.key}-{tag}-route-{i}", pure=False)
                for i, (p, m) in enumerate(zip(self.parts, node_maps, strict=True))]

    # ------------------------------------------------------------------ the Tree
    def _tree(self, nodes) -> Tree:
        """Nodes numbered as the local depth-first loop numbers them, as a ``Tree``."""
        order = [0]  # client index of each local id
        stack = [0]
        split_order = []
        while stack:
            i = stack.pop()
            if nodes[i].children is None:
                continue
            split_order.append(i)
            order += nodes[i].children
            stack += nodes[i].children[::-1]
        local = {i: t for t, i in enumerate(order)}
        n = len(order)
        n_out = len(nodes[0].value)
        f = {"feature": np.full(n, -1, dtype=np.int64), "kind": np.full(n, LEAF, dtype=np.int64),
             "threshold": np.full(n, np.nan), "first_child": np.full(n, -1, dtype=np.int64),
             "n_children": np.zeros(n, dtype=np.int64),
             "pool_offset": np.full(n, -1, dtype=np.int64),
             "missing_branch": np.full(n, MISSING_STOP, dtype=np.int64),
             "parent": np.full(n, -1, dtype=np.int64), "depth": np.zeros(n, dtype=np.int64),
             "impurity": np.zeros(n), "n_node_samples": np.zeros(n, dtype=np.int64),
             "weighted_n_node_samples": np.zeros(n), "branch_fraction": np.zeros(n),
             "surrogate_offset": np.full(n, -1, dtype=np.int64),
             "n_surrogates": np.zeros(n, dtype=np.int64), "improvement": np.zeros(n)}
        value = np.zeros((n, n_out))
        for t, i in enumerate(order):
            node = nodes[i]
            f["parent"][t] = -1 if node.parent < 0 else local[node.parent]
            f["depth"][t] = node.depth
            f["impurity"][t] = node.impurity
            f["n_node_samples"][t] = node.rows
            f["weighted_n_node_samples"][t] = node.weight
            f["branch_fraction"][t] = node.fraction
            value[t] = node.value
        pool, sur = [], {k: [] for k in ("feature", "kind", "threshold", "left_branch",
                                         "pool_offset", "agreement", "adjusted_agreement")}
        for i in split_order:  # the local loop's order of splitting: pools in that order
            node, t = nodes[i], local[i]
            j, kind, threshold, sides, improvement = node.split
            f["feature"][t], f["kind"][t], f["threshold"][t] = j, kind, threshold
            f["first_child"][t], f["n_children"][t] = local[node.children[0]], 2
            f["improvement"][t] = improvement
            if kind == SUBSET:
                f["pool_offset"][t] = len(pool)
                pool += list(sides)
            mb = heavier(nodes[node.children[0]].wsum, nodes[node.children[1]].wsum)
            f["missing_branch"][t] = MISSING_STOP if mb < 0 else mb
            if node.surrogates:
                f["surrogate_offset"][t] = len(sur["feature"])
                f["n_surrogates"][t] = len(node.surrogates)
            for (sf, sk, st, sl, ss, a, adj) in node.surrogates:
                sur["feature"].append(sf)
                sur["kind"].append(sk)
                sur["threshold"].append(st)
                sur["left_branch"].append(sl)
                sur["pool_offset"].append(len(pool) if sk == SUBSET else -1)
                if sk == SUBSET:
                    pool += list(ss)
                sur["agreement"].append(a)
                sur["adjusted_agreement"].append(adj)
        ints = ("feature", "kind", "left_branch", "pool_offset")
        surrogates = {k: np.asarray(v, dtype=np.int64 if k in ints else np.float64)
                      for k, v in sur.items()}
        return Tree(f, value, np.asarray(pool, dtype=np.int64), self.n_categories, surrogates)
