"""CLI parity (issue 12 item 6): every estimator parameter reaches the estimator from fit / cv /
explain, data files of every format are read, the progress line, and --help's examples."""

from __future__ import annotations

import argparse
import io
import time
from pathlib import Path

import pytest

import rootwise
from rootwise.cli import cv as cv_command
from rootwise.cli import main, parser
from rootwise.cli.options import ALGORITHMS, HELP, flag
from rootwise.cli.progress import Progress

MELON2 = str(rootwise.datasets.path("watermelon_2_0"))
MELON3 = str(rootwise.datasets.path("watermelon_3_0"))
J48 = Path(__file__).parent / "golden" / "j48" / "data"
ESTIMATORS = [rootwise.ID3Classifier, rootwise.C45Classifier, rootwise.CARTClassifier,
              rootwise.CARTRegressor]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def subcommand(name: str) -> argparse.ArgumentParser:
    commands = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    return commands.choices[name]


@pytest.mark.parametrize("command", ["fit", "cv", "explain", "report"])
def test_every_estimator_parameter_is_an_option(command):
    dests = {a.dest for a in subcommand(command)._actions}
    for cls in ESTIMATORS:
        for param in cls().get_params(deep=False):
            assert param in dests, f"{command} has no option for {cls.__name__}.{param}"
            assert param in HELP, f"{param} has no help text"


# every parameter set away from its default, as the command line writes it -> the value expected
NON_DEFAULTS = {
    "id3": (["--epsilon", "0.01", "--max-depth", "3", "--min-samples-split", "3",
             "--min-samples-leaf", "0.1", "--min-weight-fraction-leaf", "0.05", "--categorical",
             "编号", "--pruning", "reduced-error",
             "--validation-fraction", "0.25", "--no-prune-on-tie", "--random-state", "4",
             "--n-jobs", "1"],
            dict(epsilon=0.01, max_depth=3, min_samples_split=3, min_samples_leaf=0.1,
                 min_weight_fraction_leaf=0.05,
                 categorical_features=["编号"], pruning="reduced-error", validation_fraction=0.25,
                 prune_on_tie=False, random_state=4, n_jobs=1)),
    "c4.5": (["--confidence", "0.3", "--min-samples-leaf", "1", "--min-samples-split", "2",
              "--max-depth", "4", "--epsilon", "0.001", "--pruning", "none",
              "--no-subtree-raising", "--release8", "--validation-fraction", "0.2",
              "--no-prune-on-tie", "--random-state", "1", "--n-jobs", "1"],
             dict(confidence=0.3, min_samples_leaf=1, min_samples_split=2, max_depth=4,
                  epsilon=0.001, pruning=None, subtree_raising=False, release8=True,
                  validation_fraction=0.2, prune_on_tie=False, random_state=1, n_jobs=1)),
    "cart": (["--criterion", "entropy", "--max-depth", "5", "--min-samples-split", "3",
              "--min-samples-leaf", "0.01", "--min-impurity-decrease", "0.001",
              "--impurity-threshold", "0.01", "--max-leaf-nodes", "6", "--class-weight",
              "balanced", "--max-surrogates", "2", "--max-exhaustive", "8", "--ccp-alpha",
              "cv-min", "--cv", "3", "--splitter", "hist", "--max-bins", "16",
              "--validation-fraction", "0.4", "--prune-on-tie", "--random-state", "7",
              "--n-jobs", "1", "--monotonic", "含糖率=1,密度=-1"],
             dict(criterion="entropy", max_depth=5, min_samples_split=3, min_samples_leaf=0.01,
                  min_impurity_decrease=0.001, impurity_threshold=0.01, max_leaf_nodes=6,
                  class_weight="balanced", max_surrogates=2, max_exhaustive=8,
                  ccp_alpha="cv-min", cv=3, splitter="hist", max_bins=16,
                  validation_fraction=0.4, prune_on_tie=True, random_state=7, n_jobs=1,
                  monotonic_cst={"含糖率": 1, "密度": -1})),
    "cart-regressor": (["--leaf-value", "median", "--ccp-alpha", "0.0005", "--max-bins", "32",
                        "--max-leaf-nodes", "none", "--pruning", "cost-complexity",
                        "--monotonic-cst", "密度=1"],
                       dict(leaf_value="median", ccp_alpha=0.0005, max_bins=32,
                            max_leaf_nodes=None, pruning="cost-complexity",
                            monotonic_cst={"密度": 1})),
}


@pytest.mark.parametrize("algorithm", NON_DEFAULTS)
def test_options_reach_the_estimator(algorithm, tmp_path, capsys):
    argv, expected = NON_DEFAULTS[algorithm]
    target = "含糖率" if algorithm == "cart-regressor" else "好瓜"
    ignore = ["编号", "好瓜"] if algorithm == "cart-regressor" else []
    out = tmp_path / "m.json"
    code, _, err = run(capsys, "fit", MELON3, "--target", target, *(["--ignore", *ignore] if ignore
                       else []), "--algorithm", algorithm, *argv, "--out", out)
    assert code == 0, err
    params = rootwise.load(out).get_params(deep=False)
    for name, value in expected.items():
        assert params[name] == value, name
    # and nothing else moved from the estimator's defaults
    defaults = ALGORITHMS[algorithm]().get_params(deep=False)
    changed = {k for k, v in expected.items() if v != defaults[k]}
    assert {k for k in params if params[k] != defaults[k]} == changed


def test_class_weight_names_numeric_labels(tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("x,y\n1,0\n2,0\n3,1\n4,1\n5,1\n", encoding="utf-8")
    code, out, err = run(capsys, "fit", data, "--target", "y", "--algorithm", "cart",
                         "--class-weight", "0=3,1=1", "--pruning", "none", "--show-depth", "0",
                         "--counts")
    assert code == 0, err
    # the root's weighted counts: two rows of class 0 at weight 3, three of class 1 at weight 1
    assert out.splitlines()[0] == "0 (9/3) [0: 6, 1: 3] … (2 leaves below)"
    # the model file keeps the weights, keyed by the labels themselves
    code, _, err = run(capsys, "fit", data, "--target", "y", "--algorithm", "cart",
                       "--class-weight", "0=3,1=1", "--out", tmp_path / "m.json")
    assert code == 0, err
    assert rootwise.load(tmp_path / "m.json").class_weight == {0: 3.0, 1: 1.0}


def test_categorical_makes_a_code_column_categorical(tmp_path, capsys):
    data = tmp_path / "codes.csv"
    # code 2 is the odd one out: only a category subset {2} | {1, 3} separates the classes
    data.write_text("code,y\n1,a\n2,b\n3,a\n1,a\n2,b\n3,a\n", encoding="utf-8")
    code, out, _ = run(capsys, "fit", data, "--target", "y", "--algorithm", "cart",
                       "--pruning", "none")
    assert code == 0 and "code <= " in out  # continuous: thresholds
    code, out, _ = run(capsys, "fit", data, "--target", "y", "--algorithm", "cart",
                       "--pruning", "none", "--categorical", "code")
    assert code == 0 and out.splitlines()[:2] == ["├── code in {1, 3} → a (4)",
                                                  "└── code in {2} → b (2)"]


def test_every_format_grows_the_same_tree(tmp_path, capsys):
    frame = rootwise.datasets.load("watermelon_2_0")
    frame.to_csv(tmp_path / "m.tsv", sep="\t", index=False)
    frame.to_parquet(tmp_path / "m.parquet")
    lines = ["@relation melon"]
    for name in frame.columns:
        if name == "编号":
            lines.append(f"@attribute {name} numeric")
        else:  # declared in first-appearance order, as CSV reading orders categories
            lines.append(f"@attribute {name} {{{','.join(frame[name].unique())}}}")
    lines += ["@data", *(",".join(map(str, row)) for row in frame.itertuples(index=False))]
    (tmp_path / "m.arff").write_text("\n".join(lines) + "\n", encoding="utf-8")
    trees = []
    for path in (MELON2, tmp_path / "m.tsv", tmp_path / "m.parquet", tmp_path / "m.arff"):
        code, out, err = run(capsys, "fit", path, "--target", "好瓜", "--ignore", "编号")
        assert code == 0, (path, err)
        trees.append(out)
    assert trees[1:] == trees[:1] * 3


def test_arff_branches_come_in_declared_order(capsys):
    code, out, _ = run(capsys, "fit", J48 / "weather.nominal.arff", "--target", "play",
                       "--algorithm", "c4.5", "--release8")
    # @attribute outlook {sunny, overcast, rainy}: J48's branch order
    assert code == 0
    assert [line.split(" → ")[0] for line in out.splitlines() if line.startswith(("├", "└"))] == [
        "├── outlook = sunny", "├── outlook = overcast", "└── outlook = rainy"]


def test_help_of_every_command_has_an_example(capsys):
    for name in ("fit", "predict", "show", "explain", "evaluate", "cv", "report"):
        assert main([name, "--help"]) == 0
        text = capsys.readouterr().out
        example = text.split("example:\n", 1)[1].strip()
        assert example.startswith(f"rootwise {name} "), name


# --------------------------------------------------------------------------- progress


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_line_on_a_terminal_only():
    stream = Terminal()
    with Progress(argparse.Namespace(quiet=False), "fitting", stream=stream, delay=0,
                  every=0.01) as progress:
        time.sleep(0.05)
        progress.update("fold 2 of 3")
        time.sleep(0.05)
    text = stream.getvalue()
    assert text.startswith("\rrootwise: fitting (0 s)") and "\rrootwise: fold 2 of 3 (0 s)" in text
    assert text.endswith("\r" + " " * len("rootwise: fold 2 of 3 (0 s)") + "\r")  # erased
    for args, stream in ((argparse.Namespace(quiet=True), Terminal()),  # --quiet
                         (argparse.Namespace(quiet=False), io.StringIO())):  # not a terminal
        with Progress(args, "fitting", stream=stream, delay=0, every=0.01):
            time.sleep(0.03)
        assert stream.getvalue() == ""


def test_cv_shows_its_folds_and_quiet_silences_them(capsys, monkeypatch):
    stream = Terminal()

    def eager(args, message, **kwargs):  # at once and often, on a terminal
        return Progress(args, message, stream=stream, delay=0, every=0.001)

    monkeypatch.setattr(cv_command, "Progress", eager)
    argv = ["cv", MELON2, "--target", "好瓜", "--ignore", "编号", "--folds", "3"]
    assert main(argv) == 0
    assert "cross-validating: fold" in stream.getvalue()
    stream.seek(0)
    stream.truncate()
    assert main([*argv, "--quiet"]) == 0 and stream.getvalue() == ""
    capsys.readouterr()


def test_parameters_help_says_which_algorithms_have_them(capsys):
    assert main(["fit", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--release8, --no-release8 C4.5 release 8 as Weka's J48 grows it [c4.5]" in text
    assert f"{flag('categorical_features')} COL [COL ...]" in text
    assert all(f"--{p.replace('_', '-')}" in text for p in ("max_bins", "n_jobs", "ccp_alpha"))


def test_class_order_names_the_class_ties_go_to(tmp_path, capsys):
    """The leaf x = 1 holds one "no" and one "yes": sorted, the tie goes to "no"; with
    --class-order yes no, to "yes" (and the saved model keeps the order)."""
    data = tmp_path / "d.csv"
    data.write_text("x,y\n0,yes\n0,yes\n1,no\n1,yes\n2,no\n2,no\n", encoding="utf-8")
    base = ["fit", data, "--target", "y", "--algorithm", "cart", "--pruning", "none"]
    code, out, err = run(capsys, *base)
    assert code == 0, err
    assert "x <= 1.5 → no (2/1)" in out
    code, out, err = run(capsys, *base, "--class-order", "yes", "no", "--out", tmp_path / "m.json")
    assert code == 0, err
    assert "x <= 1.5 → yes (2/1)" in out
    assert list(rootwise.load(tmp_path / "m.json").class_order_) == ["yes", "no"]
    code, _, err = run(capsys, *base, "--class-order", "yes", "maybe")
    assert code == 2 and "--class-order names class 'maybe'" in err


def test_monotonic_constraints_from_the_command_line(tmp_path, capsys):
    data = tmp_path / "d.csv"
    # y falls once in the middle of a rising x: constrained to rise, the tree pools the dip
    data.write_text("x,y\n" + "".join(f"{x},{y}\n" for x, y in
                                       zip(range(8), [0, 0, 4, 4, 2, 2, 6, 6], strict=True)),
                    encoding="utf-8")
    base = ["fit", data, "--target", "y", "--algorithm", "cart-regressor", "--pruning", "none"]
    code, free, err = run(capsys, *base)
    assert code == 0, err
    code, out, err = run(capsys, *base, "--monotonic", "x=1", "--out", tmp_path / "m.json")
    assert code == 0, err
    assert out != free
    model = rootwise.load(tmp_path / "m.json")
    assert model.monotonic_cst == {"x": 1}
    import pandas as pd

    pred = model.predict(pd.DataFrame({"x": range(8)}))
    assert list(pred) == [0, 0, 3, 3, 3, 3, 6, 6]
    for bad in ("x=2", "x", "=1"):
        code, _, err = run(capsys, *base, "--monotonic", bad)
        assert code != 0 and "expected COL=S[,COL=S...] with S one of -1, 0, 1" in err, bad
    code, _, err = run(capsys, *base, "--monotonic", "z=1")
    assert code != 0 and "monotonic_cst contains 1 unexpected feature names: ['z']" in err
