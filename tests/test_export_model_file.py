"""save / load: exact round trip, typed labels, atomic writes, and clear errors for bad files."""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import random
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

import rootwise
from rootwise.estimators import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from rootwise.export import model_file as _persistence
from rootwise.export.model_file import ModelFileError


@pytest.fixture(scope="module")
def watermelon():
    return rootwise.datasets.load("watermelon_2_0", return_X_y=True)


@pytest.fixture(scope="module")
def model(watermelon):
    return rootwise.ID3Classifier().fit(*watermelon)


@pytest.fixture
def saved(model, tmp_path):
    path = tmp_path / "model.json"
    rootwise.save(model, path)
    return path


def fitted_attributes(m) -> set:
    return {k for k in vars(m) if k.endswith("_") and not k.startswith("_")}


def assert_same_report(a, b):
    """Fit reports (None, a dataclass record of numbers and arrays, or a list of records)."""
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_same_report(x, y)
        return
    assert type(a) is type(b)
    if a is None:
        return
    for field in dataclasses.fields(a):
        x, y = getattr(a, field.name), getattr(b, field.name)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and x.tobytes() == y.tobytes(), field.name
        else:
            assert x == y and type(np.asarray(x).item()) is type(np.asarray(y).item()), field.name


def assert_same_model(a, b, X):
    assert type(a) is type(b)
    assert a.get_params() == b.get_params()
    assert fitted_attributes(a) == fitted_attributes(b)
    assert a.tree_ == b.tree_
    assert a.schema_ == b.schema_
    for ca, cb in zip(a.schema_.categories, b.schema_.categories, strict=True):
        assert ca is None and cb is None or [type(v) for v in ca] == [type(v) for v in cb]
    assert a.n_features_in_ == b.n_features_in_
    assert np.array_equal(getattr(a, "feature_names_in_", []), getattr(b, "feature_names_in_", []))
    for attribute in ("pruning_steps_", "cp_table_"):
        assert_same_report(getattr(a, attribute), getattr(b, attribute))
    pa, pb = a.predict(X), b.predict(X)
    assert pa.dtype == pb.dtype and np.array_equal(pa, pb)
    if pa.dtype.kind == "f":
        assert pa.tobytes() == pb.tobytes()  # regression: bitwise
    if hasattr(a, "classes_"):
        assert a.classes_.dtype == b.classes_.dtype
        assert [type(v) for v in a.classes_.tolist()] == [type(v) for v in b.classes_.tolist()]
        assert np.array_equal(a.classes_, b.classes_)
        assert a.predict_proba(X).tobytes() == b.predict_proba(X).tobytes()


def test_round_trip_watermelon(model, watermelon, saved):
    loaded = rootwise.load(saved)
    assert_same_model(model, loaded, watermelon[0])
    assert list(loaded.predict(watermelon[0])) == list(watermelon[1])  # ID3 fits its training set
    # and the loaded model is an ordinary estimator again
    assert clone(loaded).fit(*watermelon).tree_ == model.tree_


def test_file_is_readable_versioned_json(model, saved):
    text = saved.read_text(encoding="utf-8")
    assert "纹理" in text and "\\u" not in text  # ensure_ascii=False
    doc = json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in the file"))
    assert doc["format"] == "rootwise-model" and doc["version"] == 1
    assert doc["estimator"] == "ID3Classifier"
    assert doc["classes"] == {"dtype": "|O", "values": ["否", "是"]}
    assert doc["schema"]["categories"][3] == ["清晰", "稍糊", "模糊"]
    assert set(doc["params"]) == set(model.get_params())
    params = {k: (type(v), v) for k, v in doc["params"].items()}
    assert params["epsilon"] == (float, 0.0) and params["max_depth"] == (type(None), None)
    assert params["min_samples_leaf"] == (int, 1) and params["categorical_features"] == (str, "auto")
    assert len(doc["tree"]["feature"]) == 14


LABELS = {
    "int64": np.array([3, 1, 3, 2, 1, 3]),
    "float": np.array([1.0, 2.0, 1.0, 1e16, 2.0, 1.0]),  # sklearn wants integral floats
    "bool": np.array([True, False, True, True, False, False]),
    "numpy str": np.array(["b", "a", "b", "ccc", "a", "b"]),
    "Chinese object": np.array(["是", "否", "是", "是", "否", "否"], dtype=object),
    "large int": np.array([2**62, -1, 2**62, 5, -1, 5]),
}


@pytest.mark.parametrize("labels", LABELS.values(), ids=LABELS.keys())
def test_label_and_category_types_survive(labels, tmp_path):
    X = pd.DataFrame({
        "words": ["x", "y", "x", "z", "y", "x"],
        "numbers": [1.5, 2.0, 1.5, 0.1, 2.0, 1.5],  # ID3: float categories
        "flags": [True, False, True, False, False, True],
        "mixed": pd.Series([1, "1", 1.0, "1", 1, 1.0], dtype=object),  # 1 and "1" are distinct
        "ints": [10, 20, 10, 30, 20, 10],
        "odd": pd.Series(["a", np.inf, "a", -np.inf, "b", "a"], dtype=object),  # JSON has no inf
    })
    m = rootwise.ID3Classifier().fit(X, labels)
    rootwise.save(m, tmp_path / "m.json")
    json.loads((tmp_path / "m.json").read_text(encoding="utf-8"),
               parse_constant=lambda c: pytest.fail(f"{c} in the file"))
    loaded = rootwise.load(tmp_path / "m.json")
    assert_same_model(m, loaded, X)
    cats = dict(zip(loaded.schema_.feature_names, loaded.schema_.categories, strict=True))
    assert [type(v) for v in cats["flags"]] == [bool, bool]
    assert sorted(map(repr, cats["mixed"])) == sorted(map(repr, m.schema_.categories[3]))
    assert sorted(map(repr, cats["odd"])) == ["'a'", "'b'", "-inf", "inf"]


def _table(name, target=None):
    X, y = rootwise.datasets.load(name, return_X_y=True)
    return (X.drop(columns=[target]), X[target]) if target else (X, y)


# every estimator, with what makes it differ from ID3: thresholds, fractional weights of missing
# cells, subsets and surrogates, pruning reports (a list of steps, a cross-validation table)
ESTIMATOR_CASES = {
    "C4.5 missing": (C45Classifier(), "watermelon_2_0_alpha", None),
    "C4.5 thresholds": (C45Classifier(), "watermelon_3_0", None),
    "CART surrogates": (CARTClassifier(pruning=None), "watermelon_2_0_alpha", None),
    "CART cp table": (CARTClassifier(cv=3, random_state=0), "loan_default", None),
    "CART regressor": (CARTRegressor(cv=3, random_state=0), "watermelon_3_0", "密度"),
    "ID3 reduced-error": (ID3Classifier(pruning="reduced-error", random_state=0), "watermelon_2_0", None),
}


@pytest.mark.parametrize("estimator, table, target", ESTIMATOR_CASES.values(), ids=ESTIMATOR_CASES.keys())
def test_round_trip_every_estimator(estimator, table, target, tmp_path):
    X, y = _table(table, target)
    m = clone(estimator).fit(X, y)
    rootwise.save(m, tmp_path / "m.json")
    assert_same_model(m, rootwise.load(tmp_path / "m.json"), X)


def test_params_and_unnamed_columns_round_trip(tmp_path):
    X = np.array([[0, 1], [1, 1], [1, 0], [0, 0]])
    m = rootwise.ID3Classifier(epsilon=0.01, max_depth=3, min_samples_leaf=0.25,
                               categorical_features=[True, False]).fit(X, [0, 1, 1, 0])
    rootwise.save(m, tmp_path / "m.json")
    loaded = rootwise.load(str(tmp_path / "m.json"))
    assert_same_model(m, loaded, X)
    assert not hasattr(loaded, "feature_names_in_")
    assert type(loaded.min_samples_leaf) is float and type(loaded.max_depth) is int


def test_pickle(model, watermelon):
    assert_same_model(model, pickle.loads(pickle.dumps(model)), watermelon[0])


# --------------------------------------------------------------------------- writing safely


def test_failed_save_keeps_the_old_file(model, saved, monkeypatch):
    before = saved.read_bytes()

    def broken_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_persistence.os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="No space"):
        rootwise.save(model, saved)
    assert saved.read_bytes() == before
    assert os.listdir(saved.parent) == ["model.json"]  # no temporary file left behind


def test_save_to_a_directory(model, tmp_path):
    target = tmp_path / "models"
    target.mkdir()
    with pytest.raises(IsADirectoryError, match="models"):
        rootwise.save(model, target)
    assert os.listdir(tmp_path) == ["models"] and os.listdir(target) == []


def test_save_refuses_what_it_cannot_load_back(saved):
    before = saved.read_bytes()
    with pytest.raises(NotFittedError):
        rootwise.save(rootwise.ID3Classifier(), saved)

    class MyID3(rootwise.ID3Classifier):
        pass

    X, y = rootwise.datasets.load("lagou_id3_case1", return_X_y=True)
    with pytest.raises(TypeError, match="MyID3"):
        rootwise.save(MyID3().fit(X, y), saved)
    assert saved.read_bytes() == before


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.json"):
        rootwise.load(tmp_path / "nope.json")


# --------------------------------------------------------------------------- bad files


def _doc(saved):
    return json.loads(saved.read_text(encoding="utf-8"))


def _set(path, value):
    def edit(doc):
        *parents, last = path
        for key in parents:
            doc = doc[key]
        doc[last] = value
    return edit


def _drop(*path):
    def edit(doc):
        *parents, last = path
        for key in parents:
            doc = doc[key]
        del doc[last]
    return edit


def _both(first, second):
    return lambda doc: first(doc) or second(doc)


CORRUPTIONS = {
    "not a model": (lambda d: {"hello": 1}, "not a rootwise model file"),
    "list at top": (lambda d: [1, 2], "not a rootwise model file"),
    "version 2": (_set(["version"], 2), r"unsupported format version 2 \(this rootwise reads version 1\)"),
    "version as text": (_set(["version"], "1"), "unsupported format version '1'"),
    "version true": (_set(["version"], True), "unsupported format version True"),
    "no tree": (_drop("tree"), "no field 'tree'"),
    "no schema": (_drop("schema"), "no field 'schema'"),
    "extra field": (_set(["code"], "import os"), "unknown field 'code'"),
    "unknown estimator": (_set(["estimator"], "os.system"), "unknown estimator 'os.system'"),
    "unknown param": (_set(["params", "__class__"], "x"), "no parameter '__class__'"),
    "bad param value": (_set(["params", "max_depth"], -3), "max_depth"),
    "param object": (_set(["params", "epsilon"], {"a": 1}), "params.epsilon"),
    "long param": (_set(["params", "pruning"], "x" * 10**6),
                   r"params: The 'pruning' parameter of ID3Classifier must be a str among .* or None\. "
                   r"Got 'x+\.\.\.$"),
    "kind 7": (_set(["schema", "kinds", 0], 7), r"schema.kinds\[0\]"),
    "categories not a list": (_set(["schema", "categories", 3], "清晰"), r"categories\[3\] is not a list"),
    "category object": (_set(["schema", "categories", 3, 0], {"x": 1}), r"categories\[3\]"),
    "fewer categories": (_set(["schema", "categories", 3], ["清晰", "稍糊"]), "category counts"),
    "short names": (_set(["schema", "feature_names"], ["a"]), "feature names"),
    "names not strings": (_set(["schema", "feature_names", 0], 1), "not a string"),
    "names disagree": (_set(["feature_names_in", 0], "颜色"), "feature_names_in"),
    "n_features_in": (_set(["n_features_in"], 5), "n_features_in"),
    "one class dropped": (_set(["classes", "values"], ["否"]), "2 columns for 1 classes"),
    "no classes": (_set(["classes"], None), "classes is not a JSON object"),
    "classes dtype": (_set(["classes", "dtype"], "V8"), "not a dtype rootwise reads"),
    "class too long": (_set(["classes", "dtype"], "<U0"), "does not fit"),
    "class vs dtype": (_set(["classes", "dtype"], "<i8"), "does not fit"),
    "unknown report": (_set(["reports", "cp_table_"], {"type": "os.system", "fields": {}}),
                       "unknown report type 'os.system'"),
    "unknown report attribute": (_set(["reports", "__dict__"], None), "reports must be"),
    "report fields": (_set(["reports", "cp_table_"], {"type": "CPTable", "fields": {"alpha": 1}}),
                      "no field"),
    "child out of range": (_set(["tree", "first_child", 0], 99), "children out of range"),
    "negative pool": (_set(["tree", "pool", 0], -5), "maps to a child"),
    "pool past children": (_set(["tree", "pool", 0], 3), "maps to a child"),
    "feature out of range": (_set(["tree", "feature", 0], 17), "feature out of range"),
    "negative feature": (_set(["tree", "feature", 0], -2), "feature out of range"),
    "unknown node kind": (_set(["tree", "kind", 0], 9), "unknown node kind"),
    "threshold on category": (_both(_set(["tree", "threshold", 2], 0.5), _set(["tree", "kind", 2], 1)),
                              "threshold test on a categorical feature"),
    "pool offset": (_set(["tree", "pool_offset", 1], 12), "pool entry out of range"),
    "parent link": (_set(["tree", "parent", 4], 2), "parent links"),
    "depth": (_set(["tree", "depth", 4], 7), "depths"),
    "missing branch": (_set(["tree", "missing_branch", 0], 3), "missing values"),
    "n_categories": (_set(["tree", "n_categories", 0], 2), "category counts"),
    "short field": (_set(["tree", "kind"], [2, 2]), r"tree\.kind has shape \(2,\), expected \(14,\)"),
    "number as text": (_set(["tree", "feature", 3], "-1"), "not an integer"),
    "bool as number": (_set(["tree", "feature", 3], True), "not an integer"),
    "float as index": (_set(["tree", "first_child", 0], 1.5), "not an integer"),
    "int32 overflow": (_set(["tree", "first_child", 0], 2**40), "first_child"),
    "negative counts": (_set(["tree", "value", 3], [-1.0, 4.0]), "negative"),
    "null counts": (_set(["tree", "value", 3], [None, 4.0]), "not a number"),
    "zero counts": (_set(["tree", "value", 3], [0.0, 0.0]), "all zero"),
    "ragged value": (_set(["tree", "value", 3], [1.0]), "not a table"),
    "no tree field": (_drop("tree", "pool"), "no field 'pool'"),
    "tree not object": (_set(["tree"], [1]), "tree is not a JSON object"),
    # issue 15: counts, weights and fractions; labels and names distinct
    "fractions not summing to 1": (_set(["tree", "branch_fraction", 1], 0.5),
                                   r"tree\.branch_fraction: the branch fractions of the children "
                                   r"of node 0 sum to 0\.97.*, not 1 \(within 1e-09\)"),
    "negative fraction": (_set(["tree", "branch_fraction", 2], -0.25),
                          r"tree\.branch_fraction: node 2 holds -0\.25, expected a fraction"),
    "fraction above 1": (_set(["tree", "branch_fraction", 0], 1.5), "expected a fraction in"),
    "negative weight": (_set(["tree", "weighted_n_node_samples", 2], -1.0),
                        r"tree\.weighted_n_node_samples: node 2 holds -1\.0, expected a finite "
                        "weight >= 0"),
    "null weight": (_set(["tree", "weighted_n_node_samples", 2], None),
                    r"tree\.weighted_n_node_samples: node 2 holds nan"),
    "negative count": (_set(["tree", "n_node_samples", 5], -3),
                       r"tree\.n_node_samples: node 5 has a negative count"),
    "null impurity": (_set(["tree", "impurity", 1], None), r"tree\.impurity: node 1 holds nan"),
    "counts summing to infinity": (_set(["tree", "value", 3], [1e308, 1e308]),
                                   r"tree\.value: .*sum to infinity \(node 3"),
    "class twice": (_set(["classes", "values"], ["否", "否"]),
                    "classes holds the class label '否' twice"),
    "NaN class": (_set(["classes", "values"], [{"float": "nan"}, "是"]),
                  "classes holds NaN, which is not a class label"),
    "category twice": (_set(["schema", "categories", 3], ["清晰", "稍糊", "清晰"]),
                       r"schema\.categories\[3\] holds the category '清晰' twice"),
    "1 and 1.0 are one category": (_set(["schema", "categories", 3], [1, 1.0, "x"]),
                                   r"schema\.categories\[3\] holds the category 1\.0 twice"),
    "NaN category": (_set(["schema", "categories", 3], ["清晰", {"float": "nan"}, "模糊"]),
                     r"schema\.categories\[3\] holds NaN"),
    "feature name twice": (_set(["schema", "feature_names", 1], "色泽"),
                           r"schema\.feature_names holds the feature name '色泽' twice"),
}


@pytest.mark.parametrize("edit, message", CORRUPTIONS.values(), ids=CORRUPTIONS.keys())
def test_corrupt_document(saved, edit, message):
    doc = _doc(saved)
    doc = edit(doc) or doc
    saved.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(ModelFileError, match=message) as info:
        rootwise.load(saved)
    assert str(info.value).startswith(f"{saved}: ")
    assert str(pickle.loads(pickle.dumps(info.value))) == str(info.value)  # e.g. from a worker


def _cases_of(estimator, table):
    X, y = rootwise.datasets.load(table, return_X_y=True)
    return clone(estimator).fit(X, y)


@pytest.fixture(scope="module")
def cart_cp(tmp_path_factory):
    """A CART classifier with surrogate splits and a cp table, saved."""
    path = tmp_path_factory.mktemp("cart") / "cart.json"
    rootwise.save(_cases_of(CARTClassifier(cv=3, random_state=0, ccp_alpha="cv-min"),
                            "watermelon_2_0_alpha"), path)
    return path


@pytest.fixture(scope="module")
def id3_steps(tmp_path_factory):
    """An ID3 classifier with reduced-error pruning steps, saved."""
    path = tmp_path_factory.mktemp("id3") / "id3.json"
    rootwise.save(_cases_of(ID3Classifier(pruning="reduced-error", random_state=0),
                            "watermelon_2_0"), path)
    return path


def _first_surrogate_node(doc):
    return next(i for i, n in enumerate(doc["tree"]["n_surrogates"]) if n > 0)


SURROGATE_AND_REPORT_CORRUPTIONS = {
    "surrogate feature": (_set(["tree", "surrogates", "feature", 0], 9),
                          r"tree\.surrogates\.feature: a surrogate split tests a feature out of range"),
    "surrogate kind": (_set(["tree", "surrogates", "kind", 0], 2),
                       r"tree\.surrogates\.kind: .*row 0: 2"),
    "surrogate agreement": (_set(["tree", "surrogates", "agreement", 0], 1.5),
                            r"tree\.surrogates\.agreement: row 0 holds 1\.5"),
    "surrogate adjusted agreement": (_set(["tree", "surrogates", "adjusted_agreement", 0], None),
                                     r"tree\.surrogates\.adjusted_agreement: row 0 holds nan"),
    "surrogate rows past the end": (lambda d: d["tree"]["surrogate_offset"].__setitem__(
        _first_surrogate_node(d), len(d["tree"]["surrogates"]["feature"])),
        r"tree\.surrogate_offset: a node's surrogate splits are out of range"),
    "surrogate arrays": (lambda d: d["tree"]["surrogates"]["threshold"].pop(),
                         r"tree\.surrogates\.threshold has shape"),
    "cp table arrays": (lambda d: d["reports"]["cp_table_"]["fields"]["alpha"]["values"].pop(),
                        r"reports\.cp_table_: its arrays have different lengths"),
    "cp table chosen": (_set(["reports", "cp_table_", "fields", "chosen"], 99),
                        r"reports\.cp_table_\.chosen is 99, not a row"),
    "cp table chosen as text": (_set(["reports", "cp_table_", "fields", "chosen"], "1"),
                                r"reports\.cp_table_\.chosen holds '1', expected an integer"),
    "cp table rule": (_set(["reports", "cp_table_", "fields", "rule"], 1),
                      r"reports\.cp_table_\.rule holds 1, expected a string"),
}

STEP_CORRUPTIONS = {
    "step node": (_set(["reports", "pruning_steps_", 0, "fields", "node"], 1.5),
                  r"reports\.pruning_steps_\[0\]\.node holds 1\.5, expected an integer"),
    "step score too large": (_set(["reports", "pruning_steps_", 0, "fields", "score_as_leaf"],
                                  10**400),
                             r"reports\.pruning_steps_\[0\]\.score_as_leaf holds an integer of "
                             "401 digits, beyond a float64"),
    "step node too large": (_set(["reports", "pruning_steps_", 0, "fields", "node"], 2**64),
                            r"reports\.pruning_steps_\[0\]\.node holds 18446744073709551616, "
                            "beyond a 64-bit integer"),
    "step pruned": (_set(["reports", "pruning_steps_", 0, "fields", "pruned"], 1),
                    r"reports\.pruning_steps_\[0\]\.pruned holds 1, expected true or false"),
    "nested steps": (lambda d: d["reports"].__setitem__("pruning_steps_",
                                                        [d["reports"]["pruning_steps_"]]),
                     r"reports\.pruning_steps_\[0\] is not a JSON object"),
}


@pytest.mark.parametrize("edit, message", SURROGATE_AND_REPORT_CORRUPTIONS.values(),
                         ids=SURROGATE_AND_REPORT_CORRUPTIONS.keys())
def test_corrupt_surrogates_and_cp_table(cart_cp, tmp_path, edit, message):
    doc = _doc(cart_cp)
    assert doc["tree"]["surrogates"]["feature"] and doc["reports"]["cp_table_"] is not None
    edit(doc)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(ModelFileError, match=message):
        rootwise.load(path)


@pytest.mark.parametrize("edit, message", STEP_CORRUPTIONS.values(), ids=STEP_CORRUPTIONS.keys())
def test_corrupt_pruning_steps(id3_steps, tmp_path, edit, message):
    doc = _doc(id3_steps)
    edit(doc)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(ModelFileError, match=message):
        rootwise.load(path)


def _adversarial(doc, what):
    """A file built to make ``load`` allocate much more than its own size."""
    if what == "labels declared <U999999":  # issue 15: 37 GiB asked for by a 80 kB file
        doc["classes"] = {"dtype": "<U999999", "values": [str(i) for i in range(10_000)]}
    elif what == "labels declared <U100":
        doc["classes"] = {"dtype": "<U100", "values": [str(i) for i in range(50_000)]}
    elif what == "children of every node overlapping":  # n nodes x n child slots
        t = doc["tree"]
        n = 30_000
        for name in t:
            if isinstance(t[name], list) and len(t[name]) == 14:
                t[name] = (t[name] * (n // 14 + 1))[:n]
        t["feature"] = [0] * n
        t["kind"] = [2] * (n - 2) + [0, 0]
        t["n_children"] = [n - 1 - i for i in range(n - 2)] + [0, 0]
        t["first_child"] = [i + 1 for i in range(n)]
    elif what == "pool slices overlapping":  # every node reading the whole pool
        t = doc["tree"]
        t["pool"] = [0] * 50_000
        doc["schema"]["categories"][3] = [f"c{i}" for i in range(50_000)]
        t["n_categories"][3] = 50_000
        t["pool_offset"] = [0] * len(t["pool_offset"])
    elif what == "nested empty lists":  # json's own objects: the most memory per byte
        doc["params"]["epsilon"] = [[[[[]]]]] * 50_000
    return doc


@pytest.mark.parametrize("what", ["labels declared <U999999", "labels declared <U100",
                                  "children of every node overlapping", "pool slices overlapping",
                                  "nested empty lists"])
def test_load_allocates_a_small_multiple_of_the_file_size(saved, tmp_path, what):
    """Every file is refused with ModelFileError, allocating at most 48 bytes per byte of the
    file (json's objects for nested empty lists: about 40) plus a fixed 1 MB."""
    path = tmp_path / "m.json"
    path.write_text(json.dumps(_adversarial(_doc(saved), what), ensure_ascii=False),
                    encoding="utf-8")
    size = path.stat().st_size
    tracemalloc.start()
    try:
        with pytest.raises(ModelFileError):
            rootwise.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= 48 * size + 2**20, (peak, size)


@pytest.mark.parametrize("damage, message", [
    (lambda b: b[: len(b) // 2], "truncated one: invalid JSON"),
    (lambda b: b"", "invalid JSON"),
    (lambda b: b"\xff\xfe" + b, "not UTF-8"),
    (lambda b: b.replace(b'"impurity": [', b'"impurity": [NaN, ', 1), "NaN"),
    (lambda b: b"[" * 100_000, "invalid JSON"),
], ids=["truncated", "empty", "binary", "NaN token", "deep nesting"])
def test_unreadable_file(saved, damage, message):
    saved.write_bytes(damage(saved.read_bytes()))
    with pytest.raises(ModelFileError, match=message):
        rootwise.load(saved)


FUZZ_CASES = {
    "ID3": (ID3Classifier(), "watermelon_2_0"),
    "C4.5 thresholds and missing": (C45Classifier(), "watermelon_3_0"),
    "CART surrogates": (CARTClassifier(pruning=None), "watermelon_2_0_alpha"),
}


@pytest.mark.parametrize("estimator, table", FUZZ_CASES.values(), ids=FUZZ_CASES.keys())
def test_random_digit_flips_never_crash(estimator, table, tmp_path):
    """Flip digits of the numbers in the tree: every result loads and predicts sanely or is
    refused with ModelFileError; nothing else (no IndexError, no numba crash)."""
    X, y = rootwise.datasets.load(table, return_X_y=True)
    m = clone(estimator).fit(X, y)
    saved = tmp_path / "m.json"
    rootwise.save(m, saved)
    text = saved.read_text(encoding="utf-8")
    start = text.index('"tree"')
    spots = [i for i in range(start, len(text)) if text[i].isdigit()]
    rng = random.Random(0)
    outcomes = {"refused": 0, "loaded": 0}
    for _ in range(200):
        chars = list(text)
        for i in rng.sample(spots, rng.choice([1, 1, 2])):
            chars[i] = rng.choice("0123456789-")
        saved.write_text("".join(chars), encoding="utf-8")
        try:
            loaded = rootwise.load(saved)
        except ModelFileError:
            outcomes["refused"] += 1
            continue
        outcomes["loaded"] += 1
        proba = loaded.predict_proba(X)
        assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)
        assert set(loaded.predict(X)) <= set(m.classes_)
    assert outcomes["refused"] > 30 and outcomes["loaded"] > 20, outcomes  # both paths exercised


# --------------------------------------------------------------------------- the estimator field


@pytest.fixture(scope="module")
def grown():
    """A fitted model of every estimator, with missing values (watermelon 2.0 alpha, categorical)
    or continuous columns (watermelon 3.0): the tree shapes each algorithm makes."""
    def fit(estimator, table, target=None, columns=None):
        X, y = rootwise.datasets.load(table, return_X_y=True)
        if target is not None:
            X, y = X.drop(columns=[target]), X[target]
        return estimator.fit(X if columns is None else X[columns], y)

    return {
        "id3": fit(ID3Classifier(), "watermelon_2_0"),
        "c45 missing": fit(C45Classifier(pruning=None), "watermelon_2_0_alpha"),
        "c45 thresholds": fit(C45Classifier(pruning=None), "watermelon_3_0"),
        "cart missing": fit(CARTClassifier(pruning=None), "watermelon_2_0_alpha"),
        "cart thresholds": fit(CARTClassifier(pruning=None), "watermelon_3_0"),
        "cart continuous": fit(CARTClassifier(pruning=None), "watermelon_3_0",
                               columns=["密度", "含糖率"]),
        "regressor": fit(CARTRegressor(pruning=None, min_samples_leaf=1), "watermelon_3_0", "密度"),
    }


def relabelled(model, name: str) -> dict:
    """``model``'s document with another estimator's name, the new estimator's default parameters
    (so that only the tree can tell) and classes as the new estimator has them."""
    doc = _persistence.model_to_dict(model)
    doc["estimator"] = name
    doc["params"] = {}
    if name == "CARTRegressor":
        doc["classes"] = None
        doc.pop("class_order", None)
    elif doc["classes"] is None:
        doc["classes"] = {"dtype": "<i8", "values": [0]}
    return doc


# (fitted model, estimator named in the file) -> what the refusal says
RELABELS = {
    ("c45 missing", "CARTClassifier"): r"tree\.kind: node 0 is a multiway test, which a "
                                       r"CARTClassifier never grows \(it grows threshold test, "
                                       r"category subset test\); the estimator field does not "
                                       r"match the tree",
    ("c45 thresholds", "CARTClassifier"): r"tree\.kind: node \d+ is a multiway test",
    ("id3", "C45Classifier"): r"tree\.missing_branch: node 0 has -1, but at a split of a "
                              r"C45Classifier a missing value should go down every branch with "
                              r"weight r_v \(C4\.5\); the estimator field does not match the tree",
    ("id3", "CARTClassifier"): r"tree\.kind: node 0 is a multiway test, which a CARTClassifier",
    ("c45 missing", "ID3Classifier"): r"tree\.missing_branch: node 0 has -2, but at a split of an "
                                      r"ID3Classifier a missing value should stop there",
    ("c45 thresholds", "ID3Classifier"): r"schema\.kinds\[6\]: feature '密度' is continuous, but "
                                         r"an ID3Classifier makes every feature categorical",
    ("cart missing", "C45Classifier"): r"tree\.kind: node 0 is a category subset test, which a "
                                       r"C45Classifier never grows",
    ("cart missing", "ID3Classifier"): r"tree\.kind: node 0 is a category subset test, which an "
                                       r"ID3Classifier never grows \(it grows multiway test\)",
    ("cart thresholds", "ID3Classifier"): r"schema\.kinds\[6\]: feature '密度' is continuous",
    ("regressor", "C45Classifier"): r"tree\.kind: node \d+ is a category subset test",
}


@pytest.mark.parametrize("base, name", RELABELS, ids=[f"{b} as {n}" for b, n in RELABELS])
def test_a_tree_cannot_load_as_another_estimator(grown, base, name):
    doc = relabelled(grown[base], name)
    with pytest.raises(ModelFileError, match=RELABELS[base, name]):
        _persistence.model_from_dict(doc)
    # the same document with its own estimator's name loads: the name alone was wrong
    doc["estimator"] = type(grown[base]).__name__
    doc["params"] = _persistence.model_to_dict(grown[base])["params"]
    doc["classes"] = _persistence.model_to_dict(grown[base])["classes"]
    assert _persistence.model_from_dict(doc).tree_ == grown[base].tree_


def test_a_cart_tree_with_c45_routing_still_has_cart_surrogates(grown):
    """A CART tree of threshold tests relabelled C4.5, its missing values even made fractional:
    the surrogate splits only CART grows give it away."""
    model = grown["cart continuous"]
    doc = relabelled(model, "C45Classifier")
    tree = doc["tree"]
    assert any(tree["n_surrogates"]) and set(tree["kind"]) <= {0, 1}  # thresholds only
    tree["missing_branch"] = [-2 if k else -1 for k in tree["kind"]]
    node = next(i for i, n in enumerate(tree["n_surrogates"]) if n)
    with pytest.raises(ModelFileError, match=rf"tree\.surrogates: node {node} has surrogate splits, "
                                             r"which a C45Classifier never grows \(CART's\)"):
        _persistence.model_from_dict(doc)


@pytest.mark.parametrize("base", ["id3", "c45 missing", "c45 thresholds", "cart missing",
                                  "cart thresholds", "cart continuous", "regressor"])
def test_every_estimator_loads_its_own_trees(grown, base, tmp_path):
    model = grown[base]
    rootwise.save(model, tmp_path / "m.json")
    assert rootwise.load(tmp_path / "m.json").tree_ == model.tree_


@pytest.mark.parametrize("field, node, literal", [("threshold", 0, "1e999"), ("threshold", 3, "-1e999")])
def test_an_infinite_number_in_the_tree_is_refused(saved, field, node, literal):
    """Python's json reads an overflowing literal as infinity; the threshold of a multiway test or
    a leaf is read by no walk, and the model would load and then fail to save (JSON has no
    infinity)."""
    doc = _doc(saved)
    doc["tree"][field][node] = "@INFINITY@"
    saved.write_text(json.dumps(doc, ensure_ascii=False).replace('"@INFINITY@"', literal),
                     encoding="utf-8")
    with pytest.raises(ModelFileError, match=rf"tree\.{field}: node {node} holds an infinite "
                                             r"number, which a model file cannot hold"):
        rootwise.load(saved)


def test_an_infinite_threshold_of_a_subset_surrogate_is_refused(grown):
    doc = _persistence.model_to_dict(grown["cart missing"])
    sur = doc["tree"]["surrogates"]
    row = sur["kind"].index(3)  # a subset surrogate: its threshold is unused
    sur["threshold"][row] = float("inf")
    with pytest.raises(ModelFileError, match=rf"tree\.surrogates\.threshold: surrogate row {row} "
                                             r"holds an infinite number"):
        _persistence.model_from_dict(doc)
