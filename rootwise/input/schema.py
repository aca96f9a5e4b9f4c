"""The schema of a training table: column names, kinds (continuous / categorical) and each
categorical column's categories in code order, so that prediction-time tables are encoded the
same way as the training table."""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .._config import CATEGORICAL, CONTINUOUS
from .codes import factorize, float_codes, lookup_numbers
from .frames import ForeignTable
from .tables import column, feature_names_of, input_feature_names
from .values import continuous_values


@dataclass(frozen=True)
class Schema:
    """What fit saw: column names, kinds (CONTINUOUS / CATEGORICAL) and each categorical column's
    categories in code order (``None`` for a continuous column)."""

    feature_names: tuple
    kinds: tuple
    categories: tuple
    names_from_input: bool  # True when fit got a DataFrame with string column names
    # per column: True when the training table had a missing cell there (None: not recorded, as
    # in model files written before it was); the exports speak of missing values only there
    missing: tuple | None = None

    def had_missing(self, feature: int) -> bool:
        """True when column ``feature`` had a missing cell in training (or that is not known)."""
        return self.missing is None or bool(self.missing[feature])

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

    def categories_of(self, name) -> tuple:
        """The categories of the column ``name`` (a feature name, or a position) in code order.
        A categorical column given to ``predict`` as integer codes is refused unless its codes
        are declared: ``pd.Categorical.from_codes(codes, categories=schema.categories_of(name))``."""
        j = name if isinstance(name, int) and not isinstance(name, bool) else None
        if j is None and name in self.feature_names:
            j = self.feature_names.index(name)
        if j is None or not -self.n_features <= j < self.n_features:
            raise ValueError(f"no column {name!r}; the columns are {list(self.feature_names)}.")
        if self.categories[j] is None:
            raise ValueError(f"column {self.feature_names[j]!r} is continuous: it has no "
                             f"categories.")
        return self.categories[j]


def resolve_categorical(frame, categorical_features) -> np.ndarray:
    """Boolean mask of categorical columns from ``categorical_features``.

    ``"auto"``: object, string, category and bool dtypes are categorical, the rest continuous.
    Otherwise a list of column names or indices, or a boolean mask with one entry per column; those
    columns are categorical on top of the dtype-based ones.
    """
    n = frame.shape[1]
    if isinstance(frame, np.ndarray):  # numbers only: nothing is categorical by its dtype
        auto = np.zeros(n, dtype=bool)
    elif isinstance(frame, ForeignTable):  # booleans, strings, categoricals (polars, pyarrow)
        auto = frame.categorical()
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


def learn_column(column, name: str, categorical: bool, numeric_as_category: bool) -> tuple:
    """(kind, categories, encoded) of one training column: its kind, its categories in code
    order (``None`` for a continuous column) and the column encoded with them (float64, NaN =
    missing). One pass over the cells gives both the categories and the codes.

    Category order: a pandas categorical's own order; first appearance for other categorical
    columns (the order a reader of the table sees); ascending for numbers that become categories
    with ``numeric_as_category`` (ID3)."""
    if categorical:
        codes, values = factorize(column, name)
        return CATEGORICAL, values, float_codes(codes)
    values = continuous_values(column, name)
    if numeric_as_category:
        distinct = np.unique(values[~np.isnan(values)])
        return CATEGORICAL, tuple(float(v) for v in distinct), lookup_numbers(values, distinct)
    return CONTINUOUS, None, values


def fit_schema(
    frame, categorical_mask: np.ndarray, *, numeric_as_category: bool = False
) -> Schema:
    """Build the schema of a training table. With ``numeric_as_category`` (ID3) every continuous
    column becomes categorical with its sorted distinct values as categories."""
    feature_names = feature_names_of(frame)
    kinds, categories = [], []
    for j in range(frame.shape[1]):
        if categorical_mask[j] or numeric_as_category:
            kind, cats, _ = learn_column(column(frame, j), feature_names[j],
                                         bool(categorical_mask[j]), numeric_as_category)
        else:  # a continuous column: its values are checked when it is encoded
            kind, cats = CONTINUOUS, None
        kinds.append(kind)
        categories.append(cats)
    return schema_of(frame, kinds, categories)


def schema_of(frame, kinds, categories) -> Schema:
    """The Schema of a training table, given its columns' kinds and categories."""
    return Schema(feature_names_of(frame), tuple(kinds), tuple(categories),
                  input_feature_names(frame) is not None)
