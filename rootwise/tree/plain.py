"""Plain data (lists of JSON numbers) -> typed numpy arrays, refusing every value that would change
on the way: a string or a boolean for a number, a fraction or a too large integer for an integer
field. ``null`` is NaN where a field allows it.

The types are checked with one C-level pass (``set(map(type, values))``), not a Python loop per
value: a fully grown tree on 10^6 rows has 3 * 10^7 of them.
"""

from __future__ import annotations

import itertools

import numpy as np


def number_array(values, dtype, what: str, *, nullable: bool = False) -> np.ndarray:
    """1-D array of ``dtype`` (an integer or float64 dtype) from a list of JSON numbers; ``what``
    names the field in the error. ``nullable``: ``None`` stands for NaN (float fields only)."""
    if not isinstance(values, list):
        raise ValueError(f"{what} is not a list")
    dtype = np.dtype(dtype)
    types = set(map(type, values))
    if dtype.kind == "f":
        allowed = {int, float, type(None)} if nullable else {int, float}
        if not types <= allowed:
            bad = next(v for v in values if type(v) not in allowed)
            raise ValueError(f"{what} holds {describe(bad)}, which is not a number")
        try:
            return np.array(values, dtype=dtype)  # None -> NaN
        except OverflowError:  # an integer beyond float64
            raise ValueError(f"{what} holds a number too large for a float64") from None
    if not types <= {int}:  # bool is a subclass of int, not the type int: refused here
        bad = next(v for v in values if type(v) is not int)
        raise ValueError(f"{what} holds {describe(bad)}, which is not an integer")
    if values:
        info = np.iinfo(dtype)
        low, high = min(values), max(values)
        if low < info.min or high > info.max:
            bad = low if low < info.min else high
            raise ValueError(f"{what} holds {describe(bad)}, outside the range of {dtype.name} "
                             f"[{info.min}, {info.max}]")
    return np.array(values, dtype=dtype)


def number_table(rows, what: str) -> np.ndarray:
    """2-D float64 array from a list of equally long lists of JSON numbers (no nulls)."""
    if not isinstance(rows, list) or not set(map(type, rows)) <= {list}:
        raise ValueError(f"{what} is not a table (a list of equally long lists)")
    widths = set(map(len, rows))
    if len(widths) > 1:
        raise ValueError(f"{what} is not a table (a list of equally long lists): its rows have "
                         f"{min(widths)} to {max(widths)} entries")
    width = widths.pop() if widths else 0
    flat = number_array(list(itertools.chain.from_iterable(rows)), np.float64, what)
    return flat.reshape(len(rows), width)


def describe(v) -> str:
    """A value read from a file, for a message: short, and never the repr of a whole container
    (a corrupt file can hold anything, nested deeply)."""
    if isinstance(v, (list, dict)):
        return f"a {'list' if isinstance(v, list) else 'JSON object'} of {len(v)} entries"
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 10 ** 30:
        return f"an integer of {len(str(abs(v)))} digits"
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."
