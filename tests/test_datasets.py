"""rootwise.datasets: the seeds' tables, shipped inside the package, exactly as in shared/data."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from rootwise import datasets

# The reference copies of the textbook tables (the package ships its own copies).
SHARED_DATA = Path("/work/shared/data")

# loader -> (name, CSV file in shared/data, target column, has an 编号 ID column)
LOADERS = [
    (datasets.load_loan_application, "loan_application", "loan_application.csv", "类别", False),
    (datasets.load_loan_default, "loan_default", "loan_default.csv", "拖欠贷款", False),
    (datasets.load_watermelon_2_0, "watermelon_2_0", "watermelon_2.0.csv", "好瓜", True),
    (datasets.load_watermelon_2_0_alpha, "watermelon_2_0_alpha", "watermelon_2.0_alpha.csv", "好瓜",
     True),
    (datasets.load_watermelon_3_0, "watermelon_3_0", "watermelon_3.0.csv", "好瓜", True),
    (lambda **kw: datasets.load_lagou("case1", **kw), "lagou_id3_case1", "lagou_id3_case1.csv", "y",
     False),
    (lambda **kw: datasets.load_lagou("case2", **kw), "lagou_id3_case2", "lagou_id3_case2.csv", "y",
     False),
    (lambda **kw: datasets.load_lagou("exercise", **kw), "lagou_id3_exercise",
     "lagou_id3_exercise.csv", "y", False),
]
IDS = [entry[1] for entry in LOADERS]

needs_shared = pytest.mark.skipif(not SHARED_DATA.is_dir(), reason="shared/data is not on this machine")


@needs_shared
@pytest.mark.parametrize("loader, name, file, target, has_id", LOADERS, ids=IDS)
def test_loader_returns_the_shared_csv(loader, name, file, target, has_id):
    expected = pd.read_csv(SHARED_DATA / file)
    pd.testing.assert_frame_equal(loader(), expected)
    pd.testing.assert_frame_equal(datasets.load(name), expected)


@needs_shared
@pytest.mark.parametrize("loader, name, file, target, has_id", LOADERS, ids=IDS)
def test_return_X_y_drops_target_and_id(loader, name, file, target, has_id):
    expected = pd.read_csv(SHARED_DATA / file)
    X, y = loader(return_X_y=True)
    dropped = [target, "编号"] if has_id else [target]
    pd.testing.assert_frame_equal(X, expected.drop(columns=dropped))
    pd.testing.assert_series_equal(y, expected[target])
    assert "编号" not in X.columns and target not in X.columns
    assert datasets.target(name) == target


@needs_shared
def test_every_shared_table_has_a_loader():
    shipped = {entry[2] for entry in LOADERS}
    assert {p.name for p in SHARED_DATA.glob("*.csv")} == shipped
    assert sorted(datasets.names()) == sorted(IDS)


# Facts from the seeds themselves, checked even where shared/data is absent (a fresh clone).
def test_loan_application_is_seed_002_table():
    X, y = datasets.load_loan_application(return_X_y=True)
    assert list(X.columns) == ["年龄", "有工作", "有自己的房子", "信贷情况"]
    assert X.shape == (15, 4)
    assert y.value_counts().to_dict() == {"是": 9, "否": 6}  # H(D) = H(9/15) = 0.971
    assert list(X.iloc[0]) == ["青年", "否", "否", "一般"]


def test_watermelon_tables_are_seed_000_tables():
    X, y = datasets.load_watermelon_2_0(return_X_y=True)
    assert list(X.columns) == ["色泽", "根蒂", "敲声", "纹理", "脐部", "触感"]
    assert y.value_counts().to_dict() == {"否": 9, "是": 8}
    X3, y3 = datasets.load_watermelon_3_0(return_X_y=True)
    pd.testing.assert_frame_equal(X3[X.columns], X)
    assert X3["密度"].iloc[0] == 0.697 and X3["含糖率"].iloc[0] == 0.460
    Xa, _ = datasets.load_watermelon_2_0_alpha(return_X_y=True)
    assert Xa.isna().sum().sum() > 0  # 2.0α has holes ...
    assert Xa.shape == X.shape  # ... in the same 17 x 6 table


def test_loan_default_is_seed_001_table():
    frame = datasets.load_loan_default()
    assert list(frame.columns) == ["有房情况", "婚姻状况", "年收入", "拖欠贷款"]
    assert frame["年收入"].tolist() == [125, 100, 70, 120, 95, 60, 220, 85, 75, 90]
    assert (frame["拖欠贷款"] == "是").sum() == 3


def test_lagou_tables_have_four_rows():
    for case in ("case1", "case2", "exercise"):
        X, y = datasets.load_lagou(case, return_X_y=True)
        assert list(X.columns) == ["x1", "x2", "x3"] and len(y) == 4


def test_unknown_name_lists_the_names():
    with pytest.raises(ValueError, match="watermelon_2_0") as info:
        datasets.load("watermelon_4_0")
    for name in datasets.names():
        assert name in str(info.value)
    with pytest.raises(ValueError, match="case1"):
        datasets.load_lagou("case3")


def test_path_points_to_bundled_file():
    assert datasets.path("loan_default").name == "loan_default.csv"
    assert datasets.path("loan_default").is_file()
