"""Targets and weights: class labels -> codes, regression targets, sample weights."""

from __future__ import annotations

import numbers
import sys
import warnings

import numpy as np

from .tables import is_pandas
from .values import is_missing, refuse_bools_and_numbers


def encode_target(y, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Class labels -> (classes, codes). Labels of any hashable type come back unchanged.

    ``classes`` is sorted when the labels can be ordered (as scikit-learn does); labels of mixed
    types (say strings and numbers) are ordered by type name, then value. Nothing is converted:
    a list mixing ``"a"`` and ``1`` keeps both as they are (numpy alone would turn 1 into "1").
    """
    y = _labels_1d(y)
    if y.dtype == object:  # True == 1: they would be one class
        refuse_bools_and_numbers(y, "y")
    if len(y) != n_rows:
        raise ValueError(
            f"X and y have different numbers of rows: {n_rows} and {len(y)}."
        )
    if y.dtype.kind in "OUS":
        for i, v in enumerate(y):
            try:
                hash(v)
            except TypeError:
                raise TypeError(
                    f"y: row {i} holds an unhashable label of type {type(v).__name__!r}; class "
                    "labels must be strings, numbers or other hashable values."
                ) from None
    missing = _missing_labels(y)
    if np.any(missing):
        raise ValueError(_missing_target_message(np.flatnonzero(missing), len(y), "label",
                                                 "a class label"))
    numbers = _check_discrete(y)
    try:
        classes, codes = sorted_labels(y)
    except TypeError:  # labels of mixed types, which numpy cannot sort
        import pandas as pd

        classes = _ordered_mixed(pd.unique(y))
        codes = pd.Index(classes, dtype=object).get_indexer(y)
    if numbers:
        _warn_if_continuous(len(y), len(classes))
    return classes, codes.astype(np.int64).ravel()


def _missing_target_message(rows: np.ndarray, n: int, noun: str, what: str) -> str:
    """How many rows of y are missing, which, and how to leave them out (rpart drops them; a
    fit here does not, so that the rows fitted are the rows given)."""
    shown = ", ".join(map(str, rows[:5].tolist())) + (", ..." if len(rows) > 5 else "")
    return (f"y has {len(rows)} missing {noun}(s) of {n} (rows {shown}); every row needs "
            f"{what}: leave those rows out first, e.g. keep = y.notna() (pandas) or "
            f"~np.isnan(y), then fit(X[keep], y[keep]).")


def sorted_labels(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(y, return_inverse=True)``: the distinct labels ascending and each row's index
    among them. Integer labels spanning a short range are counted (``np.bincount``: one pass,
    where the sort is n log n; 2 ms of a 0.25 s fit at 10^5 rows)."""
    if y.dtype.kind in "iu" and y.ndim == 1 and len(y) > 0:
        lo = int(y.min())
        span = int(y.max()) - lo  # Python integers: no overflow
        if span <= 4 * len(y) + 1024:
            # y - lo in a 64-bit type: every value is >= lo and the span is short, so it fits;
            # narrower types are widened first (an int8 127 - -128 would wrap around)
            wide = y if y.dtype.itemsize == 8 else y.astype(np.int64)
            offset = (wide - wide.dtype.type(lo)).astype(np.intp)
            present = np.flatnonzero(np.bincount(offset, minlength=span + 1))
            rank = np.zeros(span + 1, dtype=np.intp)
            rank[present] = np.arange(len(present))
            classes = present.astype(wide.dtype) + wide.dtype.type(lo)
            return classes.astype(y.dtype), rank[offset]
    return np.unique(y, return_inverse=True)


def _missing_labels(y: np.ndarray) -> np.ndarray:
    """Which labels are missing: NaN, NaT, None (and pd.NA, Decimal NaN) -- what ``pd.isna``
    finds, asking pandas only when it is already imported."""
    if y.dtype.kind in "fc":
        return np.isnan(y)
    if y.dtype.kind in "mM":
        return np.isnat(y)
    if y.dtype.kind != "O":
        return np.zeros(len(y), dtype=bool)
    if "pandas" in sys.modules:
        return sys.modules["pandas"].isna(y)
    return np.array([is_missing(v) or _is_not_a_time(v) or _is_decimal_nan(v) for v in y],
                    dtype=bool)


def _is_not_a_time(v) -> bool:
    return isinstance(v, (np.datetime64, np.timedelta64)) and bool(np.isnat(v))


def _is_decimal_nan(v) -> bool:
    decimal = sys.modules.get("decimal")  # a Decimal exists only once decimal is imported
    return decimal is not None and isinstance(v, decimal.Decimal) and v.is_nan()


def _labels_1d(y) -> np.ndarray:
    """y as a 1-D numpy array holding the user's own label values."""
    if is_pandas(y, "Series", "DataFrame"):
        y = y.to_numpy()
    elif not isinstance(y, np.ndarray):
        y = _list_to_array(y)
    return column_or_1d(y)


def column_or_1d(y) -> np.ndarray:
    """y as a 1-D array: a column vector (n, 1) is flattened with scikit-learn's
    DataConversionWarning, any other shape but (n,) is an error."""
    y = np.asarray(y)
    if y.ndim == 1:
        return np.ascontiguousarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        from sklearn.exceptions import DataConversionWarning  # only on this rare path

        warnings.warn("A column-vector y was passed when a 1d array was expected. Please change "
                      "the shape of y to (n_samples, ), for example using ravel().",
                      DataConversionWarning, stacklevel=3)
        return np.ascontiguousarray(y.ravel())
    raise ValueError(f"y should be a 1d array, got an array of shape {y.shape} instead.")


def _label_family(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, numbers.Integral):
        return "int"
    if isinstance(v, numbers.Real):
        return "float"
    if isinstance(v, str):
        return "str"
    return type(v).__name__


def _list_to_array(y) -> np.ndarray:
    """A list (or other sequence) of labels as an array without converting any label: numpy
    would turn ``["a", 1]`` into two strings and ``[True, 2]`` into two integers."""
    cells = np.asarray(y, dtype=object)
    families = {_label_family(v) for v in cells.ravel()}
    if len(families) <= 1 or families <= {"int", "float"}:
        try:
            return np.asarray(y)
        except (TypeError, ValueError):
            pass
    return cells


def _check_discrete(y: np.ndarray) -> bool:
    """Refuse a continuous (regression) target; any non-numeric hashable labels are fine.
    Returns whether the many-classes warning applies (not to objects other than numbers)."""
    if y.dtype.kind == "O":
        if not all(_label_family(v) in ("int", "float") for v in y):
            return False  # strings, booleans, mixed or other objects: discrete by nature
        y = np.array(y.tolist())
    if y.dtype.kind == "c":
        raise ValueError("Complex data not supported in y.")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):  # NaN was refused before
        raise ValueError(f"Input y contains infinity or a value too large for dtype({y.dtype.name!r}).")
    fraction = y.dtype.kind == "f" and np.flatnonzero(y != np.trunc(y))
    if y.dtype.kind == "f" and len(fraction):
        # scikit-learn's message first (its estimator checks look for "Unknown label type"),
        # then the fix
        raise ValueError("Unknown label type: continuous. Maybe you are trying to fit a "
                         "classifier, which expects discrete classes on a regression target "
                         f"with continuous values: y holds numbers with fractions (such as "
                         f"{float(y[fraction[0]])!r}); CARTRegressor learns a numeric target.")
    return True


def _warn_if_continuous(n: int, n_classes: int) -> None:
    """Warn when more than half of n labels are distinct classes (scikit-learn's warning)."""
    if n > 20 and n_classes > round(0.5 * n):
        warnings.warn("The number of unique classes is greater than 50% of the number of "
                      "samples. `y` could represent a regression problem, not a "
                      "classification problem.", UserWarning, stacklevel=4)


def _ordered_mixed(labels) -> np.ndarray:
    """Labels of mixed types, ordered by (type name, value), or first appearance when even that
    fails; always an object array."""
    labels = list(labels)
    try:
        labels = sorted(labels, key=lambda v: (_label_family(v), v))
    except TypeError:
        pass
    out = np.empty(len(labels), dtype=object)
    out[:] = labels
    return out


def check_sample_weight(sample_weight, n_rows: int) -> np.ndarray:
    """Sample weights as float64, finite and non-negative, one per row (ones when None)."""
    if sample_weight is None:
        return np.ones(n_rows, dtype=np.float64)
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("sample_weight must hold numbers, one non-negative weight per row.") from None
    if w.ndim == 0:
        w = np.full(n_rows, float(w))
    if w.ndim != 1 or len(w) != n_rows:
        raise ValueError(
            f"sample_weight.shape == {w.shape}, expected ({n_rows},): one weight per row."
        )
    if not np.all(np.isfinite(w)):
        raise ValueError("sample_weight contains NaN or infinity.")
    if np.any(w < 0):
        raise ValueError("Negative values in data passed to sample_weight.")
    with np.errstate(over="ignore"):  # an infinite sum is the fit's to refuse, with its limit
        if w.sum() <= 0:
            raise ValueError("sample_weight sums to zero; at least one row needs a positive weight.")
    return w


def encode_fit_target(y, n_rows: int, regression: bool):
    """(classes, codes) of class labels (``encode_target``), or (None, float64 targets) for a
    regressor: finite numbers, one per row."""
    if not regression:
        return encode_target(y, n_rows)
    if hasattr(y, "to_numpy"):
        y = y.to_numpy()
    y = column_or_1d(y)
    if len(y) != n_rows:
        raise ValueError(f"X and y have different numbers of rows: {n_rows} and {len(y)}.")
    try:
        y = y.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError("y must be numeric for a regressor.") from None
    if np.isnan(y).any():
        raise ValueError(_missing_target_message(np.flatnonzero(np.isnan(y)), len(y), "value",
                                                 "a finite target"))
    if not np.all(np.isfinite(y)):
        rows = np.flatnonzero(~np.isfinite(y))
        raise ValueError(f"y holds infinity in {len(rows)} row(s) (rows {rows[:5].tolist()}); "
                         f"every row needs a finite target.")
    return None, y


def encode_validation_target(y_val, classes, n_rows: int) -> np.ndarray:
    """Validation targets: codes of the training ``classes`` (a label absent from training is an
    error), or, when ``classes`` is None (a regressor), finite float64 values."""
    regression = classes is None
    try:
        y_val = np.asarray(y_val.to_numpy() if hasattr(y_val, "to_numpy") else y_val,
                           dtype=np.float64 if regression else object).ravel()
    except (TypeError, ValueError):
        raise ValueError("y_val must be numeric for a regressor.") from None
    if len(y_val) != n_rows:
        raise ValueError(f"X_val and y_val have different numbers of rows: {n_rows} and "
                         f"{len(y_val)}.")
    if regression:
        if not np.all(np.isfinite(y_val)):
            raise ValueError("y_val contains NaN or infinity; every validation row needs a "
                             "finite target.")
        return y_val
    index = {c: i for i, c in enumerate(classes.tolist())}
    unknown = [v for v in y_val if v not in index]
    if unknown:
        raise ValueError(f"y_val holds the label {unknown[0]!r}, absent from the training y.")
    return np.array([index[v] for v in y_val], dtype=np.int64)


def class_weighted(w: np.ndarray, codes: np.ndarray, class_weight, classes: np.ndarray,
                   name: str = "class_weight") -> np.ndarray:
    """Sample weights times class weights, as scikit-learn's: "balanced" gives class k the weight
    n / (K n_k); a dict {label: weight} gives its labels their weight and every other class 1;
    None leaves ``w`` unchanged. ``codes`` index ``classes``."""
    if class_weight is None:
        return w
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise ValueError(f'{name} must be None, "balanced" or a dict {{class label: '
                             f'weight}}, got {class_weight!r}.')
        counts = np.bincount(codes, minlength=len(classes)).astype(np.float64)
        present = counts > 0
        per_class = np.ones(len(classes))
        per_class[present] = len(codes) / (present.sum() * counts[present])
        return w * per_class[codes]
    if not isinstance(class_weight, dict):
        raise ValueError(f'{name} must be None, "balanced" or a dict {{class label: weight}}, '
                         f"got {type(class_weight).__name__}.")
    index = {label: k for k, label in enumerate(classes.tolist())}
    per_class = np.ones(len(classes))
    for label, weight in class_weight.items():
        k = index.get(label.item() if isinstance(label, np.generic) else label)
        if k is None:
            shown = ", ".join(map(repr, classes.tolist()[:12]))
            raise ValueError(f"{name} names the class {label!r}, which y does not hold "
                             f"(its classes: {shown}).")
        if (isinstance(weight, bool) or not isinstance(weight, (int, float, np.number))
                or not np.isfinite(weight) or weight < 0):
            raise ValueError(f"{name}[{label!r}] must be a finite number >= 0, got {weight!r}.")
        per_class[k] = float(weight)
    return w * per_class[codes]


def declared_order(y) -> list | None:
    """The categories of a pandas categorical ``y`` (a Series of dtype category, or a
    ``pd.Categorical``) in their declared order; None for any other ``y``."""
    pd = sys.modules.get("pandas")  # a pandas categorical exists only once pandas is imported
    if pd is None or not isinstance(getattr(y, "dtype", None), pd.CategoricalDtype):
        return None
    return list(y.dtype.categories)


def class_priority(classes: np.ndarray, order, what: str = "class_order") -> np.ndarray:
    """Indices into ``classes`` ranked by ``order``, a sequence of labels that lists every class
    (labels that are not classes are skipped): ``classes[result[0]]`` comes first in ``order``.
    ``what`` names the parameter in errors."""
    if isinstance(order, (str, bytes)) or not hasattr(order, "__iter__"):
        raise ValueError(f"{what} must be None or a sequence of class labels, got {order!r}.")
    index = {label: i for i, label in enumerate(classes.tolist())}
    ranked, seen = [], set()
    for label in (order.tolist() if isinstance(order, np.ndarray) else list(order)):
        try:
            code = index.get(label)
        except TypeError:  # an unhashable label
            raise ValueError(f"{what} holds {label!r}, which is not a class label.") from None
        if label in seen:
            raise ValueError(f"{what} lists the label {label!r} twice.")
        seen.add(label)
        if code is not None:
            ranked.append(code)
    if len(ranked) < len(classes):
        absent = [c for i, c in enumerate(classes.tolist()) if i not in set(ranked)]
        raise ValueError(f"{what} must list every class of y; it leaves out {absent[:5]!r}"
                         f"{'...' if len(absent) > 5 else ''}.")
    return np.array(ranked, dtype=np.int64)
