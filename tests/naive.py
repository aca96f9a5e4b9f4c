"""A deliberately slow, obviously-correct reference for the engine, written from the seeds' formulas.

Nothing here imports rootwise: every kernel and the ID3 builder are checked against these plain
Python loops. Definitions (seed 000 §2, seed 002 §1):

    Ent(D)       = -sum_k p_k log2 p_k                 (0 log 0 = 0)
    Gini(D)      = 1 - sum_k p_k^2
    H(D|a)       = sum_v |D^v|/|D| Ent(D^v)            (conditional entropy)
    Gain(D, a)   = Ent(D) - H(D|a)                     (information gain)
    IV(a)        = -sum_v |D^v|/|D| log2 |D^v|/|D|     (intrinsic value)
    Gain_ratio   = Gain / IV
    with missing values (seed 000 §4.2): Gain = rho * Gain(D~, a), rho = |D~|/|D|, D~ = known rows.

|D| is always a weighted mass (sum of sample weights).
"""

from __future__ import annotations

import math

import numpy as np

TIE = 1e-12  # two gains closer than this are equal; the lower column index wins


# --------------------------------------------------------------------------- counts


def weighted_class_counts(labels, weights, n_classes):
    """counts[k] = sum of the weights of the rows labelled k."""
    counts = [0.0] * n_classes
    for label, weight in zip(labels, weights, strict=True):
        counts[int(label)] += float(weight)
    return np.array(counts)


def contingency_table(codes, labels, weights, n_categories, n_classes):
    """table[v][k] = weight of rows with category v and class k; row n_categories = missing (NaN)."""
    table = [[0.0] * n_classes for _ in range(n_categories + 1)]
    for code, label, weight in zip(codes, labels, weights, strict=True):
        row = n_categories if math.isnan(code) else int(code)
        table[row][int(label)] += float(weight)
    return np.array(table)


# --------------------------------------------------------------------------- impurities


def entropy(counts):
    total = sum(float(c) for c in counts)
    if total <= 0:
        return 0.0
    h = 0.0
    for c in counts:
        if c > 0:
            p = float(c) / total
            h -= p * math.log2(p)
    return h


def gini(counts):
    total = sum(float(c) for c in counts)
    if total <= 0:
        return 0.0
    return 1.0 - sum((float(c) / total) ** 2 for c in counts)


def _branch_sizes(table):
    return [sum(float(c) for c in row) for row in table]


def _column_sums(table):
    n_classes = len(table[0])
    return [sum(float(row[k]) for row in table) for k in range(n_classes)]


def conditional_entropy(table):
    """H(D|a) over the branches (rows) of ``table``."""
    sizes = _branch_sizes(table)
    total = sum(sizes)
    if total <= 0:
        return 0.0
    return sum(size / total * entropy(row) for size, row in zip(sizes, table, strict=True) if size > 0)


def gini_index(table):
    """Gini_index(D, a) = sum_v |D^v|/|D| Gini(D^v)."""
    sizes = _branch_sizes(table)
    total = sum(sizes)
    if total <= 0:
        return 0.0
    return sum(size / total * gini(row) for size, row in zip(sizes, table, strict=True) if size > 0)


def information_gain(table):
    """Gain(D, a) = Ent(D) - H(D|a), D the union of the branches."""
    return entropy(_column_sums(table)) - conditional_entropy(table)


def gini_decrease(table):
    return gini(_column_sums(table)) - gini_index(table)


def intrinsic_value(table):
    sizes = _branch_sizes(table)
    total = sum(sizes)
    if total <= 0:
        return 0.0
    iv = 0.0
    for size in sizes:
        if size > 0:
            iv -= size / total * math.log2(size / total)
    return iv


def gain_ratio(table):
    iv = intrinsic_value(table)
    return information_gain(table) / iv if iv > 0 else 0.0


def gain_with_missing(table_with_missing_row):
    """Seed 000 §4.2: rho * Gain(D~, a); the last row of the table holds the missing rows."""
    known = table_with_missing_row[:-1]
    total = sum(_branch_sizes(table_with_missing_row))
    if total <= 0:
        return 0.0
    rho = sum(_branch_sizes(known)) / total
    return rho * information_gain(known)


# --------------------------------------------------------------------------- naive ID3


def naive_id3(X, y, w, n_categories, n_classes, *, max_depth=None, min_samples_split=2.0,
              min_samples_leaf=1.0, epsilon=0.0):
    """TreeGenerate (seed 000, figure 2) on an integer-coded matrix, as nested dicts.

    A node is {"counts": weighted class counts} and, if it splits, "feature" and "children" (one
    per category code 0..n_categories[feature]-1, in code order); a leaf says why in "stop", and a
    node where min_samples_leaf removed a candidate has "rejected_by_min_samples_leaf". Stops:
      case 1  at most one class has positive weight;
      case 2  no attribute left with two or more non-empty (positive-weight) branches;
      case 3  an empty branch (no positive weight): a leaf with the parent's counts;
      limits  depth >= max_depth, weighted mass < min_samples_split, best gain < epsilon.
    An attribute is a candidate only if every non-empty branch weighs >= min_samples_leaf.
    """
    X = [[int(v) for v in row] for row in np.asarray(X)]
    y = [int(v) for v in y]
    w = [float(v) for v in w]
    n_features = len(n_categories)

    def grow(rows, attributes, depth, parent_counts):
        counts = weighted_class_counts([y[r] for r in rows], [w[r] for r in rows], n_classes)
        if sum(counts) <= 0:
            return {"counts": np.array(parent_counts), "stop": "empty branch"}
        node = {"counts": counts}
        if sum(1 for c in counts if c > 0) <= 1:
            return {**node, "stop": "pure"}
        if max_depth is not None and depth >= max_depth:
            return {**node, "stop": "max_depth"}
        if sum(counts) < min_samples_split:
            return {**node, "stop": "min_samples_split"}
        live = [r for r in rows if w[r] > 0]
        scored = []
        for a in attributes:
            k = int(n_categories[a])
            table = [[0.0] * n_classes for _ in range(k)]
            for r in live:
                table[X[r][a]][y[r]] += w[r]
            sizes = [sum(row) for row in table]
            nonempty = [s for s in sizes if s > 0]
            if len(nonempty) < 2:
                continue
            if any(s < min_samples_leaf for s in nonempty):
                node["rejected_by_min_samples_leaf"] = True
                continue
            # Gain >= 0 in exact arithmetic; round-off may leave -1e-17, which is still "no gain".
            scored.append((a, max(information_gain(table), 0.0)))
        if not scored:
            return {**node, "stop": "no attribute"}
        best = max(g for _, g in scored)
        if best < epsilon:
            return {**node, "stop": "epsilon"}
        chosen = min(a for a, g in scored if g >= best - TIE)
        rest = [a for a in attributes if a != chosen]
        node["feature"] = chosen
        node["children"] = [
            grow([r for r in rows if X[r][chosen] == v], rest, depth + 1, counts)
            for v in range(int(n_categories[chosen]))
        ]
        return node

    return grow(list(range(len(y))), list(range(n_features)), 0, None)


def naive_predict_proba(tree, X):
    """Walk each row down the nested dicts; a code without a branch stops at that node."""
    out = []
    for row in np.asarray(X):
        node = tree
        while "children" in node:
            code = row[node["feature"]]
            if not 0 <= code < len(node["children"]):
                break
            node = node["children"][int(code)]
        counts = np.asarray(node["counts"], dtype=float)
        out.append(counts / counts.sum())
    return np.array(out)


def naive_depth(tree):
    if "children" not in tree:
        return 0
    return 1 + max(naive_depth(c) for c in tree["children"])


def naive_n_nodes(tree):
    return 1 + sum(naive_n_nodes(c) for c in tree.get("children", ()))


# --------------------------------------------------------------------------- flat-tree walk


def naive_route(row, nodes, pool, n_categories):
    """Nodes a row visits in a flat tree (fields as plain lists), root first.

    Kinds: 0 leaf, 1 threshold (x <= t: child 0, else 1), 2 multiway and 3 subset (child slot =
    pool[offset + code], -1 = no branch). A missing value follows missing_branch (< 0: stop); a
    category code outside 0..k-1 stops at the node.
    """
    path = [0]
    node = 0
    while nodes["kind"][node] != 0:
        x = row[nodes["feature"][node]]
        if math.isnan(x):
            slot = nodes["missing_branch"][node]
        elif nodes["kind"][node] == 1:
            slot = 0 if x <= nodes["threshold"][node] else 1
        else:
            k = n_categories[nodes["feature"][node]]
            slot = pool[nodes["pool_offset"][node] + int(x)] if 0 <= int(x) < k else -1
        if slot < 0:
            break
        node = nodes["first_child"][node] + slot
        path.append(node)
    return path
