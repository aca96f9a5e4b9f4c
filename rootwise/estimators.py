"""scikit-learn compatible estimators. Each is a thin preset of the one engine (``Policy``)."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from . import _encoding as enc
from ._builder import build_tree
from ._policy import Policy


class _ClassificationTree(ClassifierMixin, BaseEstimator):
    """Shared fit / predict machinery of the classification presets."""

    # What the algorithm does with a missing cell; "error" refuses it with the column's name.
    _missing = "error"

    # ---------------------------------------------------------------- to be set by presets
    def _policy(self) -> Policy:  # pragma: no cover - every preset overrides it
        raise NotImplementedError

    # ---------------------------------------------------------------- parameter checks
    def _check_params(self) -> None:
        name = type(self).__name__
        md = self.max_depth
        if md is not None and (not isinstance(md, numbers.Integral) or isinstance(md, bool)
                               or md < 1):
            raise ValueError(f"{name}: max_depth must be None or an integer >= 1, got {md!r}.")
        for pname, low in (("min_samples_split", 0.0), ("min_samples_leaf", 0.0),
                           ("epsilon", 0.0)):
            v = getattr(self, pname)
            if not isinstance(v, numbers.Real) or isinstance(v, bool) or not np.isfinite(v) \
                    or v < low:
                raise ValueError(f"{name}: {pname} must be a finite number >= {low:g}, got {v!r}.")
        if self.min_samples_leaf <= 0:
            raise ValueError(f"{name}: min_samples_leaf must be > 0, got {self.min_samples_leaf!r}.")

    # ---------------------------------------------------------------- fit
    def fit(self, X, y, sample_weight=None):
        """Grow the tree on a table (DataFrame, array or list of rows) and class labels ``y``."""
        self._check_params()
        frame = enc.as_frame(X)
        mask = enc.resolve_categorical(frame, self.categorical_features)
        policy = self._policy()
        schema = enc.fit_schema(frame, mask, numeric_as_category=policy.numeric_as_category)
        Xe = enc.encode(frame, schema)
        self._check_missing(Xe, schema)
        classes, yc = enc.encode_target(y, frame.shape[0])
        w = enc.check_sample_weight(sample_weight, frame.shape[0])

        self.tree_ = build_tree(Xe, yc, w, schema.kinds_array, schema.n_categories,
                                len(classes), policy)
        self.schema_ = schema
        self.classes_ = classes
        self.n_classes_ = len(classes)
        self.n_features_in_ = schema.n_features
        names = enc.input_feature_names(X)
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self

    def _check_missing(self, Xe: np.ndarray, schema) -> None:
        if self._missing != "error":
            return
        holes = np.isnan(Xe)
        if holes.any():
            j = int(np.flatnonzero(holes.any(axis=0))[0])
            rows = np.flatnonzero(holes[:, j])
            raise ValueError(
                f"{type(self).__name__} cannot use missing values (None, NaN, pd.NA): column "
                f"{schema.feature_names[j]!r} has {len(rows)} missing cell(s) "
                f"(rows {rows[:5].tolist()}{'...' if len(rows) > 5 else ''}). "
                "Fill them, or use an algorithm that handles them (C4.5, CART)."
            )

    # ---------------------------------------------------------------- predict
    def _encode(self, X) -> np.ndarray:
        check_is_fitted(self, "tree_")
        enc.check_feature_names(getattr(self, "feature_names_in_", None), X, type(self).__name__)
        frame = enc.as_frame(X)
        if frame.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {frame.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input."
            )
        Xe = enc.encode(frame, self.schema_)
        self._check_missing(Xe, self.schema_)
        return Xe

    def apply(self, X) -> np.ndarray:
        """Index of the node each row ends in: a leaf, or the split node where it stops because
        the node has no branch for its value (a category unseen in training)."""
        Xe = self._encode(X)  # first: it raises NotFittedError on an unfitted model
        return self.tree_.apply(Xe)

    def decision_path(self, X):
        """Sparse indicator (rows x nodes) of the nodes each row passes."""
        Xe = self._encode(X)
        return self.tree_.decision_path(Xe)

    def predict_proba(self, X) -> np.ndarray:
        """Class distribution of the node each row ends in (weighted class counts, normalised)."""
        nodes = self.apply(X)
        value = self.tree_.value[nodes]
        return value / value.sum(axis=1, keepdims=True)

    def predict(self, X) -> np.ndarray:
        """Majority class of the node each row ends in; ties go to the first class in classes_."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def get_depth(self) -> int:
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self._missing != "error"
        tags.input_tags.categorical = True
        return tags


class ID3Classifier(_ClassificationTree):
    """ID3 (seeds 000, 002, 004): information gain, one branch per value of a categorical attribute,
    each attribute tested at most once on a path.

    Gain(D, a) = Ent(D) - sum_v |D^v|/|D| Ent(D^v),  Ent(D) = -sum_k p_k log2 p_k.

    Continuous columns are treated as categorical: each distinct value seen in training is one
    branch (ID3 has no thresholds). Missing cells are refused with the column's name.

    Parameters
    ----------
    epsilon : float, default 0
        A node whose best information gain is below epsilon becomes a leaf (seed 002, step 4).
    max_depth : int or None
    min_samples_split : float, default 2
        A node with less weighted mass (sum of sample weights) is not split.
    min_samples_leaf : float, default 1
        A split is allowed only if every non-empty branch has at least this weighted mass. Empty
        branches (values of the attribute absent at the node) are always kept: they become leaves
        with the parent's class distribution (seed 000, stopping case 3).
    categorical_features : "auto", list of names or indices, or boolean mask
        Which columns are categorical on top of those whose dtype is (object, string, category,
        bool). For ID3 every column ends up categorical; this only changes the category order
        (first appearance for categorical columns, ascending for numbers).

    Ties between attributes of equal gain go to the lowest column index.
    """

    def __init__(self, *, epsilon=0.0, max_depth=None, min_samples_split=2,
                 min_samples_leaf=1, categorical_features="auto"):
        self.epsilon = epsilon
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.categorical_features = categorical_features

    def _policy(self) -> Policy:
        return Policy(criterion="entropy", selection="gain", numeric_as_category=True,
                      reuse_categorical=False, missing="error", epsilon=float(self.epsilon),
                      max_depth=self.max_depth, min_samples_split=float(self.min_samples_split),
                      min_samples_leaf=float(self.min_samples_leaf))
