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
              min_samples_leaf=1.0, epsilon=0.0, count_rows=False):
    """TreeGenerate (seed 000, figure 2) on an integer-coded matrix, as nested dicts.

    A node is {"counts": weighted class counts} and, if it splits, "feature" and "children" (one
    per category code 0..n_categories[feature]-1, in code order); a leaf says why in "stop", and a
    node where min_samples_leaf removed a candidate has "rejected_by_min_samples_leaf". Stops:
      case 1  at most one class has positive weight;
      case 2  no attribute left with two or more non-empty (positive-weight) branches;
      case 3  an empty branch (no positive weight): a leaf with the parent's counts;
      limits  depth >= max_depth, weighted mass < min_samples_split, best gain < epsilon.
    An attribute is a candidate only if every non-empty branch weighs >= min_samples_leaf.
    ``count_rows``: the two min_samples_* count rows of positive weight instead (the estimator's
    rule, scikit-learn's).
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
        live = [r for r in rows if w[r] > 0]
        if (len(live) if count_rows else sum(counts)) < min_samples_split:
            return {**node, "stop": "min_samples_split"}
        scored = []
        for a in attributes:
            k = int(n_categories[a])
            table = [[0.0] * n_classes for _ in range(k)]
            for r in live:
                table[X[r][a]][y[r]] += w[r]
            sizes = [sum(row) for row in table]
            if count_rows:
                sizes = [sum(1 for r in live if X[r][a] == v) for v in range(k)]
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
    category code outside 0..k-1, or without a branch, stops at a multiway node and counts as
    missing at a subset node (CART). The trees walked here have no surrogate splits.
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
            if slot < 0 and nodes["kind"][node] == 3:
                slot = nodes["missing_branch"][node]
        if slot < 0:
            break
        node = nodes["first_child"][node] + slot
        path.append(node)
    return path


# --------------------------------------------------------------------------- CART: thresholds


def midpoint(a, b):
    """The threshold between adjacent distinct values a < b: (a + b) / 2, or a itself when the
    midpoint rounds outside [a, b) (adjacent floats, overflow). Rows go left when x <= t."""
    a, b = float(a), float(b)  # Python floats: an overflow gives inf, not a warning
    t = (a + b) / 2.0
    return t if a <= t < b else a


def sum_squared_error(y, w):
    """SSE(D) = sum_i w_i (y_i - ybar)^2 with ybar the weighted mean (0 for an empty set)."""
    total = sum(float(v) for v in w)
    if total <= 0:
        return 0.0
    mean = sum(float(wi) * float(yi) for yi, wi in zip(y, w, strict=True)) / total
    return sum(float(wi) * (float(yi) - mean) ** 2 for yi, wi in zip(y, w, strict=True))


def _impurity_decrease(table, criterion):
    return information_gain(table) if criterion == "entropy" else gini_decrease(table)


def all_thresholds(x, y, w, n_classes, criterion, min_leaf):
    """Every candidate threshold of a continuous attribute (seed 001 §2.2): the midpoint of each
    pair of adjacent distinct values. Returns [(threshold, decrease, admissible)], the decrease of
    impurity I(D) - sum_v |D_v|/|D| I(D_v) computed from scratch for each; admissible when both
    sides weigh > 0 and >= min_leaf."""
    values = sorted(set(float(v) for v in x))
    out = []
    for a, b in zip(values[:-1], values[1:], strict=True):
        t = midpoint(a, b)
        left = [float(v) <= t for v in x]
        table = [weighted_class_counts([yy for yy, s in zip(y, left, strict=True) if s == side],
                                       [ww for ww, s in zip(w, left, strict=True) if s == side],
                                       n_classes) for side in (True, False)]
        sizes = [sum(row) for row in table]
        ok = all(s > 0 and s >= min_leaf for s in sizes)
        out.append((t, _impurity_decrease(table, criterion), ok))
    return out


def all_thresholds_regression(x, y, w, min_leaf):
    """As ``all_thresholds`` for regression: decrease = (SSE(D) - SSE(D_l) - SSE(D_r)) / w(D)."""
    values = sorted(set(float(v) for v in x))
    total = sum(float(v) for v in w)
    parent = sum_squared_error(y, w)
    out = []
    for a, b in zip(values[:-1], values[1:], strict=True):
        t = midpoint(a, b)
        sides = []
        for side in (True, False):
            rows = [i for i in range(len(x)) if (float(x[i]) <= t) == side]
            sides.append(([y[i] for i in rows], [w[i] for i in rows]))
        sizes = [sum(float(v) for v in ws) for _, ws in sides]
        ok = all(s > 0 and s >= min_leaf for s in sizes)
        children = sum(sum_squared_error(ys, ws) for ys, ws in sides)
        out.append((t, (parent - children) / total, ok))
    return out


def best_of(candidates):
    """(threshold, decrease) of the best admissible candidate: the largest decrease, and among
    those within TIE of it the lowest threshold; (None, -inf) when none is admissible."""
    ok = [(t, d) for t, d, a in candidates if a]
    if not ok:
        return None, -math.inf
    top = max(d for _, d in ok)
    return min((t, d) for t, d in ok if d >= top - TIE)


# --------------------------------------------------------------------------- CART: category subsets


def all_partitions(codes):
    """Every split of the category codes into two non-empty groups, once each: the left group is
    the one holding the lowest code. 2^(m-1) - 1 of them for m codes."""
    codes = sorted(codes)
    first, rest = codes[0], codes[1:]
    out = []
    for mask in range(2 ** len(rest)):
        left = {first} | {c for b, c in enumerate(rest) if mask >> b & 1}
        if len(left) < len(codes):
            out.append(frozenset(left))
    return out


def subset_split_table(table, left):
    """The 2-branch table of a subset split: class counts of the left group, then of the rest."""
    n_classes = len(table[0])
    rows = [[0.0] * n_classes, [0.0] * n_classes]
    for v, row in enumerate(table):
        for k in range(n_classes):
            rows[0 if v in left else 1][k] += float(row[k])
    return rows


def all_subset_splits(table, criterion, min_leaf):
    """[(left group, decrease, admissible)] for every partition of the categories present in the
    (categories x classes) count table."""
    present = [v for v, row in enumerate(table) if sum(float(c) for c in row) > 0]
    out = []
    for left in all_partitions(present):
        rows = subset_split_table(table, left)
        sizes = [sum(r) for r in rows]
        out.append((left, _impurity_decrease(rows, criterion), all(s >= min_leaf for s in sizes)))
    return out


def all_subset_splits_regression(codes, y, w, min_leaf):
    """[(left group, decrease, admissible)] for every partition of the categories of rows with
    positive weight; decrease = (SSE(D) - SSE(left) - SSE(right)) / w(D), from the rows."""
    live = [i for i in range(len(codes)) if float(w[i]) > 0]
    present = sorted({int(codes[i]) for i in live})
    total = sum(float(w[i]) for i in live)
    parent = sum_squared_error([y[i] for i in live], [w[i] for i in live])
    out = []
    for left in all_partitions(present):
        sides = [[i for i in live if (int(codes[i]) in left) == s] for s in (True, False)]
        sizes = [sum(float(w[i]) for i in rows) for rows in sides]
        children = sum(sum_squared_error([y[i] for i in rows], [w[i] for i in rows]) for rows in sides)
        out.append((left, (parent - children) / total, all(s >= min_leaf for s in sizes)))
    return out


def best_ordered_prefix(table, criterion, min_leaf):
    """The best split among the prefixes of the categories ordered by each class's proportion
    (ties by code): what an ordering heuristic can reach at least. -inf when none is admissible."""
    present = [v for v, row in enumerate(table) if sum(float(c) for c in row) > 0]
    best = -math.inf
    for k in range(len(table[0])):
        order = sorted(present, key=lambda v: (float(table[v][k]) / sum(float(c) for c in table[v]), v))
        for cut in range(1, len(order)):
            rows = subset_split_table(table, set(order[:cut]))
            if all(sum(r) >= min_leaf for r in rows):
                best = max(best, _impurity_decrease(rows, criterion))
    return best


# --------------------------------------------------------------------------- cost-complexity


def min_cost_complexity(first_child, n_children, r_node, alpha):
    """min over pruned subtrees T of R(T) + alpha |T|, and the leaf count of the smallest subtree
    reaching it, by the recursion best(t) = min(R(t) + alpha, sum over children best(c)) (a
    subtree is either cut at t or keeps t's split). Ties within TIE prefer cutting."""

    def best(t):
        as_leaf = (float(r_node[t]) + alpha, 1)
        if n_children[t] == 0:
            return as_leaf
        cost, leaves = 0.0, 0
        for c in range(first_child[t], first_child[t] + n_children[t]):
            c_cost, c_leaves = best(c)
            cost += c_cost
            leaves += c_leaves
        return as_leaf if as_leaf[0] <= cost + TIE else (cost, leaves)

    return best(0)


# --------------------------------------------------------------------------- surrogate splits


def naive_surrogate_threshold(x, direction, w, min_side):
    """CART's best threshold surrogate by trying every cut (rpart's rules, see rootwise.reference.missing).

    x: the surrogate's known values (any order); direction: the primary's branch of each row,
    -1 where the primary is missing; w: weights. Cuts: midpoints of consecutive distinct values
    of all of x. A cut and an orientation (rows with x <= t go to ``left``) qualify when each side
    holds >= min_side rows with direction >= 0 and w > 0, and their agreeing weight beats sending
    every row to one side. Best agreement wins, then the lowest cut, then left = 0.
    Returns (t, left, agreeing weight); t is NaN when nothing qualifies."""
    rows = list(zip((float(v) for v in x), (int(d) for d in direction), (float(v) for v in w),
                    strict=True))
    mass = [sum(wt for _, d, wt in rows if d == b) for b in (0, 1)]
    best, best_t, best_left = max(mass), math.nan, 0
    values = sorted(set(v for v, _, _ in rows))
    for a, b in zip(values, values[1:], strict=False):
        t = (a + b) / 2
        for left in (0, 1):
            agree = 0.0
            sent = [0, 0]
            for v, d, wt in rows:
                if d < 0:
                    continue
                side = left if v <= t else 1 - left
                sent[side] += wt > 0
                agree += wt if side == d else 0.0
            if min(sent) >= min_side and agree > best + TIE * max(1.0, best):
                best, best_t, best_left = agree, t, left
    return best_t, best_left, best


def naive_surrogate_subset(codes, direction, w, n_categories, tie_branch, min_side):
    """CART's category surrogate: every assignment of the categories to the two branches is tried
    and the best agreement kept; among the best, each category whose two weights tie takes
    ``tie_branch``. Categories without primary-known rows get -1. Returns (side, agreeing weight),
    the weight -1 when the assignment sends fewer than min_side rows (w > 0) one way."""
    votes = [[0.0, 0.0] for _ in range(n_categories)]
    counts = [[0, 0] for _ in range(n_categories)]
    for c, d, wt in zip(codes, direction, w, strict=True):
        if d >= 0:
            votes[int(c)][int(d)] += float(wt)
            counts[int(c)][int(d)] += float(wt) > 0
    present = [v for v in range(n_categories) if sum(counts[v]) > 0]
    best, best_sides = -1.0, []
    for mask in range(2 ** len(present)):
        sides = {v: (mask >> i) & 1 for i, v in enumerate(present)}
        agree = sum(votes[v][sides[v]] for v in present)
        if agree > best + TIE * max(1.0, best):
            best, best_sides = agree, [sides]
        elif abs(agree - best) <= TIE * max(1.0, best):
            best_sides.append(sides)
    side = [-1] * n_categories
    for v in present:
        tied = abs(votes[v][0] - votes[v][1]) <= TIE * max(1.0, max(votes[v]))
        side[v] = tie_branch if tied else int(votes[v][1] > votes[v][0])
    assert {v: side[v] for v in present} in best_sides or not present
    sent = [sum(sum(counts[v]) for v in present if side[v] == b) for b in (0, 1)]
    return side, (best if min(sent) >= min_side else -1.0)


def naive_surrogates(X, kinds, n_categories, direction, w, max_surrogates, primary_feature,
                     min_side=2):
    """Every column's best surrogate for a node whose rows are X (direction: the primary's branch
    per row, -1 missing), ranked as CART does: agreement = agreeing weight / weight of the
    primary-known rows (w > 0), kept when (agreement - majority) / (1 - majority) > 1e-10,
    best first, ties to the lower column. Returns [(feature, agreement, adjusted, split)]."""
    live = [float(v) > 0 for v in w]
    mass = [sum(float(wt) for d, wt, ok in zip(direction, w, live, strict=True) if ok and d == b)
            for b in (0, 1)]
    total = sum(mass)
    if min(mass) <= 0:
        return []
    majority = max(mass) / total
    found = []
    for j in range(X.shape[1]):
        if j == primary_feature:
            continue
        has = [ok and not math.isnan(v) for v, ok in zip(X[:, j], live, strict=True)]
        x = [v for v, h in zip(X[:, j], has, strict=True) if h]
        d = [v for v, h in zip(direction, has, strict=True) if h]
        wt = [v for v, h in zip(w, has, strict=True) if h]
        if kinds[j] == 1:
            # a level split evenly goes where the primary sends more of this column's rows, else
            # to the side with more primary-known weight, else to branch 0
            votes = [sum(m for m, dd in zip(wt, d, strict=True) if dd == b) for b in (0, 1)]
            if abs(votes[0] - votes[1]) <= TIE * max(1.0, max(votes)):
                heavier = abs(mass[0] - mass[1]) > TIE * max(1.0, max(mass))
                tie = int(mass[1] > mass[0]) if heavier else 0
            else:
                tie = int(votes[1] > votes[0])
            side, agree = naive_surrogate_subset(x, d, wt, int(n_categories[j]), tie, min_side)
            split = tuple(side)
            if agree < 0:
                continue
        else:
            t, left, agree = naive_surrogate_threshold(x, d, wt, min_side)
            if math.isnan(t):
                continue
            split = (t, left)
        agreement = agree / total
        adjusted = (agreement - majority) / (1 - majority)
        if adjusted > 1e-10:
            found.append((j, agreement, adjusted, split))
    found.sort(key=lambda s: (-round(s[1], 12), s[0]))
    return found[:max_surrogates]
