"""A fitted tree as rules: one "if <tests> then <class or value>" per leaf, most supported first.

The tests of a leaf's path are merged per feature (``paths``): repeated thresholds on one feature
read as one interval, "2.5 < x <= 4.1"; repeated subset tests as one set, "c in {a, b}" (or
"c not in {d}" when values unseen in training go that way too). How a missing value is routed is
said where it matters: "or x missing" when it always follows this path, "(if missing: surrogates
z, w decide)" when CART's surrogate splits decide (tried in order, then the larger child; at a
subset test a category without a branch there, or unseen in training, is routed the same way). For C4.5, whose
missing values go down every branch by weight, one note above the rules says so.

Support is what the tree recorded at the leaf from the training data: the rows that reached it
(``n_node_samples``; C4.5 counts a row that reached it with part of its weight) and their weight
(``weighted_n_node_samples``). Confidence is the share of the predicted class in the leaf's class
counts; for regression the leaf's standard deviation (the square root of its squared-error
impurity) is given instead. A branch that no training row reached (ID3, C4.5) has support 0 and
the confidence of its parent's distribution, which it predicts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._base import check_is_fitted
from .._config import LEAF, MISSING_FRACTIONAL, MISSING_STOP, MULTIWAY
from ..tree.majority import node_classes
from .paths import ALWAYS, NEVER, Interval, PathWalker
from .text import check_show_missing, clean, shown_values

if TYPE_CHECKING:
    import pandas as pd

    from .._typing import Model


def export_rules(model: Model, *, as_frame: bool = False, decimals: int = 3,
                 show_missing: str = "auto") -> str | pd.DataFrame:
    """One rule per leaf, sorted by support (training weight, then node number).

    Text by default; with ``as_frame`` a pandas DataFrame with columns ``rule``, ``conditions``
    (the list of tests), ``prediction``, ``n_rows``, ``weight``, ``confidence`` (classifiers) or
    ``std`` (regressors), and ``node`` (the leaf, as ``apply`` numbers it). ``decimals`` rounds
    the numbers of the text and of the tests. ``show_missing``: "auto" (default) says how a
    missing value is routed only for columns that had missing cells in training; "all" for
    every column."""
    check_is_fitted(model, ["tree_", "schema_"])
    check_show_missing(show_missing)
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)) or decimals < 0:
        raise ValueError(f"decimals must be an integer >= 0, got {decimals!r}.")
    writer = _RuleWriter(model, int(decimals), show_missing)
    rules = writer.rules()
    if as_frame:
        import pandas as pd  # the frame is asked for; rootwise itself does not import pandas

        return pd.DataFrame(rules, columns=["rule", "conditions", "prediction", "n_rows", "weight",
                                            writer.quality, "node"])
    return writer.text(rules)


class _RuleWriter:
    def __init__(self, model, decimals: int, show_missing: str = "auto"):
        self.tree = model.tree_
        self.schema = model.schema_
        self.show_all = show_missing == "all"
        self.classes = getattr(model, "classes_", None)
        self.majority = None if self.classes is None else node_classes(model)  # ties as predict
        self.class_texts = None if self.classes is None else shown_values(self.classes)
        self._category_texts: dict[int, list[str]] = {}
        self.decimals = decimals
        self.quality = "std" if self.classes is None else "confidence"
        # a classifier with fractional splits predicts as C4.5 (a regressor walks as Tree.apply)
        split = self.tree.kind != LEAF
        self.fractional = self.classes is not None and bool(
            np.any(self.tree.missing_branch[split] == MISSING_FRACTIONAL))

    # ------------------------------------------------------------------ the rules
    def rules(self) -> list[dict]:
        t = self.tree
        walker = PathWalker(t, "fractional" if self.fractional else "route")
        out = []
        for end in walker.ends():
            node = end.node
            conditions = [self.condition(c) for c in end.conditions]
            prediction, quality = self.outcome(node)
            head = (" and ".join(f"({c})" if " or " in c and len(conditions) > 1 else c
                                 for c in conditions) if conditions else "true")
            out.append({"rule": f"if {head} then {self.prediction_text(node, prediction)}",
                        "conditions": conditions, "prediction": prediction,
                        "n_rows": int(t.n_node_samples[node]),
                        "weight": float(t.weighted_n_node_samples[node]),
                        self.quality: quality, "node": node})
        out.sort(key=lambda r: (-r["weight"], r["node"]))
        return out

    def outcome(self, node: int):
        """(prediction, confidence or std) of a leaf."""
        value = self.tree.value[node]
        if self.classes is None:
            return float(value[0]), float(np.sqrt(max(self.tree.impurity[node], 0.0)))
        k = int(self.majority[node])
        total = float(value.sum())
        label_k = self.classes[k]
        label_k = label_k.item() if isinstance(label_k, np.generic) else label_k
        return label_k, (float(value[k]) / total if total > 0 else float("nan"))

    def text(self, rules: list[dict]) -> str:
        n = len(rules)
        what = "class" if self.classes is not None else "value"
        lines = [f"{n} rule{'s' if n != 1 else ''}, one per leaf, most supported first "
                 f"[training rows, weight, {self.quality}]; each gives the predicted {what}."]
        if self.fractional and (self.show_all or any(
                self.schema.had_missing(int(f)) for f in self.tree.feature[self.tree.kind != LEAF])):
            lines.append("A row missing a tested value goes down every branch with weight r_v "
                         "(the branch's share of the known training weight), and the predictions "
                         "of the rules it reaches are added up by weight.")
        width = len(str(n))
        for i, r in enumerate(rules, 1):
            lines.append(f"{i:>{width}}. {r['rule']}  [rows {r['n_rows']}, weight "
                         f"{self.number(r['weight'])}, {self.quality} "
                         f"{self.number(r[self.quality])}]")
        if self.has_stops():
            lines.append(f"A row that stops at a split node (a missing value the node does not "
                         f"route, or a category it has no branch for) gets that node's {what}.")
        return "\n".join(lines) + "\n"

    def has_stops(self) -> bool:
        t = self.tree
        split = t.kind != LEAF
        return bool(np.any(t.kind[split] == MULTIWAY) or np.any(t.missing_branch[split] == MISSING_STOP))

    # ------------------------------------------------------------------ words
    def number(self, v) -> str:
        """Rounded to ``decimals`` digits, without trailing zeros."""
        v = float(v)
        if not np.isfinite(v):
            return str(v)
        if v.is_integer():
            return str(int(v))
        text = f"{v:.{self.decimals}f}"
        return text.rstrip("0").rstrip(".") if "." in text else text

    def prediction_text(self, node: int, prediction) -> str:
        return self.number(prediction) if self.classes is None else \
            self.class_texts[int(self.majority[node])]

    def categories(self, feature: int) -> list[str]:
        """The feature's categories as printed (quoting depends on all of them: ``shown_values``)."""
        texts = self._category_texts.get(feature)
        if texts is None:
            texts = self._category_texts[feature] = shown_values(self.schema.categories[feature])
        return texts

    def name(self, feature: int) -> str:
        return clean(str(self.schema.feature_names[feature]))

    def condition(self, c) -> str:
        name = self.name(c.feature)
        if isinstance(c, Interval):
            if not c.known:
                known = None
            elif c.lo > -np.inf and c.hi < np.inf:
                known = f"{self.number(c.lo)} < {name} <= {self.number(c.hi)}"
            elif c.hi < np.inf:
                known = f"{name} <= {self.number(c.hi)}"
            elif c.lo > -np.inf:
                known = f"{name} > {self.number(c.lo)}"
            else:
                known = f"{name} known"
            return self.with_missing(c.feature, known, c.missing, [])
        cats = self.schema.categories[c.feature]
        shown = self.categories(c.feature)
        always = [k for k, s in enumerate(c.codes) if s == ALWAYS]
        decided = [s for s in (*c.codes, c.other) if s not in (NEVER, ALWAYS)]
        if c.other == ALWAYS:
            rest = [k for k in range(len(cats)) if k not in set(always)]
            known = (f"{name} not in {{{', '.join(shown[k] for k in rest)}}}" if rest
                     else f"{name} known")
        elif len(always) == 1:
            known = f"{name} = {shown[always[0]]}"
        elif always:
            known = f"{name} in {{{', '.join(shown[k] for k in always)}}}"
        else:
            known = None
        return self.with_missing(c.feature, known, c.missing, decided)

    def with_missing(self, feature: int, known: str | None, missing, decided: list) -> str:
        """The test of known values and what happens to a missing value (at a CART subset test,
        also to a category without a branch there, which is routed as a missing one). Said only
        for a column that had missing cells in training, unless ``show_missing="all"``."""
        name = self.name(feature)
        if known is not None and not (self.show_all or self.schema.had_missing(feature)):
            return known
        # the steps of C4.5's walk weigh a row (said once, above the rules); the others are
        # surrogate cascades
        steps = [] if self.fractional else [
            s for status in (*decided, missing) if status not in (NEVER, ALWAYS) for s in status]
        surrogates = f"surrogates {self.surrogate_names(steps)}" if steps else ""
        if known is None:
            if missing == ALWAYS:
                return f"{name} missing"
            if surrogates:
                return f"{name} missing and {surrogates} send it this way"
            return f"{name} missing" if missing is not NEVER else f"{name}: no value"
        if missing == ALWAYS:
            known = f"{known} or {name} missing"
        return f"{known} (if missing: {surrogates} decide)" if surrogates else known

    def surrogate_names(self, steps) -> str:
        t = self.tree
        names: list[str] = []
        for node, _ in steps:
            lo = int(t.surrogate_offset[node])
            for s in range(lo, lo + int(t.n_surrogates[node])):
                n = self.name(int(t.surrogates["feature"][s]))
                if n not in names:
                    names.append(n)
        return ", ".join(names)
