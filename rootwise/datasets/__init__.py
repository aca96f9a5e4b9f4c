"""The literature's worked-example tables as DataFrames (read from CSV files shipped with rootwise).

Each loader returns the whole table, target column last; ``return_X_y=True`` splits it into the
features (without an ID column such as 编号) and the target.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from typing import Literal, TypeAlias, overload

import pandas as pd

XY: TypeAlias = "tuple[pd.DataFrame, pd.Series]"  # what return_X_y=True gives: the features, the target

# name -> (file, target column, ID columns to leave out of X)
_TABLES = {
    "loan_application": ("loan_application.csv", "类别", ()),
    "loan_default": ("loan_default.csv", "拖欠贷款", ()),
    "watermelon_2_0": ("watermelon_2.0.csv", "好瓜", ("编号",)),
    "watermelon_2_0_alpha": ("watermelon_2.0_alpha.csv", "好瓜", ("编号",)),
    "watermelon_3_0": ("watermelon_3.0.csv", "好瓜", ("编号",)),
    "lagou_id3_case1": ("lagou_id3_case1.csv", "y", ()),
    "lagou_id3_case2": ("lagou_id3_case2.csv", "y", ()),
    "lagou_id3_exercise": ("lagou_id3_exercise.csv", "y", ()),
}


def names() -> list[str]:
    """Names accepted by ``load``."""
    return list(_TABLES)


def path(name: str) -> Traversable:
    """Path of the bundled CSV file of table ``name``."""
    file, _, _ = _spec(name)
    return resources.files(__name__).joinpath("data", file)


def target(name: str) -> str:
    """Target column of table ``name``."""
    return _spec(name)[1]


@overload
def load(name: str, *, return_X_y: Literal[False] = ...) -> pd.DataFrame: ...
@overload
def load(name: str, *, return_X_y: Literal[True]) -> XY: ...
@overload
def load(name: str, *, return_X_y: bool) -> pd.DataFrame | XY: ...
def load(name: str, *, return_X_y: bool = False) -> pd.DataFrame | XY:
    """Table ``name`` as a DataFrame, or (X, y) with ``return_X_y``."""
    _, target_col, ids = _spec(name)
    with resources.as_file(path(name)) as p:
        frame = pd.read_csv(p, dtype={c: "int64" for c in ids})
    if not return_X_y:
        return frame
    return frame.drop(columns=[target_col, *ids]), frame[target_col]


def _spec(name: str):
    try:
        return _TABLES[name]
    except KeyError:
        raise ValueError(f"no bundled table named {name!r}; choose one of {names()}") from None


@overload
def load_loan_application(*, return_X_y: Literal[False] = ...) -> pd.DataFrame: ...
@overload
def load_loan_application(*, return_X_y: Literal[True]) -> XY: ...
def load_loan_application(*, return_X_y: bool = False) -> pd.DataFrame | XY:
    """The loan application table of Li Hang 2012, table 5.1 (15 rows; target 类别)."""
    return load("loan_application", return_X_y=return_X_y)


@overload
def load_loan_default(*, return_X_y: Literal[False] = ...) -> pd.DataFrame: ...
@overload
def load_loan_default(*, return_X_y: Literal[True]) -> XY: ...
def load_loan_default(*, return_X_y: bool = False) -> pd.DataFrame | XY:
    """The loan-default table of Tan et al. 2006, ch. 4 (10 rows; 年收入 in thousands; target 拖欠贷款)."""
    return load("loan_default", return_X_y=return_X_y)


@overload
def load_watermelon_2_0(*, return_X_y: Literal[False] = ...) -> pd.DataFrame: ...
@overload
def load_watermelon_2_0(*, return_X_y: Literal[True]) -> XY: ...
def load_watermelon_2_0(*, return_X_y: bool = False) -> pd.DataFrame | XY:
    """Watermelon data set 2.0 (Zhou 2016, table 4.1; 17 rows; target 好瓜)."""
    return load("watermelon_2_0", return_X_y=return_X_y)


@overload
def load_watermelon_2_0_alpha(*, return_X_y: Literal[False] = ...) -> pd.DataFrame: ...
@overload
def load_watermelon_2_0_alpha(*, return_X_y: Literal[True]) -> XY: ...
def load_watermelon_2_0_alpha(*, return_X_y: bool = False) -> pd.DataFrame | XY:
    """Watermelon 2.0α: 2.0 with missing cells (Zhou 2016, table 4.4)."""
    return load("watermelon_2_0_alpha", return_X_y=return_X_y)


@overload
def load_watermelon_3_0(*, return_X_y: Literal[False] = ...) -> pd.DataFrame: ...
@overload
def load_watermelon_3_0(*, return_X_y: Literal[True]) -> XY: ...
def load_watermelon_3_0(*, return_X_y: bool = False) -> pd.DataFrame | XY:
    """Watermelon 3.0: 2.0 plus the continuous 密度 and 含糖率 (Zhou 2016, table 4.3)."""
    return load("watermelon_3_0", return_X_y=return_X_y)


@overload
def load_lagou(case: str = "case1", *, return_X_y: Literal[False] = ...) -> pd.DataFrame: ...
@overload
def load_lagou(case: str = "case1", *, return_X_y: Literal[True]) -> XY: ...
def load_lagou(case: str = "case1", *, return_X_y: bool = False) -> pd.DataFrame | XY:
    """A course's four-row ID3 exercises: ``case`` is "case1", "case2" or "exercise"."""
    if case not in ("case1", "case2", "exercise"):
        raise ValueError(f"case must be 'case1', 'case2' or 'exercise', got {case!r}.")
    return load(f"lagou_id3_{case}", return_X_y=return_X_y)
