"""The switches that specialise the growth loop per estimator (``rootwise.engine.paths``): each
estimator's fit takes its own paths and none of the others' (a path left None is not compiled;
tests/test_wheel.py checks that with numba's compile events)."""

import pytest

from rootwise import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from rootwise.engine.bundles import BINNED, SORTED, WIDE
from rootwise.engine.dispatch import params_of
from rootwise.engine.paths import paths_of

ON = True


@pytest.mark.parametrize("model, n_classes, taken", [
    (ID3Classifier(), 2, {"clf", "multi"}),
    (C45Classifier(), 2, {"clf", "multi", "frac"}),
    (C45Classifier(release8=True), 2, {"clf", "multi", "frac", "r8"}),
    (CARTClassifier(), 2, {"clf", "subset", "surr"}),
    (CARTRegressor(), 0, {"reg", "subset", "surr"}),
    (CARTRegressor(criterion="absolute_error"), 0, {"reg", "subset", "surr"}),
])
def test_each_estimator_takes_its_own_paths(model, n_classes, taken):
    paths = paths_of(params_of(model._policy(), n_classes, prepruning=False), [SORTED, BINNED])
    assert {name for name, switch in paths._asdict().items() if switch is ON} == taken | {"sortd", "coded"}
    assert all(switch is None for name, switch in paths._asdict().items()
               if name not in taken | {"sortd", "coded"})


def test_either_or_paths_have_exactly_one_side_taken():
    for model, n in ((ID3Classifier(), 2), (CARTRegressor(), 0), (CARTClassifier(), 3)):
        p = paths_of(params_of(model._policy(), n, prepruning=False), [WIDE])
        assert (p.reg is None) != (p.clf is None)
        assert (p.multi is None) != (p.subset is None)
        assert p.sortd is None and p.coded is ON


@pytest.mark.parametrize("search, sortd, coded", [
    ([SORTED, SORTED], ON, None),  # numbers, splitter="exact"
    ([BINNED, BINNED], None, ON),  # numbers, splitter="hist"; categories
    ([SORTED, WIDE], ON, ON),  # numbers and more than 255 categories
])
def test_the_column_paths_follow_how_the_columns_are_searched(search, sortd, coded):
    p = paths_of(params_of(CARTClassifier()._policy(), 2, prepruning=False), search)
    assert (p.sortd, p.coded) == (sortd, coded)
