"""The model file's published JSON Schema (docs/model-file.schema.json) and the rootwise version a
file records.

Saved files of every estimator (categorical columns, missing cells, surrogates, C4.5's fractional
routing, both kinds of pruning report, a dict parameter) validate against the schema; files that
break it in each of its parts do not. The schema is read from the docs, as users get it.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

import rootwise
from rootwise import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from rootwise.tree import NODE_FIELDS, SURROGATE_FIELDS

SCHEMA = json.loads((Path(__file__).resolve().parent.parent / "docs" / "model-file.schema.json")
                    .read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def _table(name, target=None):
    X, y = rootwise.datasets.load(name, return_X_y=True)
    return (X.drop(columns=[target]), X[target]) if target else (X, y)


CASES = {
    "ID3 reduced-error": (ID3Classifier(pruning="reduced-error", random_state=0), "watermelon_2_0", None),
    "C4.5 missing": (C45Classifier(), "watermelon_2_0_alpha", None),
    "C4.5 thresholds": (C45Classifier(), "watermelon_3_0", None),
    "CART surrogates": (CARTClassifier(pruning=None, class_weight={"是": 2.0, "否": 1.0}),
                        "watermelon_2_0_alpha", None),
    "CART cp table": (CARTClassifier(cv=3, random_state=0), "loan_default", None),
    "CART regressor": (CARTRegressor(cv=3, random_state=0), "watermelon_3_0", "密度"),
}


@pytest.fixture(scope="module")
def documents(tmp_path_factory):
    """Each case fitted, saved with ``rootwise.save`` and read back as JSON."""
    folder = tmp_path_factory.mktemp("models")
    out = {}
    for name, (estimator, table, target) in CASES.items():
        model = estimator.fit(*_table(table, target))
        path = folder / f"{len(out)}.json"
        rootwise.save(model, path)
        out[name] = json.loads(path.read_text(encoding="utf-8"))
    return out


def test_the_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("case", CASES)
def test_saved_files_of_every_estimator_follow_the_schema(documents, case):
    errors = [e.message for e in VALIDATOR.iter_errors(documents[case])]
    assert errors == []


def test_the_cases_cover_what_the_schema_describes(documents):
    docs = list(documents.values())
    assert {d["estimator"] for d in docs} == {"ID3Classifier", "C45Classifier", "CARTClassifier",
                                              "CARTRegressor"}
    assert any(d["tree"]["surrogates"]["feature"] for d in docs)
    assert any(isinstance(d["reports"].get("pruning_steps_"), list) for d in docs)
    assert any(d["reports"].get("cp_table_") for d in docs)
    assert any(isinstance(v, dict) and "mapping" in v for d in docs for v in d["params"].values())
    assert any(d["classes"] is None for d in docs) and any(1 in d["schema"]["kinds"] for d in docs)


def test_the_schema_names_every_field_of_the_tree():
    tree = SCHEMA["$defs"]["tree"]
    assert set(tree["properties"]) == {*NODE_FIELDS, "value", "pool", "n_categories", "surrogates"}
    assert set(tree["required"]) == set(tree["properties"])
    assert set(tree["properties"]["surrogates"]["properties"]) == set(SURROGATE_FIELDS)


def _broken(doc, edit):
    doc = json.loads(json.dumps(doc))
    edit(doc)
    return doc


BREAKS = {
    "no tree": lambda d: d.pop("tree"),
    "an unknown top-level field": lambda d: d.update(extra=1),
    "another format version": lambda d: d.update(version=2),
    "a numeric rootwise_version": lambda d: d.update(rootwise_version=1),
    "an unknown estimator": lambda d: d.update(estimator="DecisionTreeClassifier"),
    "a feature kind 2": lambda d: d["schema"]["kinds"].__setitem__(0, 2),
    "a node kind 7": lambda d: d["tree"]["kind"].__setitem__(0, 7),
    "a fractional child index": lambda d: d["tree"]["first_child"].__setitem__(0, 1.5),
    "a NaN written as a string": lambda d: d["tree"]["threshold"].__setitem__(0, "nan"),
    "a class array without dtype": lambda d: d["classes"].pop("dtype"),
    "a parameter that is an object": lambda d: d["params"].update(max_depth={"depth": 3}),
    "an unknown report": lambda d: d["reports"].update(steps_=None),
    "a surrogate field missing": lambda d: d["tree"]["surrogates"].pop("agreement"),
}


@pytest.mark.parametrize("edit", BREAKS.values(), ids=BREAKS.keys())
def test_a_file_that_breaks_the_schema_fails_validation(documents, edit):
    doc = _broken(documents["CART surrogates"], edit)
    assert not VALIDATOR.is_valid(doc)


def test_a_file_records_the_version_of_rootwise_that_wrote_it(documents):
    for doc in documents.values():
        assert doc["rootwise_version"] == rootwise.__version__


def test_a_file_without_the_version_still_loads(documents, tmp_path, watermelon):
    doc = _broken(documents["ID3 reduced-error"], lambda d: d.pop("rootwise_version"))
    assert VALIDATOR.is_valid(doc)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    model = rootwise.load(path)
    assert len(model.predict(watermelon[0])) == len(watermelon[1])


@pytest.mark.parametrize("written", [1, None, "", ["0.1.0"]])
def test_load_refuses_a_version_that_is_not_a_version_string(documents, tmp_path, written):
    doc = _broken(documents["ID3 reduced-error"], lambda d: d.update(rootwise_version=written))
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(rootwise.ModelFileError, match="rootwise_version is .*, not the version string "
                                                      "of the rootwise that wrote the file"):
        rootwise.load(path)
