"""Cells of one column: what counts as missing, and a continuous column as float64."""

from __future__ import annotations

import numbers
import sys

import numpy as np

# pandas' ``infer_dtype`` names for object cells that are all numbers (missing cells skipped):
# such a column converts in one vectorised pass
_NUMBER_KINDS = frozenset({"integer", "floating", "mixed-integer-float", "empty"})


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
        values = _numbers_of_cells(series.to_numpy(dtype=object), name)
    if np.isinf(values).any():
        row = int(np.flatnonzero(np.isinf(values))[0])
        raise ValueError(
            f"Input contains infinity or a value too large for dtype('float64'): column {name!r}, "
            f"row {row}."
        )
    return values


def _numbers_of_cells(cells: np.ndarray, name: str) -> np.ndarray:
    """Object cells -> float64. Cells that pandas finds to be all ints and floats convert at
    once; anything else (a string, a bool, a Fraction) is checked cell by cell, to name the
    first row that is not a number or to convert the rarer kinds of number."""
    import pandas as pd
    from pandas.api.types import infer_dtype

    holes = pd.isna(cells)
    if infer_dtype(cells, skipna=True) in _NUMBER_KINDS:
        return np.where(holes, np.nan, cells).astype(np.float64)
    bad = [i for i, v in enumerate(cells) if not is_number_or_missing(v)]
    if bad:
        # a column of number strings ('5') is text that a file reader kept as text because some
        # other cell is not a number: that cell is the one to name
        i = next((i for i in bad if not _number_text(cells[i])), bad[0])
        v = cells[i]
        if _number_text(v):
            raise ValueError(
                f"column {name!r} is continuous but row {i} holds the text {v!r}, not a number "
                f"(the column was numbers in training); convert the column to numbers first "
                f"(pandas.to_numeric)."
            )
        # (not "list it in categorical_features": at fit a column of text is categorical by
        # its dtype, so this is a table given to a fitted model, which cannot change)
        raise ValueError(
            f"column {name!r} is continuous but row {i} holds the non-numeric value {v!r} (the "
            f"column was numbers in training); make that cell a number, or empty for a missing "
            f"value."
        )
    return np.array([np.nan if is_missing(v) else float(v) for v in cells], dtype=np.float64)


def _number_text(v) -> bool:
    """Whether ``v`` is a string that reads as a number ('5', ' 2.5')."""
    if not isinstance(v, str):
        return False
    try:
        float(v)
    except ValueError:
        return False
    return True


def is_missing(v) -> bool:
    pd = sys.modules.get("pandas")  # pd.NA exists only once pandas is imported
    return (v is None or (isinstance(v, (float, np.floating)) and np.isnan(v))
            or (pd is not None and v is pd.NA))


def is_number_or_missing(v) -> bool:
    return is_missing(v) or (isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)))


def family(v) -> str:
    """The kind of value a cell holds, for telling values apart that Python calls equal:
    "bool", "number" (ints and floats: 1 and 1.0 are one number), "str", or the type's name.
    True == 1 in Python, numpy and pandas, so a bool is never a number here."""
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, numbers.Number):
        return "number"
    if isinstance(v, str):
        return "str"
    return type(v).__name__


# pandas' ``infer_dtype`` names for object cells of several types: the only ones that can mix
# booleans and numbers
_MIXED_KINDS = frozenset({"mixed", "mixed-integer"})


def refuse_bools_and_numbers(cells, what: str) -> None:
    """Refuse cells (an object array or Series) that hold True and 1 (or 1.0), or False and 0:
    Python, numpy and pandas take them for one value, so they would become one category or
    class. pandas, when imported, rules out most columns in one pass without Python work, and
    the cells' types the rest; only a column holding booleans and numbers is read cell by cell."""
    pd = sys.modules.get("pandas")
    if pd is not None and pd.api.types.infer_dtype(cells, skipna=True) not in _MIXED_KINDS:
        return
    cells = np.asarray(cells, dtype=object)
    types = set(map(type, cells))
    flags = {t for t in types if issubclass(t, (bool, np.bool_))}
    if not flags or not any(issubclass(t, numbers.Number) for t in types - flags):
        return
    is_flag = np.fromiter((isinstance(v, (bool, np.bool_)) for v in cells), bool, len(cells))
    present = {bool(v) for v in set(cells[is_flag].tolist())}
    for v in cells[~is_flag]:
        if isinstance(v, numbers.Number) and not is_missing(v) and v in (0, 1) and bool(v) in present:
            raise ValueError(f"{what} holds both {bool(v)!r} and {v!r}, which Python, numpy and "
                             f"pandas take for one value ({bool(v)!r} == {v!r}): they would "
                             f"merge. Give one type: booleans, numbers or strings.")


def may_merge(values) -> bool:
    """Whether a column's distinct values (as factorised) include a boolean or a 0 or 1: only
    then can a boolean and a number have been merged into one of them."""
    return any(isinstance(v, (bool, np.bool_)) or (isinstance(v, numbers.Number) and v in (0, 1))
               for v in values)
