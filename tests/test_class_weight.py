"""class_weight for ID3Classifier and C45Classifier: scikit-learn's meaning, so a fit with it is
the fit with the equivalent sample_weight (the gains, the nodes' class weights, C4.5's fractional
weights and its error-based pruning all see the product)."""

from __future__ import annotations

import numpy as np
import pytest

import rootwise
from rootwise import C45Classifier, ID3Classifier

MELON2 = rootwise.datasets.load_watermelon_2_0(return_X_y=True)
MELON_ALPHA = rootwise.datasets.load_watermelon_2_0_alpha(return_X_y=True)  # missing cells
FIELDS = ("kind", "feature", "threshold", "first_child", "n_children", "value")


def same_tree(a, b):
    for field in FIELDS:
        np.testing.assert_allclose(getattr(a.tree_, field), getattr(b.tree_, field), rtol=1e-12,
                                   err_msg=field)


def cases():
    yield ID3Classifier, MELON2, {}
    yield C45Classifier, MELON2, {}
    yield C45Classifier, MELON_ALPHA, {}  # fractional weights of the missing cells
    yield C45Classifier, MELON_ALPHA, {"pruning": None}


@pytest.mark.parametrize("cls, data, extra", list(cases()))
def test_dict_equals_the_sample_weight_it_stands_for(cls, data, extra):
    X, y = data
    classes = np.unique(y)
    weights = {classes[0]: 3.0, classes[1]: 0.5}
    by_class = cls(class_weight=weights, **extra).fit(X, y)
    by_row = cls(**extra).fit(X, y, sample_weight=np.array([weights[v] for v in y]))
    same_tree(by_class, by_row)
    np.testing.assert_allclose(by_class.predict_proba(X), by_row.predict_proba(X), rtol=1e-12)
    # and the weights matter: the unweighted tree differs
    plain = cls(**extra).fit(X, y)
    assert not np.allclose(plain.tree_.value[0], by_class.tree_.value[0])


@pytest.mark.parametrize("cls", [ID3Classifier, C45Classifier])
def test_balanced_is_n_over_k_n_k(cls):
    X, y = MELON_ALPHA if cls is C45Classifier else MELON2
    classes, counts = np.unique(y, return_counts=True)
    per_class = dict(zip(classes, len(y) / (len(classes) * counts), strict=True))
    balanced = cls(class_weight="balanced").fit(X, y)
    by_row = cls().fit(X, y, sample_weight=np.array([per_class[v] for v in y]))
    same_tree(balanced, by_row)
    # the root's class weights are equal after balancing
    np.testing.assert_allclose(balanced.tree_.value[0], [len(y) / 2] * 2, rtol=1e-12)


@pytest.mark.parametrize("cls", [ID3Classifier, C45Classifier])
def test_bad_class_weight_is_refused_by_name(cls):
    X, y = MELON2
    with pytest.raises(ValueError, match=rf"{cls.__name__}: class_weight names the class '坏', "
                                         r"which y does not hold"):
        cls(class_weight={"坏": 2.0}).fit(X, y)
    with pytest.raises(ValueError, match=rf"The 'class_weight' parameter of {cls.__name__} must"):
        cls(class_weight="heavy").fit(X, y)


@pytest.mark.parametrize("algorithm", ["id3", "c4.5"])
def test_cli_passes_class_weight(algorithm, tmp_path, capsys):
    from rootwise.cli import main

    out = tmp_path / "m.json"
    code = main(["fit", str(rootwise.datasets.path("watermelon_2_0")), "--target", "好瓜",
                 "--algorithm", algorithm, "--class-weight", "是=2", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    assert rootwise.load(out).class_weight == {"是": 2.0}
