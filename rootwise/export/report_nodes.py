"""What the report's script knows of each drawn node, and the textbook table of each node.

``node_records`` gives, per node of the picture, its place (parent, drawn children, box size for
the script's layout) and what the details panel shows: the test of the branch into it (the path
of tests is the chain of these), its weight and class counts (or value and spread), how it
handles missing values, its surrogate splits. ``attribute_tables`` runs ``rootwise.explain`` at
nodes, as formatted rows.
"""

from __future__ import annotations

import numpy as np

from .._config import LEAF, SUBSET, THRESHOLD
from ..explain import explain
from .picture import Picture, missing_notes, predicted_label
from .svg import EM
from .text import TreeView, label

# explain's columns -> the report's headings (the seeds' symbols)
HEADINGS = {
    "attribute": "attribute", "n_branches": "branches", "threshold": "threshold",
    "midpoint": "midpoint", "entropy": "Ent(D)", "conditional_entropy": "Ent(D|a)", "gain": "Gain",
    "mdl_penalty": "MDL penalty", "rho": "ρ", "intrinsic_value": "IV", "gain_ratio": "Gain ratio",
    "above_average": "gain ≥ average", "admissible": "admissible", "gini": "Gini(D)",
    "gini_index": "Gini index", "chosen": "chosen",
}
DEFAULT_MAX_TABLES = 200


def node_records(view: TreeView, pic: Picture) -> dict[str, dict]:
    """node id (as a JSON key) -> its record for the script."""
    tree = view.tree
    tests = {}
    for parent in pic.kids:
        name = view.feature_name(parent)
        for child, test in view.branches(parent):
            if child is not None:
                tests[child] = f"{name} {test}"
    out = {}
    for node in pic.order:
        box = pic.boxes[node]
        rec = {
            "parent": int(tree.parent[node]) if node else -1,
            "kids": pic.kids.get(node, []),
            "depth": int(tree.depth[node]),
            "w": round(box.w * EM, 1),
            "slot": round(box.slot * EM, 1),  # the width the layout gives it
            "h": round(box.h * EM, 1),
            "test": tests.get(node, ""),
            "title": box.title,
            "leaf": bool(tree.kind[node] == LEAF),
            "cut": box.hidden,
            "n": view.number(tree.weighted_n_node_samples[node]),
            "rows": int(tree.n_node_samples[node]),
            "empty": view.is_empty_branch(node),
            "predicted": predicted_label(view, node),
        }
        if view.classes is None:
            rec["sd"] = view.number(np.sqrt(max(float(tree.impurity[node]), 0.0)))
        else:
            counts = tree.value[node]
            total = counts.sum()
            rec["counts"] = [view.number(v) for v in counts]
            rec["shares"] = [round(float(v / total), 4) if total > 0 else 0.0 for v in counts]
        if tree.kind[node] != LEAF:
            rec["notes"] = missing_notes(view, node, surrogates=False)
            rec["surrogates"] = surrogate_texts(view, node) if view.shows_missing(node) else []
        out[str(node)] = rec
    return out


def surrogate_texts(view: TreeView, node: int) -> list[str]:
    """Each surrogate split of a CART node, best first: the test that sends a row the way of the
    first branch ("年收入 > 80 goes with 婚姻状况 in {单身, 离婚}"), and its agreement with the
    primary split."""
    tree = view.tree
    sur = tree.surrogates
    primary = f"{view.feature_name(node)} {view.branches(node)[0][1].removesuffix(' or missing')}"
    out = []
    start = int(tree.surrogate_offset[node])
    for s in range(start, start + int(tree.n_surrogates[node])):
        feature = int(sur["feature"][s])
        name = label(view.schema.feature_names[feature])
        if sur["kind"][s] == THRESHOLD:
            t = view.number(sur["threshold"][s])
            test = f"<= {t}" if sur["left_branch"][s] == 0 else f"> {t}"
        elif sur["kind"][s] == SUBSET:
            off = int(sur["pool_offset"][s])
            slots = tree.pool[off: off + int(tree.n_categories[feature])]
            test = "in {" + ", ".join(view.category(feature, int(c))
                                      for c in np.flatnonzero(slots == 0)) + "}"
        else:  # pragma: no cover - surrogates are binary tests
            continue
        out.append(f"{name} {test} goes with {primary} (agreement {sur['agreement'][s]:.3f}, "
                   f"adjusted {sur['adjusted_agreement'][s]:.3f})")
    return out


def attribute_tables(model, X, y, nodes: list[int], max_tables: int = DEFAULT_MAX_TABLES,
                     digits: int = 3) -> tuple[dict[str, dict], str | None]:
    """(node id -> explain's table at the node as text cells, note when some nodes have none).

    Tables are made for the nodes nearest the root first, at most ``max_tables`` of them; nodes no
    training row reaches (empty branches) have none."""
    tree = model.tree_
    reached = [n for n in nodes if tree.weighted_n_node_samples[n] > 0]
    reached.sort(key=lambda n: (int(tree.depth[n]), n))
    chosen = reached[:max_tables]
    out = {}
    for node in chosen:
        out[str(node)] = table_cells(explain(X, y, model, node=node), digits)
    note = None
    if len(chosen) < len(reached):
        note = (f"Attribute tables are given for the {len(chosen)} nodes nearest the root (of "
                f"{len(reached)}); raise max_tables for more.")
    return out, note


def table_cells(table, digits: int) -> dict:
    """explain's DataFrame as headings, rows of text cells, the chosen row and notes."""
    columns = list(table.columns)
    rows = []
    chosen = -1
    for i, record in enumerate(table.itertuples(index=False)):
        cells = []
        for col, v in zip(columns, record, strict=True):
            cells.append(_cell(col, v, digits))
        if record[columns.index("chosen")]:
            chosen = i
        rows.append(cells)
    notes = [f"{table.attrs['n_rows']} rows, weight {_number(table.attrs['weight'], digits)}"]
    average = table.attrs.get("average_gain", False)
    if average is not False:
        notes.append("average gain " + ("-" if average is None else f"{average:.{digits}f}") +
                     ": the gain ratio decides among the attributes whose gain reaches it")
    rule = table.attrs.get("rule_choice")
    if rule is not None and chosen >= 0 and rule != table["attribute"].iloc[chosen]:
        notes.append(f"on these rows the rule picks {label(rule)}; the node's test was chosen on "
                     "other rows (subtree raising moved it here)")
    return {"headings": [HEADINGS.get(c, c) for c in columns], "rows": rows, "chosen": chosen,
            "notes": notes}


def _cell(col: str, v, digits: int) -> str:
    if col == "attribute":
        return label(v)
    if col == "chosen":
        return "✔" if v else ""
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if col in ("threshold", "midpoint"):
        return "" if np.isnan(v) else f"{v:.6g}"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    return f"{float(v):.{digits}f}"


def _number(v: float, digits: int) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.{digits}f}"
