"""The scikit-learn estimator protocol, without importing scikit-learn.

``import sklearn.base`` costs 0.7-1.4 s (it pulls in scipy.stats through sklearn.utils), more than
the whole start-up budget of a first fit. scikit-learn does not need our estimators to inherit
its classes: ``clone`` uses ``get_params``, ``GridSearchCV`` and ``Pipeline`` use ``get_params`` /
``set_params`` / ``fit`` / ``score``, and ``is_classifier`` / ``is_regressor`` read
``__sklearn_tags__``. So this module implements those, and imports scikit-learn only inside the
methods that hand its own objects back (tags, scores, the not-fitted error): by then the caller
has imported it anyway.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Self

if TYPE_CHECKING:
    from ._typing import Labels, Table, Weights


class Estimator:
    """Parameters are the keyword arguments of ``__init__``, stored unchanged as attributes."""

    @classmethod
    def _get_param_names(cls) -> list[str]:
        """Sorted names of the constructor's parameters (scikit-learn's order)."""
        init = cls.__init__
        if init is object.__init__:
            return []
        names = []
        for p in inspect.signature(init).parameters.values():
            if p.name == "self" or p.kind == p.VAR_KEYWORD:
                continue
            if p.kind == p.VAR_POSITIONAL:
                raise RuntimeError(f"{cls.__name__}: estimator parameters must be named in the "
                                   f"signature of __init__, not taken as *args.")
            names.append(p.name)
        return sorted(names)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Parameter name -> value; with ``deep``, also ``name__sub`` for parameters that are
        estimators themselves."""
        out: dict[str, Any] = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{name}__{k}", v) for k, v in value.get_params().items())
            out[name] = value
        return out

    def set_params(self, **params: Any) -> Self:
        """Set parameters (``name`` or ``name__sub`` for a nested estimator); returns self."""
        if not params:
            return self
        valid = self.get_params(deep=True)
        nested: dict[str, dict] = {}
        for key, value in params.items():
            name, delim, sub = key.partition("__")
            if name not in valid:
                raise ValueError(f"Invalid parameter {name!r} for estimator {self}. Valid "
                                 f"parameters are: {self._get_param_names()!r}.")
            if delim:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
                valid[name] = value
        for name, sub_params in nested.items():
            valid[name].set_params(**sub_params)
        return self

    def __repr__(self) -> str:
        """``Name(p=v, ...)`` with the parameters that differ from their defaults (by repr, as
        scikit-learn's ``print_changed_only``), sorted by name."""
        defaults = {p.name: p.default for p in inspect.signature(type(self).__init__).parameters.values()}
        changed = []
        for name, value in self.get_params(deep=False).items():
            default = defaults.get(name, inspect.Parameter.empty)
            if default is inspect.Parameter.empty or repr(value) != repr(default):
                changed.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(changed)})"

    # scikit-learn's metadata routing (``_routing``): which metadata fit and score ask a
    # meta-estimator for, e.g. ``set_fit_request(sample_weight=True)`` in a Pipeline
    def set_fit_request(self, **requests: bool | str | None) -> Self:
        """Ask meta-estimators for ``fit``'s metadata: ``sample_weight=True`` routes the weights
        to this ``fit`` (False: never; None: an error if given; a string: take it under that name).
        Needs ``sklearn.set_config(enable_metadata_routing=True)``."""
        from ._routing import set_request

        return set_request(self, "fit", requests)

    def set_score_request(self, **requests: bool | str | None) -> Self:
        """As ``set_fit_request``, for ``score``'s ``sample_weight``."""
        from ._routing import set_request

        return set_request(self, "score", requests)

    def get_metadata_routing(self) -> Any:
        """The ``sklearn.utils.metadata_routing.MetadataRequest`` of this estimator."""
        from ._routing import metadata_routing

        return metadata_routing(self)

    def __sklearn_tags__(self):
        from sklearn.utils import InputTags, Tags, TargetTags

        return Tags(estimator_type=None, target_tags=TargetTags(required=False),
                    transformer_tags=None, regressor_tags=None, classifier_tags=None,
                    input_tags=InputTags(sparse=True))  # read as the dense form (input.tables)


class Classifier(Estimator):
    """An estimator whose ``predict`` returns class labels; ``score`` is the accuracy."""

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags

        tags = super().__sklearn_tags__()
        tags.estimator_type = "classifier"
        tags.classifier_tags = ClassifierTags()
        tags.target_tags.required = True
        return tags

    if TYPE_CHECKING:  # each estimator defines it
        def predict(self, X: Table) -> Any: ...

    def score(self, X: Table, y: Labels, sample_weight: Weights = None) -> float:
        """Share of rows whose predicted class is ``y`` (weighted by ``sample_weight``)."""
        from sklearn.metrics import accuracy_score

        return accuracy_score(y, self.predict(X), sample_weight=sample_weight)


class Regressor(Estimator):
    """An estimator whose ``predict`` returns numbers; ``score`` is the coefficient of
    determination R^2 = 1 - sum (y - f)^2 / sum (y - mean y)^2."""

    def __sklearn_tags__(self):
        from sklearn.utils import RegressorTags

        tags = super().__sklearn_tags__()
        tags.estimator_type = "regressor"
        tags.regressor_tags = RegressorTags()
        tags.target_tags.required = True
        return tags

    if TYPE_CHECKING:  # each estimator defines it
        def predict(self, X: Table) -> Any: ...

    def score(self, X: Table, y: Labels, sample_weight: Weights = None) -> float:
        from sklearn.metrics import r2_score

        return r2_score(y, self.predict(X), sample_weight=sample_weight)


def is_fitted(estimator, attributes) -> bool:
    attributes = [attributes] if isinstance(attributes, str) else attributes
    return all(hasattr(estimator, a) for a in attributes)


def check_is_fitted(estimator, attributes) -> None:
    """Raise scikit-learn's ``NotFittedError`` (a ValueError and an AttributeError) when any of
    ``attributes`` is missing; TypeError when ``estimator`` is not an estimator at all."""
    if isinstance(estimator, type) or not hasattr(estimator, "fit"):
        raise TypeError(f"{estimator} is not an estimator instance.")
    if not is_fitted(estimator, attributes):
        from sklearn.exceptions import NotFittedError

        raise NotFittedError(f"This {type(estimator).__name__} instance is not fitted yet. Call "
                             "'fit' with appropriate arguments before using this estimator.")


def clone(estimator):
    """A new unfitted estimator with deep copies of ``estimator``'s parameters (scikit-learn's
    ``clone``, which is used for estimators that are not rootwise's)."""
    if not isinstance(estimator, Estimator):
        from sklearn.base import clone as sklearn_clone

        return sklearn_clone(estimator)
    import copy

    new = type(estimator)(**copy.deepcopy(estimator.get_params(deep=False)))
    if hasattr(estimator, "_metadata_request"):  # what it asks meta-estimators for, as sklearn's
        from ._routing import metadata_routing

        new._metadata_request = metadata_routing(estimator)
    return new


def is_classifier(estimator) -> bool:
    """Whether ``estimator`` predicts classes (a rootwise classifier, or anything scikit-learn
    tags as one)."""
    if isinstance(estimator, Classifier):
        return True
    if isinstance(estimator, Estimator) or not hasattr(estimator, "__sklearn_tags__"):
        return False
    from sklearn.base import is_classifier as sklearn_is_classifier

    return sklearn_is_classifier(estimator)
