"""A fitted tree as SQL: a ``CASE`` expression (or a ``SELECT``) that computes what ``predict`` (or
``predict_proba``) computes, row for row, missing values included.

The expression is flat: one ``WHEN`` per end of the tree (a leaf, or a split node where some rows
stop), whose condition is the conjunction of its path's tests, merged per feature
(``paths``). The conditions of the ends exclude one another, so the order of the ``WHEN``s does
not matter; they follow the tree depth first. A flat expression does not nest as deep as the
tree, so SQLite's limit of 1000 levels of expression depth does not bound the tree's depth.

NULL is a missing value and follows the model's own routing. For CART, a missing value (and, at a
subset test, a category without a branch there) tries the node's surrogate splits in order, then
goes to the larger child, or stays at the node when the children weigh the same; at a multiway
test a category without a branch stays at the node; a row that stays at a node is predicted that
node's class or value. A value never seen in training is a category without a branch.

C4.5 sends a row whose tested value is missing down every branch with weight r_v and adds up the
class distributions it reaches, weighted. No single ``CASE`` can say that, so for such a model the
SQL is one probability expression per class -- the sum over the ends of (product of the r_v of the
branches taken for missing values) x (the end's class distribution), each term guarded by the
end's conditions -- written in the order ``predict_proba`` adds them, so that the sums are the
same doubles; the prediction is the first class with the largest probability, as ``predict``.

Limits: the SQL grows as (leaves x path length), and a missing-value branch repeats its node's
surrogate cascade in every WHEN below it (a fully grown CART regressor of 20,000 nodes: 33 MB). A
C4.5 probability is one left-deep sum of a term per end, each a product along the path, which
SQLite refuses when the terms plus the path depth pass its expression depth limit (1000).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._base import check_is_fitted
from .._config import LEAF, MISSING_FRACTIONAL, THRESHOLD
from ..tree.majority import node_classes, tie_priority
from .paths import ALWAYS, NEVER, Interval, PathWalker
from .sql_text import conjunction, disjunction, grouped, identifier, literal, number

if TYPE_CHECKING:
    from .._typing import Model

PREDICTION = "prediction"


def export_sql(model: Model, table: str | None = None, *, proba: bool = False, name: str = PREDICTION) -> str:
    """SQL that reproduces ``model.predict`` (``proba=True``: ``predict_proba``) exactly.

    Without ``table``: the expression -- a ``CASE`` giving the predicted class or value, or with
    ``proba`` a select list of one expression per class, ``<expr> AS "P(<class>)", ...``.
    With ``table`` (a name, or a tuple of names for ``schema.table``): a full query,
    ``SELECT *, <expr> AS "<name>" FROM "<table>"``.

    Columns are the model's feature names (quoted identifiers); categories and classes are SQL
    literals (strings, numbers, TRUE / FALSE) and numbers are written to read back exactly. NULL
    is a missing value. A C4.5 model routes missing values fractionally: its prediction needs the
    class probabilities first, so it is given only as a full query (``table=...``), whose inner
    query adds the ``P(<class>)`` columns; without ``table`` ask for ``proba=True``.
    """
    check_is_fitted(model, ["tree_", "schema_"])
    tree, schema = model.tree_, model.schema_
    classes = getattr(model, "classes_", None)
    if proba and classes is None:
        raise ValueError("export_sql: proba=True needs a classifier; this model predicts values.")
    if not isinstance(name, str) or name == "":
        raise ValueError(f"export_sql: name must be a non-empty string, got {name!r}.")
    source = None if table is None else _table(table)
    priority = tie_priority(model)  # class ties go as predict breaks them (class_order_)
    # a classifier with fractional splits predicts as C4.5 (a regressor walks as Tree.apply)
    if classes is not None and np.any(tree.missing_branch[tree.kind != LEAF] == MISSING_FRACTIONAL):
        return _fractional_sql(_Writer(tree, schema, "fractional"), classes, source, proba, name,
                               priority)
    chosen = None if classes is None else node_classes(model)  # the class predict names
    return _routed_sql(_Writer(tree, schema, "route"), classes, source, proba, name, chosen)


def _routed_sql(writer, classes, source, proba: bool, name: str, chosen) -> str:
    """The SQL of a model predicting by ``Tree.apply``: one CASE over the ends."""
    tree = writer.tree
    ends = writer.ends()
    if proba:
        dist = tree.distribution()
        columns = [(f"P({_label_text(c)})",
                    writer.case(ends, {e.node: writer.number(dist[e.node, k]) for e in ends}))
                   for k, c in enumerate(classes)]
        return _select(columns, source)
    if classes is None:
        outputs = {e.node: writer.number(tree.value[e.node, 0]) for e in ends}
    else:
        outputs = {e.node: literal(classes[chosen[e.node]]) for e in ends}
    expression = writer.case(ends, outputs)
    if source is None:
        return expression
    return f"SELECT *, {expression} AS {identifier(name)}\nFROM {source}"


def _fractional_sql(writer, classes, source, proba: bool, name: str, priority) -> str:
    """The SQL of a C4.5 model: class probabilities, and the first largest as the prediction."""
    if not proba and source is None:
        raise ValueError(
            "export_sql: this C4.5 model sends a row with a missing value down every branch "
            "and weighs the classes it reaches, which one CASE cannot express. Give table=... "
            "for a full query (the prediction over per-class probabilities), or proba=True "
            "for one probability expression per class.")
    columns = writer.fractional_probabilities(classes)
    inner = _select(columns, source)
    if proba:
        return inner
    return (f"SELECT *, {_first_largest(classes, priority)} AS {identifier(name)}\n"
            f"FROM ({inner}) AS {identifier('rootwise_probabilities')}")


def _table(table) -> str:
    parts = (table,) if isinstance(table, str) else table
    if not isinstance(parts, tuple) or not parts or not all(isinstance(p, str) for p in parts):
        raise ValueError(f"export_sql: table must be a name or a tuple of names (schema, table), "
                         f"got {table!r}.")
    try:
        return ".".join(identifier(p) for p in parts)
    except ValueError as e:
        raise ValueError(f"export_sql: bad table name {table!r}: {e}") from None


def _select(columns: list[tuple[str, str]], source: str | None) -> str:
    items = ",\n".join(f"{expr} AS {identifier(col)}" for col, expr in columns)
    return items if source is None else f"SELECT *,\n{items}\nFROM {source}"


def _label_text(label) -> str:
    if isinstance(label, np.generic):
        label = label.item()
    return str(label)


def _first_largest(classes, priority=None) -> str:
    """The class whose probability column is largest, the first in ``priority`` (indices of the
    classes in tie order; None: class order) on a tie, as ``predict``."""
    if priority is not None:
        classes = [classes[k] for k in priority]
    if len(classes) == 1:
        return literal(classes[0])
    cols = [identifier(f"P({_label_text(c)})") for c in classes]
    whens = []
    for i in range(len(cols) - 1):
        test = conjunction([f"{cols[i]} >= {cols[j]}" for j in range(i + 1, len(cols))])
        whens.append(f"WHEN {test} THEN {literal(classes[i])}")
    return f"CASE {' '.join(whens)} ELSE {literal(classes[-1])} END"


class _Writer:
    """SQL for the conditions of one tree."""

    def __init__(self, tree, schema, routing: str):
        self.tree = tree
        self.schema = schema
        self.walker = PathWalker(tree, routing)
        self.columns = [identifier(n) for n in schema.feature_names]
        # a threshold, a cascade, a feature's merged condition recur in many WHENs: written once
        self._numbers: dict[float, str] = {}
        self._cascades: dict[tuple[int, int], str] = {}
        self._conditions: dict[object, str] = {}

    def number(self, v) -> str:
        v = float(v)
        text = self._numbers.get(v)
        if text is None:
            text = self._numbers[v] = number(v)
        return text

    # ------------------------------------------------------------------ CASE over the ends
    def ends(self):
        """The reachable ends of the walk, depth first."""
        return [e for e in self.walker.ends(stops=True) if e.reachable]

    def case(self, ends, outputs: dict[int, str]) -> str:
        """``CASE WHEN <path of end> THEN <output of end> ... END`` (no ELSE: every row meets
        exactly one WHEN)."""
        if len(ends) == 1 and not ends[0].conditions:
            return outputs[ends[0].node]  # a tree that is one leaf
        whens = [f"  WHEN {self.path(e)} THEN {outputs[e.node]}" for e in ends]
        return "CASE\n" + "\n".join(whens) + "\nEND"

    def path(self, end) -> str:
        return conjunction([self.condition(c) for c in end.conditions])

    # ------------------------------------------------------------------ one feature
    def condition(self, c) -> str:
        """The SQL of one feature's merged condition, parenthesised where it has an OR / AND."""
        text = self._conditions.get(c)
        if text is None:
            text = self._conditions[c] = grouped(self.feature_condition(c))
        return text

    def feature_condition(self, c) -> str:
        col = self.columns[c.feature]
        if isinstance(c, Interval):
            terms = []
            if c.known:
                sides = []
                if c.lo > -np.inf:
                    sides.append(f"{col} > {self.number(c.lo)}")
                if c.hi < np.inf:
                    sides.append(f"{col} <= {self.number(c.hi)}")
                terms.append(" AND ".join(sides) if sides else f"{col} IS NOT NULL")
            missing = self.kept(c.missing)
            if missing is not NEVER:
                terms.append(self.guarded(f"{col} IS NULL", missing))
            return disjunction([grouped(t) if len(terms) > 1 else t for t in terms])
        return self.categories(c, col)

    def categories(self, c, col: str) -> str:
        """Values grouped by status: first those that always pass, then each group of values
        (categories without a branch, unseen, missing) guarded by its surrogate cascades."""
        cats = self.schema.categories[c.feature]
        groups: dict[tuple, dict] = {}  # status -> its codes, and whether unseen / NULL values
        def group(status):
            return groups.setdefault(status, {"codes": [], "unseen": False, "null": False})

        if self.kept(c.other) is not NEVER:
            group(self.kept(c.other))["unseen"] = True
        for code, status in enumerate(c.codes):
            if self.kept(status) is not NEVER:
                group(self.kept(status))["codes"].append(code)
        if self.kept(c.missing) is not NEVER:
            group(self.kept(c.missing))["null"] = True
        statuses = sorted(groups, key=lambda s: s != ALWAYS)  # stable: the rest as met
        terms = []
        for s in statuses:
            g = groups[s]
            values = self.values(col, cats, g["codes"], g["unseen"])
            if g["null"]:
                values.append(f"{col} IS NULL")
            if values:
                terms.append(self.guarded(disjunction(values), s))
        return disjunction([grouped(t) for t in terms] if len(terms) > 1 else terms)

    def values(self, col: str, cats, codes: list[int], with_unseen: bool) -> list[str]:
        """Conditions for the known values ``codes`` (and, ``with_unseen``, values never seen in
        training). NOT IN and IN are false on NULL, as needed."""
        if with_unseen:
            rest = sorted(set(range(len(cats))) - set(codes))
            if not rest:
                return [f"{col} IS NOT NULL"]
            return [f"{col} NOT IN ({', '.join(literal(cats[k]) for k in rest)})"]
        if not codes:
            return []
        if len(codes) == 1:
            return [f"{col} = {literal(cats[codes[0]])}"]
        return [f"{col} IN ({', '.join(literal(cats[k]) for k in codes)})"]

    def guarded(self, values: str, status: tuple) -> str:
        """``values`` and the surrogate cascades of ``status``."""
        if status == ALWAYS:
            return values
        return conjunction([grouped(values)] + [self.cascade(n, b) for n, b in status])

    def kept(self, status):
        """The steps of ``status`` that decide whether a row passes: all of them in ``Tree.apply``'s
        walk (surrogate cascades), none in C4.5's (its steps weigh a row, ``weight``, but let it
        pass)."""
        if status is NEVER or not self.walker.fractional:
            return status
        return ALWAYS

    # ------------------------------------------------------------------ surrogates
    def cascade(self, node: int, branch: int) -> str:
        """True when the surrogates of ``node`` (the first whose value is known and has a branch),
        or else its missing branch, send the row to child slot ``branch`` (-1: stay)."""
        text = self._cascades.get((node, branch))
        if text is None:
            text = self._cascades[(node, branch)] = self.write_cascade(node, branch)
        return text

    def write_cascade(self, node: int, branch: int) -> str:
        t = self.tree
        sur = t.surrogates
        whens = []
        for s in range(int(t.surrogate_offset[node]),
                       int(t.surrogate_offset[node]) + int(t.n_surrogates[node])):
            col = self.columns[int(sur["feature"][s])]
            if sur["kind"][s] == THRESHOLD:
                known = f"{col} IS NOT NULL"
                thr = self.number(sur["threshold"][s])
                left = int(sur["left_branch"][s])
                says = (f"{col} <= {thr}" if branch == left else
                        f"{col} > {thr}" if branch == 1 - left else "FALSE")
            else:
                f = int(sur["feature"][s])
                cats = self.schema.categories[f]
                off = int(sur["pool_offset"][s])
                slots = t.pool[off: off + int(t.n_categories[f])]
                with_branch = np.flatnonzero(slots >= 0).tolist()
                if not with_branch:
                    continue  # this surrogate never decides
                known = self.values(col, cats, with_branch, False)[0]
                goes = np.flatnonzero(slots == branch).tolist() if branch >= 0 else []
                says = self.values(col, cats, goes, False)[0] if goes else "FALSE"
            whens.append(f"WHEN {known} THEN {says}")
        fallback = "TRUE" if max(int(t.missing_branch[node]), -1) == branch else "FALSE"
        if not whens:
            return fallback
        return f"CASE {' '.join(whens)} ELSE {fallback} END"

    # ------------------------------------------------------------------ C4.5's probabilities
    def fractional_probabilities(self, classes) -> list[tuple[str, str]]:
        """(column, expression) per class: sum over ends, in the order C4.5's prediction walks them
        (depth first, last branch first), of [the row reaches the end] x weight x distribution."""
        t = self.tree
        dist = t.distribution()
        ends = [e for e in self.walker.ends(stops=True, steps=True, right_to_left=True)
                if e.reachable]
        reach = [self.path(e) for e in ends]
        weight = [self.weight(e) for e in ends]
        columns = []
        for k, c in enumerate(classes):
            terms = []
            for e, r, w in zip(ends, reach, weight, strict=True):
                v = dist[e.node, k]
                if v == 0.0:
                    continue  # adds +0.0: the sum is unchanged
                value = self.number(v) if w is None else f"{w} * {self.number(v)}"
                terms.append(value if r == "TRUE" else f"CASE WHEN {r} THEN {value} ELSE 0.0 END")
            columns.append((f"P({_label_text(c)})", " +\n".join(terms) if terms else "0.0"))
        return columns

    def weight(self, end) -> str | None:
        """The product of the fractions r_v of the branches a row missing the tested value takes
        on the way to ``end`` (1 for a known value), in path order as the prediction multiplies
        them; None when no step of the path is fractional."""
        t = self.tree
        factors = []
        for node, branch in end.steps:
            if branch < 0 or t.missing_branch[node] != MISSING_FRACTIONAL:
                continue
            col = self.columns[int(t.feature[node])]
            r = self.number(t.branch_fraction[int(t.first_child[node]) + branch])
            factors.append(f"CASE WHEN {col} IS NULL THEN {r} ELSE 1.0 END")
        return " * ".join(factors) if factors else None
