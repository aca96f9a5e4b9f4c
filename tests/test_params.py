"""Parameters are checked as scikit-learn checks its own (``_parameter_constraints``), numbers
that would overflow are refused naming the input, and ``digits`` / ``decimals`` are counts."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.utils._param_validation import InvalidParameterError, make_constraint
from sklearn.utils.estimator_checks import check_param_validation

import rootwise
from rootwise import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from rootwise._params import Interval, satisfies, to_sklearn
from rootwise.cli import main

ESTIMATORS = [ID3Classifier, C45Classifier, CARTClassifier, CARTRegressor]
WATERMELON = str(rootwise.datasets.path("watermelon_2_0"))


def table(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)


# --------------------------------------------------------------------------- scikit-learn's check


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_scikit_learn_parameter_validation(cls):
    # every parameter has constraints, and a value of a wrong type, or of the right type out of
    # range, raises InvalidParameterError naming it from fit
    check_param_validation(cls.__name__, cls(random_state=0))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_constraints_judge_as_scikit_learn_does(cls):
    """rootwise's check (which does not import scikit-learn) accepts what scikit-learn's accepts,
    except booleans as numbers, which it refuses on purpose (True is no max_depth)."""
    values = [None, True, False, np.True_, 0, 1, 2, 3, 20, 21, 255, 256, -1, 2**32, np.int64(5),
              0.0, 0.25, 1.0, 1.5, -0.5, np.inf, np.nan, np.float32(0.5), "auto", "gini",
              "cv-1se", "hist", "mean", "balanced", "pre", "nope", "", [1, 2], (0,), {}, {0: 1.0},
              np.array([1]), np.random.RandomState(0), object()]
    for name, allowed in cls._constraints.items():
        for v in values:
            ours = any(satisfies(v, c) for c in allowed)
            theirs = any(make_constraint(to_sklearn(c)).is_satisfied_by(v) for c in allowed)
            numeric_bool = isinstance(v, (bool, np.bool_)) and any(
                isinstance(c, Interval) or c in ("random_state", "cv_object") for c in allowed)
            if numeric_bool:
                assert not ours, (name, v)
            else:
                assert ours == theirs, (name, v, ours, theirs)


def test_first_fit_checks_without_importing_scikit_learn():
    code = ("import sys, numpy as np, rootwise\n"
            "X = np.arange(40.0).reshape(-1, 2); y = (X[:, 0] > 20).astype(int)\n"
            "rootwise.C45Classifier(confidence=0.3, release8=True).fit(X, y)\n"
            "print('sklearn' in sys.modules)\n"
            "try:\n    rootwise.C45Classifier(release8='no').fit(X, y)\n"
            "except ValueError as e:\n    print(type(e).__name__, e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    # the valid fit imported nothing of scikit-learn; the refusal raises its error class
    assert out.splitlines()[0] == "False"
    assert out.splitlines()[1].startswith("InvalidParameterError The 'release8' parameter of "
                                          "C45Classifier must be an instance of 'bool'")


# --------------------------------------------------------------------------- the cases


@pytest.mark.parametrize("value", ["no", 1, 0, None, "False"])
def test_release8_must_be_a_boolean(value):
    X, y = table()
    with pytest.raises(InvalidParameterError, match=r"The 'release8' parameter of C45Classifier "
                                                    r"must be an instance of 'bool' or an "
                                                    r"instance of 'numpy.bool'\. Got .* instead"):
        C45Classifier(release8=value).fit(X, y)
    # a model that is refused is not fitted (nothing was saved with release8='no')
    m = C45Classifier(release8=value)
    with pytest.raises(InvalidParameterError):
        m.fit(X, y)
    assert not hasattr(m, "tree_")


@pytest.mark.parametrize("value", [0, 0.0, 1, 1.0, -0.25, 1.5, np.nan, np.inf, "0.25", True])
def test_confidence_outside_zero_one_is_refused(value):
    X, y = table()
    with pytest.raises(InvalidParameterError, match=r"The 'confidence' parameter of C45Classifier "
                                                    r"must be a float in the range \(0\.0, 1\.0\)"):
        C45Classifier(confidence=value).fit(X, y)


@pytest.mark.parametrize("value", [1e-300, 5e-324, 1e-17])
def test_confidence_too_small_for_the_normal_quantile_names_it(value):
    X, y = table()
    with pytest.raises(ValueError, match=r"C45Classifier: confidence=.* is too small for the "
                                         r"normal quantile .* Use confidence >= 1e-16\."):
        C45Classifier(confidence=value).fit(X, y)


def test_confidence_near_one_for_release8_names_it():
    X, y = table()
    # J48 keeps CF as a 32-bit float, where 0.99999999 is 1.0 (the quantile of 0 does not exist)
    with pytest.raises(ValueError, match=r"confidence=0.99999999 is too close to 1 .* as a "
                                         r"32-bit float .* Use confidence <= 0\.9999999\."):
        C45Classifier(confidence=0.99999999, release8=True).fit(X, y)
    C45Classifier(confidence=0.99999999).fit(X, y)  # as a float64 it is below 1


@pytest.mark.parametrize("release8", [False, True])
def test_smallest_and_largest_usable_confidence_prune(release8):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 4))
    y = ((X[:, 0] + X[:, 1] * X[:, 2] > 0) ^ (rng.random(400) < 0.15)).astype(int)  # noise to prune
    grown = C45Classifier(pruning=None, release8=release8).fit(X, y).get_n_leaves()
    tiny = C45Classifier(confidence=1e-16, release8=release8).fit(X, y).get_n_leaves()
    usual = C45Classifier(release8=release8).fit(X, y).get_n_leaves()
    high = C45Classifier(confidence=0.9999999, release8=release8).fit(X, y).get_n_leaves()
    # a smaller CF is a more pessimistic estimate: it prunes at least as much
    assert tiny <= usual <= high <= grown
    assert tiny < grown


@pytest.mark.parametrize("cls, name, value, words", [
    (ID3Classifier, "max_depth", 0, "an int in the range [1, inf) or None"),
    (ID3Classifier, "max_depth", 2.0, "an int in the range [1, inf) or None"),
    (ID3Classifier, "max_depth", True, "an int in the range [1, inf) or None"),
    (ID3Classifier, "prune_on_tie", "yes", "an instance of 'bool'"),
    (ID3Classifier, "min_samples_leaf", 0, "an int in the range [1, inf) or a float in the range "
                                           "(0.0, 1.0)"),
    (C45Classifier, "min_samples_leaf", 0, "a float in the range (0.0, inf)"),
    (ID3Classifier, "epsilon", -1.0, "a float in the range [0.0, inf)"),
    (ID3Classifier, "pruning", "error-based", "a str among"),
    (C45Classifier, "subtree_raising", 1, "an instance of 'bool'"),
    (CARTClassifier, "max_bins", 256, "an int in the range [2, 255]"),
    (CARTClassifier, "max_exhaustive", 21, "an int in the range [1, 20]"),
    (CARTClassifier, "ccp_alpha", -0.1, "a float in the range [0.0, inf) or a str among"),
    (CARTClassifier, "cv", 1, "an int in the range [2, inf)"),
    (CARTClassifier, "criterion", "squared_error", "a str among"),
    (CARTClassifier, "class_weight", "equal", "an instance of 'dict', a str among"),
    (CARTRegressor, "leaf_value", "mode", "a str among"),
    (CARTRegressor, "random_state", -1, "an int in the range [0, 4294967295]"),
])
def test_refusals_name_the_parameter_and_what_it_takes(cls, name, value, words):
    X, y = table()
    with pytest.raises(InvalidParameterError) as info:
        cls(**{name: value}).fit(X, y)
    message = str(info.value)
    assert message.startswith(f"The {name!r} parameter of {cls.__name__} must be ")
    assert words in message
    assert message.endswith(f"Got {value!r} instead.")


def test_valid_values_of_every_kind_still_fit():
    X, y = table()
    ID3Classifier(max_depth=np.int64(3), min_samples_leaf=np.float64(0.05), prune_on_tie=np.True_,
                  categorical_features=[0], class_order=[1, 0]).fit(X, y)
    C45Classifier(confidence=0.1, release8=np.False_, subtree_raising=False, n_jobs=1).fit(X, y)
    CARTClassifier(ccp_alpha=0.01, cp=None, cv=3, class_weight={0: 2.0}, max_leaf_nodes=4,
                   random_state=np.random.RandomState(0)).fit(X, y)
    from sklearn.model_selection import KFold

    CARTRegressor(cv=KFold(3), leaf_value="median", random_state=0).fit(X, X[:, 1])
    CARTRegressor(cv=[(np.arange(40), np.arange(40, 80))] * 2, random_state=0).fit(X, X[:, 1])


def test_n_jobs_zero_is_refused_by_name():
    X, y = table()
    with pytest.raises(ValueError, match="ID3Classifier: n_jobs must be None or a non-zero integer"):
        ID3Classifier(n_jobs=0).fit(X, y)


# --------------------------------------------------------------------------- magnitudes


@pytest.mark.parametrize("cls", [C45Classifier, CARTClassifier, CARTRegressor], ids=lambda c: c.__name__)
@pytest.mark.parametrize("weight", [1e299, 1e307, 1e308])
def test_weights_whose_total_overflows_are_refused_with_the_limit(cls, weight):
    X, y = table(60)
    target = X[:, 1] if cls is CARTRegressor else y
    # refused before any sum overflows: no numpy warning either
    with _no_warnings(), pytest.raises(ValueError, match=rf"{cls.__name__}: sample_weight sums "
                                                         rf"to (6e\+300|inf): the total weight "
                                                         rf"must stay below 1e\+300"):
        cls(random_state=0).fit(X, target, sample_weight=np.full(60, weight))


def test_weights_below_the_limit_fit():
    X, y = table(60)
    with _no_warnings():
        big = CARTClassifier(random_state=0).fit(X, y, sample_weight=np.full(60, 1e297))
        unit = CARTClassifier(random_state=0).fit(X, y)
    # scaling every weight alike grows the same tree (min_samples_* count rows)
    assert big.get_n_leaves() == unit.get_n_leaves()


def test_class_weight_is_named_when_it_takes_the_total_over():
    X, y = table(60)
    with pytest.raises(ValueError, match="sample_weight times class_weight sums to"):
        CARTClassifier(class_weight={0: 1e300}).fit(X, y)


def test_regression_targets_too_wide_are_refused_with_the_limit():
    X, _ = table(60)
    y = X[:, 1]
    span = float(np.ptp(y))
    # alpha by cross-validation: 60 x span^4 must stay below 1e300
    ok = 10 ** ((300 - np.log10(60)) / 4) / span / 2
    with _no_warnings():
        CARTRegressor(random_state=0).fit(X, y * ok)
    with pytest.raises(ValueError, match=r"CARTRegressor: y spans .* too large: alpha by "
                                         r"cross-validation sums the squares of squared errors, "
                                         r"so the total weight times span\^4 must stay below "
                                         r"1e\+300"):
        CARTRegressor(random_state=0).fit(X, y * ok * 4)
    # without cross-validation only span^2 matters
    with _no_warnings():
        CARTRegressor(pruning=None).fit(X, y * 1e140)
    with pytest.raises(ValueError, match=r"impurities are weighted squared errors, so the total "
                                         r"weight times span\^2"):
        CARTRegressor(pruning=None).fit(X, y * 1e155)
    with pytest.raises(ValueError, match=r"y spans"):
        CARTRegressor(random_state=0).fit(X, y * 1e200)


class _no_warnings:
    """No warning at all in the block (numpy's overflow warnings included)."""

    def __enter__(self):
        import warnings

        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)


# --------------------------------------------------------------------------- digits


@pytest.mark.parametrize("digits", [-2, 1.5, "3", True])
def test_format_table_digits_must_be_a_count(digits):
    X = pd.DataFrame({"a": ["x", "y", "x", "y"]})
    table_ = rootwise.explain(X, [0, 1, 0, 1], ID3Classifier())
    with pytest.raises(ValueError, match="format_table: digits must be an integer >= 0, got "
                                         + re.escape(repr(digits))):
        rootwise.format_table(table_, digits=digits)
    assert "0.000" in rootwise.format_table(table_, digits=3)
    assert rootwise.format_table(table_, digits=np.int64(0))


def test_cli_digits_and_decimals_must_be_counts(tmp_path, capsys):
    model = tmp_path / "m.json"
    base = [WATERMELON, "--target", "好瓜", "--ignore", "编号"]
    # ID3's tree: every training row right, so 0 digits print accuracy 1
    assert main(["fit", *base, "--algorithm", "id3", "--out", str(model), "--quiet"]) == 0
    capsys.readouterr()
    for argv, option in [(["explain", *base, "--digits", "-2"], "--digits"),
                         (["evaluate", str(model), WATERMELON, "--target", "好瓜", "--digits", "-2"],
                          "--digits"),
                         (["cv", *base, "--digits", "x"], "--digits"),
                         (["fit", *base, "--decimals", "-1"], "--decimals")]:
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 2, argv
        assert f"argument {option}: must be an integer >= 0, got " in err, err
        assert "Format specifier" not in err
    assert main(["evaluate", str(model), WATERMELON, "--target", "好瓜", "--digits", "0"]) == 0
    assert "accuracy  1  (17 of 17 rows)" in capsys.readouterr().out
