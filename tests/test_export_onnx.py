"""export_onnx: the ONNX model, run in ONNX Runtime, against predict and predict_proba of the
same fitted model (the peer) on the bundled tables, with missing cells and unseen categories;
its refusals; the file it writes; and rootwise show --format onnx."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

import rootwise
from rootwise._config import MULTIWAY, SUBSET, THRESHOLD
from rootwise.cli import main
from rootwise.export.onnx import onnx_inputs

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

TOLERANCE = 1e-6


def session(model):
    proto = rootwise.export_onnx(model)
    return ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])


def table(name):
    X, y = rootwise.datasets.load(name, return_X_y=True)
    return X, y


def holes(X, seed: int, share: float = 0.2):
    """A copy of X with about ``share`` of its cells missing (a fixed draw)."""
    rng = np.random.default_rng(seed)
    return X.mask(rng.random(X.shape) < share)


def probes(X, unseen: dict | None = None):
    """X, then X with each column missing in turn, with every cell missing, and (``unseen``:
    column -> value) with a category never seen in training: every way a row can be routed."""
    parts = [X]
    for c in X.columns:
        part = X.copy()
        part[c] = np.nan
        parts.append(part)
    parts.append(X.mask(np.ones(X.shape, dtype=bool)))
    for c, value in (unseen or {}).items():
        part = X.copy()
        part[c] = value
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def assert_same_classifier(model, X):
    label, proba = session(model).run(["label", "probabilities"], onnx_inputs(model, X))
    assert list(label) == list(model.predict(X))
    assert proba.shape == (len(X), len(model.classes_))
    np.testing.assert_allclose(proba, model.predict_proba(X), rtol=0, atol=TOLERANCE)


def kinds(model):
    t = model.tree_
    return set(t.kind[t.kind != 0].tolist())


def test_id3_text_and_number_categories():
    for name, unseen in (("watermelon_2_0", {"色泽": "紫"}), ("lagou_id3_case1", {"x1": 7})):
        X, y = table(name)
        model = rootwise.ID3Classifier().fit(X, y)
        assert kinds(model) == {MULTIWAY}
        assert_same_classifier(model, probes(X, unseen).dropna())  # ID3 refuses missing cells


def test_c45_complete_data_routes_missing_cells_fractionally():
    X, y = table("watermelon_3_0")
    model = rootwise.C45Classifier(pruning=None).fit(X, y)
    assert kinds(model) == {MULTIWAY, THRESHOLD}
    assert np.all(model.tree_.missing_branch[model.tree_.kind != 0] == -2)
    T = probes(X, {"纹理": "光滑"})
    assert T.isna().any(axis=1).sum() > len(X)  # rows that go down every branch
    assert_same_classifier(model, T)


def test_c45_trained_with_missing_cells():
    X, y = table("watermelon_2_0_alpha")
    model = rootwise.C45Classifier(pruning=None).fit(X, y)
    assert_same_classifier(model, probes(X, {"色泽": "紫"}))


def test_cart_classifier_surrogates_subsets_and_thresholds():
    X, y = table("watermelon_3_0")
    X = holes(X, seed=8)
    model = rootwise.CARTClassifier(pruning=None).fit(X, y)
    t = model.tree_
    assert kinds(model) == {SUBSET, THRESHOLD}
    assert set(t.surrogates["kind"].tolist()) == {SUBSET, THRESHOLD}
    # after the surrogates: the larger child, and a node whose children weigh the same (stop)
    fallback = set(t.missing_branch[t.kind != 0].tolist())
    assert -1 in fallback and fallback & {0, 1}
    assert_same_classifier(model, probes(X, {"纹理": "光滑", "色泽": "紫"}))


def test_cart_without_surrogates_sends_missing_cells_to_the_larger_child():
    X, y = table("watermelon_3_0")
    model = rootwise.CARTClassifier(pruning=None, max_surrogates=0).fit(X, y)
    t = model.tree_
    plain = (t.kind == THRESHOLD) & (t.n_surrogates == 0)  # tested in the routing stage itself
    assert plain.any() and set(t.missing_branch[plain].tolist()) <= {0, 1}
    assert_same_classifier(model, probes(X, {"纹理": "光滑"}))


def test_cart_classifier_loan_default_mixed_columns():
    X, y = table("loan_default")
    model = rootwise.CARTClassifier(pruning=None, class_order=["是", "否"]).fit(holes(X, 5), y)
    assert_same_classifier(model, probes(X, {"婚姻状况": "丧偶"}))


def test_ties_go_where_predict_sends_them():
    # leaf u holds one row of each class: the class order decides, and each model keeps its own
    X = pd.DataFrame({"a": ["u", "u", "v", "v", "v"]})
    y = ["p", "q", "q", "q", "q"]
    T = pd.DataFrame({"a": ["u", "v", None]})
    for algorithm, options in ((rootwise.ID3Classifier, {}),
                               (rootwise.C45Classifier, {"pruning": None, "min_samples_leaf": 1})):
        first = algorithm(**options).fit(X, y)
        turned = algorithm(class_order=["q", "p"], **options).fit(X, y)
        rows = T.iloc[:2] if algorithm is rootwise.ID3Classifier else T
        assert first.predict(rows)[0] != turned.predict(rows)[0]
        for model in (first, turned):
            assert_same_classifier(model, rows)


@pytest.mark.parametrize("leaf_value", ["mean", "median"])
def test_cart_regressor(leaf_value):
    X, _ = table("watermelon_3_0")
    y = X.pop("含糖率")
    model = rootwise.CARTRegressor(pruning=None, leaf_value=leaf_value).fit(holes(X, 1), y)
    assert set(model.tree_.surrogates["kind"].tolist()) == {SUBSET, THRESHOLD}
    T = probes(X, {"根蒂": "直立"})
    (value,) = session(model).run(["value"], onnx_inputs(model, T))
    np.testing.assert_allclose(value, model.predict(T), rtol=1e-6, atol=0)


def test_a_single_leaf():
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0]})
    model = rootwise.CARTClassifier().fit(X, ["p", "p", "p"])
    assert model.tree_.node_count == 1
    assert_same_classifier(model, pd.DataFrame({"a": [0.0, np.nan]}))


def test_inputs_and_outputs_are_documented_ones():
    X, y = table("loan_default")
    proto = rootwise.export_onnx(rootwise.CARTClassifier().fit(X, y))
    elem = onnx.TensorProto
    types = {i.name: i.type.tensor_type.elem_type for i in proto.graph.input}
    assert types == {"有房情况": elem.STRING, "婚姻状况": elem.STRING, "年收入": elem.DOUBLE}
    assert [o.name for o in proto.graph.output] == ["label", "probabilities"]
    ml = {n.op_type for n in proto.graph.node if n.domain == "ai.onnx.ml"}
    assert ml == {"LabelEncoder", "TreeEnsembleRegressor"}


def test_written_file(tmp_path):
    X, y = table("watermelon_2_0")
    model = rootwise.ID3Classifier().fit(X, y)
    path = tmp_path / "melon.onnx"
    proto = rootwise.export_onnx(model, path)
    assert path.read_bytes() == proto.SerializeToString()
    onnx.checker.check_model(onnx.load(str(path)))


def test_refusals():
    X = pd.DataFrame({"a": ["u", 1, "v", 1]})
    model = rootwise.ID3Classifier().fit(X, ["p", "q", "q", "q"])
    with pytest.raises(ValueError, match=r"column 'a' has both text and number categories"):
        rootwise.export_onnx(model)
    X = pd.DataFrame({"a": ["u", "", "v", ""]})
    model = rootwise.ID3Classifier().fit(X, ["p", "q", "q", "q"])
    with pytest.raises(ValueError, match=r"column 'a' has the empty string as a category"):
        rootwise.export_onnx(model)


def test_without_onnx_the_error_names_the_extra(monkeypatch):
    X, y = table("watermelon_2_0")
    model = rootwise.ID3Classifier().fit(X, y)
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx raises ImportError
    with pytest.raises(ImportError, match=r"pip install rootwise\[onnx\]"):
        rootwise.export_onnx(model)


def test_cli_show_format_onnx(tmp_path, capsys):
    data = str(rootwise.datasets.path("watermelon_2_0_alpha"))
    saved = tmp_path / "alpha.json"
    assert main(["fit", data, "--target", "好瓜", "--ignore", "编号", "--algorithm", "c4.5",
                 "--out", str(saved)]) == 0
    out = tmp_path / "alpha.onnx"
    assert main(["show", str(saved), "--format", "onnx", "--out", str(out)]) == 0
    model = rootwise.load(saved)
    assert model.tree_.node_count > 1
    X, _ = table("watermelon_2_0_alpha")
    s = ort.InferenceSession(out.read_bytes(), providers=["CPUExecutionProvider"])
    label, proba = s.run(["label", "probabilities"], onnx_inputs(model, X))
    assert list(label) == list(model.predict(X))
    np.testing.assert_allclose(proba, model.predict_proba(X), rtol=0, atol=TOLERANCE)
    capsys.readouterr()
    # binary: never to the terminal; and never over the model it reads
    assert main(["show", str(saved), "--format", "onnx"]) == 2
    assert "--format onnx writes a binary ONNX model: give --out FILE" in capsys.readouterr().err
    assert main(["show", str(saved), "--format", "onnx", "--out", str(saved)]) == 2
    assert "alpha.json" in capsys.readouterr().err
    assert rootwise.load(saved).tree_.node_count == model.tree_.node_count
