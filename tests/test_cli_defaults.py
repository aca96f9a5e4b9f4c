"""Defaults that fit the data: the algorithm the target asks for (as rpart chooses its method),
the spellings --algorithm accepts, and messages that name the fix."""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
import pytest

import rootwise
from rootwise.choose import MAX_CLASS_CODES, default_estimator, target_kind
from rootwise.cli import main
from rootwise.cli.options import algorithm
from rootwise.explain import REGRESSION_COLUMNS


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def table(n: int = 60, seed: int = 0) -> pd.DataFrame:
    """A small table with a numeric and a text feature and targets of every kind."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 10, n).round(2)
    colour = rng.choice(["red", "green", "blue"], n)
    return pd.DataFrame({
        "x": x,
        "colour": colour,
        "price": (3 * x + (colour == "red") * 5 + rng.normal(0, 0.5, n)).round(2),  # fractions
        "count": (x * 4).astype(int),  # whole numbers 0..39: many distinct values
        "grade": np.where(x > 6, 3, np.where(x > 3, 2, 1)),  # three class codes
        "label": np.where(x > 5, "high", "low"),
    })


@pytest.fixture
def data_file(tmp_path):
    path = tmp_path / "shop.csv"
    table().to_csv(path, index=False)
    return path


# --------------------------------------------------------------------------- the rule


@pytest.mark.parametrize("values, regression, kind", [
    ([1.5, 2.0, 3.0], True, "fractions"),
    ([24.0, 21.6, np.nan, 34.7], True, "fractions"),  # a missing value is left out
    (list(range(MAX_CLASS_CODES + 1)), True, "many whole numbers"),
    (list(range(MAX_CLASS_CODES)) * 3, False, "class codes"),
    ([0.0, 1.0, 1.0, np.nan], False, "class codes"),  # an integer column with NA reads as float
    (["a", "b", "a"], False, "text"),
    ([True, False, True], False, "booleans"),
    (pd.Categorical([1.5, 2.5, 3.5]), False, "categories"),  # an ARFF nominal attribute
    (np.array([1, 2.5, None], dtype=object), True, "fractions"),
    (np.array([1, "b", None], dtype=object), False, "text"),
])
def test_the_rule(values, regression, kind):
    choice = target_kind(pd.Series(values) if not isinstance(values, np.ndarray) else values)
    assert (choice.regression, choice.kind) == (regression, kind)


def test_the_count_is_of_distinct_values():
    # eleven distinct whole numbers, some repeated, are a quantity; ten are class codes
    many = pd.Series([*range(11), 3, 3, 7])
    few = pd.Series([*range(10), 3, 3, 7])
    assert target_kind(many).regression and not target_kind(few).regression
    assert target_kind(many).reason == "holds 11 distinct whole numbers (more than 10)"


def test_default_estimator():
    frame = table()
    assert type(default_estimator(frame["price"])) is rootwise.CARTRegressor
    assert type(default_estimator(frame["label"])) is rootwise.CARTClassifier
    assert default_estimator(frame["grade"], max_depth=2).max_depth == 2


def test_explain_without_a_model_uses_the_same_choice():
    frame = table()
    X = frame[["x", "colour"]]
    # a regression target: the squared-error table of CARTRegressor (ID3 would refuse the
    # continuous x, and a classifier the fractional target)
    auto = rootwise.explain(X, frame["price"])
    assert list(auto.columns) == REGRESSION_COLUMNS
    pd.testing.assert_frame_equal(auto, rootwise.explain(X, frame["price"], rootwise.CARTRegressor()))
    auto = rootwise.explain(X, frame["label"])
    pd.testing.assert_frame_equal(auto, rootwise.explain(X, frame["label"],
                                                         rootwise.CARTClassifier()))
    assert "gini_index" in auto.columns


# --------------------------------------------------------------------------- names


@pytest.mark.parametrize("text, name", [
    ("id3", "id3"), ("ID3", "id3"), ("c4.5", "c4.5"), ("C4.5", "c4.5"), ("c45", "c4.5"),
    ("C45Classifier", "c4.5"), ("j48", "j48"), ("J48", "j48"), ("cart", "cart"), ("CART", "cart"),
    ("CARTClassifier", "cart"), ("cart-regressor", "cart-regressor"),
    ("cart_regressor", "cart-regressor"), ("CARTRegressor", "cart-regressor"), ("Auto", "auto"),
])
def test_spellings(text, name):
    assert algorithm(text) == name


@pytest.mark.parametrize("text, suggestion", [
    ("cart-regresor", "cart-regressor"), ("crt", "cart"), ("c4.4", "c4.5"), ("id4", "id3"),
    ("j84", "j48"),
])
def test_did_you_mean(text, suggestion):
    with pytest.raises(argparse.ArgumentTypeError) as info:
        algorithm(text)
    assert f"unknown algorithm {text!r}; did you mean {suggestion}?" in str(info.value)


def test_unknown_algorithm_on_the_command_line(data_file, capsys):
    code, out, err = run(capsys, "fit", data_file, "--target", "label", "--algorithm", "cart-regresor")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "unknown algorithm 'cart-regresor'; did you mean cart-regressor?" in err
    code, _, err = run(capsys, "fit", data_file, "--target", "label", "--algorithm", "xgboost")
    assert code == 2 and "unknown algorithm 'xgboost' (the algorithms: id3, c4.5, cart" in err


def test_spellings_grow_the_same_tree(data_file, capsys):
    outs = set()
    for name in ("c4.5", "C4.5", "c45", "C45Classifier"):
        code, out, err = run(capsys, "fit", data_file, "--target", "label", "--ignore", "price",
                             "count", "grade", "--algorithm", name)
        assert code == 0 and err == "", err
        outs.add(out)
    frame = table()
    model = rootwise.C45Classifier().fit(frame[["x", "colour"]], frame["label"])
    assert len(outs) == 1 and outs.pop().startswith(rootwise.export_text(model))


def test_j48_is_c45_release_8(data_file, capsys):
    frame = table()
    X, y = frame[["x", "colour"]], frame["label"]
    model = rootwise.C45Classifier(release8=True).fit(X, y)
    plain = rootwise.C45Classifier().fit(X, y)
    assert rootwise.export_text(model) != rootwise.export_text(plain)  # the test can tell them apart
    code, out, _ = run(capsys, "fit", data_file, "--target", "label", "--ignore", "price", "count",
                       "grade", "--algorithm", "J48")
    assert code == 0 and out.startswith(rootwise.export_text(model))
    code, _, err = run(capsys, "fit", data_file, "--target", "label", "--algorithm", "j48",
                       "--no-release8")
    assert code == 2 and "j48 is c4.5 with --release8 True" in err and "--algorithm c4.5" in err


# --------------------------------------------------------------------------- the default choice


@pytest.mark.parametrize("target, cls, why", [
    ("price", rootwise.CARTRegressor,
     "cart-regressor, as column 'price' holds numbers with fractions, such as"),
    ("count", rootwise.CARTRegressor,
     "cart-regressor, as column 'count' holds 34 distinct whole numbers (more than 10)"),
    ("grade", rootwise.CARTClassifier,
     "cart, as column 'grade' holds 3 distinct whole numbers (at most 10: class codes)"),
    ("label", rootwise.CARTClassifier, "cart, as column 'label' holds text"),
])
def test_fit_chooses_from_the_target(target, cls, why, data_file, capsys):
    frame = table()
    assert frame["count"].nunique() == 34  # the number the note must give
    others = [c for c in ("price", "count", "grade", "label") if c != target]
    model = cls().fit(frame[["x", "colour"]], frame[target])
    code, out, err = run(capsys, "fit", data_file, "--target", target, "--ignore", *others)
    assert code == 0, err
    assert out.startswith(rootwise.export_text(model, width=80))
    lines = err.splitlines()
    joined = " ".join(line.strip() for line in lines)  # the note wraps at 80 columns
    assert joined.startswith("rootwise: " + why) and "(--algorithm to choose another)" in joined
    assert all(len(line) <= 80 for line in lines)


def test_cv_and_explain_choose_too(data_file, capsys):
    code, out, err = run(capsys, "cv", data_file, "--target", "price", "--ignore", "count", "grade",
                         "label", "--folds", "3")
    assert code == 0 and "cart-regressor, as column 'price'" in err
    assert out.startswith("3-fold cross-validation of cart-regressor") and "RMSE" in out
    code, out, err = run(capsys, "explain", data_file, "--target", "price", "--ignore", "count",
                         "grade", "label")
    assert code == 0 and "cart-regressor, as column 'price'" in err
    assert out.splitlines()[0].split() == REGRESSION_COLUMNS


def test_quiet_silences_the_notes(data_file, capsys):
    code, _, err = run(capsys, "fit", data_file, "--target", "price", "--quiet")
    assert code == 0 and err == ""


# --------------------------------------------------------------------------- messages


def test_explain_a_regressor(data_file, capsys):
    frame = table()
    X, y = frame[["x", "colour"]], frame["price"]
    expected = rootwise.format_table(rootwise.explain(X, y, rootwise.CARTRegressor()))
    code, out, err = run(capsys, "explain", data_file, "--target", "price", "--ignore", "count",
                         "grade", "label", "--algorithm", "cart-regressor")
    assert code == 0, err
    assert out == expected + "\n"
    assert "mse_decrease" in out


def test_classifier_on_fractions_names_the_regressor(data_file, capsys):
    price = table()["price"]
    first = price[price != price.round()].iloc[0]
    for name in ("cart", "c4.5", "id3", "j48"):
        code, out, err = run(capsys, "fit", data_file, "--target", "price", "--algorithm", name)
        assert code == 2 and out == "" and err.count("\n") == 1
        assert (f"column 'price' holds numbers with fractions, such as {first:g}, and {name} learns "
                f"classes: use --algorithm cart-regressor") in err
        assert "Unknown label type" not in err


def test_regressor_on_text_names_the_classifier(data_file, capsys):
    code, _, err = run(capsys, "fit", data_file, "--target", "label", "--algorithm", "cart-regressor")
    assert code == 2 and "column 'label' holds text, and cart-regressor learns numbers: use " \
                          "--algorithm cart" in err


def test_option_of_another_algorithm_says_what_was_chosen(data_file, capsys):
    code, _, err = run(capsys, "fit", data_file, "--target", "label", "--epsilon", "0.1")
    assert code == 2 and err.count("\n") == 1
    assert ("--epsilon is not an option of cart (it is one of id3, c4.5); cart was chosen as "
            "column 'label' holds text: give --algorithm") in err


def test_text_at_predict_names_the_cell_not_categorical_features(data_file, tmp_path, capsys):
    model = tmp_path / "m.json"
    assert main(["fit", str(data_file), "--target", "label", "--ignore", "price", "count", "grade",
                 "--out", str(model), "--quiet"]) == 0
    capsys.readouterr()
    new = tmp_path / "new.csv"
    # one cell that is not a number makes the reader keep the whole column as text ('5', ...)
    new.write_text("x,colour\n5,red\n7.5,blue\nabout 3,green\n2,red\n", encoding="utf-8")
    code, out, err = run(capsys, "predict", model, new)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "column 'x' is continuous but row 2 holds the non-numeric value 'about 3'" in err
    assert "make that cell a number, or empty for a missing value" in err
    assert "categorical_features" not in err
    # every cell a number, but as text: say so, and how to convert
    X = pd.DataFrame({"x": ["5", "7.5"], "colour": ["red", "blue"]})
    with pytest.raises(ValueError, match=r"row 0 holds the text '5', not a number .* "
                                         r"convert the column to numbers first"):
        rootwise.load(model).predict(X)


def test_id3_on_numbers_names_the_algorithms_with_thresholds(data_file, capsys):
    code, out, err = run(capsys, "fit", data_file, "--target", "label", "--ignore", "price",
                         "count", "grade", "--algorithm", "id3")
    x_values = table()["x"].nunique()
    assert code == 0 and f"{x_values} leaves" in out  # a leaf per value of x
    joined = " ".join(line.strip() for line in err.splitlines())
    assert joined == (f"rootwise: id3 makes a branch of every value of a numeric column (values: "
                      f"x {x_values}); --algorithm c4.5 or cart splits numbers at a threshold")
    # few values (class codes, say) are fine as branches: nothing to say
    code, _, err = run(capsys, "fit", data_file, "--target", "label", "--ignore", "price", "count",
                       "x", "--algorithm", "id3")
    assert code == 0 and err == ""


def test_a_misspelt_column_gets_a_did_you_mean(data_file, capsys):
    code, _, err = run(capsys, "fit", data_file, "--target", "Label")
    assert code == 2 and err.count("\n") == 1
    assert "has no column 'Label'; did you mean 'label'? (its columns: x, colour," in err
    code, _, err = run(capsys, "fit", data_file, "--target", "label", "--ignore", "prise")
    assert "has no column 'prise'; did you mean 'price'?" in err
    code, _, err = run(capsys, "fit", data_file, "--target", "zzz")
    assert "has no column 'zzz' (its columns" in err


def test_a_failed_command_prints_its_error_line_alone(data_file, tmp_path, capsys):
    # the notes (the choice, the seed) wait until the command has done its work
    code, out, err = run(capsys, "fit", data_file, "--target", "price", "--out", tmp_path)
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("rootwise: error: ")
    code, out, err = run(capsys, "report", data_file, "--target", "price", "--out", tmp_path)
    assert code == 2 and err.count("\n") == 1 and err.startswith("rootwise: error: ")
    code, out, err = run(capsys, "explain", data_file, "--target", "price", "--node", "999")
    assert code == 2 and err.count("\n") == 1 and "node must be an integer" in err
