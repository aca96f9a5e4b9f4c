"""scikit-learn's metadata routing (``set_fit_request``, ``get_metadata_routing``) for estimators
that do not inherit scikit-learn's classes.

With ``sklearn.set_config(enable_metadata_routing=True)`` a meta-estimator (``Pipeline``,
``GridSearchCV``, ...) passes ``sample_weight`` and the like to a step only when the step asks for
them: ``est.set_fit_request(sample_weight=True)``. A meta-estimator learns what a step asks for
from ``get_metadata_routing()``, a ``MetadataRequest``; scikit-learn's ``clone`` copies the
``_metadata_request`` attribute the setters write. This module builds those objects with
scikit-learn's public ``sklearn.utils.metadata_routing`` classes, imported only when asked for
(``import rootwise`` stays without scikit-learn).
"""

from __future__ import annotations

import inspect
from typing import Any

# the methods of rootwise's estimators that take metadata besides X and y; a parameter of theirs is
# "not requested" (None: an error if a meta-estimator is given it) until a setter says otherwise
METHODS = ("fit", "score")
_DATA = ("X", "y")


def metadata_names(estimator: Any, method: str) -> list[str]:
    """The metadata ``method`` of ``estimator`` takes: its parameters other than X and y."""
    parameters = inspect.signature(getattr(estimator, method)).parameters.values()
    return [p.name for p in parameters
            if p.name not in _DATA and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def metadata_routing(estimator: Any) -> Any:
    """A fresh ``MetadataRequest``: what the setters asked for, else every metadata unrequested."""
    from sklearn.utils.metadata_routing import MetadataRequest, get_routing_for_object

    asked = getattr(estimator, "_metadata_request", None)
    if asked is not None:
        return get_routing_for_object(asked)  # a copy: the caller may change it
    request = MetadataRequest(owner=estimator)
    for method in METHODS:
        if hasattr(estimator, method):
            consumer = getattr(request, method)
            for name in metadata_names(estimator, method):
                consumer.add_request(param=name, alias=None)
    return request


def set_request(estimator: Any, method: str, requests: dict[str, bool | str | None]) -> Any:
    """Record what ``method`` asks a meta-estimator for (True, False, None or an alias name);
    returns ``estimator``. As scikit-learn, only while metadata routing is enabled."""
    import sklearn
    from sklearn.utils.metadata_routing import UNCHANGED

    name = type(estimator).__name__
    if not sklearn.get_config().get("enable_metadata_routing", False):
        raise RuntimeError(f"{name}.set_{method}_request is only available when metadata routing is "
                           "enabled: sklearn.set_config(enable_metadata_routing=True).")
    accepted = metadata_names(estimator, method)
    unknown = sorted(set(requests) - set(accepted))
    if unknown:
        raise TypeError(f"{name}.set_{method}_request: {method} takes no metadata "
                        f"{', '.join(map(repr, unknown))}; it takes {', '.join(map(repr, accepted))}.")
    request = metadata_routing(estimator)
    consumer = getattr(request, method)
    for param, alias in requests.items():
        if alias is not UNCHANGED:
            consumer.add_request(param=param, alias=alias)
    estimator._metadata_request = request
    return estimator
