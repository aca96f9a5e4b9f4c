"""A categorical column -> integer codes, in one vectorised pass (no Python work per cell).

``factorize`` gives each cell the index of its value among the column's distinct values (-1 for
a missing cell); ``recode`` turns those into the codes of a fitted schema's categories. Python
touches each *distinct* value once (to compare it with the schema's categories), never each cell.

Equal values share a code by Python's ``==`` (and hash): 1 and 1.0 are one number, as are -0.0
and 0.0 -- pandas' hash tables and numpy's sort agree with a Python dict here, which is what the
schema's lookup is. Values Python calls equal that are not the same kind of value are kept
apart or refused, never merged: a column holding both booleans and numbers is refused (True ==
1), and at prediction a column whose values are of a kind none of its categories is (strings
for numbers, integer codes for strings, 0/1 for booleans) is refused rather than matched to
nothing (``check_kinds``); 1 and "1" are two categories.
"""

from __future__ import annotations

import numpy as np

from .._config import UNSEEN_CODE, X_DTYPE
from .values import continuous_values, family, may_merge, plain, refuse_bools_and_numbers


def factorize(column, name: str) -> tuple[np.ndarray, tuple]:
    """(codes, values): ``codes[i]`` is row i's index into ``values`` (-1: missing cell), and
    ``values`` the column's distinct values as plain Python scalars -- a pandas categorical's own
    categories in its order (unused ones too), otherwise the values present in order of first
    appearance. ``column`` is a pandas Series or a 1-D numpy array of numbers."""
    if isinstance(column, np.ndarray):
        return _factorize_numbers(column)
    import pandas as pd

    if isinstance(column.dtype, pd.CategoricalDtype):
        return column.cat.codes.to_numpy(), tuple(plain(v) for v in column.cat.categories)
    try:
        codes, uniques = pd.factorize(column, use_na_sentinel=True)
    except TypeError:  # an unhashable cell (a list, a dict): find it to name its row
        raise_unhashable(column, name)
    values = tuple(plain(v) for v in uniques.tolist())
    if column.dtype == object and may_merge(values):  # True and 1 would have become one value
        refuse_bools_and_numbers(column, f"column {name!r}")
    return codes, values


def _factorize_numbers(column: np.ndarray) -> tuple[np.ndarray, tuple]:
    """``factorize`` of a numeric numpy column (NaN = missing), by sorting: numpy has no hash
    table, and pandas is not imported for numeric arrays."""
    present = ~np.isnan(column) if column.dtype.kind == "f" else np.ones(len(column), dtype=bool)
    known = column[present]
    distinct, first, inverse = np.unique(known, return_index=True, return_inverse=True)
    order = np.argsort(first)  # the sorted distinct values, in order of first appearance
    rank = np.empty(len(distinct), dtype=np.int64)
    rank[order] = np.arange(len(distinct))
    codes = np.full(len(column), -1, dtype=np.int64)
    codes[present] = rank[inverse.reshape(-1)]
    return codes, tuple(known[np.sort(first)].tolist())  # tolist: Python scalars


def raise_unhashable(column, name: str):
    """Refuse a column holding an unhashable cell, naming the column and the first such row."""
    for i, v in enumerate(column.to_numpy(dtype=object)):
        try:
            hash(v)
        except TypeError:
            raise TypeError(
                f"column {name!r}, row {i}: argument must be a string or a number, "
                f"not {type(v).__name__!r}."
            ) from None
    raise TypeError(f"column {name!r}: argument must be a string or a number.")


def float_codes(codes: np.ndarray) -> np.ndarray:
    """Integer codes (-1 = missing) as the engine's float64 codes (NaN = missing)."""
    out = codes.astype(X_DTYPE)
    out[codes < 0] = np.nan
    return out


def recode(codes: np.ndarray, values: tuple, categories: tuple) -> np.ndarray:
    """Codes into ``values`` (``factorize``) -> float64 codes into the schema's ``categories``:
    NaN for a missing cell, ``UNSEEN_CODE`` for a value that is not a category."""
    position = {c: i for i, c in enumerate(categories)}
    # one entry per distinct value, and a last one, NaN, that code -1 (missing) indexes
    table = np.array([position.get(v, UNSEEN_CODE) for v in values] + [np.nan], dtype=X_DTYPE)
    return table[codes]


def lookup_numbers(values: np.ndarray, categories: np.ndarray) -> np.ndarray:
    """Code of each number in ``categories`` (UNSEEN_CODE when absent, NaN stays NaN), by binary
    search. ``categories`` need not be sorted: a column listed in categorical_features keeps its
    first-appearance order."""
    if len(categories) == 0:  # a column that was missing in every training row
        return np.where(np.isnan(values), np.nan, UNSEEN_CODE).astype(X_DTYPE)
    order = np.argsort(categories, kind="stable")
    ordered = categories[order]
    pos = np.minimum(np.searchsorted(ordered, values), len(categories) - 1)
    found = ordered[pos] == values
    codes = np.where(found, order[pos], UNSEEN_CODE).astype(X_DTYPE)
    codes[np.isnan(values)] = np.nan
    return codes


def number_codes(series, name: str, categories: tuple) -> np.ndarray:
    """float64 codes of a numeric column whose categories are numbers (ID3's continuous
    columns), looked up by value (NaN: missing, UNSEEN_CODE: not a category).

    A float32 (or float16) column is looked up at its own precision: its value 0.1f is the
    category 0.1, which float64 holds as another number. When two categories are one value at
    that precision the column cannot tell them apart, and is refused."""
    values = continuous_values(series, name)
    cats = np.asarray(categories, dtype=np.float64)
    dtype = getattr(series.dtype, "numpy_dtype", series.dtype)
    if dtype.kind == "f" and dtype.itemsize < 8:
        with np.errstate(over="ignore"):  # a category beyond the type's range becomes inf
            narrow = cats.astype(dtype).astype(np.float64)
        distinct, first, counts = np.unique(narrow, return_index=True, return_counts=True)
        if np.any(counts > 1):
            twin = distinct[counts > 1][0]
            a, b = cats[narrow == twin][:2].tolist()
            raise ValueError(f"column {name!r} is {dtype.name}, but its categories {a!r} and {b!r} "
                             f"(learnt as float64) are one {dtype.name} value: give the column "
                             f"as float64, as it was at fit.")
        cats = narrow
    return lookup_numbers(values, cats)


def same_values(values: tuple, categories: tuple) -> bool:
    """Whether a column's distinct ``values`` are its fitted ``categories``, in order and of the
    same kinds: (1, 0) == (True, False) in Python, but 1 is no True here."""
    return values == tuple(categories) and all(
        family(v) == family(c) for v, c in zip(values, categories, strict=True))


def check_kinds(values: tuple, categories: tuple, name: str) -> None:
    """Refuse a column whose distinct ``values`` (``factorize``) include a kind of value
    (``values.family``: bool, number, str, ...) that none of its fitted ``categories`` is: such a
    cell would match no category, silently. Integer codes given for a categorical column are
    the usual case; codes are taken when declared as a pandas categorical of the fitted
    categories, ``pd.Categorical.from_codes(codes, categories=model.schema_.categories_of(name))``."""
    fitted = {family(c) for c in categories}
    if not fitted:
        return
    strange = [v for v in values if family(v) not in fitted]
    if not strange:
        return
    kind = family(strange[0])
    shown = ", ".join(repr(v) for v in strange[:3]) + (", ..." if len(strange) > 3 else "")
    known = ", ".join(repr(c) for c in categories[:3]) + (", ..." if len(categories) > 3 else "")
    text = (f"column {name!r} holds {_plural(kind)} ({shown}), but its categories at fit were "
            f"{' and '.join(_plural(k) for k in sorted(fitted))} ({known}): they would match no "
            f"category.")
    if kind == "number" and "number" not in fitted:
        text += (f" Category codes are not category values; to give codes, declare them: "
                 f"pd.Categorical.from_codes(codes, categories=model.schema_.categories_of("
                 f"{name!r})).")
    else:
        text += " Give the column's values as they were at fit."
    raise ValueError(text)


def _plural(kind: str) -> str:
    return {"bool": "booleans", "number": "numbers", "str": "strings"}.get(kind, f"{kind} values")
