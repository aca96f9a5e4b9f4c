"""The algorithm record (rootwise._policy): combinations the engine was not built for are refused
with a message that names the parameters, before anything is grown."""

import pytest

from rootwise import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from rootwise._policy import Policy


def test_surrogates_need_binary_category_tests():
    """CART's surrogates stand in for a binary test; a multiway test with surrogates wrote
    agreements above 1 into the tree (found by growing such policies at random)."""
    with pytest.raises(ValueError, match=r"missing='surrogate'.*categorical_split='subset'.*"
                                         r"'multiway'"):
        Policy(criterion="gini", categorical_split="multiway", numeric_as_category=False,
               missing="surrogate")


def test_subset_tests_need_a_way_for_rows_without_a_branch():
    """A subset test sends no row of a category that has no weight at the node; with
    missing='error' the engine had no child for it and never finished (found growing policies at
    random; CART sends such rows to the majority, C4.5 down every branch)."""
    with pytest.raises(ValueError, match=r"missing='error'.*categorical_split='multiway'"):
        Policy(criterion="gini", categorical_split="subset", missing="error")


def test_best_first_growth_refuses_fractional_rows():
    """C4.5's copies of a row without a value run past its node's rows, into the rows of the
    next pending node unless growth is depth-first: best-first growth with them crashed the
    process or grew wrong trees."""
    with pytest.raises(ValueError, match=r"max_leaf_nodes=8.*missing='fractional'"):
        Policy(criterion="entropy", selection="gain_ratio", missing="fractional",
               numeric_as_category=False, max_leaf_nodes=8)


@pytest.mark.parametrize("estimator", [ID3Classifier(), C45Classifier(),
                                       C45Classifier(release8=True), CARTClassifier(),
                                       CARTClassifier(max_leaf_nodes=4), CARTRegressor()])
def test_every_preset_is_allowed(estimator):
    assert isinstance(estimator._policy(), Policy)
