"""rootwise.read_data: CSV, TSV, ARFF (Weka's format) and Parquet files -> DataFrames.

The ARFF reader is checked against the CSV copies of Weka's example files, which another tool
wrote (tools/weka/make_j48_golden.py), and against ARFF text written here by hand.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import sys
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rootwise
from rootwise.input.files import DataFileError, NumberFormatError, read_data

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
    tsv.write_text("颜色\t数量\tlabel\nNA\t1\tyes\n\t2;5\tno\nnone\t3\tno\n", encoding="utf-8-sig")
    frame = read_data(tsv)
    assert list(frame.columns) == ["颜色", "数量", "label"]
    assert pd.isna(frame["颜色"][0]) and pd.isna(frame["颜色"][1])  # NA and empty are missing
    assert frame["颜色"][2] == "none"  # not in the list
    assert frame["数量"].tolist() == ["1", "2;5", "3"]  # separators of other files are data
    csv = tmp_path / "t.csv"
    csv.write_text("a,b\n1,x\n", encoding="utf-8")
    assert read_data(csv).to_dict("list") == {"a": [1], "b": ["x"]}
    (tmp_path / "empty.tsv").write_bytes(b"")
    with pytest.raises(DataFileError, match="empty.tsv: the file is empty"):
        read_data(tmp_path / "empty.tsv")
    with pytest.raises(FileNotFoundError):
        read_data(tmp_path / "missing.arff")
    with pytest.raises(FileNotFoundError):
        read_data(tmp_path / "missing.csv.gz")


def test_missing_markers_as_r_and_weka_write_them(tmp_path):
    path = tmp_path / "na.csv"
    path.write_text("x,c,y\n1,a,NA\nNA,N/A,b\n?,null,?\nNaN,,b\n5,?x,b\n", encoding="utf-8")
    frame = read_data(path)
    # x holds numbers once NA, ?, NaN are missing: a float column, not strings '1'..'5' + 'NA'
    assert frame["x"].dtype == np.float64
    assert frame["x"].tolist()[0] == 1.0 and frame["x"].tolist()[4] == 5.0
    assert frame["x"].isna().tolist() == [False, True, True, True, False]
    assert frame["c"].isna().tolist() == [False, True, True, True, False]  # '?x' is a value
    assert frame["y"].isna().tolist() == [True, False, True, False, False]
    # the list is the caller's: only "?" (and an empty cell) missing
    own = read_data(path, na_values=["?"])
    assert own["c"].tolist()[:3] == ["a", "N/A", "null"] and pd.isna(own["c"][3])
    assert own["y"].tolist()[0] == "NA" and pd.isna(own["y"][2])
    # an empty list: only empty cells
    assert read_data(path, na_values=[])["y"].tolist()[:3] == ["NA", "b", "?"]


SEMICOLON = "crim;zn;rm;medv\n0,00632;18;6,575;24\n0,02731;0;6,421;21,6\n"


def test_the_separator_is_detected(tmp_path):
    path = tmp_path / "boston.csv"
    path.write_text(SEMICOLON, encoding="utf-8")
    frame = read_data(path, decimal=",")
    assert list(frame.columns) == ["crim", "zn", "rm", "medv"]
    assert frame["crim"].tolist() == [0.00632, 0.02731] and frame["medv"].tolist() == [24, 21.6]
    # tab- and pipe-separated files named .csv, a comma-separated one named .tsv
    for sep, name in (("\t", "t.csv"), ("|", "p.csv"), (",", "c.tsv")):
        other = tmp_path / name
        other.write_text(f"a{sep}b{sep}c\n1{sep}x{sep}2.5\n", encoding="utf-8")
        assert read_data(other).to_dict("list") == {"a": [1], "b": ["x"], "c": [2.5]}, name
    # quoted fields holding the other separators do not mislead it
    quoted = tmp_path / "q.csv"
    quoted.write_text('a;b\n"x,y,z";1\n"u,v,w";2\n', encoding="utf-8")
    assert read_data(quoted)["a"].tolist() == ["x,y,z", "u,v,w"]
    # given, it is used as it is
    assert list(read_data(quoted, sep=",").columns) == ["a;b"]
    with pytest.raises(ValueError, match="sep must be one character"):
        read_data(quoted, sep=";;")
    with pytest.raises(ValueError, match="must differ"):
        read_data(quoted, sep=",", decimal=",")


def test_numbers_of_another_convention_are_refused(tmp_path):
    path = tmp_path / "boston.csv"
    path.write_text(SEMICOLON, encoding="utf-8")
    with pytest.raises(DataFileError) as e:
        read_data(path)
    assert str(e.value) == (
        f"{path}: column 'crim' holds numbers written as 0,00632, 0,02731, which would be read "
        "as text; give decimal=',' (decimal comma); or keep_text=['crim'] to keep them as "
        "categories")
    assert isinstance(e.value, NumberFormatError) and e.value.message("cli").endswith(
        "give --decimal , (decimal comma); or --categorical crim to keep them as categories")
    # thousands: "2,960" reads with either convention, so both are named
    tax = tmp_path / "tax.csv"
    tax.write_text('tax,y\n"2,960",a\n"1,234",b\n"3,001",a\n"1,100",b\n', encoding="utf-8")
    with pytest.raises(NumberFormatError) as e:
        read_data(tax)
    assert "written as 2,960, 1,234, 3,001, ..., which" in str(e.value)
    assert e.value.message("cli").endswith(
        "give --decimal , (decimal comma); or --thousands , (decimal point, thousands separated "
        "by ','); or --categorical tax to keep them as categories")
    assert read_data(tax, thousands=",")["tax"].tolist() == [2960, 1234, 3001, 1100]
    assert read_data(tax, decimal=",")["tax"].tolist() == [2.96, 1.234, 3.001, 1.1]
    assert read_data(tax, keep_text=["tax"])["tax"].tolist()[0] == "2,960"
    # European: thousands '.' and a decimal comma
    eu = tmp_path / "eu.csv"
    eu.write_text("v;y\n1.234,5;a\n12,25;b\n", encoding="utf-8")
    with pytest.raises(NumberFormatError, match=r"give decimal=',', thousands='\.'"):
        read_data(eu)
    assert read_data(eu, decimal=",", thousands=".")["v"].tolist() == [1234.5, 12.25]
    # text that only looks a little like numbers stays text
    text = tmp_path / "text.csv"
    text.write_text("code,y\n1,2,3,a\n", encoding="utf-8")
    text.write_text('code,y\n"1,2,3",a\nx,b\n', encoding="utf-8")
    assert read_data(text)["code"].tolist() == ["1,2,3", "x"]


COMPRESSORS = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz", ".zip", ".tar", ".tar.gz"])
def test_compressed_files(suffix, tmp_path):
    text = "a\tb\n1\tx,y\n2\tz\n".encode()
    path = tmp_path / f"t.tsv{suffix}"
    if suffix in COMPRESSORS:
        path.write_bytes(COMPRESSORS[suffix](text))
    elif suffix == ".zip":
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("t.tsv", text)
    else:
        (tmp_path / "t.tsv").write_bytes(text)
        with tarfile.open(path, "w:gz" if suffix == ".tar.gz" else "w") as t:
            t.add(tmp_path / "t.tsv", arcname="t.tsv")
    # a .tsv inside: tab-separated (the comma in 'x,y' is data)
    assert read_data(path).to_dict("list") == {"a": [1, 2], "b": ["x,y", "z"]}


def test_compressed_arff(tmp_path):
    path = tmp_path / "t.arff.gz"
    path.write_bytes(gzip.compress(b"@relation r\n@attribute a numeric\n@data\n1\n?\n"))
    assert read_data(path)["a"].isna().tolist() == [False, True]


BAD_FILES = {
    "t.csv.gz": (b"a,b\n1,2\n", "not a readable gzip file (Not a gzipped file"),
    "t.bz2": (b"a,b\n1,2\n", "not a readable bzip2 file (Invalid data stream)"),
    "t.xz": (b"a,b\n1,2\n", "not a readable xz file (Input format not supported by decoder)"),
    "t.zip": (b"a,b\n1,2\n", "not a readable zip file (File is not a zip file)"),
    "t.tar": (b"a,b\n1,2\n", "not a readable tar file"),
    "cut.gz": (gzip.compress(b"a,b\n" + b"1,2\n" * 1000)[:-30], "not a readable gzip file"),
    "cut.arff.xz": (lzma.compress(b"@attribute a numeric\n@data\n1\n")[:-9], "not a readable xz"),
    "t.parquet.gz": (b"PAR1", "a Parquet file is compressed inside"),
    "t.csv.zst": (b"a,b\n1,2\n", "zstd-compressed files are not read; decompress it first"),
    "dup.csv": (b"y,x,y\n1,2,3\n", "the header names column 'y' twice (fields 1 and 3); every "
                                    "column needs its own name"),
    "extra.csv": (b"a,b\n1,2,3\n4,5,6\n", "the header names 2 columns but the data rows have 3 "
                                           "fields; pandas would take the first as row names"),
    "extra0.csv": (b"a,b\n0,2,3\n1,5,6\n", "the header names 2 columns but the data rows have 3"),
    "ragged.csv": (b"a,b\n1,2\n1,2,3\n", "not a readable CSV file (Error tokenizing data"),
}


@pytest.mark.parametrize("name", BAD_FILES, ids=BAD_FILES.keys())
def test_bad_files_name_the_file_and_the_problem(name, tmp_path):
    content, message = BAD_FILES[name]
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(DataFileError) as e:
        read_data(path)
    assert str(e.value).startswith(f"{path}: ") and message in str(e.value)
    assert "\n" not in str(e.value)


def test_archives_of_several_files_are_refused(tmp_path):
    path = tmp_path / "two.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("a.csv", "a\n1\n")
        z.writestr("b.csv", "b\n2\n")
    with pytest.raises(DataFileError, match=r"two.zip: the zip archive holds 2 files \(a.csv, "
                                            r"b.csv\); rootwise reads an archive of one file"):
        read_data(path)


def test_a_separator_ending_every_line_is_read_as_absent(tmp_path):
    path = tmp_path / "trail.csv"
    path.write_text("a,b\n1,x,\n4,y,\n", encoding="utf-8")
    assert read_data(path).to_dict("list") == {"a": [1, 4], "b": ["x", "y"]}


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


@pytest.mark.parametrize("kind", ["list", "struct", "map"])
def test_parquet_nested_columns_are_refused(kind, tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    column = {"list": pa.array([[1, 2], [3]]), "struct": pa.array([{"u": 1}, {"u": 2}]),
              "map": pa.array([[("k", 1)], [("k", 2)]], type=pa.map_(pa.string(), pa.int64()))}
    path = tmp_path / "nested.parquet"
    pq.write_table(pa.table({"x": [1.0, 2.0], "c": column[kind]}), path)
    with pytest.raises(DataFileError, match=rf"nested.parquet: column 'c' holds {kind}<.*a tree "
                                            r"needs one number or category per cell"):
        read_data(path)


def test_parquet_without_pyarrow_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow now raises ImportError
    (tmp_path / "t.parquet").write_bytes(b"PAR1")
    with pytest.raises(ImportError, match=r"needs pyarrow: pip install 'rootwise\[parquet\]'"):
        read_data(tmp_path / "t.parquet")


def test_public_names():
    assert rootwise.read_data is read_data and rootwise.DataFileError is DataFileError
    assert issubclass(DataFileError, ValueError)
