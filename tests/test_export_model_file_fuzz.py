"""Seeded fuzz of the model-file loader (issue 15): mutated files of every estimator's model are
refused with ModelFileError, or load as sane models: predict_proba rows that sum to 1, labels
among the classes, nodes in range. tools/fuzz_model_files.py runs the same cases at scale, in
subprocesses with timeouts, and adds the exports and a save / load round trip of each model."""

from collections import Counter

import pytest
from model_fuzz import BASES, fit_base, mutate, outputs, run_case

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
