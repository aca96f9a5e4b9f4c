"""scikit-learn's names and protocols: criterion="log_loss", predict_log_proba, and metadata
routing of sample_weight through Pipeline and GridSearchCV (``set_fit_request``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

import rootwise
from rootwise import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from rootwise.cli import main


def _numeric(seed=0, n=60):
    """A small numeric table whose classes overlap, so that weights change the best splits."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 3)), 2)
    y = (X[:, 0] + 0.8 * X[:, 1] + rng.normal(scale=0.7, size=n) > 0).astype(int)
    return X, y


# ---------------------------------------------------------------- criterion="log_loss"


def test_log_loss_grows_the_entropy_tree(watermelon):
    X, y = _numeric()
    for data, target in ((X, y), watermelon):
        entropy = CARTClassifier(criterion="entropy", pruning=None).fit(data, target)
        log_loss = CARTClassifier(criterion="log_loss", pruning=None).fit(data, target)
        gini = CARTClassifier(criterion="gini", pruning=None).fit(data, target)
        assert log_loss.tree_ == entropy.tree_
        assert log_loss.tree_.node_count > 1
        assert not np.allclose(gini.tree_.impurity, entropy.tree_.impurity)  # another criterion


def test_an_unknown_criterion_names_log_loss_among_the_choices():
    with pytest.raises(ValueError, match="criterion.*log_loss"):
        CARTClassifier(criterion="logloss").fit(*_numeric())


def test_the_command_line_takes_log_loss(tmp_path, capsys):
    data = rootwise.datasets.path("watermelon_3_0")
    out = tmp_path / "m.json"
    code = main(["fit", str(data), "--target", "好瓜", "--ignore", "编号", "--algorithm", "cart",
                 "--criterion", "log_loss", "--pruning", "none", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    model = rootwise.load(out)
    assert model.criterion == "log_loss"
    X, y = rootwise.datasets.load_watermelon_3_0(return_X_y=True)
    assert model.tree_ == CARTClassifier(criterion="entropy", pruning=None).fit(X, y).tree_


# ---------------------------------------------------------------- predict_log_proba


def _classifiers(watermelon):
    alpha = rootwise.datasets.load_watermelon_2_0_alpha(return_X_y=True)
    return [(ID3Classifier(), *watermelon), (C45Classifier(), *alpha),
            (CARTClassifier(pruning=None), *alpha), (CARTClassifier(pruning=None), *_numeric())]


def test_predict_log_proba_is_the_log_of_predict_proba_with_minus_infinity_at_zero(watermelon):
    zeros = 0
    for model, X, y in _classifiers(watermelon):
        model.fit(X, y)
        proba = model.predict_proba(X)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no "divide by zero" warning for a zero probability
            log_proba = model.predict_log_proba(X)
        assert log_proba.shape == proba.shape
        known = proba > 0
        np.testing.assert_allclose(np.exp(log_proba[known]), proba[known], rtol=1e-15)
        assert (log_proba[~known] == -np.inf).all()
        zeros += int((~known).sum())
    assert zeros > 0  # the pure leaves of these trees give the -inf case


def test_predict_log_proba_of_a_dask_array_is_lazy_and_the_same(watermelon):
    da = pytest.importorskip("dask.array")
    X, y = _numeric()
    model = CARTClassifier(pruning=None).fit(X, y)
    lazy = model.predict_log_proba(da.from_array(X, chunks=(20, 3)))
    assert isinstance(lazy, da.Array)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the blocks' zeros do not warn either
        computed = lazy.compute(scheduler="synchronous")
    expected = model.predict_log_proba(X)
    assert (expected == -np.inf).any()
    np.testing.assert_array_equal(computed, expected)


def test_a_regressor_has_no_predict_log_proba():
    assert not hasattr(CARTRegressor(), "predict_log_proba")


# ---------------------------------------------------------------- metadata routing


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


def _weights(y):
    """Weights that favour one class's rows 5 to 1: the weighted tree is another tree."""
    return np.where(y == 1, 5.0, 1.0)


def test_pipeline_routes_sample_weight_to_fit(routing):
    X, y = _numeric()
    w = _weights(y)
    tree = CARTClassifier(pruning=None, max_depth=3).set_fit_request(sample_weight=True)
    pipe = Pipeline([("identity", FunctionTransformer()), ("tree", tree)]).fit(X, y, sample_weight=w)
    fitted = pipe.named_steps["tree"].tree_
    direct = CARTClassifier(pruning=None, max_depth=3).fit(X, y, sample_weight=w).tree_
    unweighted = CARTClassifier(pruning=None, max_depth=3).fit(X, y).tree_
    assert fitted == direct
    assert fitted != unweighted


def test_grid_search_routes_sample_weight_to_every_fit(routing):
    X, y = _numeric(seed=1, n=80)
    w = _weights(y)
    tree = CARTClassifier(pruning=None).set_fit_request(sample_weight=True).set_score_request(
        sample_weight=True)
    search = GridSearchCV(tree, {"max_depth": [1, 3]}, cv=KFold(2)).fit(X, y, sample_weight=w)
    best = search.best_params_["max_depth"]
    direct = CARTClassifier(pruning=None, max_depth=best).fit(X, y, sample_weight=w)
    assert search.best_estimator_.tree_ == direct.tree_
    assert search.best_estimator_.tree_ != CARTClassifier(pruning=None, max_depth=best).fit(X, y).tree_
    # the folds' fits and scores were weighted too: the first fold's score by hand
    train, test = next(KFold(2).split(X))
    fold = CARTClassifier(pruning=None, max_depth=best).fit(X[train], y[train], sample_weight=w[train])
    expected = np.average(fold.predict(X[test]) == y[test], weights=w[test])
    assert search.cv_results_["split0_test_score"][search.best_index_] == pytest.approx(expected)


def test_unrequested_weights_are_an_error_not_silently_dropped(routing):
    X, y = _numeric()
    pipe = Pipeline([("tree", CARTClassifier(pruning=None))])
    with pytest.raises(ValueError, match="sample_weight"):
        pipe.fit(X, y, sample_weight=_weights(y))


def test_clone_keeps_the_requests(routing):
    tree = CARTClassifier(max_depth=2).set_fit_request(sample_weight=True)
    for copy in (clone(tree), rootwise._base.clone(tree)):
        assert copy.get_metadata_routing().fit.requests["sample_weight"] is True
        assert copy.max_depth == 2
    assert CARTClassifier().get_metadata_routing().fit.requests["sample_weight"] is None


def test_set_fit_request_names_what_it_takes(routing):
    with pytest.raises(TypeError, match=r"CARTClassifier.set_fit_request: fit takes no metadata "
                                        r"'weights'; it takes 'sample_weight'"):
        CARTClassifier().set_fit_request(weights=True)


def test_set_fit_request_needs_routing_enabled():
    with pytest.raises(RuntimeError, match=r"ID3Classifier.set_fit_request is only available when "
                                           r"metadata routing is enabled"):
        ID3Classifier().set_fit_request(sample_weight=True)
