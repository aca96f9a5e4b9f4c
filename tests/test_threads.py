"""n_jobs changes the speed, never the result; the direct path for numeric arrays encodes exactly
as the general one does."""

import numpy as np
import pandas as pd
import pytest

from rootwise import C45Classifier, CARTClassifier, CARTRegressor
from rootwise._threads import resolve
from rootwise.input import encode, tables


def _data(n=25000, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=n) * 0.5 > 0).astype(int)
    return X, y


@pytest.mark.parametrize("Est", [CARTClassifier, CARTRegressor])
def test_same_tree_and_predictions_for_any_n_jobs(Est):
    X, y = _data()
    target = y if Est is CARTClassifier else X[:, 0] * 2.0 + y
    one = Est(pruning=None, n_jobs=1).fit(X, target)
    two = Est(pruning=None, n_jobs=2).fit(X, target)
    assert one.tree_ == two.tree_
    X_new = np.random.default_rng(1).normal(size=(30000, X.shape[1]))  # enough for row blocks
    X_new[::7, 2] = np.nan  # surrogates on some rows
    np.testing.assert_array_equal(one.predict(X_new), two.predict(X_new))
    np.testing.assert_array_equal(one.apply(X_new), one.set_params(n_jobs=2).apply(X_new))


def test_n_jobs_is_checked():
    X, y = _data(200)
    with pytest.raises(ValueError, match="n_jobs"):
        CARTClassifier(n_jobs=0).fit(X, y)
    with pytest.raises(ValueError, match="n_jobs"):
        C45Classifier(n_jobs=1.5).fit(X, y)
    assert resolve(1) == 1 and resolve(None) >= 1 and resolve(-1) == resolve(None)


def test_numeric_array_path_encodes_like_the_table_path():
    X, y = _data(300)
    model = CARTClassifier(pruning=None).fit(X, y)
    X_new = np.random.default_rng(2).normal(size=(50, X.shape[1]))
    X_new[3, 1] = np.nan
    direct = encode.encode_numeric_array(X_new, model.schema_)
    general = encode.encode(tables.as_frame(X_new), model.schema_)
    np.testing.assert_array_equal(direct, general)
    # a DataFrame of numpy numeric columns takes it too
    np.testing.assert_array_equal(encode.encode_numeric_array(pd.DataFrame(X_new), model.schema_),
                                  general)
    X_new[5, 4] = np.inf
    with pytest.raises(ValueError, match="column 'x4', row 5"):
        model.predict(X_new)
    with pytest.raises(ValueError, match="column 'x4', row 5"):
        encode.encode_numeric_array(X_new, model.schema_)
    # not taken for non-numeric arrays or nullable columns
    assert encode.encode_numeric_array(X_new.astype(object), model.schema_) is None
    assert encode.encode_numeric_array(pd.DataFrame(X_new).astype("Float64"), model.schema_) is None
