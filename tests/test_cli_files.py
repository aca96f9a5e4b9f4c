"""How the command line reads data files: missing markers, separators, decimal marks, the ARFF
target, rows without a target, and one clear line (exit 2) for every file it cannot read.

Each tree is checked against a peer: the same command on the same data written plainly (commas,
points, empty cells), or the same estimator fitted in Python on the frame built here by hand.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rootwise
from rootwise.cli import main
from rootwise.cli.first_compile import NOTICE

J48_DATA = Path(__file__).parent / "golden" / "j48" / "data"
WEATHER = J48_DATA / "weather.nominal.arff"

# R's write.csv: NA for missing, row names in a first column named ""
HOUSES = pd.DataFrame({
    "rooms": [6.575, 6.421, 7.185, 6.998, 7.147, 6.43, 6.012, 6.172, 5.631, 6.004, 6.377, 6.009],
    "tax": [2960.0, 2420, 2420, 2220, 2220, 2220, 3110, 3110, 3110, 3110, 3110, 3110],
    "river": ["no", "no", "yes", "no", None, "no", "yes", "no", "no", "yes", "no", "no"],
    "price": [24.0, 21.6, 34.7, 33.4, 36.2, 28.7, 22.9, 27.1, 16.5, 18.9, 15.0, 18.9],
})


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err.replace("\r" + NOTICE + "\n", "")


def one_line_error(capsys, *argv) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "", (code, out, err)
    assert err.startswith("rootwise: error: ") and err.count("\n") == 1, err
    return err[len("rootwise: error: "):-1]


def write_plain(tmp_path, frame=HOUSES, name="plain.csv") -> Path:
    path = tmp_path / name
    frame.to_csv(path, index=False)  # commas, decimal points, empty cells
    return path


def european(frame: pd.DataFrame) -> str:
    """The table as a European spreadsheet writes it: ';' between fields, a decimal comma,
    '.' between thousands, NA for missing."""
    def cell(v):
        if v is None or (isinstance(v, float) and np.isnan(v)):
            return "NA"
        if isinstance(v, float):
            whole, _, frac = f"{v:,.3f}".rstrip("0").rstrip(".").partition(".")
            return whole.replace(",", ".") + ("," + frac if frac else "")
        return str(v)
    lines = [";".join(frame.columns)] + [";".join(cell(v) for v in row)
                                         for row in frame.itertuples(index=False)]
    return "\n".join(lines) + "\n"


# a fixed seed: ties between equally good splits are broken at random
FIT_REG = ["--target", "price", "--algorithm", "cart-regressor", "--min-samples-split", "2",
           "--cp", "0", "--random-state", "0", "--quiet"]


def test_semicolons_and_decimal_commas_read_as_the_plain_file(tmp_path, capsys):
    plain = write_plain(tmp_path)
    code, expected, _ = run(capsys, "fit", plain, *FIT_REG)
    assert code == 0
    eu = tmp_path / "eu.csv"
    eu.write_text(european(HOUSES), encoding="utf-8")
    assert "2.960" in eu.read_text() and "6,575" in eu.read_text()  # the convention tested
    # without the options: refused, naming a column and the options that read it
    message = one_line_error(capsys, "fit", eu, *FIT_REG)
    assert message.startswith(f"{eu}: column 'rooms' holds numbers written as 6,575, 6,421, "
                              "7,185, ..., which would be read as text; give --decimal , "
                              "(decimal comma)")
    assert message.endswith("or --categorical rooms to keep them as categories")
    message = one_line_error(capsys, "fit", eu, *FIT_REG, "--decimal", ",")
    assert "column 'tax' holds numbers written as 2.960, 2.420" in message
    assert "; or --thousands . (decimal comma, thousands separated by '.'); or" in message
    code, out, err = run(capsys, "fit", eu, *FIT_REG, "--decimal", ",", "--thousands", ".")
    assert code == 0 and out == expected and err == ""
    # --sep overrides the detection
    code, out, _ = run(capsys, "fit", eu, *FIT_REG, "--decimal", ",", "--thousands", ".",
                       "--sep", ";")
    assert code == 0 and out == expected
    message = one_line_error(capsys, "fit", eu, *FIT_REG, "--sep", "|")
    assert message == (f"{eu} has no column 'price' (its columns: rooms;tax;river;price); its "
                       "header looks ;-separated: give --sep ;")


def test_r_missing_values_make_no_categories(tmp_path, capsys):
    r_file = tmp_path / "r.csv"
    text = HOUSES.to_csv(index=False, na_rep="NA")
    r_file.write_text(text, encoding="utf-8")
    assert ",NA," in text
    plain = write_plain(tmp_path)
    code, expected, _ = run(capsys, "fit", plain, *FIT_REG)
    code, out, _ = run(capsys, "fit", r_file, *FIT_REG)
    assert code == 0 and out == expected
    # the peer in Python: 'river' with a missing cell, not a category 'NA'
    peer = rootwise.CARTRegressor(min_samples_split=2, cp=0, random_state=0)
    model = peer.fit(HOUSES.drop(columns="price"), HOUSES["price"])
    assert out.startswith(rootwise.export_text(model))
    # --na-values: 'NA' is a category again
    code, out, _ = run(capsys, "fit", r_file, *FIT_REG, "--na-values", "?", "--node-ids")
    model = rootwise.CARTRegressor(min_samples_split=2, cp=0, random_state=0).fit(
        HOUSES.drop(columns="price").fillna({"river": "NA"}), HOUSES["price"])
    assert code == 0 and out.startswith(rootwise.export_text(model, node_ids=True))


def test_r_row_names_are_not_a_feature(tmp_path, capsys):
    r_file = tmp_path / "r.csv"
    frame = HOUSES.set_axis(range(1, len(HOUSES) + 1))  # R numbers its rows from 1
    frame.to_csv(r_file, index_label="", na_rep="NA")
    assert r_file.read_text().startswith(',rooms,tax,river,price\n1,6.575,')
    code, expected, _ = run(capsys, "fit", write_plain(tmp_path), *FIT_REG)
    args = [a for a in FIT_REG if a != "--quiet"]
    code, out, err = run(capsys, "fit", r_file, *args)
    assert code == 0 and out == expected
    assert err == (f"rootwise: note: left out the first column of {r_file}: it has no name and "
                   "holds the row numbers 1 to 12 (R's write.csv row names)\n")
    # an unnamed column of other numbers is a feature like any other
    HOUSES.set_axis(range(2, len(HOUSES) + 2)).to_csv(r_file, index_label="")
    model = tmp_path / "m.json"
    code, out, err = run(capsys, "fit", r_file, *FIT_REG, "--out", model)
    assert code == 0 and err == ""
    assert list(rootwise.load(model).feature_names_in_) == ["Unnamed: 0", "rooms", "tax", "river"]
    # names, one per row (mtcars' car names): R's row names too, left out with a note
    named = HOUSES.set_axis([f"house {i}" for i in range(len(HOUSES))])
    named.to_csv(r_file, index_label="")
    code, out, err = run(capsys, "fit", r_file, *args)
    assert code == 0 and out == expected
    assert err == (f"rootwise: note: left out the first column of {r_file}: it has no name and "
                   f"holds a different name on each of its 12 rows (R's write.csv row names)\n")
    # names that repeat are a categorical feature like any other
    named.set_axis(["a", "b"] * 6).to_csv(r_file, index_label="")
    code, out, err = run(capsys, "fit", r_file, *FIT_REG, "--out", model)
    assert code == 0 and err == ""
    assert list(rootwise.load(model).feature_names_in_)[0] == "Unnamed: 0"


def test_arff_target_is_the_last_attribute_in_every_command(tmp_path, capsys):
    code, expected, _ = run(capsys, "fit", WEATHER, "--target", "play", "--quiet")
    code, out, err = run(capsys, "fit", WEATHER)
    assert code == 0 and out == expected
    # the target's note first; the algorithm chosen from it and the seed are noted after
    assert err.splitlines()[0] == (f"rootwise: note: target 'play', the last attribute of "
                                   f"{WEATHER} (as Weka takes it; --target COL chooses another)")
    code, out, err = run(capsys, "fit", WEATHER, "--quiet")
    assert code == 0 and out == expected and err == ""
    for command in (["explain"], ["cv", "--folds", "2"]):
        code, out, _ = run(capsys, *command[:1], WEATHER, *command[1:])
        code_t, out_t, _ = run(capsys, *command[:1], WEATHER, *command[1:], "--target", "play")
        assert code == code_t == 0 and out == out_t, command
    report = tmp_path / "r.html"
    assert run(capsys, "report", WEATHER, "--out", report, "--quiet")[0] == 0
    assert "play" in report.read_text(encoding="utf-8")
    # a CSV has no such convention
    csv = tmp_path / "weather.csv"
    csv.write_text("outlook,play\nsunny,no\n", encoding="utf-8")
    assert one_line_error(capsys, "fit", csv) == (
        f"{csv}: which column is the target? give --target COL (its columns: outlook, play); "
        "only an ARFF file's target defaults to its last attribute")


def test_rows_without_a_target_are_dropped_with_a_note(tmp_path, capsys):
    frame = HOUSES.copy()
    frame.loc[[2, 7], "price"] = np.nan
    holes = write_plain(tmp_path, frame, "holes.csv")
    kept = write_plain(tmp_path, frame.dropna(subset=["price"]), "kept.csv")
    code, expected, _ = run(capsys, "fit", kept, *FIT_REG)
    args = [a for a in FIT_REG if a != "--quiet"]
    code, out, err = run(capsys, "fit", holes, *args)
    assert code == 0 and out == expected
    assert err == (f"rootwise: note: left out 2 of 12 rows of {holes} whose target 'price' is "
                   "missing (--no-drop-missing-target refuses them)\n")
    assert one_line_error(capsys, "fit", holes, *FIT_REG, "--no-drop-missing-target") == (
        f"{holes}: 2 of 12 rows have no value in the target column 'price' (data rows 3, 8); "
        "--drop-missing-target leaves them out")
    code, out, _ = run(capsys, "cv", holes, *FIT_REG, "--folds", "2")
    code_k, out_k, _ = run(capsys, "cv", kept, *FIT_REG, "--folds", "2")
    assert code == code_k == 0 and out.replace(str(holes), "") == out_k.replace(str(kept), "")
    # evaluate leaves out the rows without a true value the same way
    model = tmp_path / "m.json"
    assert run(capsys, "fit", kept, *FIT_REG, "--out", model)[0] == 0
    code, out, err = run(capsys, "evaluate", model, holes, "--target", "price")
    code_k, out_k, _ = run(capsys, "evaluate", model, kept, "--target", "price")
    assert code == code_k == 0 and out.replace(str(holes), "") == out_k.replace(str(kept), "")
    assert "left out 2 of 12 rows" in err
    assert "--drop-missing-target leaves them out" in one_line_error(
        capsys, "evaluate", model, holes, "--target", "price", "--no-drop-missing-target")
    everything = write_plain(tmp_path, HOUSES.assign(price=np.nan), "none.csv")
    assert one_line_error(capsys, "fit", everything, *FIT_REG) == (
        f"{everything}: the target column 'price' has no value in any row")


def test_evaluate_never_scores_against_a_column_that_is_not_the_target(tmp_path, capsys):
    train = tmp_path / "train.csv"
    train.write_text("id,x,y\n1,a,yes\n2,b,no\n3,a,yes\n4,b,no\n", encoding="utf-8")
    model = tmp_path / "m.json"
    assert run(capsys, "fit", train, "--target", "y", "--ignore", "id", "--out", model,
               "--quiet")[0] == 0
    no_target = tmp_path / "new.csv"
    no_target.write_text("id,x\n5,a\n6,b\n", encoding="utf-8")
    assert one_line_error(capsys, "evaluate", model, no_target) == (
        f"{no_target}: column 'id' is the last one the model does not use, but 2 of its 2 values "
        "are not classes of the model (e.g. 5; its classes: no, yes); give --target COL, the "
        "column of true classes")
    code, out, _ = run(capsys, "evaluate", model, train)  # the last column: y
    assert code == 0 and "(true values: column 'y')" in out and "accuracy  1.000  (4 of 4 rows)" in out
    # a regressor against row numbers
    numbers = tmp_path / "numbers.csv"
    numbers.write_text("id,x,v\n1,1.0,3.5\n2,2.0,1.5\n3,3.0,8.0\n4,4.0,2.5\n", encoding="utf-8")
    assert run(capsys, "fit", numbers, "--target", "v", "--ignore", "id", "--algorithm",
               "cart-regressor", "--out", model, "--quiet")[0] == 0
    numbers.write_text("id,x\n11,1.0\n12,2.0\n13,3.0\n", encoding="utf-8")
    assert one_line_error(capsys, "evaluate", model, numbers) == (
        f"{numbers}: column 'id', the last one the model does not use, holds row numbers (11 to "
        "13, each once), not true values; give --target COL")
    only_y = tmp_path / "only_y.csv"
    only_y.write_text("x,y\na,yes\nb,yes\n", encoding="utf-8")
    assert run(capsys, "fit", train, "--target", "y", "--ignore", "id", "--out", model,
               "--quiet")[0] == 0
    code, out, _ = run(capsys, "evaluate", model, only_y)
    assert code == 0 and "(true values: column 'y')" in out and "accuracy  0.500" in out


def test_tsv_gz_is_tab_separated(tmp_path, capsys):
    path = tmp_path / "houses.tsv.gz"
    path.write_bytes(gzip.compress(HOUSES.to_csv(index=False, sep="\t").encode()))
    code, expected, _ = run(capsys, "fit", write_plain(tmp_path), *FIT_REG)
    code, out, _ = run(capsys, "fit", path, *FIT_REG)
    assert code == 0 and out == expected


def _parquet_nested(path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"x": [[1, 2], [3]], "y": ["a", "b"]}), path)


BAD = {
    "zip": ("t.zip", lambda p: p.write_text("a,y\n1,2\n"),
            "not a readable zip file (File is not a zip file)"),
    "xz": ("t.xz", lambda p: p.write_text("a,y\n1,2\n"), "not a readable xz file"),
    "tar": ("t.tar", lambda p: p.write_text("a,y\n1,2\n"), "not a readable tar file"),
    "gz": ("t.csv.gz", lambda p: p.write_text("a,y\n1,2\n"), "not a readable gzip file"),
    "bz2": ("t.csv.bz2", lambda p: p.write_text("a,y\n1,2\n"),
            "not a readable bzip2 file (Invalid data stream)"),
    "cut gz": ("c.csv.gz", lambda p: p.write_bytes(gzip.compress(b"a,y\n" + b"1,2\n" * 500)[:-20]),
               "not a readable gzip file (Compressed file ended before the end-of-stream marker"),
    "parquet list": ("n.parquet", _parquet_nested, "column 'x' holds list<"),
    "extra field": ("e.csv", lambda p: p.write_text("a,y\n1,2,3\n4,5,6\n"),
                    "the header names 2 columns but the data rows have 3 fields"),
    "duplicate header": ("d.csv", lambda p: p.write_text("y,x,y\n1,2,3\n"),
                         "the header names column 'y' twice (fields 1 and 3)"),
}


@pytest.mark.parametrize("command", ["fit", "predict", "evaluate"])
@pytest.mark.parametrize("case", BAD, ids=BAD.keys())
def test_bad_files_one_line_naming_the_file(case, command, tmp_path, capsys):
    name, make, message = BAD[case]
    path = tmp_path / name
    make(path)
    if command == "fit":
        argv = ["fit", path, "--target", "y"]
    else:
        model = tmp_path / "m.json"
        write_plain(tmp_path, pd.DataFrame({"a": [1, 2], "y": ["p", "q"]}), "ok.csv")
        assert run(capsys, "fit", tmp_path / "ok.csv", "--target", "y", "--out", model,
                   "--quiet")[0] == 0
        argv = [command, model, path]
    got = one_line_error(capsys, *argv)
    assert got.startswith(f"{path}: ") and message in got, got


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".arff", ".parquet", ".csv.gz", ".tsv.bz2",
                                    ".xz", ".zip", ".tar"])
def test_no_traceback_from_any_file(suffix, tmp_path, capsys):
    """Random and mangled bytes under every name: status 0 or 2, never an exception."""
    rng = random.Random(suffix)
    seeds = [b"a,b,y\n1,x,p\n2,y,q\n", b"@relation r\n@attribute a numeric\n@attribute y {p,q}\n"
             b"@data\n1,p\n2,q\n", gzip.compress(b"a,y\n1,p\n"), bz2.compress(b"a;y\n1,5;p\n"),
             lzma.compress(b"a\ty\n1\tp\n"), b"PAR1\x00\x00PAR1"]
    for i in range(12):
        data = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(0, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        if rng.random() < 0.3:
            data = data[:rng.randrange(len(data) + 1)]
        path = tmp_path / f"f{i}{suffix}"
        path.write_bytes(bytes(data))
        code, out, err = run(capsys, "fit", path, "--target", "y", "--quiet")
        assert code in (0, 2), (bytes(data), err)
        if code == 2:
            assert err.startswith("rootwise: error: ") and err.count("\n") == 1, err


def _wide_csv(path, n_rows: int, n_columns: int) -> None:
    rng = np.random.default_rng(0)
    cells = rng.integers(0, 10, size=(n_rows, n_columns))
    lines = [",".join(f"c{j}" for j in range(n_columns)) + ",y"]
    lines += [",".join(map(str, row)) + f",{i % 2}" for i, row in enumerate(cells)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_a_wide_table_is_refused_before_it_is_parsed(tmp_path, capsys, monkeypatch):
    from rootwise.cli import size
    from rootwise.input import files

    path = tmp_path / "wide.csv"
    _wide_csv(path, 4, 20_000)

    def no_parse(*args, **kwargs):
        raise AssertionError("the table was parsed")

    monkeypatch.setattr(files.pd, "read_csv", no_parse)
    need = size.fit_bytes(4, 20_001, "id3")
    assert need > 300 * 2**20  # the estimate the message gives
    message = one_line_error(capsys, "fit", path, "--target", "y", "--max-memory", "100M",
                             "--algorithm", "id3")
    assert message == (
        f"{path}: 20,001 columns x 4 rows would take about {size.human(need)} to read and fit "
        f"({size.human(size.PER_COLUMN['id3'])} a column, {size.PER_CELL} bytes a cell), more "
        "than the 100.0 MB available; drop columns (--ignore) or give --max-memory SIZE to allow "
        "more")
    # C4.5 and CART take less a column
    message = one_line_error(capsys, "fit", path, "--target", "y", "--max-memory", "100M",
                             "--algorithm", "cart")
    assert f"would take about {size.human(size.fit_bytes(4, 20_001, 'cart'))} to" in message
    # the default limit is the memory available
    monkeypatch.setattr(size, "available_bytes", lambda: 200 * 2**20)
    assert "more than the 200.0 MB available" in one_line_error(capsys, "cv", path, "--target", "y")
    assert "more than the 200.0 MB available" in one_line_error(capsys, "report", path,
                                                                "--target", "y", "--out",
                                                                tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()


def test_a_wide_arff_is_refused_before_the_fit(tmp_path, capsys, monkeypatch):
    # no estimate before parsing an ARFF file: the parsed table's size is checked before the fit
    path = tmp_path / "wide.arff"
    n = 3000
    header = "".join(f"@attribute a{j} numeric\n" for j in range(n))
    rows = "".join(",".join(["1"] * n) + f",{c}\n" for c in "pq")
    path.write_text(f"@relation w\n{header}@attribute y {{p,q}}\n@data\n{rows}", encoding="utf-8")

    def no_fit(*args, **kwargs):
        raise AssertionError("the fit started")

    monkeypatch.setattr(rootwise.ID3Classifier, "fit", no_fit)
    monkeypatch.setattr(rootwise.CARTClassifier, "fit", no_fit)
    from rootwise.cli import size

    message = one_line_error(capsys, "fit", path, "--max-memory", "10M", "--quiet",
                             "--algorithm", "id3")
    assert message.startswith(f"{path}: 3,001 columns x 2 rows would take about "
                              f"{size.human(size.fit_bytes(2, 3001, 'id3'))} to read and fit")
    assert one_line_error(capsys, "fit", path, "--max-memory", "lots") == (
        "argument --max-memory: expected a size such as 8G or 500M, got 'lots' "
        "(see 'rootwise fit --help')")


def test_the_estimate_bounds_a_real_fit(tmp_path):
    """Peak memory of reading and fitting a wide and a tall table with every algorithm, in a
    fresh process each, stays under ``size.fit_bytes`` (the bound must never be too low)."""
    if not Path("/proc/self/clear_refs").exists():
        pytest.skip("needs Linux' /proc/self/clear_refs")
    import subprocess
    import sys

    from rootwise.cli import size

    # a first fit of the same table loads (or compiles) the kernels it calls; the peak of the
    # second, from reading the file on, is measured (Linux: clear_refs 5 resets VmHWM)
    script = (
        "import gc, sys, rootwise\n"
        "cls = getattr(rootwise, sys.argv[1])\n"
        "def fit():\n"
        "    frame = rootwise.read_data(sys.argv[2])\n"
        "    y = frame.pop('y')\n"
        "    cls().fit(frame, y.astype(float) if sys.argv[1] == 'CARTRegressor' else y)\n"
        "def status(key):\n"
        "    line = next(x for x in open('/proc/self/status') if x.startswith(key))\n"
        "    return int(line.split()[1]) * 1024\n"
        "fit()\n"
        "gc.collect()\n"
        "open('/proc/self/clear_refs', 'w').write('5')\n"
        "base = status('VmRSS:')\n"
        "fit()\n"
        "print(status('VmHWM:') - base)\n")
    for n_rows, n_columns in ((4, 4000), (2000, 50)):
        path = tmp_path / f"t{n_rows}.csv"
        _wide_csv(path, n_rows, n_columns)
        for name, algorithm in (("ID3Classifier", "id3"), ("C45Classifier", "c4.5"),
                                ("CARTClassifier", "cart"), ("CARTRegressor", "cart-regressor")):
            done = subprocess.run([sys.executable, "-c", script, name, str(path)],
                                  capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, done.stderr
            used = int(done.stdout.split()[-1])
            assert used <= size.fit_bytes(n_rows, n_columns + 1, algorithm), (name, n_rows, used)


def test_predict_reads_the_file_options(tmp_path, capsys):
    plain = write_plain(tmp_path)
    model = tmp_path / "m.json"
    assert run(capsys, "fit", plain, *FIT_REG, "--out", model)[0] == 0
    code, expected, _ = run(capsys, "predict", model, plain)
    assert code == 0
    eu = tmp_path / "eu.csv"
    # an ID column the model does not use may hold anything, "1,234" included
    eu.write_text(european(HOUSES.assign(code=[f"1,{i:03d}" for i in range(12)])),
                  encoding="utf-8")
    message = one_line_error(capsys, "predict", model, eu)
    assert message == (f"{eu}: column 'rooms' holds numbers written as 6,575, 6,421, 7,185, ..., "
                       "which the model reads as numbers; give --decimal , (decimal comma)")
    code, out, _ = run(capsys, "predict", model, eu, "--decimal", ",", "--thousands", ".")
    assert code == 0 and out == expected
