"""Tables as the user hands them in -> a numeric matrix or a DataFrame, and their column names.

A numeric numpy matrix is taken as it is: pandas (0.3 s to import) is imported only for the inputs
that need it, DataFrames (the caller has imported pandas then), lists of rows and object arrays,
whose columns need pandas' type inference. A polars DataFrame or pyarrow Table becomes a
``frames.ForeignTable``, read column by column; a scipy sparse matrix becomes its dense form
(``dense_of_sparse``).
"""

from __future__ import annotations

import sys
import warnings

import numpy as np

from .frames import ForeignTable, foreign_names, is_foreign, refuse_other_foreign


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
    clear errors for shapes rootwise cannot take. A polars DataFrame or pyarrow Table becomes a
    ``ForeignTable``, a scipy sparse matrix its dense array."""
    if is_sparse(X):
        X = dense_of_sparse(X, what)
    if is_foreign(X):
        table = X if isinstance(X, ForeignTable) else ForeignTable(X, what)
        _check_shape(table.shape, what)
        return table
    refuse_other_foreign(X, what)
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


def is_sparse(X) -> bool:
    """Whether ``X`` is a scipy sparse matrix or array (scipy is not imported to find out)."""
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(X)


def dense_of_sparse(X, what: str = "X") -> np.ndarray:
    """A sparse matrix of numbers (or booleans) as its dense array: implicit zeros are zeros, a
    stored NaN is a missing cell, exactly as in the dense form. The engine reads a dense matrix,
    so this costs what the dense form costs (n x d x 8 bytes for float64) and no more: a float64
    matrix is the encoded matrix itself. Any format is read; CSC (fit) and CSR (predict) are
    scikit-learn's."""
    if X.ndim != 2:
        raise ValueError(f"Expected 2D array, got a {X.ndim}D sparse array instead for {what}.")
    if X.dtype.kind not in "biuf":
        raise TypeError(f"{what}: a sparse matrix of dtype {X.dtype} cannot be read; rootwise "
                        f"takes sparse matrices of numbers or booleans. Categorical columns come "
                        f"in a DataFrame.")
    try:
        return X.toarray()
    except MemoryError:
        size = X.shape[0] * X.shape[1] * X.dtype.itemsize
        raise MemoryError(f"{what}: a sparse matrix of shape {X.shape} is read as its dense "
                          f"form ({size / 2**30:.1f} GiB), which does not fit in memory; the "
                          f"trees read dense columns. Select fewer columns first.") from None


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
        if is_sparse(X):  # as_table reads them; here only a DataFrame or its cells will do
            X = dense_of_sparse(X, what)
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
    names = foreign_names(X)  # polars and pyarrow names are strings
    return np.asarray(names, dtype=object) if names else None


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


def column(table, j: int):
    """Column j of a numeric matrix (1-D array), of a DataFrame (Series) or of a
    ``ForeignTable`` (``ForeignTable.column``)."""
    if isinstance(table, np.ndarray):
        return table[:, j]
    if isinstance(table, ForeignTable):
        return table.column(j)
    return table.iloc[:, j]
