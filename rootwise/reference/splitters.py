"""The splitter of a policy: the textbook one, or C4.5 release 8's."""

from __future__ import annotations

from .._policy import Policy
from .release8 import Release8Splitter
from .splitter import Splitter


def make_splitter(X, y, kinds, n_categories, n_classes, policy: Policy) -> Splitter:
    """The splitter for a policy: the engine's own, or C4.5 release 8's (``release8``)."""
    if policy.release8:
        return Release8Splitter(X, y, kinds, n_categories, n_classes, policy)
    return Splitter(X, y, kinds, n_categories, n_classes, policy)
