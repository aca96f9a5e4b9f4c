"""User input -> the engine's encoded matrix, and back.

Every table the user hands in (DataFrame, numpy array, list of rows) becomes one float64 matrix:
continuous columns hold their values, categorical columns hold category codes 0..k-1; NaN marks a
missing cell in both kinds and ``UNSEEN_CODE`` a category never seen in training. The ``Schema``
remembers names, kinds and categories so that prediction-time tables are encoded the same way.

A numeric numpy matrix is encoded with numpy alone: pandas (0.3 s to import) is imported only for
the inputs that need it, DataFrames (the caller has imported pandas then), lists of rows and
object arrays, whose columns need pandas' type inference.
"""

from __future__ import annotations

import numbers
import sys
import warnings
from dataclasses import dataclass

import numpy as np

from ._config import CATEGORICAL, CONTINUOUS, UNSEEN_CODE, X_DTYPE


@dataclass(frozen=True)
class Schema:
    """What fit saw: column names, kinds (CONTINUOUS / CATEGORICAL) and each categorical column's
    categories in code order (``None`` for a continuous column)."""

    feature_names: tuple
    kinds: tuple
    categories: tuple
    names_from_input: bool  # True when fit got a DataFrame with string column names

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    @property
    def n_categories(self) -> np.ndarray:
        """Number of categories per column (0 for continuous columns)."""
        return np.array([0 if c is None else len(c) for c in self.categories], dtype=np.int64)

    @property
    def kinds_array(self) -> np.ndarray:
        return np.array(self.kinds, dtype=np.int64)

    def category_label(self, feature: int, code: int):
        return self.categories[feature][code]


# --------------------------------------------------------------------------- tables


def is_pandas(obj, *kinds: str) -> bool:
    """Whether ``obj`` is a pandas object of one of ``kinds`` ("DataFrame", "Series"). Without
    pandas in ``sys.modules`` nothing can be one, and pandas is not imported to find out."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(obj, tuple(getattr(pd, k) for k in kinds))


def is_numeric_matrix(X) -> bool:
    """A 2-D numpy array of numbers (float, int, unsigned): encoded without pandas."""
    return isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "fiu"


def as_table(X, *, what: str = "X"):
    """Any 2-D table -> a numeric numpy matrix (as given) or a DataFrame (everything else), with
    clear errors for shapes rootwise cannot take."""
    if is_numeric_matrix(X):
        X = np.asarray(X)  # a subclass (np.matrix) indexes columns differently
        _check_shape(X.shape, what)
        return X
    return as_frame(X, what=what)


def _check_shape(shape: tuple, what: str) -> None:
    if shape[0] == 0:
        raise ValueError(
            f"Found array with 0 sample(s) (shape={shape}) while a minimum of 1 is required."
        )
    if shape[1] == 0:
        raise ValueError(
            f"Found array with 0 feature(s) (shape={shape}) while a minimum of 1 is required."
        )


def as_frame(X, *, what: str = "X"):
    """Any 2-D table -> DataFrame, with clear errors for shapes rootwise cannot take."""
    import pandas as pd
    from pandas.api import types as ptypes

    if isinstance(X, pd.DataFrame):
        frame = X
    elif isinstance(X, pd.Series):
        raise ValueError(
            f"Expected 2D array, got a pandas Series for {what}; "
            "use a DataFrame (series.to_frame()) for a single column."
        )
    else:
        if hasattr(X, "toarray") or hasattr(X, "tocsr"):
            raise TypeError(f"{what}: sparse matrices are not supported; pass a dense array.")
        arr = np.asarray(X, dtype=object) if isinstance(X, (list, tuple)) else np.asarray(X)
        if arr.ndim == 1 and arr.dtype == object and len(arr) and all(
            isinstance(row, (list, tuple, np.ndarray)) for row in arr
        ):
            lengths = [len(row) for row in arr]
            i = next(i for i, n in enumerate(lengths) if n != lengths[0])
            raise ValueError(
                f"{what}: rows have different lengths (row 0 has {lengths[0]} values, "
                f"row {i} has {lengths[i]}); every row needs one value per column."
            )
        if arr.ndim != 2:
            raise ValueError(
                f"Expected 2D array, got {arr.ndim}D array instead for {what}. Reshape your data "
                "either using array.reshape(-1, 1) if your data has a single feature or "
                "array.reshape(1, -1) if it contains a single sample."
            )
        if np.iscomplexobj(arr):
            raise ValueError(f"Complex data not supported in {what}.")
        if arr.dtype == object:
            # Lists of rows and object arrays carry no dtypes: numeric columns become numbers.
            # Every missing marker (None, NaN, pd.NA) becomes None first, so that a column of
            # numbers with pd.NA holes is still inferred as numeric.
            holes = pd.isna(arr)
            if holes.any():
                arr = arr.copy()
                arr[holes] = None
            frame = pd.DataFrame(arr).infer_objects()
        else:
            frame = pd.DataFrame(arr, copy=False)  # pandas 3 copies by default: 160 MB at 10^6 x 20
    if frame.ndim != 2:
        raise ValueError(f"{what} must be 2-dimensional.")
    _check_shape(frame.shape, what)
    if frame.columns.has_duplicates:
        dup = frame.columns[frame.columns.duplicated()].unique().tolist()
        raise ValueError(f"{what} has duplicate column names {dup}; every column needs its own name.")
    for col, dtype in frame.dtypes.items():
        if ptypes.is_complex_dtype(dtype):
            raise ValueError(f"Complex data not supported: column {col!r} of {what}.")
    return frame


def input_feature_names(X) -> np.ndarray | None:
    """Column names of a DataFrame whose names are all strings (scikit-learn's convention)."""
    if is_pandas(X, "DataFrame") and len(X.columns) and all(isinstance(c, str) for c in X.columns):
        return np.asarray(X.columns, dtype=object)
    return None


def check_feature_names(fitted: np.ndarray | None, X, estimator_name: str) -> None:
    """Refuse a table whose column names disagree with fit (messages follow scikit-learn's)."""
    given = input_feature_names(X)
    if fitted is None and given is None:
        return
    if fitted is None:
        warnings.warn(
            f"X has feature names, but {estimator_name} was fitted without feature names",
            UserWarning,
            stacklevel=3,
        )
        return
    if given is None:
        warnings.warn(
            f"X does not have valid feature names, but {estimator_name} was fitted with feature "
            "names",
            UserWarning,
            stacklevel=3,
        )
        return
    if len(fitted) == len(given) and np.all(fitted == given):
        return
    message = "The feature names should match those that were passed during fit.\n"
    fitted_set, given_set = set(fitted), set(given)
    unexpected = sorted(given_set - fitted_set)
    missing = sorted(fitted_set - given_set)

    def listing(names):
        shown = "".join(f"- {n}\n" for n in names[:5])
        return shown + ("- ...\n" if len(names) > 5 else "")

    if unexpected:
        message += "Feature names unseen at fit time:\n" + listing(unexpected)
    if missing:
        message += "Feature names seen at fit time, yet now missing:\n" + listing(missing)
    if not unexpected and not missing:
        message += "Feature names must be in the same order as they were in fit.\n"
    raise ValueError(message)


def feature_names_of(frame) -> tuple:
    """The names rootwise uses for the columns (in messages, schema and ``categorical_features``):
    the DataFrame's string column names, otherwise x0, x1, ..."""
    names = input_feature_names(frame)
    return tuple(names) if names is not None else tuple(f"x{i}" for i in range(frame.shape[1]))


# --------------------------------------------------------------------------- schema


def resolve_categorical(frame, categorical_features) -> np.ndarray:
    """Boolean mask of categorical columns from ``categorical_features``.

    ``"auto"``: object, string, category and bool dtypes are categorical, the rest continuous.
    Otherwise a list of column names or indices, or a boolean mask with one entry per column; those
    columns are categorical on top of the dtype-based ones.
    """
    n = frame.shape[1]
    if isinstance(frame, np.ndarray):  # numbers only: nothing is categorical by its dtype
        auto = np.zeros(n, dtype=bool)
    else:
        auto = np.array([_is_categorical_dtype(dtype) for dtype in frame.dtypes], dtype=bool)
    if isinstance(categorical_features, str):
        if categorical_features != "auto":
            raise ValueError(
                "categorical_features must be 'auto', a list of column names or indices, or a "
                f"boolean mask; got {categorical_features!r}."
            )
        return auto
    if categorical_features is None:
        return auto
    given = list(np.asarray(categorical_features, dtype=object).ravel())
    mask = auto.copy()
    if given and all(isinstance(v, (bool, np.bool_)) for v in given):
        if len(given) != n:
            raise ValueError(
                f"categorical_features as a boolean mask needs {n} entries (one per column), "
                f"got {len(given)}."
            )
        return mask | np.array(given, dtype=bool)
    names = list(feature_names_of(frame))
    for v in given:
        if isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)):
            if not -n <= int(v) < n:
                raise ValueError(
                    f"categorical_features: column index {int(v)} is out of range for {n} columns."
                )
            mask[int(v)] = True
        elif isinstance(v, str):
            if v not in names:
                raise ValueError(
                    f"categorical_features: no column named {v!r}; columns are {names}."
                )
            mask[names.index(v)] = True
        else:
            raise ValueError(
                f"categorical_features entries must be column names or indices, got {v!r}."
            )
    return mask


def _is_categorical_dtype(dtype) -> bool:
    import pandas as pd
    from pandas.api import types as ptypes

    return (
        isinstance(dtype, pd.CategoricalDtype)
        or ptypes.is_bool_dtype(dtype)
        or ptypes.is_object_dtype(dtype)
        or ptypes.is_string_dtype(dtype)
    )


def _category_order(series, name: str, sort: bool) -> tuple:
    """Categories of one column: dtype order for pandas categoricals, sorted when ``sort`` (numbers
    treated as categories), otherwise order of first appearance (the order a reader of the table
    sees)."""
    if isinstance(series, np.ndarray):  # a column of a numeric matrix
        present = series[~np.isnan(series)] if series.dtype.kind == "f" else series
        _, first = np.unique(present, return_index=True)
        values = present[np.sort(first)].tolist()  # first appearance; Python scalars
    else:
        import pandas as pd

        if isinstance(series.dtype, pd.CategoricalDtype):
            return tuple(_plain(v) for v in series.cat.categories)
        present = series[~series.isna()]
        try:
            values = pd.unique(present.to_numpy(dtype=object))
        except TypeError:
            _raise_unhashable(series, name)
        values = [_plain(v) for v in values]
    if sort:
        try:
            values = sorted(values)
        except TypeError:
            pass  # mixed types: keep first-appearance order
    return tuple(values)


def _raise_unhashable(series, name):
    for i, v in enumerate(series.to_numpy(dtype=object)):
        try:
            hash(v)
        except TypeError:
            raise TypeError(
                f"column {name!r}, row {i}: argument must be a string or a number, "
                f"not {type(v).__name__!r}."
            ) from None
    raise TypeError(f"column {name!r}: argument must be a string or a number.")


def _plain(v):
    """numpy scalars -> Python scalars, so that categories print and serialise naturally."""
    return v.item() if isinstance(v, np.generic) else v


def _column(table, j: int):
    """Column j of a numeric matrix (1-D array) or of a DataFrame (Series)."""
    return table[:, j] if isinstance(table, np.ndarray) else table.iloc[:, j]


def fit_schema(
    frame, categorical_mask: np.ndarray, *, numeric_as_category: bool = False
) -> Schema:
    """Build the schema of a training table. With ``numeric_as_category`` (ID3) every continuous
    column becomes categorical with its sorted distinct values as categories."""
    names = input_feature_names(frame)
    feature_names = feature_names_of(frame)
    kinds, categories = [], []
    for j in range(frame.shape[1]):
        series = _column(frame, j)
        if categorical_mask[j]:
            kinds.append(CATEGORICAL)
            categories.append(_category_order(series, feature_names[j], sort=False))
        elif numeric_as_category:
            values = _continuous_values(series, feature_names[j])
            kinds.append(CATEGORICAL)
            categories.append(tuple(float(v) for v in np.unique(values[~np.isnan(values)])))
        else:
            kinds.append(CONTINUOUS)
            categories.append(None)
    return Schema(feature_names, tuple(kinds), tuple(categories), names is not None)


def _continuous_values(series, name: str) -> np.ndarray:
    """A continuous column as float64 (NaN = missing); non-numbers and infinities are errors.

    Only numeric dtypes convert directly: strings such as "1.5" are refused rather than parsed,
    and booleans are not numbers here (a bool column is categorical)."""
    if isinstance(series, np.ndarray):  # a column of a numeric matrix
        values = series.astype(np.float64)
    elif _numeric_series(series):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        cells = series.to_numpy(dtype=object)
        for i, v in enumerate(cells):
            if not _is_number_or_missing(v):
                raise ValueError(
                    f"column {name!r} is continuous but row {i} holds the non-numeric value {v!r}; "
                    "list the column in categorical_features to treat it as categorical."
                )
        values = np.array([np.nan if _is_missing(v) else float(v) for v in cells], dtype=np.float64)
    if np.isinf(values).any():
        row = int(np.flatnonzero(np.isinf(values))[0])
        raise ValueError(
            f"Input contains infinity or a value too large for dtype('float64'): column {name!r}, "
            f"row {row}."
        )
    return values


def _is_missing(v) -> bool:
    pd = sys.modules.get("pandas")  # pd.NA exists only once pandas is imported
    return (v is None or (isinstance(v, (float, np.floating)) and np.isnan(v))
            or (pd is not None and v is pd.NA))


def _is_number_or_missing(v) -> bool:
    return _is_missing(v) or (isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)))


def encode(frame, schema: Schema) -> np.ndarray:
    """Encode a table with a fitted schema into the engine's float64 matrix (C order)."""
    if frame.shape[1] != schema.n_features:
        raise ValueError(
            f"X has {frame.shape[1]} features, but the model is expecting {schema.n_features} "
            "features as input."
        )
    out = np.empty(frame.shape, dtype=X_DTYPE)
    for j in range(frame.shape[1]):
        series = _column(frame, j)
        name = schema.feature_names[j]
        cats = schema.categories[j]
        if cats is None:
            out[:, j] = _continuous_values(series, name)
        elif cats and all(isinstance(c, float) for c in cats) and _numeric_series(series):
            # numbers as categories (ID3): look values up in the sorted category list
            values = _continuous_values(series, name)
            out[:, j] = _lookup_sorted(values, np.asarray(cats, dtype=np.float64))
        else:
            out[:, j] = _encode_categorical(series, cats, name)
    return out


def encode_numeric_array(X, schema: Schema, *, check_finite: bool = True) -> np.ndarray | None:
    """The encoded matrix of a numeric ndarray or DataFrame when every column of the schema is
    continuous (it then needs no per-column work), else None. At 10^6 x 20 this takes 0.02 s
    where the general path through a DataFrame takes 0.6 s.

    ``check_finite=False`` is for callers whose kernel finds infinite values itself
    (``Tree.route``): a float64 or float32 matrix in C or Fortran order then comes back as it is,
    without a copy (a DataFrame of numeric columns as its ``to_numpy()``); other numbers become
    float64. With ``check_finite`` the result is float64 in C order and an infinity is refused
    (``raise_infinite``)."""
    if any(k != CONTINUOUS for k in schema.kinds):
        return None
    pd = sys.modules.get("pandas")  # not imported: X cannot be a DataFrame
    if pd is not None and isinstance(X, pd.DataFrame):
        # numpy numeric columns only: nullable and other extension dtypes take the general path
        if X.shape[1] != schema.n_features or not all(
                isinstance(d, np.dtype) and d.kind in "fiu" for d in X.dtypes):
            return None
        X = X.to_numpy()
    if (not isinstance(X, np.ndarray) or X.ndim != 2 or X.dtype.kind not in "fiu"
            or X.shape[1] != schema.n_features or X.shape[0] == 0):
        return None
    if not check_finite:
        if X.dtype in (np.float64, np.float32) and (X.flags.c_contiguous or X.flags.f_contiguous):
            return X
        return np.ascontiguousarray(X, dtype=X_DTYPE)
    Xe = np.ascontiguousarray(X, dtype=X_DTYPE)
    bad = np.isinf(Xe)
    if bad.any():
        raise_infinite(Xe, int(np.flatnonzero(bad.any(axis=1))[0]), schema)
    return Xe


def raise_infinite(Xe: np.ndarray, row: int, schema: Schema):
    """Refuse an encoded matrix whose row ``row`` (the first such row) holds an infinity, naming
    that row's first infinite column."""
    j = int(np.flatnonzero(np.isinf(Xe[row]))[0])
    raise ValueError(
        f"Input contains infinity or a value too large for dtype('float64'): column "
        f"{schema.feature_names[j]!r}, row {row}."
    )


def _numeric_series(series) -> bool:
    if isinstance(series, np.ndarray):
        return True  # a column of a numeric matrix
    from pandas.api import types as ptypes

    return ptypes.is_numeric_dtype(series.dtype) and not ptypes.is_bool_dtype(series.dtype)


def _lookup_sorted(values: np.ndarray, cats: np.ndarray) -> np.ndarray:
    """Code of each value in ``cats`` (UNSEEN_CODE when absent, NaN stays NaN). ``cats`` need not
    be sorted: a column listed in categorical_features keeps its first-appearance order."""
    order = np.argsort(cats, kind="stable")
    ordered = cats[order]
    pos = np.minimum(np.searchsorted(ordered, values), len(cats) - 1)
    found = ordered[pos] == values
    codes = np.where(found, order[pos], UNSEEN_CODE).astype(X_DTYPE)
    codes[np.isnan(values)] = np.nan
    return codes


def _encode_categorical(series, cats: tuple, name) -> np.ndarray:
    if isinstance(series, np.ndarray):  # a column of a numeric matrix
        missing = np.isnan(series) if series.dtype.kind == "f" else np.zeros(len(series), bool)
        objects = series.astype(object)
    else:
        missing = series.isna().to_numpy()
        objects = series.to_numpy(dtype=object)
    lookup = {c: i for i, c in enumerate(cats)}
    codes = np.empty(len(objects), dtype=X_DTYPE)
    for i, v in enumerate(objects):
        if missing[i]:
            codes[i] = np.nan
            continue
        try:
            codes[i] = lookup.get(_plain(v), UNSEEN_CODE)
        except TypeError:
            raise TypeError(
                f"column {name!r}, row {i}: argument must be a string or a number, "
                f"not {type(v).__name__!r}."
            ) from None
    return codes


# --------------------------------------------------------------------------- target


def encode_target(y, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Class labels -> (classes, codes). Labels of any hashable type come back unchanged.

    ``classes`` is sorted when the labels can be ordered (as scikit-learn does); labels of mixed
    types (say strings and numbers) are ordered by type name, then value. Nothing is converted:
    a list mixing ``"a"`` and ``1`` keeps both as they are (numpy alone would turn 1 into "1").
    """
    y = _labels_1d(y)
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
        rows = np.flatnonzero(missing)
        raise ValueError(
            f"y has {len(rows)} missing label(s) (rows {rows[:5].tolist()}"
            f"{'...' if len(rows) > 5 else ''}); every row needs a class label."
        )
    _check_discrete(y)
    try:
        classes, codes = np.unique(y, return_inverse=True)
    except TypeError:  # labels of mixed types, which numpy cannot sort
        import pandas as pd

        classes = _ordered_mixed(pd.unique(y))
        codes = pd.Index(classes, dtype=object).get_indexer(y)
    return classes, codes.astype(np.int64).ravel()


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
    return np.array([_is_missing(v) or _is_not_a_time(v) or _is_decimal_nan(v) for v in y],
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


def _check_discrete(y: np.ndarray) -> None:
    """Refuse a continuous (regression) target; any non-numeric hashable labels are fine."""
    if y.dtype.kind == "O":
        if not all(_label_family(v) in ("int", "float") for v in y):
            return  # strings, booleans, mixed or other objects: discrete by nature
        y = np.array(y.tolist())
    if y.dtype.kind == "c":
        raise ValueError("Complex data not supported in y.")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):  # NaN was refused before
        raise ValueError(f"Input y contains infinity or a value too large for dtype({y.dtype.name!r}).")
    if y.dtype.kind == "f" and np.any(y != np.trunc(y)):
        # scikit-learn's message (its estimator checks look for "Unknown label type")
        raise ValueError("Unknown label type: continuous. Maybe you are trying to fit a "
                         "classifier, which expects discrete classes on a regression target "
                         "with continuous values.")
    n = len(y)
    if n > 20 and len(np.unique(y)) > round(0.5 * n):
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
    if w.sum() <= 0:
        raise ValueError("sample_weight sums to zero; at least one row needs a positive weight.")
    return w
