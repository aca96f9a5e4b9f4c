"""Fitted-looking models built by hand or at random, and SQLite tables, for the exporter tests.

``random_model`` draws trees with every node kind and routing rule the Tree format has -- threshold,
subset and multiway tests, categories without a branch, missing values to a child or stopping,
surrogate splits of both kinds, C4.5's fractional routing with some zero fractions -- so that an
exporter can be checked against the Tree's own routing (``Tree.apply``,
``Tree.fractional_distribution``) on rows full of ties, NULLs and unseen categories.
"""

from __future__ import annotations

import math
import sqlite3

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from rootwise._config import (
    CATEGORICAL,
    CONTINUOUS,
    LEAF,
    MISSING_FRACTIONAL,
    MULTIWAY,
    SUBSET,
    THRESHOLD,
)
from rootwise.input.schema import Schema
from rootwise.tree import Tree

NAN = float("nan")


class Fitted(BaseEstimator):
    """Stand-in for a fitted estimator: only what the exporters read."""

    def fit(self, X, y=None):
        return self


def model_of(tree: Tree, schema: Schema, classes=None) -> Fitted:
    model = Fitted()
    model.tree_ = tree
    model.schema_ = schema
    if classes is not None:
        model.classes_ = np.asarray(classes)
    return model


def hand_model(nodes, value, pool, schema: Schema, classes=None, surrogates=None) -> Fitted:
    """A model from node rows (kind, feature, threshold, first_child, n_children, pool_offset,
    missing_branch, parent, n_node_samples, surrogate_offset, n_surrogates); depth comes from
    parent, the weight is the row count."""
    cols = list(zip(*nodes, strict=True))
    depth: list[int] = []
    for p in cols[7]:
        depth.append(0 if p < 0 else depth[p] + 1)
    fields = dict(kind=cols[0], feature=cols[1], threshold=cols[2], first_child=cols[3],
                  n_children=cols[4], pool_offset=cols[5], missing_branch=cols[6], parent=cols[7],
                  depth=depth, impurity=[0.0] * len(nodes), n_node_samples=cols[8],
                  weighted_n_node_samples=np.asarray(cols[8], dtype=float),
                  branch_fraction=[1.0] * len(nodes), surrogate_offset=cols[9], n_surrogates=cols[10])
    tree = Tree(fields, np.asarray(value, dtype=float), np.asarray(pool), schema.n_categories,
                surrogates)
    return model_of(tree, schema, classes)


def staircase(depth: int) -> Fitted:
    """A chain of thresholds x <= 0, x <= 1, ..., each left child a leaf: depth ``depth``. Missing
    values go right at the even tests and stop at the odd ones (so they stop at x <= 1)."""
    n = 2 * depth + 1
    kind = np.full(n, LEAF, dtype=np.int8)
    feature = np.full(n, -1)
    threshold = np.full(n, np.nan)
    first = np.full(n, -1)
    n_children = np.zeros(n, dtype=int)
    missing = np.full(n, -1)
    parent = np.full(n, -1)
    depth_of = np.zeros(n, dtype=int)
    value = np.zeros((n, 2))
    split = 0
    for k in range(depth):
        kind[split], feature[split], threshold[split] = THRESHOLD, 0, float(k)
        first[split], n_children[split] = split + 1, 2
        missing[split] = 1 if k % 2 == 0 else -1
        for c in (split + 1, split + 2):
            parent[c], depth_of[c] = split, k + 1
        value[split] = [1, 1]
        value[split + 1, k % 2] = 1
        split += 2
    value[split] = [3, 1]
    fields = dict(feature=feature, kind=kind, threshold=threshold, first_child=first,
                  n_children=n_children, pool_offset=np.full(n, -1), missing_branch=missing,
                  parent=parent, depth=depth_of, impurity=np.zeros(n), n_node_samples=np.ones(n),
                  weighted_n_node_samples=np.ones(n), branch_fraction=np.ones(n))
    schema = Schema(("x",), (CONTINUOUS,), (None,), True)
    tree = Tree(fields, value, np.zeros(1, dtype=int), np.zeros(1))
    return model_of(tree, schema, ["even", "odd"])


# ---------------------------------------------------------------------------- random trees

# names that need quoting; categories that need escaping, numbers as categories
SCHEMA = Schema(
    ("x", "size (cm)", 'say "when"', "colour", "code"),
    (CONTINUOUS, CONTINUOUS, CONTINUOUS, CATEGORICAL, CATEGORICAL),
    (None, None, None, ("red", "green", "O'Brien", "纹理 清晰"), (1, 2, 3, 10, 20)),
    True,
)
# thresholds and values: ties with the data, 0.1 + 0.2 (no short decimal), negative, tiny
GRID = (-1.5, 0.0, 0.25, 1.0, 2.5, 0.1 + 0.2, 1e-300, 7.0e15 + 1.0)
UNSEEN = {3: "purple", 4: 99}


def random_model(rng, *, regression=False, fractional=False, max_depth=5, classes=("a", "b", "c")):
    """A random tree over ``SCHEMA`` (see the module docstring)."""
    kinds = SCHEMA.kinds
    n_cat = SCHEMA.n_categories
    nodes: list[dict] = []
    pool: list[int] = []
    sur = {k: [] for k in ("feature", "kind", "threshold", "left_branch", "pool_offset",
                           "agreement", "adjusted_agreement")}

    def new(parent, depth):
        nodes.append(dict(feature=-1, kind=LEAF, threshold=NAN, first_child=-1, n_children=0,
                          pool_offset=-1, missing_branch=-1, parent=parent, depth=depth,
                          impurity=float(rng.random()), n_node_samples=int(rng.integers(0, 50)),
                          branch_fraction=1.0, surrogate_offset=-1, n_surrogates=0))
        nodes[-1]["weighted_n_node_samples"] = float(nodes[-1]["n_node_samples"])
        return len(nodes) - 1

    def categories_to(k, n_branches, allow_none=True):
        while True:
            slots = rng.integers(-1 if allow_none else 0, n_branches, size=k)
            if all(np.any(slots == b) for b in range(n_branches)):
                return slots.tolist()

    queue = [new(-1, 0)]
    while queue:
        node = queue.pop(0)
        d = nodes[node]
        if d["depth"] >= max_depth or rng.random() < 0.25:
            continue
        f = int(rng.integers(0, len(kinds)))
        if kinds[f] == CONTINUOUS:
            kind, m = THRESHOLD, 2
            d["threshold"] = float(rng.choice(GRID))
        else:
            kind = SUBSET if rng.random() < 0.5 else MULTIWAY
            m = 2 if kind == SUBSET else int(rng.integers(2, n_cat[f] + 1))
            d["pool_offset"] = len(pool)
            pool.extend(categories_to(int(n_cat[f]), m))
        d.update(feature=f, kind=kind, n_children=m, first_child=len(nodes))
        if fractional and rng.random() < 0.8:
            d["missing_branch"] = MISSING_FRACTIONAL
        else:
            d["missing_branch"] = int(rng.integers(-1, m))
        n_sur = int(rng.integers(0, 4)) if not fractional or rng.random() < 0.3 else 0
        if n_sur:
            d["surrogate_offset"], d["n_surrogates"] = len(sur["feature"]), n_sur
        for _ in range(n_sur):
            g = int(rng.integers(0, len(kinds)))
            sur["feature"].append(g)
            sur["agreement"].append(0.5)
            sur["adjusted_agreement"].append(0.1)
            if kinds[g] == CONTINUOUS:
                sur["kind"].append(THRESHOLD)
                sur["threshold"].append(float(rng.choice(GRID)))
                sur["left_branch"].append(int(rng.integers(0, 2)))
                sur["pool_offset"].append(-1)
            else:
                sur["kind"].append(SUBSET)
                sur["threshold"].append(NAN)
                sur["left_branch"].append(0)
                sur["pool_offset"].append(len(pool))
                pool.extend(categories_to(int(n_cat[g]), 2))
        fractions = rng.dirichlet(np.ones(m)) * (rng.random(m) < 0.8)
        if fractions.sum() == 0:
            fractions[0] = 1.0
        fractions /= fractions.sum()
        for b in range(m):
            child = new(node, d["depth"] + 1)
            nodes[child]["branch_fraction"] = float(fractions[b])
            queue.append(child)
    fields = {name: [d[name] for d in nodes] for name in nodes[0]}
    if regression:
        value = np.round(rng.normal(size=(len(nodes), 1)) * 10, int(rng.integers(0, 17)))
    else:
        value = rng.integers(0, 4, size=(len(nodes), len(classes))).astype(float)
        value[value.sum(axis=1) == 0, 0] = 1.0
        value /= rng.choice([1.0, 3.0])  # fractional counts, as C4.5's
    tree = Tree(fields, value, np.asarray(pool if pool else [0]), SCHEMA.n_categories, sur)
    return model_of(tree, SCHEMA, None if regression else classes)


def random_rows(rng, n, schema=SCHEMA) -> pd.DataFrame:
    """Rows over ``schema``: continuous values on the threshold grid (ties) or next to it, and
    categories, unseen values and missing cells."""
    columns = {}
    for j, name in enumerate(schema.feature_names):
        if schema.kinds[j] == CONTINUOUS:
            base = rng.choice(GRID, size=n)
            shift = rng.choice([0.0, 0.0, 1e-9, -1e-9, 0.5], size=n)
            values = [float(v) if rng.random() > 0.3 else None for v in base + shift]
            # exactly next to a threshold, both sides
            values = [np.nextafter(v, rng.choice([-np.inf, np.inf])) if v is not None
                      and rng.random() < 0.1 else v for v in values]
            columns[name] = [None if v is None else float(v) for v in values]
        else:
            cats = list(schema.categories[j])
            choices = cats + [UNSEEN.get(j, "unseen")]
            columns[name] = [None if rng.random() < 0.25 else choices[int(rng.integers(0, len(choices)))]
                             for _ in range(n)]
    return pd.DataFrame(columns, dtype=object)


# ---------------------------------------------------------------------------- SQLite


def quote(name) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def plain(v):
    """A cell as the Python value SQLite stores: numbers, strings, NULL for missing."""
    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, np.generic):
        v = v.item()
        if isinstance(v, float) and math.isnan(v):
            return None
    return v


def sqlite_table(frame: pd.DataFrame, name: str = "data", types: dict | None = None):
    """An in-memory SQLite database holding ``frame`` as table ``name`` (columns untyped unless
    ``types`` gives them a declared type), with its row numbers in column ``_row``."""
    con = sqlite3.connect(":memory:")
    types = types or {}
    cols = ", ".join(f"{quote(c)} {types.get(c, '')}".rstrip() for c in frame.columns)
    con.execute(f"CREATE TABLE {quote(name)} (_row INTEGER, {cols})")
    marks = ", ".join("?" * (len(frame.columns) + 1))
    con.executemany(f"INSERT INTO {quote(name)} VALUES ({marks})",
                    [(i, *(plain(v) for v in row))
                     for i, row in enumerate(frame.itertuples(index=False, name=None))])
    return con


def column(con, query: str, name: str) -> list:
    """Column ``name`` of ``query``'s result, in row order."""
    return [r[0] for r in con.execute(f"SELECT {quote(name)} FROM ({query}) ORDER BY _row")]
