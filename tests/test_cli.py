"""The rootwise command: fit / predict / show / explain in-process, one run of the real script."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys

import pytest

import rootwise
from rootwise.cli import main
from rootwise.cli.first_compile import NOTICE

WATERMELON = str(rootwise.datasets.path("watermelon_2_0"))
FIT = ["fit", WATERMELON, "--target", "好瓜", "--algorithm", "id3", "--ignore", "编号"]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    # the line while kernels compile for their first use (a cold numba cache) is not an error
    return code, out, err.replace("\r" + NOTICE + "\n", "")


def rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def watermelon_rows() -> list[dict]:
    with open(WATERMELON, encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture
def model_file(tmp_path, capsys):
    path = tmp_path / "model.json"
    assert main([*FIT, "--out", str(path)]) == 0
    capsys.readouterr()
    return path


def test_fit_prints_the_textbook_tree_and_saves(tmp_path, capsys):
    out_file = tmp_path / "m.json"
    code, out, err = run(capsys, *FIT, "--out", str(out_file))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "├── 纹理 = 清晰" and lines[12] == "└── 纹理 = 模糊 → 否 (3)"
    assert "│   ├── 根蒂 = 蜷缩 → 是 (5)" in lines  # 清晰 -> 蜷缩
    assert sum("(0, parent's class)" in line for line in lines) == 1  # 清晰 -> 稍蜷 -> 浅白
    assert not any("编号" in line for line in lines)  # --ignore worked
    # J48's closing lines: the size of the tree, then the score on the training rows (ID3 grows
    # until every leaf is pure on watermelon 2.0: 17 of 17)
    assert lines[13:] == ["", "9 leaves, 14 nodes, depth 4", "training accuracy 1.000 (17 of 17 rows)"]
    assert rootwise.load(out_file).tree_.n_leaves == 9


def test_fit_options_reach_the_estimator(capsys):
    code, out, _ = run(capsys, *FIT, "--max-depth", "1")
    assert code == 0
    # 纹理 alone: 清晰 holds 7 是 and 2 否, 稍糊 4 否 and 1 是; 14 of 17 rows right
    assert out.splitlines() == ["├── 纹理 = 清晰 → 是 (9/2)", "├── 纹理 = 稍糊 → 否 (5/1)",
                                "└── 纹理 = 模糊 → 否 (3)", "",
                                "3 leaves, 4 nodes, depth 1",
                                "training accuracy 0.824 (14 of 17 rows)"]
    # a gain threshold above every gain at the root (纹理: 0.381) leaves a single leaf
    code, out, _ = run(capsys, *FIT, "--epsilon", "0.5")
    assert code == 0 and out.splitlines()[0] == "否 (17/8)"


def test_fit_reads_a_bom_and_na_values_sets_the_missing_markers(tmp_path, capsys):
    data = tmp_path / "bom.csv"
    data.write_text("颜色,标签\nNA,是\nNone,否\nNA,是\n", encoding="utf-8-sig")
    # an empty list: only empty cells are missing, so NA is a category (by default it is missing)
    code, out, err = run(capsys, "fit", str(data), "--target", "标签", "--na-values", "",
                         "--algorithm", "id3")
    assert code == 0, err
    assert out.splitlines()[:2] == ["├── 颜色 = NA → 是 (2)", "└── 颜色 = None → 否 (1)"]


def test_predict_selects_columns_by_name(model_file, tmp_path, capsys):
    # columns shuffled, plus the target and the ID: the model picks its six by name
    source = watermelon_rows()
    order = ["好瓜", "触感", "编号", "纹理", "色泽", "脐部", "敲声", "根蒂"]
    data = tmp_path / "shuffled.csv"
    with open(data, "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=order)
        writer.writeheader()
        writer.writerows(source)
    code, out, err = run(capsys, "predict", str(model_file), str(data))
    assert code == 0 and err == ""
    assert [r["prediction"] for r in rows(out)] == [r["好瓜"] for r in source]  # ID3 fits its data

    code, out, _ = run(capsys, "predict", str(model_file), str(data), "--proba")
    table = rows(out)
    assert list(table[0]) == ["prediction", "P(否)", "P(是)"]
    assert [float(r["P(是)"]) for r in table] == [1.0 if r["好瓜"] == "是" else 0.0 for r in source]


def test_predict_to_file_and_unseen_category(model_file, tmp_path, capsys):
    data = tmp_path / "new.csv"
    # 纹理 = 清晰, 根蒂 = 稍蜷, 色泽 = 浅白: the empty branch -> 是; an unseen 纹理 stops at the root
    data.write_text("色泽,根蒂,敲声,纹理,脐部,触感\n浅白,稍蜷,浊响,清晰,凹陷,硬滑\n"
                    "青绿,蜷缩,浊响,格子,凹陷,硬滑\n", encoding="utf-8")
    out_file = tmp_path / "pred.csv"
    code, out, _ = run(capsys, "predict", str(model_file), str(data), "--proba", "--out", str(out_file))
    assert code == 0 and out == ""
    table = rows(out_file.read_text(encoding="utf-8"))
    assert [r["prediction"] for r in table] == ["是", "否"]
    assert float(table[0]["P(是)"]) == pytest.approx(2 / 3)  # parent 根蒂=稍蜷: 2 是, 1 否
    assert float(table[1]["P(是)"]) == pytest.approx(8 / 17)  # root: 8 是, 9 否


@pytest.mark.parametrize("algorithm, cls, target", [
    ("c4.5", rootwise.C45Classifier, "好瓜"),
    ("cart", rootwise.CARTClassifier, "好瓜"),
    ("cart-regressor", rootwise.CARTRegressor, "含糖率"),
])
def test_other_algorithms(algorithm, cls, target, tmp_path, capsys):
    # the command must grow the same tree as the library with the same options, and predict with it
    data = str(rootwise.datasets.path("watermelon_3_0"))
    frame = rootwise.datasets.load("watermelon_3_0")
    ignore = [c for c in ("编号", "好瓜") if c != target]
    model = cls(max_depth=2, random_state=0).fit(frame.drop(columns=[target, *ignore]), frame[target])
    out_file = tmp_path / "m.json"
    code, out, err = run(capsys, "fit", data, "--target", target, "--ignore", *ignore,
                         "--algorithm", algorithm, "--max-depth", "2", "--random-state", "0",
                         "--out", str(out_file))
    assert code == 0, err
    assert out.startswith(rootwise.export_text(model) + "\n")
    assert rootwise.load(out_file).tree_ == model.tree_
    code, out, _ = run(capsys, "predict", str(out_file), data)
    assert code == 0
    predicted = [r["prediction"] for r in rows(out)]
    assert predicted == [str(v) for v in model.predict(frame[model.feature_names_in_])]


def test_show(model_file, capsys):
    code, text, _ = run(capsys, "show", str(model_file))
    assert code == 0 and text == rootwise.export_text(rootwise.load(model_file))
    code, text, _ = run(capsys, "show", str(model_file), "--show-depth", "1", "--counts")
    assert code == 0
    assert text.splitlines()[0] == "├── 纹理 = 清晰 → 是 (9/2) [是: 7, 否: 2] … (6 leaves below)"
    code, dot, _ = run(capsys, "show", str(model_file), "--format", "dot")
    assert code == 0 and dot.startswith("digraph Tree {") and '0 -> 1 [label="清晰"]' in dot
    code, raw, _ = run(capsys, "show", str(model_file), "--format", "json")
    assert code == 0 and json.loads(raw)["format"] == "rootwise-model"


def test_explain_root_and_a_node(capsys):
    code, out, _ = run(capsys, "explain", WATERMELON, "--target", "好瓜", "--ignore", "编号",
                       "--algorithm", "id3")
    assert code == 0
    lines = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
    # Gain(D, 纹理) = 0.998 - (9/17 * 0.764 + 5/17 * 0.722) = 0.381 (seed 000), the largest
    assert lines["纹理"][4] == "0.381" and lines["纹理"][-1] == "<-"
    assert lines["根蒂"][4] == "0.143" and lines["触感"][4] == "0.006"

    code, tree, _ = run(capsys, *FIT, "--node-ids")
    node = next(line.split("[")[1].split("]")[0] for line in tree.splitlines() if "根蒂 = 稍蜷" in line)
    code, out, _ = run(capsys, "explain", WATERMELON, "--target", "好瓜", "--ignore", "编号",
                       "--algorithm", "id3", "--node", node)
    assert code == 0
    lines = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
    # rows 6, 8, 15 (是, 是, 否): 色泽 and 触感 both gain 0.918 - 2/3 = 0.252; the first column wins
    assert lines["色泽"][4] == "0.252" and lines["触感"][4] == "0.252"
    assert lines["色泽"][-1] == "<-" and "纹理" not in lines and "根蒂" not in lines


def _files(tmp_path):
    (tmp_path / "empty.csv").write_bytes(b"")
    (tmp_path / "header.csv").write_text("a,b\n", encoding="utf-8")
    (tmp_path / "binary.csv").write_bytes(b"a,b\n\xff\xfe\x00,1\n")
    (tmp_path / "nolabel.csv").write_text("a,y\nx,1\nz,\n", encoding="utf-8")
    (tmp_path / "v2.json").write_text('{"format": "rootwise-model", "version": 2}', encoding="utf-8")
    (tmp_path / "cut.json").write_text('{"format": "rootwise-model", "vers', encoding="utf-8")
    (tmp_path / "loan.csv").write_text("有房情况,婚姻状况\n是,单身\n", encoding="utf-8")


USER_ERRORS = {
    "no command": ([], "required: COMMAND"),
    "missing data": (["fit", "{tmp}/nope.csv", "--target", "y"], "nope.csv: No such file"),
    "missing arff": (["fit", "{tmp}/nope.arff", "--target", "y"], "nope.arff: No such file"),
    "empty csv": (["fit", "{tmp}/empty.csv", "--target", "a"], "empty.csv: the file is empty"),
    "header only": (["fit", "{tmp}/header.csv", "--target", "a"], "header.csv: no data rows"),
    "not utf-8": (["fit", "{tmp}/binary.csv", "--target", "a"], "binary.csv: not UTF-8"),
    "unknown target": (FIT[:2] + ["--target", "好"], "no column '好'"),
    "unknown ignore": (FIT + ["甜度"], "no column '甜度'"),
    "target ignored": (FIT[:4] + ["--ignore", "好瓜"], "both the --target and in --ignore"),
    "no features": (["fit", "{tmp}/nolabel.csv", "--target", "y", "--ignore", "a"], "no feature columns"),
    "missing label": (["fit", "{tmp}/nolabel.csv", "--target", "y", "--no-drop-missing-target"],
                      "nolabel.csv: 1 of 2 rows have no value in the target column 'y' (data row 2)"),
    "bad depth": (FIT + ["--max-depth", "0"], "max_depth"),
    "depth not int": (FIT + ["--max-depth", "two"],
                      "The 'max_depth' parameter of ID3Classifier must be an int in the range "
                      "[1, inf) or None. Got 'two' instead."),
    "bad leaf": (FIT + ["--min-samples-leaf", "-1"], "min_samples_leaf"),
    "unknown algorithm": (FIT + ["--algorithm", "c9"], "unknown algorithm 'c9'"),
    "out is a directory": (FIT + ["--out", "{tmp}"], "Is a directory"),
    "option of another algorithm": (FIT + ["--algorithm", "cart", "--epsilon", "0.1"],
                                    "--epsilon is not an option of cart (it is one of id3, c4.5)"),
    "bool option of another algorithm": (FIT + ["--release8"], "--release8 is not an option of id3"),
    "bad class weight": (FIT + ["--algorithm", "cart", "--class-weight", "是"],
                         "expected balanced or CLASS=W"),
    "unknown class weight": (FIT + ["--algorithm", "cart", "--class-weight", "是=2,好=1"],
                             "--class-weight names class '好', which column '好瓜' does not hold"),
    "bad criterion": (FIT + ["--algorithm", "cart", "--criterion", "gain"],
                      "The 'criterion' parameter of CARTClassifier must be a str among"),
    "model missing": (["predict", "{tmp}/nope.json", WATERMELON], "nope.json: No such file"),
    "model version": (["show", "{tmp}/v2.json"], "v2.json: unsupported format version 2"),
    "model truncated": (["show", "{tmp}/cut.json"], "cut.json: not a rootwise model file"),
    "csv as model": (["show", WATERMELON], "invalid JSON"),
    "column missing": (["predict", "{model}", "{tmp}/loan.csv"], "no column '色泽', which the model uses"),
    "node out of range": (["explain", WATERMELON, "--target", "好瓜", "--node", "99"], "node must be"),
}


@pytest.mark.parametrize("argv, message", USER_ERRORS.values(), ids=USER_ERRORS.keys())
def test_user_errors_are_one_line(argv, message, model_file, tmp_path, capsys):
    _files(tmp_path)
    argv = [a.format(tmp=tmp_path, model=model_file) for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("rootwise: error: ") and err.endswith("\n") and err.count("\n") == 1, err
    assert message in err


def test_help_and_version(capsys):
    assert main(["--help"]) == 0 and "fit" in capsys.readouterr().out
    assert main(["--version"]) == 0 and capsys.readouterr().out.strip() == f"rootwise {rootwise.__version__}"


def test_console_script(tmp_path):
    # one run of the real entry point: UTF-8 tree on stdout, the model saved, status 0
    target = tmp_path / "m.json"
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run([sys.executable, "-m", "rootwise.cli", *FIT, "--out", str(target)],
                          capture_output=True, env=env, timeout=120)
    # nothing on stderr but, on a cold numba cache, the line saying that kernels compile
    stderr = done.stderr.decode("utf-8").replace(NOTICE + "\n", "").replace("\r", "")
    assert done.returncode == 0 and stderr == ""
    assert done.stdout.decode("utf-8").startswith("├── 纹理 = 清晰\n")
    assert rootwise.load(target).tree_.node_count == 14


def test_fit_with_validation_pruning_explains_its_decisions(capsys):
    """--pruning reduced-error holds out rows (seeded), prunes, and --explain-pruning prints one line
    per internal node of the unpruned tree with the validation score as subtree and as leaf."""
    data = str(rootwise.datasets.path("watermelon_2_0"))
    code, out, err = run(capsys, "fit", data, "--target", "好瓜", "--ignore", "编号",
                         "--algorithm", "id3", "--pruning", "reduced-error", "--validation-fraction", "0.4",
                         "--random-state", "0", "--explain-pruning")
    assert code == 0 and err == ""
    X, y = rootwise.datasets.load_watermelon_2_0(return_X_y=True)
    model = rootwise.ID3Classifier(pruning="reduced-error", validation_fraction=0.4,
                                   random_state=0).fit(X, y)
    assert rootwise.export_text(model) in out
    assert rootwise.pruning_report(model) in out
    assert len(model.pruning_steps_) >= 1


def test_bad_pruning_value_and_missing_report_are_one_line_errors(capsys):
    data = str(rootwise.datasets.path("watermelon_2_0"))
    code, out, err = run(capsys, "fit", data, "--target", "好瓜", "--ignore", "编号",
                         "--algorithm", "id3", "--pruning", "sometimes")
    assert code == 2 and out == "" and err.count("\n") == 1 and "pruning" in err
    code, out, err = run(capsys, "fit", data, "--target", "好瓜", "--ignore", "编号",
                         "--algorithm", "id3", "--explain-pruning")
    assert code == 2 and err.startswith("rootwise: error: ") and err.count("\n") == 1
