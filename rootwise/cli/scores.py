"""How well a model predicts a table: the numbers of evaluate, cv and fit, and their printout.

Classification: accuracy, Cohen's kappa, per class precision = TP / (TP + FP), recall =
TP / (TP + FN) and F1 = 2 TP / (2 TP + FP + FN) (0 where the denominator is 0), their plain
(macro) and support-weighted means, and the confusion matrix, all over the classes that occur
among the true or the predicted labels. Regression: RMSE, MAE and R^2 = 1 - SS_res / SS_tot (1 for
a perfect fit of a constant target, else 0 when the target is constant).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rootwise import _layout


def _key(v) -> str:
    """A label as text, so that 1, 1.0 and "1" (a CSV cell) name one class."""
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v)


def _codes(values, classes: list) -> tuple[np.ndarray, list]:
    """Codes of ``values`` in ``classes`` (matched as they are, else as text); labels not among
    ``classes`` are appended. Returns the codes and the extended class list."""
    classes = list(classes)
    values = pd.Series(np.asarray(values, dtype=object))
    codes = pd.Index(classes, dtype=object).get_indexer(values)
    if (codes < 0).any():
        keys = [_key(c) for c in classes]
        lookup = {k: i for i, k in reversed(list(enumerate(keys)))}
        for i in np.flatnonzero(codes < 0):
            k = _key(values.iloc[i])
            if k not in lookup:
                lookup[k] = len(classes)
                classes.append(values.iloc[i])
            codes[i] = lookup[k]
    return codes, classes


def classification(y_true, y_pred, classes) -> dict:
    """The classification scores as plain data (JSON-ready)."""
    pred, labels = _codes(y_pred, classes)
    true, labels = _codes(y_true, labels)
    k = len(labels)
    full = np.bincount(true * k + pred, minlength=k * k).reshape(k, k)
    present = np.flatnonzero(full.sum(axis=0) + full.sum(axis=1) > 0)
    matrix = full[np.ix_(present, present)]
    tp = np.diag(matrix).astype(float)
    predicted = matrix.sum(axis=0).astype(float)
    support = matrix.sum(axis=1).astype(float)
    precision = np.divide(tp, predicted, out=np.zeros_like(tp), where=predicted > 0)
    recall = np.divide(tp, support, out=np.zeros_like(tp), where=support > 0)
    f1_den = predicted + support
    f1 = np.divide(2 * tp, f1_den, out=np.zeros_like(tp), where=f1_den > 0)
    n = int(matrix.sum())
    accuracy = float(tp.sum() / n)
    expected = float((predicted * support).sum() / n**2)
    kappa = 0.0 if expected == 1 else (accuracy - expected) / (1 - expected)
    weights = support / n
    per_class = [{"class": _key(labels[c]), "precision": float(p), "recall": float(r),
                  "f1": float(f), "support": int(s)}
                 for c, p, r, f, s in zip(present, precision, recall, f1, support, strict=True)]
    return {
        "rows": n,
        "correct": int(tp.sum()),
        "accuracy": accuracy,
        "kappa": float(kappa),
        "classes": per_class,
        "macro_avg": {"precision": float(precision.mean()), "recall": float(recall.mean()),
                      "f1": float(f1.mean())},
        "weighted_avg": {"precision": float(precision @ weights), "recall": float(recall @ weights),
                         "f1": float(f1 @ weights)},
        "confusion_matrix": {"labels": [_key(labels[c]) for c in present],
                             "matrix": matrix.tolist()},
    }


def regression(y_true, y_pred) -> dict:
    y = np.asarray(y_true, dtype=np.float64)
    p = np.asarray(y_pred, dtype=np.float64)
    residual = y - p
    ss_res = float(residual @ residual)
    centred = y - y.mean()
    ss_tot = float(centred @ centred)
    if ss_tot > 0:
        r2 = 1.0 - ss_res / ss_tot
    else:
        r2 = 1.0 if ss_res == 0 else 0.0
    return {"rows": int(len(y)), "rmse": float(np.sqrt(ss_res / len(y))),
            "mae": float(np.abs(residual).mean()), "r2": float(r2)}


# --------------------------------------------------------------------------- text


def width(text: str) -> int:
    """Columns ``text`` takes in a terminal (East Asian wide characters take two)."""
    return _layout.width(text)


def table(rows: list[list[str]], right: set[int] = frozenset(), limit: int | None = None) -> str:
    """Rows of cells as aligned columns, two spaces apart (``right``: right-aligned columns);
    wider than ``limit`` columns, cut into blocks that each start with the first column."""
    return _layout.table(rows, right, limit)


def fmt(v: float, digits: int) -> str:
    return f"{v:.{digits}f}"


def format_classification(s: dict, digits: int = 3, limit: int | None = None) -> str:
    """Accuracy, kappa, the per-class table and the confusion matrix (``limit``: the width
    tables are cut to; None keeps them whole)."""
    out = [f"accuracy  {fmt(s['accuracy'], digits)}  ({s['correct']} of {s['rows']} rows)",
           f"kappa     {fmt(s['kappa'], digits)}", ""]
    rows = [["class", "precision", "recall", "F1", "support"]]
    for c in s["classes"]:
        rows.append([c["class"], fmt(c["precision"], digits), fmt(c["recall"], digits),
                     fmt(c["f1"], digits), str(c["support"])])
    for name, key in (("macro avg", "macro_avg"), ("weighted avg", "weighted_avg")):
        a = s[key]
        rows.append([name, fmt(a["precision"], digits), fmt(a["recall"], digits),
                     fmt(a["f1"], digits), str(s["rows"])])
    out += [table(rows, right={1, 2, 3, 4}, limit=limit), "",
            format_confusion(s["confusion_matrix"], limit)]
    return "\n".join(out) + "\n"


def format_confusion(cm: dict, limit: int | None = None) -> str:
    """Rows: true class, columns: predicted class. Short labels head their columns; longer ones
    are lettered, as Weka does, with the letters' meaning on each row."""
    labels, matrix = cm["labels"], cm["matrix"]
    short = all(width(label) <= 8 for label in labels)
    names = labels if short else [_letters(i) for i in range(len(labels))]
    head = [""] + names
    rows = [head] + [[names[i]] + [str(v) for v in row] for i, row in enumerate(matrix)]
    if not short:
        head.append("")
        for i, label in enumerate(labels):
            rows[i + 1].append(f"{names[i]} = {label}")
    text = table(rows, right=set(range(1, len(labels) + 1)), limit=limit)
    return "confusion matrix (rows: true class, columns: predicted)\n" + text


def _letters(i: int) -> str:
    text = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        text = chr(ord("a") + r) + text
    return text


def format_regression(s: dict, digits: int = 3) -> str:
    return table([["rows", str(s["rows"])], ["RMSE", fmt(s["rmse"], digits)],
                  ["MAE", fmt(s["mae"], digits)], ["R²", fmt(s["r2"], digits)]]) + "\n"


def one_line(s: dict, digits: int = 3) -> str:
    """The headline of a score dict: accuracy, or R^2 / RMSE / MAE."""
    if "accuracy" in s:
        return f"accuracy {fmt(s['accuracy'], digits)} ({s['correct']} of {s['rows']} rows)"
    return (f"R² {fmt(s['r2'], digits)}, RMSE {fmt(s['rmse'], digits)}, "
            f"MAE {fmt(s['mae'], digits)} ({s['rows']} rows)")
