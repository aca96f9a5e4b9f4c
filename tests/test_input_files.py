"""rootwise.read_data: CSV, TSV, ARFF (Weka's format) and Parquet files -> DataFrames.

The ARFF reader is checked against the CSV copies of Weka's example files, which another tool
wrote (tools/weka/make_j48_golden.py), and against ARFF text written here by hand.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rootwise
from rootwise.input.files import DataFileError, read_data

J48_DATA = Path(__file__).parent / "golden" / "j48" / "data"


@pytest.mark.parametrize("arff", sorted(J48_DATA.glob("*.arff")), ids=lambda p: p.stem)
def test_weka_files_equal_their_csv_copies(arff):
    frame = read_data(arff)
    csv = pd.read_csv(arff.with_suffix(".csv"), dtype=str, keep_default_na=False, na_values=[""])
    assert list(frame.columns) == list(csv.columns)
    for name in frame.columns:
        ours, theirs = frame[name], csv[name]
        if ours.dtype == np.float64:  # numeric attributes
            assert np.allclose(ours, pd.to_numeric(theirs), equal_nan=True, rtol=0, atol=0)
        else:
            assert [None if pd.isna(v) else str(v) for v in ours] == \
                   [None if pd.isna(v) else v for v in theirs], name


def test_nominal_values_become_categories_in_declared_order():
    frame = read_data(J48_DATA / "soybean.arff")
    # @ATTRIBUTE date {april,may,june,july,august,september,october}
    assert isinstance(frame["date"].dtype, pd.CategoricalDtype)
    assert list(frame["date"].cat.categories) == ["april", "may", "june", "july", "august",
                                                  "september", "october"]
    assert frame["date"].isna().sum() == 1  # Weka's summary: 1 missing
    assert list(frame["class"].cat.categories)[:3] == ["diaporthe-stem-canker", "charcoal-rot",
                                                       "rhizoctonia-root-rot"]


HAND = """\
% a comment, then keywords in any case
@Relation 'hand made'

@ATTRIBUTE 'outlook today' {sunny, 'over cast', rainy}
@attribute temp NUMERIC
@attribute humidity integer
@attribute note string
@attribute "class" {yes,no}

@DATA
sunny, 85, 85, 'it''s', no
% comments may come between rows
'over cast',?,86,"a, b",yes
rainy, -1.5e1, ?, '?', yes
?, 0, 1, plain text, no
"""


def test_hand_written_arff(tmp_path):
    path = tmp_path / "hand.arff"
    path.write_text(HAND.replace("'it''s'", "'it\\'s'"), encoding="utf-8")
    frame = read_data(path)
    assert list(frame.columns) == ["outlook today", "temp", "humidity", "note", "class"]
    assert list(frame["outlook today"].cat.categories) == ["sunny", "over cast", "rainy"]
    assert frame["outlook today"].tolist()[:3] == ["sunny", "over cast", "rainy"]
    assert pd.isna(frame["outlook today"][3])
    assert frame["temp"].tolist()[0] == 85.0 and np.isnan(frame["temp"][1])
    assert frame["temp"][2] == -15.0 and np.isnan(frame["humidity"][2])
    # a quoted ? is the text "?", an unquoted one is missing; quotes protect commas
    assert frame["note"].tolist() == ["it's", "a, b", "?", "plain text"]
    assert frame["class"].tolist() == ["no", "yes", "yes", "no"]


def test_sparse_rows(tmp_path):
    path = tmp_path / "sparse.arff"
    path.write_text("@relation s\n@attribute a numeric\n@attribute b {x, y, z}\n"
                    "@attribute c numeric\n@data\n{0 2.5, 1 z}\n{2 7}\n{}\n2, y, 3\n",
                    encoding="utf-8")
    frame = read_data(path)
    # an absent value is 0 for a number and the first declared value for a nominal attribute
    assert frame["a"].tolist() == [2.5, 0.0, 0.0, 2.0]
    assert frame["b"].tolist() == ["z", "x", "x", "y"]
    assert frame["c"].tolist() == [0.0, 7.0, 0.0, 3.0]


BAD_ARFF = {
    "undeclared value": ("@attribute a {x,y}\n@data\nz\n",
                         "line 3: 'z' is not a declared value of attribute 'a'"),
    "too few values": ("@attribute a numeric\n@attribute b numeric\n@data\n1\n",
                       "line 4: 1 values, expected 2"),
    "not a number": ("@attribute a numeric\n@data\nabc\n", "line 3: 'abc' is not a number"),
    "weights": ("@attribute a numeric\n@data\n1, {2}\n", "instance weights ({2}) are not supported"),
    "relational": ("@attribute a relational\n@data\n", "relational attribute 'a' is not supported"),
    "unknown type": ("@attribute a fancy\n@data\n", "attribute 'a' has unknown type 'fancy'"),
    "no data section": ("@attribute a numeric\n", "no @data section"),
    "no attributes": ("@data\n1\n", "no @attribute declarations"),
    "declared twice": ("@attribute a numeric\n@attribute a numeric\n@data\n1,2\n",
                       "attribute 'a' is declared twice"),
    "open quote": ("@attribute a string\n@data\n'abc\n", "line 3: a quoted value is not closed"),
    "sparse index": ("@attribute a numeric\n@data\n{3 1}\n", "sparse index 3 is out of range"),
    "no rows": ("@attribute a numeric\n@data\n", "no data rows"),
    "stray line": ("@attribute a numeric\nhello\n@data\n", "line 2: expected @relation"),
}


@pytest.mark.parametrize("text, message", BAD_ARFF.values(), ids=BAD_ARFF.keys())
def test_bad_arff_names_the_file_and_the_place(text, message, tmp_path):
    path = tmp_path / "bad.arff"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataFileError) as e:
        read_data(path)
    assert str(e.value).startswith(f"{path}: ") and message in str(e.value)


def test_tsv_and_csv(tmp_path):
    tsv = tmp_path / "t.tsv"
    tsv.write_text("颜色\t数量\tlabel\nNA\t1\tyes\n\t2,5\tno\n", encoding="utf-8-sig")
    frame = read_data(tsv)
    assert list(frame.columns) == ["颜色", "数量", "label"]
    assert frame["颜色"].tolist()[0] == "NA" and pd.isna(frame["颜色"][1])  # only empty is missing
    assert frame["数量"].tolist() == ["1", "2,5"]  # commas are data in a TSV
    csv = tmp_path / "t.csv"
    csv.write_text("a,b\n1,x\n", encoding="utf-8")
    assert read_data(csv).to_dict("list") == {"a": [1], "b": ["x"]}
    (tmp_path / "empty.tsv").write_bytes(b"")
    with pytest.raises(DataFileError, match="empty.tsv: the file is empty"):
        read_data(tmp_path / "empty.tsv")
    with pytest.raises(FileNotFoundError):
        read_data(tmp_path / "missing.arff")


def test_parquet_round_trip_keeps_categories(tmp_path):
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame({"code": pd.Categorical(["b", "a", None], categories=["b", "a", "c"]),
                          "x": [1.5, np.nan, 3.0], "y": ["是", "否", "是"]})
    path = tmp_path / "t.parquet"
    frame.to_parquet(path, engine="pyarrow")
    back = read_data(path)
    assert list(back["code"].cat.categories) == ["b", "a", "c"]
    assert back["code"].tolist()[:2] == ["b", "a"] and pd.isna(back["code"][2])
    assert np.isnan(back["x"][1]) and back["y"].tolist() == ["是", "否", "是"]
    (tmp_path / "not.parquet").write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(DataFileError, match="not.parquet: not a readable Parquet file"):
        read_data(tmp_path / "not.parquet")


def test_parquet_without_pyarrow_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow now raises ImportError
    (tmp_path / "t.parquet").write_bytes(b"PAR1")
    with pytest.raises(ImportError, match=r"needs pyarrow: pip install 'rootwise\[parquet\]'"):
        read_data(tmp_path / "t.parquet")


def test_public_names():
    assert rootwise.read_data is read_data and rootwise.DataFileError is DataFileError
    assert issubclass(DataFileError, ValueError)
