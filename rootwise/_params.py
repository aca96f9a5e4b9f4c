"""Parameter constraints in scikit-learn's ``_parameter_constraints`` form, checked without it.

An estimator lists, per parameter, the values it takes: ``Interval(Integral, 1, None,
closed="left")``, ``StrOptions({...})``, ``"boolean"``, ``"random_state"``, ``"array-like"``,
``None``, a type, ``HasMethods([...])`` or ``"cv_object"`` (an integer >= 2, a splitter with
``split`` and ``get_n_splits``, an iterable of (train, test) pairs, or None). A value is valid
when it satisfies one of them, by scikit-learn's rules (``sklearn.utils._param_validation``),
with one stricter: a boolean is not a number here (``True`` is no ``max_depth`` and no seed).

``check`` runs in every ``fit``. It does not import scikit-learn, whose import costs more than
a first fit may (``rootwise._base``); only a refusal does, to raise scikit-learn's own
``InvalidParameterError`` (a ValueError and a TypeError) with its wording::

    The 'confidence' parameter of C45Classifier must be a float in the range (0.0, 1.0). Got
    1.5 instead.

``SklearnConstraints`` hands scikit-learn the same list as its own objects, so that its
parameter checks (``check_param_validation``) can test the estimators.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable

import numpy as np


class RealNotInt(numbers.Real):
    """A float, not an int (scikit-learn's ``RealNotInt``): min_samples_leaf=1 is a row, 1.0 all
    of them."""


RealNotInt.register(float)


class Interval:
    """Numbers of ``type`` (``numbers.Integral`` or ``numbers.Real``) between ``left`` and
    ``right`` (None: unbounded); ``closed`` is "left", "right", "both" or "neither"."""

    def __init__(self, type, left, right, *, closed: str):
        self.type, self.left, self.right, self.closed = type, left, right, closed

    def is_satisfied_by(self, v) -> bool:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, self.type):
            return False
        if not isinstance(v, numbers.Integral) and np.isnan(v):
            return False
        low = -np.inf if self.left is None else self.left
        high = np.inf if self.right is None else self.right
        above = v >= low if self.closed in ("left", "both") else v > low
        below = v <= high if self.closed in ("right", "both") else v < high
        return bool(above and below)

    def to_sklearn(self):
        from sklearn.utils._param_validation import Interval as SkInterval
        from sklearn.utils._param_validation import RealNotInt as SkRealNotInt

        kind = SkRealNotInt if self.type is RealNotInt else self.type
        return SkInterval(kind, self.left, self.right, closed=self.closed)


class StrOptions:
    """One of a set of strings."""

    def __init__(self, options):
        self.options = set(options)

    def is_satisfied_by(self, v) -> bool:
        return isinstance(v, str) and v in self.options

    def to_sklearn(self):
        from sklearn.utils._param_validation import StrOptions as SkStrOptions

        return SkStrOptions(self.options)


class HasMethods:
    """An object with these methods (a cross-validation splitter)."""

    def __init__(self, methods):
        self.methods = list(methods)

    def is_satisfied_by(self, v) -> bool:
        return all(callable(getattr(v, m, None)) for m in self.methods)

    def to_sklearn(self):
        from sklearn.utils._param_validation import HasMethods as SkHasMethods

        return SkHasMethods(self.methods)


def satisfies(v, constraint) -> bool:
    """Whether ``v`` satisfies one constraint (an object above, a string, None or a type)."""
    if constraint is None:
        return v is None
    if isinstance(constraint, str):
        if constraint == "boolean":
            return isinstance(v, (bool, np.bool_))
        if constraint == "random_state":
            return (v is None or isinstance(v, np.random.RandomState)
                    or Interval(numbers.Integral, 0, 2**32 - 1, closed="both").is_satisfied_by(v))
        if constraint == "array-like":  # scikit-learn's: a sequence or an array, not a scalar
            return (hasattr(v, "__len__") or hasattr(v, "shape") or hasattr(v, "__array__")) \
                and not np.isscalar(v)
        if constraint == "cv_object":
            return (v is None or Interval(numbers.Integral, 2, None, closed="left").is_satisfied_by(v)
                    or HasMethods(["split", "get_n_splits"]).is_satisfied_by(v)
                    or (isinstance(v, Iterable) and not isinstance(v, str)))
        raise ValueError(f"unknown parameter constraint {constraint!r}")
    if isinstance(constraint, type):
        return isinstance(v, constraint)
    return constraint.is_satisfied_by(v)


def check(constraints: dict, params: dict, caller: str) -> None:
    """Refuse the first parameter whose value satisfies none of its constraints."""
    for name, value in params.items():
        allowed = constraints.get(name)
        if allowed is None or allowed == "no_validation":
            continue
        if not any(satisfies(value, c) for c in allowed):
            refuse(name, value, allowed, caller)


def refuse(name: str, value, allowed, caller: str):
    """Raise scikit-learn's InvalidParameterError for ``name``, in scikit-learn's words."""
    from sklearn.utils._param_validation import InvalidParameterError, make_constraint

    shown = [str(make_constraint(to_sklearn(c))) for c in allowed]
    text = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"
    raise InvalidParameterError(f"The {name!r} parameter of {caller} must be {text}. Got "
                                f"{value!r} instead.")


def to_sklearn(constraint):
    """One constraint as scikit-learn states it."""
    if isinstance(constraint, (Interval, StrOptions, HasMethods)):
        return constraint.to_sklearn()
    return constraint


class SklearnConstraints:
    """The class attribute ``_parameter_constraints``: the class's ``_constraints`` as
    scikit-learn's objects, made when read (reading it imports scikit-learn)."""

    def __get__(self, obj, cls):
        return {name: [to_sklearn(c) for c in allowed] for name, allowed in cls._constraints.items()}
