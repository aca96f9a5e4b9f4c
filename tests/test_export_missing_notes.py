"""Missing values and surrogates are spoken of only for columns that had missing cells in
training (text, rules, pictures, the report), unless ``show_missing="all"``; the model keeps its
surrogates either way, and the record of which columns had missing cells survives a model file
(older files, without it, load and show every note as before).

The table is Weka's diabetes (Pima), which has no missing cell; one copy gets holes in ``plas``
only, so that notes must appear for ``plas`` and for no other column.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rootwise
from rootwise.export.picture import missing_notes, tree_picture
from rootwise.export.text import TreeView

DATA = Path(__file__).resolve().parent / "golden" / "j48" / "data" / "diabetes.csv"


@pytest.fixture(scope="module")
def pima():
    frame = pd.read_csv(DATA)
    return frame.drop(columns="class"), frame["class"]


@pytest.fixture(scope="module")
def whole(pima):
    X, y = pima
    assert not X.isna().any().any()  # the premise: no missing cell
    return rootwise.CARTClassifier(random_state=0, max_depth=4).fit(X, y)


@pytest.fixture(scope="module")
def holed(pima):
    X, y = pima
    X = X.copy()
    X.loc[np.arange(0, len(X), 7), "plas"] = np.nan  # every 7th row misses plas
    return rootwise.CARTClassifier(random_state=0, max_depth=4).fit(X, y)


def test_the_model_records_which_columns_had_missing_cells(whole, holed):
    assert whole.schema_.missing == (False,) * 8
    assert holed.schema_.missing == tuple(c == "plas" for c in holed.schema_.feature_names)


def test_text_marks_missing_only_where_training_had_missing_cells(whole, holed):
    assert int(whole.tree_.n_surrogates.sum()) > 0  # the model keeps its surrogates
    assert "missing" not in rootwise.export_text(whole)
    assert "or missing" in rootwise.export_text(whole, show_missing="all")
    lines = rootwise.export_text(holed).splitlines()
    marked = [s for s in lines if "or missing" in s]
    assert marked and all(re.search(r"plas (<=|>) ", s) for s in marked)
    assert "plas" in " ".join(lines)


def test_rules_say_missing_only_where_training_had_missing_cells(whole, holed):
    assert "missing" not in rootwise.export_rules(whole)
    assert "(if missing: surrogates" in rootwise.export_rules(whole, show_missing="all")
    conditions = [c for rule in rootwise.export_rules(holed, as_frame=True)["conditions"]
                  for c in rule]
    said = [c for c in conditions if "missing" in c]
    assert said and all(re.match(r"(\S+ < )?plas ", c) for c in said)
    assert any(not c.startswith("plas") for c in conditions)  # other columns are tested too


def test_pictures_and_report_name_surrogates_only_where_they_matter(whole, holed):
    for model, shown in ((whole, set()), (holed, {"plas"})):
        view = TreeView(model)
        splits = np.flatnonzero(model.tree_.kind != rootwise._config.LEAF)
        noted = {view.feature_name(int(n)) for n in splits if missing_notes(view, int(n))}
        assert noted == shown
    pic = tree_picture(whole)
    assert not any("surrogate" in s for b in pic.boxes.values() for s in b.lines)
    all_view = TreeView(whole, show_missing="all")
    assert any("surrogate" in s for s in missing_notes(all_view, 0))
    html = rootwise.export_html(whole)
    data = json.loads(re.search(r'<script type="application/json"[^>]*>(.*?)</script>', html,
                                re.S).group(1))
    assert not any(rec.get("surrogates") for rec in data["nodes"].values())
    assert not any("missing" in n for rec in data["nodes"].values() for n in rec.get("notes", []))


def test_show_missing_is_checked(whole):
    with pytest.raises(ValueError, match="show_missing must be 'auto'.*or 'all', got 'some'"):
        rootwise.export_text(whole, show_missing="some")
    with pytest.raises(ValueError, match="show_missing must be"):
        rootwise.export_rules(whole, show_missing=True)


def test_model_files_keep_the_record_and_old_files_still_load(holed, tmp_path):
    path = tmp_path / "m.json"
    rootwise.save(holed, path)
    back = rootwise.load(path)
    assert back.schema_.missing == holed.schema_.missing
    assert rootwise.export_text(back) == rootwise.export_text(holed)
    data = json.loads(path.read_text())
    del data["schema"]["missing"]  # as written before the record existed
    path.write_text(json.dumps(data))
    old = rootwise.load(path)
    assert old.schema_.missing is None
    assert rootwise.export_text(old) == rootwise.export_text(holed, show_missing="all")
    data["schema"]["missing"] = [True, False]
    path.write_text(json.dumps(data))
    with pytest.raises(Exception, match="schema.missing should be 8 true / false values"):
        rootwise.load(path)
