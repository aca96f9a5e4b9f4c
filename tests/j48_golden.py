"""Helpers for the J48 golden files (tests/golden/j48, made by tools/weka/make_j48_golden.py).

The golden JSON holds J48's trees parsed from its printout, with the full-precision thresholds of
its ``-z`` source. ``nested`` turns a fitted rootwise tree into the same shape so that the two can
be compared node by node (``compare``).
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import numpy as np

from rootwise._config import LEAF, MULTIWAY, THRESHOLD

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "j48"
sys.path.insert(0, str(ROOT / "tools" / "weka"))

from arff_reader import read_arff  # noqa: E402

# J48 prints leaf weights and errors rounded to 2 decimals (Utils.roundDouble)
PRINT_TOLERANCE = 0.005 + 1e-9
# and class distributions (-p 0 -distribution) with 3 decimals
PROBA_TOLERANCE = 0.0005 + 1e-9


@functools.lru_cache(maxsize=None)
def golden(name: str) -> dict:
    with open(GOLDEN / f"{name}.json", encoding="utf-8") as f:
        return json.load(f)


@functools.lru_cache(maxsize=None)
def _frame(name: str):
    return read_arff(GOLDEN / "data" / f"{name}.arff")


def load(name: str):
    """(X, y) of a golden dataset: nominal columns as pandas categoricals in declared order."""
    g = golden(name)
    df = _frame(name)
    return df.drop(columns=[g["class_attribute"]]), df[g["class_attribute"]]


def nested(model, class_values: list[str]) -> dict:
    """The fitted tree in the golden ``parsed`` shape; leaves carry their class counts in the
    order of ``class_values`` (the declared order) instead of a single class."""
    tree, schema = model.tree_, model.schema_
    order = [list(model.classes_).index(c) if c in list(model.classes_) else -1
             for c in class_values]

    def counts(node):
        v = tree.value[node]
        return [float(v[i]) if i >= 0 else 0.0 for i in order]

    def walk(node):
        if tree.kind[node] == LEAF:
            return {"type": "leaf", "counts": counts(node),
                    "weight": float(tree.weighted_n_node_samples[node])}
        out = {"type": "split", "attribute": schema.feature_names[tree.feature[node]],
               "children": [walk(c) for c in tree.children(node)]}
        if tree.kind[node] == THRESHOLD:
            out["kind"] = "numeric"
            out["threshold"] = float(tree.threshold[node])
        else:
            assert tree.kind[node] == MULTIWAY
            out["kind"] = "nominal"
        return out

    return walk(0)


def compare(ours: dict, theirs: dict, path: str = "root") -> list[str]:
    """Differences between a ``nested`` tree and a golden parsed tree (empty when they agree):
    same tests in the same places, thresholds equal to J48's doubles, and at every leaf the same
    weight and errors (up to J48's 2-decimal print) and a majority class J48 could have printed."""
    if ours["type"] != theirs["type"]:
        return [f"{path}: rootwise has a {ours['type']}, J48 a {theirs['type']}"]
    if ours["type"] == "leaf":
        out = []
        c = np.array(ours["counts"])
        # an empty leaf predicts its parent's distribution but holds nothing: no errors
        errors = c.sum() - c.max() if ours["weight"] > 0 else 0.0
        if abs(ours["weight"] - theirs["weight"]) > PRINT_TOLERANCE:
            out.append(f"{path}: weight {ours['weight']:.4f} vs J48 {theirs['weight']}")
        if abs(errors - theirs["errors"]) > PRINT_TOLERANCE:
            out.append(f"{path}: errors {errors:.4f} vs J48 {theirs['errors']}")
        return out
    if ours["attribute"] != theirs["attribute"] or ours["kind"] != theirs["kind"]:
        return [f"{path}: rootwise tests {ours['attribute']}, J48 {theirs['attribute']}"]
    out = []
    if ours["kind"] == "numeric" and ours["threshold"] != theirs["threshold_exact"]:
        out.append(f"{path}: threshold {ours['threshold']!r} vs J48 {theirs['threshold_exact']!r}")
    if len(ours["children"]) != len(theirs["branches"]):
        return out + [f"{path}: {len(ours['children'])} branches vs J48 {len(theirs['branches'])}"]
    for child, branch in zip(ours["children"], theirs["branches"], strict=True):
        out += compare(child, branch["child"], f"{path} / {theirs['attribute']} {branch['op']} "
                                               f"{branch['value']}")
    return out


def leaf_classes(ours: dict, theirs: dict, class_values: list[str]) -> list[str]:
    """Leaves whose J48 class is not one of rootwise's majority classes (ties allowed: J48 takes
    the first declared class, rootwise the first in sorted order)."""
    if ours["type"] == "leaf":
        c = np.array(ours["counts"])
        best = [class_values[i] for i in np.flatnonzero(c >= c.max() - 1e-9)]
        return [] if theirs["class"] in best else [f"J48 {theirs['class']}, rootwise {best}"]
    return [m for child, branch in zip(ours["children"], theirs["branches"], strict=True)
            for m in leaf_classes(child, branch["child"], class_values)]
