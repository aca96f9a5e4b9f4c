"""Seeded fuzz of the model-file loader: mutated files of every estimator's model are refused with
ModelFileError, or load as sane models: predict_proba rows that sum to 1, labels among the
classes, nodes in range; files whose estimator field names another estimator are refused unless
the tree is one every estimator grows (a single leaf). tools/fuzz_model_files.py runs the same
cases at scale, in subprocesses with timeouts, and adds the exports, a save / load round trip and
the SQL (run in SQLite against predict) of each model."""

import json
from collections import Counter

import pytest
from model_fuzz import BASES, fit_base, mutate, outputs, relabel, run_case

CASES_PER_BASE = 250


@pytest.mark.parametrize("name", list(BASES))
def test_mutated_files_are_refused_or_load_sane(name, tmp_path):
    base, text, X = fit_base(name)
    expected = outputs(base, X, exports=False)
    counts, failures = Counter(), []
    for seed in range(CASES_PER_BASE):
        outcome, detail = run_case(mutate(text, seed), tmp_path / "m.json", base, expected, X,
                                   thorough=False)
        counts[outcome] += 1
        if outcome == "failure":
            failures.append((seed, detail))
    assert failures == []
    # both paths exercised: refusals, and models that load (some of them different ones)
    assert counts["error"] > CASES_PER_BASE // 2, counts
    assert counts["equivalent"] > 10 and counts["different"] > 3, counts


RELABELS_PER_BASE = 12


@pytest.mark.parametrize("name", list(BASES))
def test_files_naming_another_estimator_are_refused_or_harmless(name, tmp_path):
    """The estimator field changed, parameters kept, reset or adapted: each file is refused, or
    loads as a model whose predict, exports, round trip and SQL (run in SQLite) all agree -- a
    one-leaf tree, the same under every estimator."""
    base, text, X = fit_base(name)
    expected = outputs(base, X)
    counts, failures = Counter(), []
    for seed in range(RELABELS_PER_BASE):
        outcome, detail = run_case(relabel(text, seed), tmp_path / "m.json", base, expected, X)
        counts[outcome] += 1
        if outcome == "failure":
            failures.append((seed, detail))
    assert failures == []
    if base.tree_.node_count > 1:
        assert counts["error"] == RELABELS_PER_BASE, counts


def test_the_sql_check_finds_a_c45_tree_loaded_as_cart(monkeypatch, tmp_path):
    """Without the estimator check a C4.5 tree relabelled CART loads, and the fuzz's SQL check
    sees its SQL predict otherwise than its predict: the oracle finds the defect."""
    from rootwise.export import model_file

    base, text, X = fit_base("c45-thresholds")
    expected = outputs(base, X)
    doc = json.loads(text)
    doc["estimator"], doc["params"] = "CARTClassifier", {}
    data = json.dumps(doc, ensure_ascii=False).encode("utf-8")
    assert run_case(data, tmp_path / "m.json", base, expected, X)[0] == "error"
    monkeypatch.setattr(model_file, "check_grown_by", lambda *args: None)
    outcome, detail = run_case(data, tmp_path / "m.json", base, expected, X)
    assert outcome == "failure" and "SQL predicts otherwise than predict" in detail, detail
