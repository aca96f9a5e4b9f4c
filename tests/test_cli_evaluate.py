"""rootwise evaluate / cv / the closing lines of fit: every number checked against scikit-learn's
metrics (or Weka's J48) on predictions the library makes, not against the command's own code."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_predict, cross_validate

import rootwise
from rootwise.cli import main

J48 = Path(__file__).parent / "golden" / "j48"
SEGMENT = J48 / "data" / "segment-challenge.arff"
SEGMENT_TEST = J48 / "data" / "segment-test.arff"
MELON3 = str(rootwise.datasets.path("watermelon_3_0"))


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def split(frame, target):
    return frame.drop(columns=[target]), frame[target]


@pytest.fixture(scope="module")
def segment_model(tmp_path_factory):
    """J48 (C4.5 release 8) grown on Weka's segment-challenge file, saved."""
    X, y = split(rootwise.read_data(SEGMENT), "class")
    model = rootwise.C45Classifier(release8=True).fit(X, y)
    path = tmp_path_factory.mktemp("segment") / "segment.json"
    rootwise.save(model, path)
    return model, path


def test_evaluate_classifier_equals_sklearn(segment_model, tmp_path, capsys):
    model, path = segment_model
    X, y = split(rootwise.read_data(SEGMENT_TEST), "class")
    predicted = model.predict(X)
    out = tmp_path / "scores.json"
    code, text, err = run(capsys, "evaluate", path, SEGMENT_TEST, "--json", out)  # target: last
    assert code == 0, err
    s = json.loads(out.read_text(encoding="utf-8"))
    assert s["target"] == "class" and s["rows"] == 810
    y = y.astype(str).to_numpy()
    assert s["accuracy"] == pytest.approx(metrics.accuracy_score(y, predicted), abs=1e-12)
    assert s["correct"] == int((y == predicted).sum())
    assert s["kappa"] == pytest.approx(metrics.cohen_kappa_score(y, predicted), abs=1e-12)
    labels = sorted(set(y) | set(predicted))
    p, r, f, support = metrics.precision_recall_fscore_support(y, predicted, labels=labels,
                                                                zero_division=0)
    assert [c["class"] for c in s["classes"]] == labels
    assert [c["precision"] for c in s["classes"]] == pytest.approx(p, abs=1e-12)
    assert [c["recall"] for c in s["classes"]] == pytest.approx(r, abs=1e-12)
    assert [c["f1"] for c in s["classes"]] == pytest.approx(f, abs=1e-12)
    assert [c["support"] for c in s["classes"]] == list(support)
    for key, average in (("macro_avg", "macro"), ("weighted_avg", "weighted")):
        expected = metrics.precision_recall_fscore_support(y, predicted, average=average,
                                                           zero_division=0)[:3]
        got = s[key]
        assert [got["precision"], got["recall"], got["f1"]] == pytest.approx(expected, abs=1e-12)
    assert s["confusion_matrix"]["labels"] == labels
    assert s["confusion_matrix"]["matrix"] == metrics.confusion_matrix(y, predicted,
                                                                       labels=labels).tolist()
    # the printout says the same
    assert f"accuracy  {s['accuracy']:.3f}  ({s['correct']} of 810 rows)" in text
    assert "confusion matrix (rows: true class, columns: predicted)" in text


def test_evaluate_labels_match_across_types(tmp_path, capsys):
    """A model fitted on integer labels scores a file whose labels read as integers or floats, and
    a true label it never saw is counted (in the matrix, never predicted)."""
    train = tmp_path / "train.csv"
    train.write_text("x,y\n1,0\n2,0\n3,1\n4,1\n", encoding="utf-8")
    model = tmp_path / "m.json"
    assert main(["fit", train, "--target", "y", "--algorithm", "cart", "--pruning", "none",
                 "--out", model]) == 0
    test = tmp_path / "test.csv"
    test.write_text("x,y\n1,0.0\n4,1.0\n3,2.0\n2,\n", encoding="utf-8")
    code, _, err = run(capsys, "evaluate", model, test, "--no-drop-missing-target")
    assert code == 2 and "column 'y' has 1 missing values" in err
    test.write_text("x,y\n1,0.0\n4,1.0\n3,2.0\n", encoding="utf-8")
    out = tmp_path / "s.json"
    code, _, err = run(capsys, "evaluate", model, test, "--json", out)
    assert code == 0, err
    s = json.loads(out.read_text(encoding="utf-8"))
    y, predicted = ["0", "1", "2"], ["0", "1", "1"]
    assert s["confusion_matrix"] == {"labels": ["0", "1", "2"],
                                     "matrix": metrics.confusion_matrix(y, predicted).tolist()}
    assert s["accuracy"] == pytest.approx(2 / 3)
    assert [c["precision"] for c in s["classes"]] == pytest.approx(
        metrics.precision_score(y, predicted, average=None, zero_division=0))


def test_evaluate_regressor_equals_sklearn(tmp_path, capsys):
    frame = rootwise.datasets.load("watermelon_3_0")
    model_path = tmp_path / "reg.json"
    assert main(["fit", MELON3, "--target", "含糖率", "--ignore", "编号", "好瓜", "--algorithm",
                 "cart-regressor", "--pruning", "none", "--max-depth", "2", "--out", model_path]) == 0
    capsys.readouterr()
    model = rootwise.load(model_path)
    predicted = model.predict(frame[model.feature_names_in_])
    y = frame["含糖率"]
    out = tmp_path / "s.json"
    code, text, err = run(capsys, "evaluate", model_path, MELON3, "--target", "含糖率", "--json", out)
    assert code == 0, err
    s = json.loads(out.read_text(encoding="utf-8"))
    assert s["rmse"] == pytest.approx(np.sqrt(metrics.mean_squared_error(y, predicted)), abs=1e-12)
    assert s["mae"] == pytest.approx(metrics.mean_absolute_error(y, predicted), abs=1e-12)
    assert s["r2"] == pytest.approx(metrics.r2_score(y, predicted), abs=1e-12)
    assert f"R²    {s['r2']:.3f}" in text
    code, _, err = run(capsys, "evaluate", model_path, MELON3, "--target", "好瓜")
    assert code == 2 and "holds '是', not a number" in err


@pytest.mark.parametrize("name", ["soybean", "segment-challenge"])
def test_fit_ends_with_j48s_size_and_training_score(name, capsys):
    """J48 prints 'Number of Leaves', 'Size of the tree' and the correctly classified training
    instances; fit's closing lines must say the same for the same tree."""
    golden = json.loads((J48 / f"{name}.json").read_text(encoding="utf-8"))
    pruned = golden["pruned_tree"]
    code, out, err = run(capsys, "fit", J48 / "data" / f"{name}.arff", "--target", "class",
                         "--algorithm", "c4.5", "--release8")
    assert code == 0, err
    size, score = out.splitlines()[-2:]
    leaves, nodes = int(pruned["n_leaves"]), int(pruned["tree_size"])
    assert size.startswith(f"{leaves} leaves, {nodes} nodes, depth ")
    correct, total = int(pruned["training_correct"]), int(pruned["training_total"])
    assert score == f"training accuracy {correct / total:.3f} ({correct} of {total} rows)"


def test_fit_regressor_training_score(capsys):
    frame = rootwise.datasets.load("watermelon_3_0")
    X, y = frame[["密度"]], frame["含糖率"]
    model = rootwise.CARTRegressor(pruning=None, max_depth=2).fit(X, y)
    code, out, _ = run(capsys, "fit", MELON3, "--target", "含糖率", "--ignore", "编号", "色泽",
                       "根蒂", "敲声", "纹理", "脐部", "触感", "好瓜", "--algorithm",
                       "cart-regressor", "--pruning", "none", "--max-depth", "2")
    p = model.predict(X)
    assert code == 0
    assert out.splitlines()[-1] == (
        f"training R² {metrics.r2_score(y, p):.3f}, "
        f"RMSE {np.sqrt(metrics.mean_squared_error(y, p)):.3f}, "
        f"MAE {metrics.mean_absolute_error(y, p):.3f} (17 rows)")


def test_cv_equals_sklearns_cross_validation(tmp_path, capsys):
    frame = rootwise.read_data(J48 / "data" / "vote.arff")
    X, y = split(frame, "Class")
    out = tmp_path / "cv.json"
    code, text, err = run(capsys, "cv", J48 / "data" / "vote.arff", "--target", "Class",
                          "--algorithm", "cart", "--folds", "5", "--random-state", "3",
                          "--max-depth", "3", "--ccp-alpha", "0.01", "--json", out)
    assert code == 0, err
    s = json.loads(out.read_text(encoding="utf-8"))
    estimator = rootwise.CARTClassifier(max_depth=3, ccp_alpha=0.01)
    folds = StratifiedKFold(5, shuffle=True, random_state=3)
    expected = cross_validate(estimator, X, y, cv=folds, scoring="accuracy")["test_score"]
    got = [f["accuracy"] for f in s["per_fold"]]
    assert got == pytest.approx(expected, abs=1e-12)
    assert s["summary"]["accuracy"]["mean"] == pytest.approx(np.mean(expected), abs=1e-12)
    assert s["summary"]["accuracy"]["std"] == pytest.approx(np.std(expected), abs=1e-12)
    assert [f["rows"] for f in s["per_fold"]] == [len(t) for _, t in folds.split(X, y)]
    pooled = cross_val_predict(estimator, X, y, cv=folds)
    assert s["pooled"]["confusion_matrix"]["matrix"] == metrics.confusion_matrix(
        y.astype(str), pooled.astype(str), labels=s["pooled"]["confusion_matrix"]["labels"]).tolist()
    assert s["stratified"] and s["params"]["max_depth"] == 3 and s["params"]["ccp_alpha"] == 0.01
    assert text.splitlines()[1] == (f"accuracy {np.mean(expected):.3f} ± {np.std(expected):.3f} "
                                    f"(mean ± standard deviation over the folds)")


def test_cv_regressor_equals_sklearn(tmp_path, capsys):
    frame = rootwise.datasets.load("watermelon_3_0")
    X, y = frame[["密度", "纹理"]], frame["含糖率"]
    data = tmp_path / "m.csv"
    frame[["密度", "纹理", "含糖率"]].to_csv(data, index=False)
    out = tmp_path / "cv.json"
    code, _, err = run(capsys, "cv", data, "--target", "含糖率", "--algorithm", "cart-regressor",
                       "--folds", "4", "--pruning", "none", "--max-depth", "2", "--json", out)
    assert code == 0, err
    s = json.loads(out.read_text(encoding="utf-8"))
    folds = KFold(4, shuffle=True, random_state=0)  # the default seed is 0
    estimator = rootwise.CARTRegressor(pruning=None, max_depth=2)
    expected = cross_validate(estimator, X, y, cv=folds,
                              scoring=("r2", "neg_mean_absolute_error"))
    assert [f["r2"] for f in s["per_fold"]] == pytest.approx(expected["test_r2"], abs=1e-12)
    assert [f["mae"] for f in s["per_fold"]] == pytest.approx(
        -expected["test_neg_mean_absolute_error"], abs=1e-12)
    assert not s["stratified"]


def test_cv_errors(capsys, tmp_path):
    code, _, err = run(capsys, "cv", MELON3, "--target", "好瓜", "--folds", "18")
    assert code == 2 and err == ("rootwise: error: --folds must be between 2 and the number of "
                                 "rows (17), got 18\n")
    data = tmp_path / "d.csv"
    pd.DataFrame({"x": [1, 2, 3], "y": ["a", None, "b"]}).to_csv(data, index=False)
    code, _, err = run(capsys, "cv", data, "--target", "y", "--folds", "2",
                       "--no-drop-missing-target")
    assert code == 2 and "1 of 3 rows have no value in the target column 'y' (data row 2)" in err
