"""Cells of one column: what counts as missing, and a continuous column as float64."""

from __future__ import annotations

import numbers
import sys

import numpy as np


def plain(v):
    """numpy scalars -> Python scalars, so that categories print and serialise naturally."""
    return v.item() if isinstance(v, np.generic) else v


def numeric_series(series) -> bool:
    if isinstance(series, np.ndarray):
        return True  # a column of a numeric matrix
    from pandas.api import types as ptypes

    return ptypes.is_numeric_dtype(series.dtype) and not ptypes.is_bool_dtype(series.dtype)


def continuous_values(series, name: str) -> np.ndarray:
    """A continuous column as float64 (NaN = missing); non-numbers and infinities are errors.

    Only numeric dtypes convert directly: strings such as "1.5" are refused rather than parsed,
    and booleans are not numbers here (a bool column is categorical)."""
    if isinstance(series, np.ndarray):  # a column of a numeric matrix
        values = series.astype(np.float64)
    elif numeric_series(series):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        cells = series.to_numpy(dtype=object)
        for i, v in enumerate(cells):
            if not is_number_or_missing(v):
                raise ValueError(
                    f"column {name!r} is continuous but row {i} holds the non-numeric value {v!r}; "
                    "list the column in categorical_features to treat it as categorical."
                )
        values = np.array([np.nan if is_missing(v) else float(v) for v in cells], dtype=np.float64)
    if np.isinf(values).any():
        row = int(np.flatnonzero(np.isinf(values))[0])
        raise ValueError(
            f"Input contains infinity or a value too large for dtype('float64'): column {name!r}, "
            f"row {row}."
        )
    return values


def is_missing(v) -> bool:
    pd = sys.modules.get("pandas")  # pd.NA exists only once pandas is imported
    return (v is None or (isinstance(v, (float, np.floating)) and np.isnan(v))
            or (pd is not None and v is pd.NA))


def is_number_or_missing(v) -> bool:
    return is_missing(v) or (isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)))
