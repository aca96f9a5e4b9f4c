"""scikit-learn compatible estimators. Each is a thin preset of the one engine (``Policy``):

    ID3Classifier   information gain, multiway splits, continuous columns as categories
    C45Classifier   gain ratio (above-average gain rule), thresholds, fractional missing values,
                    error-based pruning
    CARTClassifier  Gini, binary splits (thresholds, category subsets), surrogate splits,
    CARTRegressor   squared error, cost-complexity pruning with alpha chosen by cross-validation

Every estimator also takes ``pruning="pre"`` or ``"reduced-error"`` (Zhou 2016, §4.3), judged on
validation data given to ``fit`` (``X_val``, ``y_val``) or carved from the training rows
(``validation_fraction``).

A table given to ``predict`` (``predict_proba``, ``apply``, ``decision_path``) must hold fit's
columns in fit's order, whatever their labels (``input.headers``). A categorical column whose
values are of another kind than its fitted categories is refused, not matched to nothing
(``input.codes.check_kinds``); integer codes of a categorical column are taken when declared as
a pandas categorical of the fitted categories::

    X["c"] = pd.Categorical.from_codes(codes, categories=model.schema_.categories_of("c"))
"""

from __future__ import annotations

import dataclasses
import numbers
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Any, Self

import numpy as np

from . import _monotonic, _params, _stopping
from ._base import Classifier, Estimator, Regressor, check_is_fitted, clone
from ._config import CATEGORICAL, MISSING_FRACTIONAL
from ._interrupts import deferring
from ._params import Interval, RealNotInt, SklearnConstraints, StrOptions
from ._policy import REGRESSION_CRITERIA, Policy
from ._threads import resolve as resolve_threads
from ._threads import threads
from .input import columns as input_columns
from .input import encode, headers, tables, target
from .input.schema import resolve_categorical
from .loss import LossCost, check_loss, least_loss_class, prior_weights, risk
from .prune.cost_complexity import (
    COSTS,
    choose_alpha_by_cv,
    cost_complexity_path,
    floor_path,
    prune_to_alpha,
    root_cost,
)
from .prune.error_based import TrainingRows, collapse_tree, error_based_prune, given_up
from .prune.folds import FoldPairs, check_random_state, kfold_labels, stratified_kfold_labels
from .prune.reduced_error import reduced_error_prune
from .prune.report import PendingSteps
from .tree.majority import majority_class, tie_priority

if TYPE_CHECKING:
    from ._typing import (
        ArrayLike,
        ClassWeight,
        Columns,
        Count,
        Labels,
        LossMatrix,
        Monotonic,
        Seed,
        Table,
        Weights,
    )
    from .prune.steps import PruningStep

_VALIDATION_PRUNING = ("pre", "reduced-error")
# CART with more than two classes tries all 2^(m-1) - 1 subsets of m categories up to max_exhaustive;
# 2^19 partitions per node and feature is the most we let a user ask for.
_MAX_EXHAUSTIVE_LIMIT = 20
# cross-validation's folds grow side by side while their workspaces fit in the encoded matrix's
# size, or in this many bytes on a smaller table (``_Grower.folds_at_once``)
CV_ALLOWANCE = 128 << 20
# prediction uses n_jobs threads from this many rows on (two blocks of the routing kernel): below
# it, starting the threads costs more than they save
_PARALLEL_ROWS = 8192
# CART's defaults from this many training rows on spend less time where measurement showed the
# chosen tree does not change (``cv_repeats``, ``cp``): below it a fit is cheap and every table
# of the accuracy study (``benchmarks/cart_accuracy.py``, at most 1,500 rows) keeps the
# choices made there.
LARGE_TABLE = 10_000
# cp=None on a large table whose alpha is chosen by CV: no split at a node costing at most 1e-4 of
# the root (at 10^5 rows of the benchmarks' ``real_table`` the chosen alpha is 7e-4 x R(root)).
AUTO_CP = 1e-4
# the total weight, and a regressor's total weight x span(y)^2 or ^4, stay below this: float64
# overflows at 1.8e308, and the fit's sums (over folds, of products) need room above these
MAGNITUDE_LIMIT = 1e300


# what every estimator's shared parameters take (scikit-learn's constraint words, ``_params``)
_REAL_FROM_0 = Interval(numbers.Real, 0, None, closed="left")
_COMMON_CONSTRAINTS = {
    "max_depth": [Interval(numbers.Integral, 1, None, closed="left"), None],
    "min_samples_split": [_REAL_FROM_0],
    "min_samples_leaf": [Interval(numbers.Real, 0, None, closed="neither")],
    "min_weight_fraction_leaf": [Interval(numbers.Real, 0.0, 0.5, closed="both")],
    "categorical_features": [StrOptions({"auto"}), "array-like", None],
    "validation_fraction": [Interval(numbers.Real, 0, 1, closed="neither")],
    "prune_on_tie": ["boolean"],
    "random_state": ["random_state"],
    "n_jobs": [Interval(numbers.Integral, None, None, closed="neither"), None],
}
# CART and ID3 count rows, with scikit-learn's constraints: an int is rows, a float a fraction
_ROW_COUNTS = {
    "min_samples_split": [Interval(numbers.Integral, 2, None, closed="left"),
                          Interval(RealNotInt, 0.0, 1.0, closed="right")],
    "min_samples_leaf": [Interval(numbers.Integral, 1, None, closed="left"),
                         Interval(RealNotInt, 0.0, 1.0, closed="neither")],
}


class _TreeEstimator(Estimator):
    """Shared fit / predict machinery. Presets define ``_policy`` and the class attributes."""

    _missing = "error"  # what a missing cell means: "error", "fractional", "surrogate"
    _counts_rows = True  # min_samples_split / min_samples_leaf count rows (C4.5: weight)
    _own_pruning: tuple = ()  # the algorithm's own post-pruning strategies
    _regression = False

    # ---------------------------------------------------------------- to be set by presets
    def _policy(self) -> Policy:  # pragma: no cover - every preset overrides it
        raise NotImplementedError

    # ---------------------------------------------------------------- parameter checks
    # each preset's ``_constraints``: the values every parameter takes (``rootwise._params``);
    # scikit-learn reads them as ``_parameter_constraints``
    _constraints: dict = {}
    _parameter_constraints = SklearnConstraints()

    def _check_params(self) -> None:
        """Refuse a parameter of the wrong type or out of range (scikit-learn's
        InvalidParameterError, naming it), then the combinations that do not go together."""
        name = type(self).__name__
        _params.check(self._constraints, self.get_params(deep=False), name)
        try:
            resolve_threads(self.n_jobs)
        except ValueError as e:
            raise ValueError(f"{name}: {e}") from None

    # ---------------------------------------------------------------- fit
    @deferring  # SIGINT / SIGTERM are raised between kernels, not inside numba's wrappers
    def fit(self, X: Table, y: Labels, sample_weight: Weights = None, X_val: Table | None = None,
            y_val: Labels | None = None, *, bin_edges: Any = None, folds: ArrayLike | None = None) -> Self:
        """Grow (and prune) the tree on a table (DataFrame, array or list of rows) and ``y``.

        ``X_val``, ``y_val``: validation data for ``pruning="pre"`` or ``"reduced-error"``; without
        them a stratified ``validation_fraction`` of the training rows is held out.
        ``bin_edges`` (``splitter="hist"``): each continuous column's upper bin edges (a sequence
        with one entry per column, None for a categorical one, or a dict by column name or index)
        instead of edges learnt from X; every tree of the fit (CV folds included) uses them.

        ``folds`` (CART, alpha by cross-validation): each row's CV fold number; fold k is held out
        once (instead of ``cv``'s folds). A Dask DataFrame or Array X (with a dask y, weights and
        folds) is fitted on its cluster (``rootwise.dask``)."""
        if _dask(X):
            from .dask import fit as fit_on_cluster

            if X_val is not None or bin_edges is not None:
                raise ValueError("X_val / bin_edges are not taken with a Dask collection X.")
            return fit_on_cluster(self, X, y, sample_weight, folds=folds)
        self._check_params()
        frame = tables.as_table(X)
        mask = resolve_categorical(frame, self.categorical_features)
        policy = self._policy()
        # the categories and the codes in one pass over the cells
        schema, Xe = encode.fit_encode(frame, mask, numeric_as_category=policy.numeric_as_category)
        n_rows = Xe.shape[0]
        self._check_missing(Xe, schema)
        schema = dataclasses.replace(schema, missing=tuple(np.isnan(Xe).any(axis=0).tolist()))
        classes, yt = target.encode_fit_target(y, n_rows, self._regression)
        policy = self._constrained(policy, schema, classes, X)
        priority = None if classes is None else self._class_priority(classes, y)
        w = target.check_sample_weight(sample_weight, n_rows)
        edges = self._bin_edges(bin_edges, schema, policy)
        if not self._regression:
            w = target.class_weighted(w, yt, getattr(self, "class_weight", None), classes,
                                      f"{type(self).__name__}: class_weight")
        self._check_magnitudes(yt, w)
        self._check_targets(yt, w)
        # the weights the tree is grown with (a loss matrix's altered priors); ``w`` stays the
        # rows' own weight, which the pruning's losses count
        w_grow, self._loss_cost = self._prior_weights(yt, w, classes)
        if (X_val is None) != (y_val is None):
            raise ValueError("fit needs both X_val and y_val, or neither.")
        if X_val is not None and self.pruning not in _VALIDATION_PRUNING:
            raise ValueError(f"X_val / y_val are used only by pruning='pre' or 'reduced-error'; "
                             f"pruning is {self.pruning!r}.")

        train = np.arange(n_rows)
        validation = None
        if self.pruning in _VALIDATION_PRUNING:
            if X_val is not None:
                if headers.labels_of(X) is not None and headers.labels_of(X_val) is not None:
                    headers.check_columns(headers.labels_of(X), tables.input_feature_names(X),
                                          X_val, type(self).__name__, what="X_val")
                Xv = encode.encode(tables.as_table(X_val, what="X_val"), schema)
                self._check_missing(Xv, schema)
                yv = target.encode_validation_target(y_val, classes, Xv.shape[0])
                validation = (Xv, yv, np.ones(Xv.shape[0]))
            else:
                train, held = self._carve_validation(yt)
                validation = (Xe[held], yt[held], w[held])

        n_classes = 0 if classes is None else len(classes)
        policy = _stopping.resolve(policy, self.get_params(deep=False), w[train],
                                   counts_rows=self._counts_rows,
                                   any_categorical=bool(np.any(schema.kinds_array == CATEGORICAL)),
                                   name=type(self).__name__)
        self._alpha_floor = self._floor(yt[train], w[train], n_classes, policy)
        grow = _Grower(Xe, yt, w_grow, schema, n_classes, policy, self.n_jobs, edges,
                       self._alpha_floor, self._floor_cost())
        steps, cptable = None, None
        if self.pruning == "pre":
            tree = grow(train, validation=validation)
            steps = PendingSteps(grow.prepruning_steps, tree, schema, classes)
        else:
            tree = grow(train)
            if self.pruning == "reduced-error":
                full = tree  # the tree the steps' node numbers refer to
                tree, table = reduced_error_prune(tree, *validation, regression=self._regression,
                                                  prune_on_tie=self.prune_on_tie)
                steps = PendingSteps(table, full, schema, classes)
            elif self.pruning == "error-based":
                # the pruning changes the unpruned tree's tests in place; the rest of that tree
                # (three quarters of it) is freed before the pruning's records are made
                unpruned, tree = given_up(tree), None
                tree = error_based_prune(unpruned, grow.training_rows(train), w[train],
                                         confidence=self.confidence,
                                         subtree_raising=self.subtree_raising,
                                         collapse=policy.release8, release8=policy.release8)
            elif self.pruning is None and policy.release8:  # J48 -U collapses too
                tree = collapse_tree(tree, grow.training_rows(train), w[train])
            elif self.pruning == "cost-complexity":
                tree, cptable = self._cost_complexity(tree, grow, train, yt, w, priority,
                                                      self._fold_pairs(folds, n_rows))

        if self._loss_cost is not None:
            tree = self._without_priors(tree)
        # every check has passed: only now replace the fitted state
        self._set_fitted(tree, schema, classes, priority, steps, cptable,
                         tables.input_feature_names(X))
        self._fit_columns = headers.labels_of(X)  # any labels, strings or not
        if self._loss_cost is not None:
            self._loss_matrix = self._loss_cost.matrix
        del self._loss_cost  # the fit's own: the fitted state keeps the matrix only
        return self

    def _constrained(self, policy, schema, classes, X) -> Policy:
        """The policy with the fit's monotonic constraints (CART's ``monotonic_cst``)."""
        return policy

    def _check_magnitudes(self, yt, w) -> None:
        """Refuse weights or targets whose sums would overflow float64 in the fit, naming them
        and the limit: the total weight W, and for a regressor W x span(y)^p, with p = 4 when
        alpha is chosen by cross-validation (its standard error sums squared squared errors)
        and p = 2 otherwise (impurities are weighted squared errors)."""
        name = type(self).__name__
        with np.errstate(over="ignore"):
            total = float(np.sum(w))
        if not total <= MAGNITUDE_LIMIT:
            times = " times class_weight" if getattr(self, "class_weight", None) is not None else ""
            raise ValueError(f"{name}: sample_weight{times} sums to {total:.3g}: the total weight "
                             f"must stay below {MAGNITUDE_LIMIT:.0e} for the fit's sums to stay "
                             f"finite in float64; scale the weights down.")
        if not self._regression or len(yt) == 0:
            return
        low, high = float(np.min(yt)), float(np.max(yt))
        with np.errstate(over="ignore"):
            span = high - low
        by_cv = self.pruning == "cost-complexity" and isinstance(self.ccp_alpha, str)
        power = 4 if by_cv else 2
        if span > 0 and np.log10(total) + power * np.log10(span) > np.log10(MAGNITUDE_LIMIT):
            why = ("alpha by cross-validation sums the squares of squared errors" if by_cv
                   else "impurities are weighted squared errors")
            raise ValueError(f"{name}: y spans {span:.3g} (from {low:.3g} to {high:.3g}), too "
                             f"large: {why}, so the total weight times span^{power} must stay "
                             f"below {MAGNITUDE_LIMIT:.0e} (here {total:.3g} x {span:.3g}^"
                             f"{power}); scale y down.")

    def _check_targets(self, y, w) -> None:
        """Refuse targets the criterion has no loss for (none but Poisson's)."""

    def _floor(self, y, w, n_classes, policy) -> float:
        """alpha_0 = cp x R(root) (``cp``; 0 for the estimators without it)."""
        return 0.0

    def _prior_weights(self, yt, w, classes):
        """(weights to grow with, LossCost or None): ``w`` itself unless a loss matrix alters the
        priors (``CARTClassifier``)."""
        return w, None

    def _without_priors(self, tree):
        """The fitted tree with its class weights back in the rows' own weight (the grown tree
        counts each row of class i c_i times): ``predict_proba`` stays the class frequencies."""
        tree.value = self._loss_cost.counts(tree.value)
        for derived in ("_distribution", "_majority"):
            tree.__dict__.pop(derived, None)
        return tree

    def _floor_cost(self) -> str:
        return "impurity"

    def _set_fitted(self, tree, schema, classes, priority, steps, cptable, names):
        """The fitted attributes, all set at once (a local or a distributed fit)."""
        self.tree_ = tree
        self.schema_ = schema
        self.n_features_in_ = schema.n_features
        if classes is not None:
            self.classes_ = classes
            self.n_classes_ = len(classes)
            self.class_order_ = classes[priority]
        self.pruning_steps_ = steps
        self.cp_table_ = cptable
        self.__dict__.pop("_fit_columns", None)  # a local fit records them after this
        self.__dict__.pop("_loss_matrix", None)  # so does a fit with a loss matrix
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self

    def _bin_edges(self, bin_edges, schema, policy):
        """``bin_edges`` as a list with one entry per column (None where categorical)."""
        if bin_edges is None:
            return None
        if policy.splitter != "hist":
            raise ValueError(f"{type(self).__name__}: bin_edges needs splitter='hist', got "
                             f"splitter={policy.splitter!r}.")
        names = list(schema.feature_names)
        if isinstance(bin_edges, dict):
            edges = [None] * schema.n_features
            for key, e in bin_edges.items():
                j = names.index(key) if key in names else key
                if not isinstance(j, numbers.Integral) or not 0 <= j < schema.n_features:
                    raise ValueError(f"bin_edges: {key!r} is neither a column name nor a column "
                                     f"index of X ({schema.n_features} columns).")
                edges[int(j)] = e
        else:
            edges = list(bin_edges)
            if len(edges) != schema.n_features:
                raise ValueError(f"bin_edges has {len(edges)} entries; X has "
                                 f"{schema.n_features} columns (give None for a categorical one).")
        return edges

    @property
    def pruning_steps_(self) -> list[PruningStep] | None:
        """Every decision of validation-based pruning, a list of ``PruningStep`` (paths included),
        or None. ``fit`` keeps the decisions as arrays; the steps are made when first read."""
        try:
            steps = self.__dict__["_pruning_steps"]
        except KeyError:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute "
                                 "'pruning_steps_'") from None
        if isinstance(steps, PendingSteps):
            steps = self._pruning_steps = steps.resolve()
        return steps

    @pruning_steps_.setter
    def pruning_steps_(self, steps: list[PruningStep] | PendingSteps | None) -> None:
        self._pruning_steps = steps

    def _class_priority(self, classes, y) -> np.ndarray:
        """Indices into ``classes`` in tie order (``class_order``, else a pandas categorical y's
        declared categories, else ``classes`` itself)."""
        order = getattr(self, "class_order", None)
        if order is not None:
            try:
                return target.class_priority(classes, order)
            except ValueError as e:
                raise ValueError(f"{type(self).__name__}: {e}") from None
        declared = target.declared_order(y)
        if declared is None:
            return np.arange(len(classes))
        return target.class_priority(classes, declared, what="the categories of y")

    def _carve_validation(self, yt):
        from sklearn.model_selection import train_test_split

        rows = np.arange(len(yt))
        stratify = None
        if not self._regression:
            counts = np.bincount(yt)
            if counts[counts > 0].min() >= 2:
                stratify = yt
        try:
            return train_test_split(rows, test_size=self.validation_fraction,
                                    random_state=self.random_state, stratify=stratify)
        except ValueError as e:
            raise ValueError(f"cannot hold out validation_fraction={self.validation_fraction} of "
                             f"{len(yt)} rows: {e}") from None

    def _fold_pairs(self, folds, n_rows):
        """(training rows, held-out rows) of each fold number of the ``folds`` column, in
        ascending fold order; None when no column is given."""
        if folds is None:
            return None
        f = np.asarray(folds.to_numpy() if hasattr(folds, "to_numpy") else folds).ravel()
        if len(f) != n_rows or f.dtype.kind not in "iu":
            raise ValueError(f"folds must hold one integer fold number per row ({n_rows} rows), "
                             f"got {len(f)} value(s) of dtype {f.dtype}.")
        labels, fold_of_row = np.unique(f, return_inverse=True)
        if len(labels) < 2:
            raise ValueError(f"folds holds {len(labels)} fold number(s); alpha by "
                             "cross-validation needs at least 2.")
        return FoldPairs(np.arange(n_rows), [fold_of_row.ravel()], len(labels))

    def _cost_complexity(self, tree, grow, train, yt, w, priority, fold_pairs=None):
        """Fixed ``ccp_alpha``, or alpha chosen by (repeated) K-fold cross-validation ("cv-min",
        "cv-1se"), pruning on the cost ``ccp_cost`` (regression: the squared error); the folds
        of ``fold_pairs`` when given."""
        alpha, cost = self.ccp_alpha, self._ccp_cost()
        floor = grow.alpha_floor  # cp: the tree stands for alpha >= floor only
        if not isinstance(alpha, str):
            return prune_to_alpha(tree, max(float(alpha), floor), cost), None
        folds = self._cv_folds(train, yt) if fold_pairs is None else fold_pairs
        if folds is None:
            return tree, None  # a single row: nothing to cross-validate (the tree is one leaf)
        at_once = grow.folds_at_once(resolve_threads(self.n_jobs))
        with grow.presorted():  # one sort of each column for all the fold trees
            table = choose_alpha_by_cv(tree, folds, grow.fold, grow.X,
                                       self._row_losses(yt, w, priority), alpha, cost,
                                       n_jobs=at_once, floor=floor)
        return prune_to_alpha(tree, float(table.alpha[table.chosen]), cost), table

    def _ccp_cost(self):
        """"impurity", "misclassification", or under a loss matrix its risk (``LossCost``)."""
        loss = self.__dict__.get("_loss_cost")  # while fitting: counts under the altered priors
        if loss is None and self.__dict__.get("_loss_matrix") is not None:  # a fitted tree's
            loss = LossCost(self._loss_matrix, np.ones(len(self._loss_matrix)))
        if loss is not None:  # ccp_cost is "misclassification" (``_prior_weights``)
            return loss
        return "impurity" if self._regression else self.ccp_cost

    def _cv_folds(self, train, yt):
        """(training rows, held-out rows) pairs over ``train``, or None when there are too few rows.

        An integer ``cv`` = K: shuffled K-fold (``random_state``), K capped at the number of rows;
        stratified by class when every class has at least K rows, plain otherwise -- before, a class
        with a single row cut K to 1 and silently turned pruning off. ``cv_repeats`` = R draws R
        such partitions one after the other from one random generator (scikit-learn's
        ``RepeatedStratifiedKFold`` / ``RepeatedKFold``: the first repeat is the K-fold of the
        same ``random_state``). A scikit-learn splitter or an iterable of (train, test) index pairs
        (as ``GridSearchCV`` takes) indexes the rows of ``X``.
        """
        cv, y = self.cv, yt[train]
        if not isinstance(cv, numbers.Integral):
            from sklearn.model_selection import check_cv  # the user passed a splitter

            pairs = check_cv(cv, y, classifier=not self._regression).split(train, y)
            return [(train[a], train[b]) for a, b in pairs]
        n_splits = min(int(cv), len(train))
        if n_splits < 2:
            return None
        counts = None if self._regression else np.bincount(y)
        rng = check_random_state(self.random_state)
        labels = []
        repeats = self._repeats(len(train))
        for _ in range(repeats):
            # scikit-learn's StratifiedKFold / KFold folds (shuffle=True), without importing it
            if counts is not None and counts[counts > 0].min() >= n_splits:
                labels.append(stratified_kfold_labels(y, n_splits, rng))
            else:
                labels.append(kfold_labels(len(train), n_splits, rng))
        return FoldPairs(train, labels, n_splits)

    def _repeats(self, n_rows: int) -> int:
        """R, the fold draws of an integer ``cv``: ``cv_repeats``, or with None the estimator's
        ``_auto_repeats`` on tables of fewer than ``_one_draw_from`` rows and one draw from there
        on (a fold's error is then a mean over thousands of rows, so a new draw of the folds
        moves it little, while every draw costs K more trees)."""
        if self.cv_repeats is not None:
            return int(self.cv_repeats)
        return self._auto_repeats if n_rows < self._one_draw_from else 1

    def _row_losses(self, yt, w, priority):
        """Weighted loss of predicting row rows[i] by node nodes[i] (as ``predict`` would there):
        the criterion's loss (``regression_loss``), or 0/1 error of the node's most probable
        class (ties: ``priority``), or a loss matrix's cost."""
        loss = getattr(self, "_loss_cost", None)

        def losses(tree, rows, nodes):
            if self._regression:
                return w[rows] * regression_loss(yt[rows], tree.value[nodes, 0],
                                                 getattr(self, "criterion", "squared_error")), w[rows]
            if loss is not None:  # the fold tree was grown with the altered priors
                pred = least_loss_class(loss.counts(tree.value[nodes]), loss.matrix, priority)
                return w[rows] * loss.matrix[yt[rows], pred], w[rows]
            pred = majority_class(tree.value[nodes], priority)
            return w[rows] * (pred != yt[rows]), w[rows]
        return losses

    def _check_missing(self, Xe: np.ndarray, schema) -> None:
        if self._missing != "error":
            return
        holes = np.isnan(Xe)
        if holes.any():
            j = int(np.flatnonzero(holes.any(axis=0))[0])
            self._refuse_missing(schema, j, np.flatnonzero(holes[:, j]))

    def _check_missing_columns(self, cols, categorical: np.ndarray) -> None:
        """``_check_missing`` for column-wise input (``input/columns``)."""
        if self._missing != "error":
            return
        for j in range(len(categorical)):
            holes = input_columns.missing_cells(cols, j, bool(categorical[j]))
            if holes.any():
                self._refuse_missing(self.schema_, j, np.flatnonzero(holes))

    def _refuse_missing(self, schema, j: int, rows: np.ndarray) -> None:
        """Refuse missing cells (``rows`` of column ``j``) for an algorithm that has no use for
        them."""
        raise ValueError(
            f"{type(self).__name__} cannot use missing values (None, NaN, pd.NA): column "
            f"{schema.feature_names[j]!r} has {len(rows)} missing cell(s) "
            f"(rows {rows[:5].tolist()}{'...' if len(rows) > 5 else ''}). "
            "Fill them, or use an algorithm that handles them (C4.5, CART)."
        )

    # ---------------------------------------------------------------- predict
    def _encode(self, X, check_finite: bool = True) -> np.ndarray:
        return self._encode_checked(X, check_finite)[0]

    def _encode_checked(self, X, check_finite: bool) -> tuple[np.ndarray, bool]:
        """(encoded X, whether infinite values have been refused). Without ``check_finite`` a
        numeric matrix for an all-continuous model comes back as it is, unchecked; every other
        table goes through the encoder, which refuses infinities column by column."""
        check_is_fitted(self, "tree_")
        self._check_columns(X)
        Xe = encode.encode_numeric_array(X, self.schema_, check_finite=check_finite)
        if Xe is not None:  # a plain numeric matrix for an all-continuous model: no table needed
            return Xe, check_finite
        frame = self._fitted_table(X)
        Xe = encode.encode(frame, self.schema_)
        self._check_missing(Xe, self.schema_)
        return Xe, True

    def _check_columns(self, X) -> None:
        """Refuse a table whose columns are not fit's in fit's order, whatever their labels
        (``input.headers``)."""
        headers.check_columns(getattr(self, "_fit_columns", headers.UNKNOWN),
                              getattr(self, "feature_names_in_", None), X, type(self).__name__)

    def _fitted_table(self, X):
        """X as a table, with as many columns as the model was fitted on."""
        frame = tables.as_table(X)
        if frame.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {frame.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input."
            )
        return frame

    def _route(self, X, table: np.ndarray):
        """(ends, out): the node each row of ``X`` ends in and ``table[end]`` per row, computed in
        one pass on ``n_jobs`` threads (blocks of rows) when there are enough rows. A model with
        categorical features reads the table column-wise (``_route_columns``). A numeric matrix
        goes to the kernel without a copy; the kernel reports infinite values (in an encoded
        table the encoder has refused them already)."""
        check_is_fitted(self, "tree_")
        categorical, _ = input_columns.slots(self.schema_)
        layout = self.tree_.column_layout(categorical) if categorical.any() else None
        if layout is not None:
            return self._route_columns(X, table, categorical, layout)
        Xe, finite = self._encode_checked(X, check_finite=False)
        with threads(getattr(self, "n_jobs", None)) as k:
            ends, out, first_inf = self.tree_.route(
                Xe, table, parallel=k > 1 and Xe.shape[0] >= _PARALLEL_ROWS,
                check_finite=not finite)
        if first_inf >= 0:
            encode.raise_infinite(Xe, first_inf, self.schema_)
        return ends, out

    def _route_columns(self, X, table: np.ndarray, categorical: np.ndarray, layout):
        """``_route`` for a model with categorical features: the table's columns as they are
        (continuous) and as int32 codes (categorical), never an n x d float64 matrix."""
        self._check_columns(X)
        frame = self._fitted_table(X)
        cols = input_columns.columns(frame, self.schema_)
        self._check_missing_columns(cols, categorical)
        n = frame.shape[0]
        with threads(getattr(self, "n_jobs", None)) as k:
            ends, out, first_inf = self.tree_.route_columns(
                cols.num, cols.codes, layout, table, parallel=k > 1 and n >= _PARALLEL_ROWS)
        if first_inf >= 0:
            input_columns.raise_infinite(cols, categorical, first_inf, self.schema_)
        return ends, out

    @deferring
    def apply(self, X: Table) -> np.ndarray:
        """Index of the node each row ends in: a leaf, or the split node where it stops (a category
        unseen in training; a missing value at a C4.5 node, which sends it down every branch)."""
        if _dask(X):
            from .dask import lazy

            return lazy(self, X, "apply")
        check_is_fitted(self, "tree_")
        return self._route(X, np.empty((self.tree_.node_count, 0), dtype=np.int64))[0]

    @deferring
    def decision_path(self, X: Table) -> Any:
        """Sparse indicator (rows x nodes) of the nodes each row passes."""
        Xe = self._encode(X)
        return self.tree_.decision_path(Xe)

    def _fractional(self) -> bool:
        """C4.5 prediction combines branches for missing values (``fractional_distribution``)."""
        return self._missing == "fractional" and bool(
            np.any(self.tree_.missing_branch == MISSING_FRACTIONAL))

    def _fractional_distribution(self, X) -> np.ndarray:
        """Class distribution per row; C4.5 combines the branches of a missing value by r_v."""
        return self.tree_.fractional_distribution(self._encode(X))

    def get_depth(self) -> int:
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    @property
    def feature_importances_(self) -> np.ndarray:
        """Total weighted impurity decrease of each feature's splits, normalised to sum to 1:
        sum over its nodes t of w_t I(t) - sum_children w_c I(c)."""
        check_is_fitted(self, "tree_")
        out = _impurity_decrease_per_feature(self.tree_, self.n_features_in_)
        total = out.sum()
        return out / total if total > 0 else out

    def _repr_html_(self):
        """Notebook view of a fitted model: its summary and the collapsible tree
        (``rootwise.export.html``). None for an unfitted model: the notebook shows the plain repr."""
        if not hasattr(self, "tree_"):
            return None
        from .export.html import notebook_html

        return notebook_html(self)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self._missing != "error"
        tags.input_tags.categorical = True
        return tags


def _dask(X) -> bool:
    """A Dask collection (checked by its type's module: dask need not be imported)."""
    return type(X).__module__.split(".")[0] == "dask"


def _log(proba):
    """Natural log of probabilities; log(0) = -inf is the answer, not an accident to warn about."""
    with np.errstate(divide="ignore"):
        return np.log(proba)


def _impurity_decrease_per_feature(t, n_features: int) -> np.ndarray:
    """Sum over each feature's split nodes t of w_t I(t) - sum_children w_c I(c)."""
    out = np.zeros(n_features)
    for node in np.flatnonzero(t.n_children > 0):
        kids = t.children(int(node))
        drop = t.weighted_n_node_samples[node] * t.impurity[node] - sum(
            t.weighted_n_node_samples[c] * t.impurity[c] for c in kids)
        out[t.feature[node]] += max(drop, 0.0)
    return out


class _Grower:
    """Grows unpruned trees on subsets of the training rows (the full fit, CV folds)."""

    def __init__(self, X, y, w, schema, n_classes, policy, n_jobs=None, bin_edges=None,
                 alpha_floor=0.0, floor_cost="impurity"):
        self.X, self.y, self.w, self.schema = X, y, w, schema
        self.n_classes, self.policy = n_classes, policy
        self.n_jobs = n_jobs
        self.bin_edges = bin_edges
        # ``cp``: no split at a node whose cost R(t) = c(t) / W is at most alpha_floor, W being
        # the weight of the rows grown on (each fold its own), as the CV's probes are shares
        self.alpha_floor, self.floor_cost = alpha_floor, floor_cost
        self.prepruning_steps = None
        self.presort = None  # every row sorted once, while cross-validation grows its folds

    def __call__(self, rows, validation=None):
        tree, steps = self._grow(rows, validation, self.n_jobs)
        if validation is not None:
            self.prepruning_steps = steps
        return tree

    def fold(self, rows):
        """A CV fold's tree; safe to call from several threads at once (``choose_alpha_by_cv``
        grows folds on ``n_jobs`` threads, each binning, for hist, on one)."""
        return self._grow(rows, None, 1)[0]

    def folds_at_once(self, n_threads: int) -> int:
        """How many CV folds grow side by side: up to ``n_threads``, while their workspaces
        (``engine.dispatch.fold_workspace``, a fold of all the rows at most) together take no
        more than the encoded matrix, or CV_ALLOWANCE on a smaller table; at least one.

        Why a bound: a fold's workspace is about as large as the matrix (10^6 rows x 20
        columns: some 150 MB against 160 MB), so two folds side by side took the fit to 4.5x
        the matrix, one at a time to 2.2x (``benchmarks/README.md``, "Memory of the default
        fit"); the time that costs (about 1.6x) leaves the default fit well ahead of rpart's.
        Small tables keep both cores: there the workspaces are a few megabytes."""
        from .engine.dispatch import fold_workspace

        n = len(self.y)
        one = fold_workspace(n, n, self.schema.kinds_array, self.schema.n_categories,
                             self.policy, self.n_classes)
        allowance = max(int(self.X.nbytes), CV_ALLOWANCE)
        return max(1, min(n_threads, allowance // max(one, 1)))

    @contextmanager
    def presorted(self):
        """Sort every row by each column once, for the fold trees grown inside the block: each
        keeps its rows' order from it (``engine.presort``) instead of sorting them again."""
        from .engine.dispatch import shared_presort

        self.presort = shared_presort(self.X, self.w, self.schema.kinds_array, self.policy)
        try:
            yield
        finally:
            self.presort = None

    def _grow(self, rows, validation, n_jobs):
        from .engine.dispatch import build_tree_with_report

        whole = len(rows) == len(self.y) and np.array_equal(rows, np.arange(len(self.y)))
        # a subset (CV fold, validation carved out) is read in place: no copy of X
        train = None if whole else rows
        weight = float((self.w if whole else self.w[rows]).sum())
        # the engine knows no loss matrix: its trees grow whole and ``cp``'s floor is applied
        # when they are pruned (a node with R(t) <= alpha_0 is a leaf of every T(alpha >= alpha_0))
        floor = self.alpha_floor * weight if isinstance(self.floor_cost, str) else 0.0
        floor_cost = self.floor_cost if isinstance(self.floor_cost, str) else "misclassification"
        # only hist's binning runs parallel kernels: exact growth takes no part in ``threads``
        # (and so no lock), which lets CV folds grow side by side
        with threads(n_jobs) if self.policy.splitter == "hist" else nullcontext():
            return build_tree_with_report(
                self.X, self.y, self.w, self.schema.kinds_array,
                self.schema.n_categories, self.n_classes, self.policy, validation,
                names=self.schema.feature_names, bin_edges=self.bin_edges,
                cost_floor=floor, floor_cost=floor_cost, train=train,
                presort=self.presort, n_threads=resolve_threads(n_jobs))

    def training_rows(self, rows) -> TrainingRows:
        """The rows a tree was grown on, for C4.5's pruning (no copy when they are all rows)."""
        X, y = self.X, self.y
        if not (len(rows) == len(y) and np.array_equal(rows, np.arange(len(y)))):
            X, y = X[rows], y[rows]
        return TrainingRows(X, y, self.n_classes, self.policy.criterion_code)


class _ClassificationTree(Classifier, _TreeEstimator):
    @deferring
    def predict_proba(self, X: Table) -> np.ndarray:
        """Class distribution of the node each row ends in (weighted class counts, normalised);
        for C4.5, rows with missing values combine the branches' distributions by r_v."""
        if _dask(X):
            from .dask import lazy

            return lazy(self, X, "predict_proba")
        check_is_fitted(self, "tree_")
        if self._fractional():
            return self._fractional_distribution(X)
        return self._route(X, self.tree_.distribution())[1]

    def predict_log_proba(self, X: Table) -> np.ndarray:
        """Natural log of ``predict_proba``: -inf for a class of probability 0 (as scikit-learn)."""
        proba = self.predict_proba(X)
        if _dask(X):  # a lazy collection: the log is taken block by block when it is computed
            return (proba.map_blocks if hasattr(proba, "map_blocks") else proba.map_partitions)(_log)
        return _log(proba)

    def _class_table(self) -> np.ndarray:
        """Per node, the index of the class a row ending there gets, as an (n_nodes, 1) table."""
        priority = tie_priority(self)
        return self.tree_.majority() if priority is None else \
            majority_class(self.tree_.value, priority).reshape(-1, 1)

    @deferring
    def predict(self, X: Table) -> np.ndarray:
        """Most probable class (under a loss matrix: least expected loss); ties go to the first
        class in ``class_order_``. ``X`` has fit's columns in fit's order; integer codes of a
        categorical column must be declared
        (``pd.Categorical.from_codes(codes, categories=model.schema_.categories_of(name))``)."""
        if _dask(X):
            from .dask import lazy

            return lazy(self, X, "predict")
        check_is_fitted(self, "tree_")
        priority = tie_priority(self)
        if self._fractional():
            return self.classes_[majority_class(self._fractional_distribution(X), priority)]
        # the kernel writes each row's class index (one per node, not a distribution per row)
        table = self._class_table()
        index = self._route(X, table)[1].reshape(-1)
        classes = self.classes_
        if classes.dtype == index.dtype and np.array_equal(classes, np.arange(len(classes))):
            return index  # the labels are the indices 0..k-1: nothing to look up
        return classes.take(index)


class ID3Classifier(_ClassificationTree):
    """ID3 (Quinlan 1986; Zhou 2016): information gain, one branch per value of a categorical attribute,
    each attribute tested at most once on a path.

    Gain(D, a) = Ent(D) - sum_v |D^v|/|D| Ent(D^v),  Ent(D) = -sum_k p_k log2 p_k.

    Continuous columns are treated as categorical: each distinct value seen in training is one
    branch (ID3 has no thresholds). Missing cells are refused with the column's name.

    Parameters
    ----------
    epsilon : float, default 0
        A node whose best information gain is below epsilon becomes a leaf (Li Hang 2012, algorithm 5.2).
    max_depth : int or None
    min_samples_split : int or float, default 2
        A node with fewer rows is not split. Rows, not weight, as in scikit-learn: a row of
        positive weight counts 1 whatever it weighs; a float in (0, 1] is a fraction of the
        training rows, max(2, ceil(min_samples_split * n)).
    min_samples_leaf : int or float, default 1
        A split is allowed only if every non-empty branch has at least this many rows (a float
        in (0, 1): ceil(min_samples_leaf * n)); with unequal sample weights a count above 1 is
        refused, for ID3 searches values by their weight. Empty branches (values of the
        attribute absent at the node) are always kept: they become leaves with the parent's
        class distribution (Zhou 2016, §4.1).
    min_weight_fraction_leaf : float in [0, 0.5], default 0
        Every non-empty branch carries at least this fraction of the total sample weight.
    categorical_features : "auto", list of names or indices, or boolean mask
        Which columns are categorical on top of those whose dtype is (object, string, category,
        bool). For ID3 every column ends up categorical; this only changes the category order
        (first appearance for categorical columns, ascending for numbers).
    pruning : None, "pre" or "reduced-error"
        Zhou 2016, §4.3, judged on validation data (``fit(X, y, X_val=..., y_val=...)`` or a held-out
        ``validation_fraction``, stratified, drawn with ``random_state``).
    prune_on_tie : bool, default True
        When splitting (pre) or keeping a subtree (reduced-error) does not change validation
        accuracy, prune — the textbook's reading: a branch that does not raise accuracy is cut.
    random_state : int, numpy RandomState or None, default 0
        Draws the held-out rows of ``pruning="pre"`` / ``"reduced-error"`` (the only random
        draw). The fixed default makes the same call give the same tree in every process;
        None draws from numpy's global generator, as scikit-learn does.
    n_jobs : int or None, default None (all cores)
        Threads for split search and prediction (as scikit-learn counts: -1 all, n > 0 that
        many). Results never depend on it.
    class_order : sequence of class labels or None, default None
        The order in which a tie between classes at a leaf is broken (as ``CARTClassifier``).
    class_weight : dict, "balanced" or None, default None
        Multiplies the sample weights, as in scikit-learn: "balanced" gives class k the weight
        n / (K n_k), a dict {label: weight} its labels their weight (others 1). A fit with
        ``class_weight`` is the fit with the equivalent ``sample_weight``: the gains and the
        class counts of the nodes (so ``predict_proba``) see the product.

    Ties between attributes of equal gain go to the lowest column index.
    """

    _constraints = {**_COMMON_CONSTRAINTS, **_ROW_COUNTS, "epsilon": [_REAL_FROM_0],
                    "pruning": [StrOptions(_VALIDATION_PRUNING), None],
                    "class_order": ["array-like", None],
                    "class_weight": [dict, StrOptions({"balanced"}), None]}

    def __init__(self, *, epsilon: float = 0.0, max_depth: int | None = None,
                 min_samples_split: Count = 2, min_samples_leaf: Count = 1,
                 min_weight_fraction_leaf: float = 0.0, categorical_features: Columns = "auto",
                 pruning: str | None = None, validation_fraction: float = 0.3,
                 prune_on_tie: bool = True, random_state: Seed = 0, n_jobs: int | None = None,
                 class_order: ArrayLike | None = None, class_weight: ClassWeight = None) -> None:
        self.epsilon = epsilon
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.categorical_features = categorical_features
        self.pruning = pruning
        self.validation_fraction = validation_fraction
        self.prune_on_tie = prune_on_tie
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.class_order = class_order
        self.class_weight = class_weight

    def _policy(self) -> Policy:
        return Policy(criterion="entropy", selection="gain", categorical_split="multiway",
                      numeric_as_category=True, missing="error", epsilon=float(self.epsilon),
                      max_depth=self.max_depth, min_samples_split=float(self.min_samples_split),
                      min_samples_leaf=float(self.min_samples_leaf),
                      prune_on_tie=bool(self.prune_on_tie))


class C45Classifier(_ClassificationTree):
    """C4.5 (Quinlan 1993; Zhou 2016, §4.2.2, §4.4): gain ratio among the attributes whose information
    gain is at least the average, multiway branches on categorical attributes, bi-partition of
    continuous attributes at midpoints (reusable further down), missing values by fractional
    weights, and error-based pruning.

        Gain_ratio(D, a) = Gain(D, a) / IV(a),  IV(a) = -sum_v |D^v|/|D| log2 |D^v|/|D|
        Gain(D, a) = rho * Gain(D~, a)   (D~: rows whose value of a is known, rho = w(D~)/w(D))

    A row whose tested value is missing goes down every branch with weight w * r_v; at prediction
    the branches' class distributions are combined with the weights r_v.

    Parameters
    ----------
    confidence : float, default 0.25
        C4.5's confidence factor CF for error-based (pessimistic) pruning.
    min_samples_leaf : float, default 2
        C4.5's minimum: a split needs at least two branches with this much weight. Weight, not
        rows, as J48's minNumObj: a case with a missing value goes down every branch with part
        of its weight, so a branch holds no whole number of cases. A float in (0, 1) is a
        fraction of the training rows, ceil(min_samples_leaf * n). Weights normalised to sum
        to 1 (scikit-learn's AdaBoostClassifier) are refused, for no branch could weigh this
        much: boost ``CARTClassifier`` or ``ID3Classifier``, which count rows.
    min_samples_split : float, default 4
        A node lighter than this (sum of sample weights) is not split; a float in (0, 1) is a
        fraction of the training rows, max(2, ceil(min_samples_split * n)).
    min_weight_fraction_leaf : float in [0, 0.5], default 0
        Those two branches also carry this fraction of the total sample weight.
    pruning : "error-based" (default), None, "pre" or "reduced-error"
    subtree_raising : bool, default True
        Error-based pruning may replace a node by its largest branch.
    epsilon : float, default 0
        A node whose best gain ratio is below epsilon becomes a leaf (Li Hang 2012, algorithm 5.2).
    release8 : bool, default False
        Quinlan's C4.5 release 8 as Weka's J48 (3.6) implements it, beyond the textbook: the gain
        of a continuous test is lowered by the MDL penalty log2(cuts)/|D| (cuts: the admissible
        cut points), each side of a cut needs 0.1 * known weight / classes (clamped to
        [min_samples_leaf, 25]), the threshold is the largest training value not above the
        midpoint, the split information counts unknown values as a branch, a candidate needs
        gain >= average gain - 1e-3 and a positive gain ratio, subtrees that do not lower the
        training error are collapsed before pruning (also with ``pruning=None``, as J48 -U),
        and J48's tolerances decide ties. With the defaults it grows J48's tree
        (``J48 -C 0.25 -M 2``; ``pruning=None`` is ``J48 -U -M 2``; leaf counts and predicted
        distributions included). J48 predicts the first declared class on a tie, and so does
        rootwise when y is a pandas categorical (an ARFF's nominal class) or ``class_order``
        is given: then every prediction is J48's (``tests/test_class_order.py``). One difference
        remains: J48 counts the classes declared in the ARFF header, rootwise the classes
        present in ``y`` (only ``min_split`` depends on it). Release 8 counts rows, not weight,
        where J48 does (rows with a known value for a continuous test, the 0.3 * N rule), so a
        weight is not a repeated row.
    random_state : int, numpy RandomState or None, default 0
        Draws the held-out rows of ``pruning="pre"`` / ``"reduced-error"``; growing and
        error-based pruning draw nothing. The fixed default makes the same call give the same
        tree in every process; None draws from numpy's global generator.
    class_order : sequence of class labels or None, default None
        The order in which a tie between classes at a leaf is broken (as ``CARTClassifier``).
    class_weight : dict, "balanced" or None, default None
        Multiplies the sample weights, as in scikit-learn ("balanced": class k weighs
        n / (K n_k)): the fit with the equivalent ``sample_weight``, whose product the gains,
        the fractional weights of missing values and error-based pruning see.
    """

    _missing = "fractional"
    _own_pruning = ("error-based",)
    _counts_rows = False
    _constraints = {**_COMMON_CONSTRAINTS, "epsilon": [_REAL_FROM_0],
                    "confidence": [Interval(numbers.Real, 0, 1, closed="neither")],
                    "pruning": [StrOptions({*_VALIDATION_PRUNING, "error-based"}), None],
                    "subtree_raising": ["boolean"], "release8": ["boolean"],
                    "class_order": ["array-like", None],
                    "class_weight": [dict, StrOptions({"balanced"}), None]}

    def __init__(self, *, confidence: float = 0.25, min_samples_leaf: Count = 2,
                 min_samples_split: Count = 4, min_weight_fraction_leaf: float = 0.0,
                 max_depth: int | None = None, epsilon: float = 0.0,
                 pruning: str | None = "error-based", subtree_raising: bool = True,
                 release8: bool = False, categorical_features: Columns = "auto",
                 validation_fraction: float = 0.3, prune_on_tie: bool = True,
                 random_state: Seed = 0, n_jobs: int | None = None,
                 class_order: ArrayLike | None = None, class_weight: ClassWeight = None) -> None:
        self.confidence = confidence
        self.min_samples_leaf = min_samples_leaf
        self.min_samples_split = min_samples_split
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_depth = max_depth
        self.epsilon = epsilon
        self.pruning = pruning
        self.subtree_raising = subtree_raising
        self.release8 = release8
        self.categorical_features = categorical_features
        self.validation_fraction = validation_fraction
        self.prune_on_tie = prune_on_tie
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.class_order = class_order
        self.class_weight = class_weight

    def _check_params(self) -> None:
        super()._check_params()
        # error-based pruning takes z = Phi^-1(1 - CF); release 8 keeps CF as a 32-bit float, as
        # J48 does. Both must leave 0 < 1 - CF < 1, or the quantile does not exist.
        c = self.confidence
        cf = float(np.float32(c)) if self.release8 else float(c)
        if not 0.0 < 1.0 - cf < 1.0:
            kept = " as a 32-bit float (release8 keeps J48's float)" if self.release8 else ""
            side, bound = ("small", "confidence >= 1e-16") if c < 0.5 else \
                ("close to 1", "confidence <= 0.9999999")
            raise ValueError(f"C45Classifier: confidence={c!r} is too {side} for the normal "
                             f"quantile z = Phi^-1(1 - confidence) of error-based pruning: 1 - "
                             f"confidence rounds to {1.0 - cf!r}{kept}. Use {bound}.")

    def _policy(self) -> Policy:
        return Policy(criterion="entropy", selection="gain_ratio", categorical_split="multiway",
                      numeric_as_category=False, missing="fractional", epsilon=float(self.epsilon),
                      max_depth=self.max_depth, min_samples_split=float(self.min_samples_split),
                      min_samples_leaf=float(self.min_samples_leaf), min_leaf_rule="two_branches",
                      prune_on_tie=bool(self.prune_on_tie), release8=bool(self.release8))


class _CART(_TreeEstimator):
    """Parameters shared by the CART classifier and regressor."""

    _missing = "surrogate"
    _own_pruning = ("cost-complexity",)
    _constraints = {
        **_COMMON_CONSTRAINTS, **_ROW_COUNTS,
        "min_impurity_decrease": [_REAL_FROM_0], "impurity_threshold": [_REAL_FROM_0],
        "max_leaf_nodes": [Interval(numbers.Integral, 2, None, closed="left"), None],
        "max_surrogates": [Interval(numbers.Integral, 0, None, closed="left")],
        "pruning": [StrOptions({*_VALIDATION_PRUNING, "cost-complexity"}), None],
        "ccp_alpha": [_REAL_FROM_0, StrOptions({"cv-min", "cv-1se"})],
        "cp": [_REAL_FROM_0, None],
        "cv": ["cv_object"],
        "cv_repeats": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "splitter": [StrOptions({"exact", "hist"})],
        "max_bins": [Interval(numbers.Integral, 2, 255, closed="both")],
        "monotonic_cst": ["array-like", dict, None],
    }

    def _check_params(self) -> None:
        super()._check_params()
        r = self.cv_repeats
        if r is not None and r > 1 and not isinstance(self.cv, numbers.Integral):
            raise ValueError(f"{type(self).__name__}: cv_repeats={r} needs an integer cv (the "
                             f"number of folds); give a repeated splitter (RepeatedKFold) as cv "
                             f"instead.")

    def _floor(self, y, w, n_classes, policy) -> float:
        """alpha_0 = cp x R(root) of the training rows."""
        cp = self._cp(len(y))
        if not cp > 0:
            return 0.0
        cost = self._ccp_cost()
        if isinstance(cost, LossCost):  # ``w``: the rows' own weights, without the priors
            W = float(w.sum())
            counts = np.bincount(y, weights=w, minlength=n_classes).reshape(1, -1)
            return cp * float(risk(counts, cost.matrix)[0]) / W if W > 0 else 0.0
        return cp * root_cost(y, w, n_classes, cost, policy.criterion_code)

    def _cp(self, n_rows: int) -> float:
        """``cp``, or with None: AUTO_CP when alpha is chosen by cross-validation on a table of
        LARGE_TABLE rows or more, else 0 (the whole tree)."""
        if self.cp is not None:
            return float(self.cp)
        by_cv = self.pruning == "cost-complexity" and isinstance(self.ccp_alpha, str)
        return AUTO_CP if by_cv and n_rows >= LARGE_TABLE else 0.0

    def _floor_cost(self) -> str:
        return self._ccp_cost()

    def _constrained(self, policy, schema, classes, X) -> Policy:
        cst = _monotonic.resolve(self.monotonic_cst, schema.feature_names,
                                 tables.input_feature_names(X),
                                 [k == CATEGORICAL for k in schema.kinds],
                                 0 if classes is None else len(classes), type(self).__name__)
        return dataclasses.replace(policy, monotonic=cst) if cst else policy

    def _cart_policy(self, criterion: str, **extra) -> Policy:
        return Policy(criterion=criterion, selection="gain", categorical_split="subset",
                      numeric_as_category=False, missing="surrogate", max_depth=self.max_depth,
                      min_samples_split=float(self.min_samples_split),
                      min_samples_leaf=float(self.min_samples_leaf),
                      min_impurity_decrease=float(self.min_impurity_decrease),
                      impurity_threshold=float(self.impurity_threshold),
                      max_leaf_nodes=self.max_leaf_nodes, max_surrogates=int(self.max_surrogates),
                      prune_on_tie=bool(self.prune_on_tie), splitter=self.splitter,
                      max_bins=int(self.max_bins), **extra)

    @deferring
    def cost_complexity_pruning_path(self, X: Table, y: Labels, sample_weight: Weights = None) -> Any:
        """Weakest-link sequence of the unpruned tree: ``ccp_alphas`` and the total leaf impurity
        ``impurities`` (R(T) = sum over leaves of w_t/W * I(t)) of each subtree, as scikit-learn.
        With ``cp`` > 0, from the subtree at alpha_0 = cp x R(root) on (its alpha: alpha_0)."""
        from sklearn.utils import Bunch

        full = self._unpruned_clone().fit(X, y, sample_weight=sample_weight)
        path = floor_path(cost_complexity_path(full.tree_, cost=full._ccp_cost()),
                          full._alpha_floor)
        return Bunch(ccp_alphas=path.alphas, impurities=path.impurities)

    def plot_cp(self, ax: Any = None) -> Any:
        """rpart's plotcp: the CV error of each subtree of the pruning sequence with one-standard-
        error bars, the one-standard-error line and the chosen subtree (matplotlib, ``rootwise[plot]``);
        returns the Axes. Needs ``cp_table_``: alpha chosen by cross-validation."""
        from .export.plot_cp import plot_cp

        return plot_cp(self, ax=ax)

    def _unpruned_clone(self):
        return clone(self).set_params(pruning=None)

    def variable_importance(self, kind: str = "impurity", normalize: bool = True) -> np.ndarray:
        """Importance of each feature, summed over the split nodes t of the fitted tree.

        kind="impurity": the weighted impurity decrease of the feature's own splits,
        w_t I(t) - sum_children w_c I(c) (``feature_importances_`` when normalised).
        kind="rpart": rpart's variable importance, which credits surrogates: the primary's feature
        gets improve(t) and each surrogate's feature improve(t) x its adjusted agreement, where
        improve(t) = w(P) I(P) - w(P_left) I(P_left) - w(P_right) I(P_right) over the rows P whose
        primary value is known (the squared-error tree: the drop of the sum of squares). With unit
        weights and the same tree, the unnormalised values are rpart's ``variable.importance``
        (classification: n times the Gini decrease; regression: ``improve`` times the node
        deviance).

        normalize: divide by the total so the values sum to 1 (rpart's ``summary`` scales to 100).
        """
        check_is_fitted(self, "tree_")
        if kind not in ("impurity", "rpart"):
            raise ValueError(f"{type(self).__name__}: kind must be 'impurity' or 'rpart', got {kind!r}.")
        t = self.tree_
        if kind == "impurity":
            out = _impurity_decrease_per_feature(t, self.n_features_in_)
        else:
            out = np.zeros(self.n_features_in_)
            for node in np.flatnonzero(t.n_children > 0):
                base = max(float(t.improvement[node]), 0.0)
                out[t.feature[node]] += base
                start = int(t.surrogate_offset[node])
                for s in range(start, start + int(t.n_surrogates[node])):
                    out[t.surrogates["feature"][s]] += base * t.surrogates["adjusted_agreement"][s]
        total = out.sum()
        return out / total if normalize and total > 0 else out


class CARTClassifier(_CART, _ClassificationTree):
    """CART classification tree (Breiman et al. 1984): binary splits minimising the Gini index.

        Gini(D) = 1 - sum_k p_k^2,  Gini_index(D, a) = |D1|/|D| Gini(D1) + |D2|/|D| Gini(D2)

    Continuous attributes split at midpoints of adjacent distinct values; categorical attributes
    split into a subset of categories against the rest and may be split again below. A missing
    value follows surrogate splits, else the larger child. Pruned by cost-complexity with alpha
    chosen by cross-validation (Breiman's one-standard-error rule) by default.

    Parameters
    ----------
    criterion : "gini" (default), "entropy" or "log_loss"
        "log_loss" is scikit-learn's name for the entropy criterion; it grows the same tree.
    max_depth, min_samples_split, min_samples_leaf, min_weight_fraction_leaf
    min_impurity_decrease, max_leaf_nodes
        As in scikit-learn. A node with fewer than ``min_samples_split`` rows is not split;
        every child needs at least ``min_samples_leaf`` rows and ``min_weight_fraction_leaf`` of
        the total sample weight. The two counts are rows of positive weight, whatever they
        weigh (as scikit-learn and rpart's minsplit / minbucket count; a row sent down a branch
        by a surrogate counts in it), and a float in (0, 1) is a fraction of the training rows:
        ceil(f n), at least 2 for a split. With unequal sample weights a ``min_samples_leaf``
        above 1 needs ``splitter="exact"`` and continuous columns (binned and categorical
        columns are searched by weight): elsewhere it is refused. A split must lower the total
        impurity, W_t/W * gain, by at least ``min_impurity_decrease``; ``max_leaf_nodes`` grows
        best-first (largest weighted impurity decrease first).
    impurity_threshold : float, default 0
        A node whose impurity is below this is not split (a CART stopping rule).
    max_exhaustive : int, default 12
        Categorical splits with more than two classes try all 2^(m-1) - 1 partitions of the m
        categories present at the node when m <= max_exhaustive (at most 20); above it, a
        heuristic (best prefix of the categories ordered by each class's proportion, then single
        categories moved across while that helps). Two classes need no search: ordering the
        categories by the proportion of the second class is exact (Breiman), linear after sorting.
    pruning : "cost-complexity" (default), None, "pre" or "reduced-error"
    ccp_alpha : float, "cv-min" or "cv-1se" (default)
        A fixed complexity parameter (weakest-link pruning keeps the smallest subtree minimising
        R(T) + alpha |T|, as scikit-learn's ``ccp_alpha``), or chosen inside ``fit``: K-fold
        cross-validation scores every subtree of the weakest-link sequence; "cv-min" takes the
        lowest CV error, "cv-1se" the simplest subtree whose CV error is within one standard error
        of that minimum. The default is "cv-1se" because CART (Breiman et al. 1984) prunes by
        cross-validation, and Breiman et al. (1984, ch. 3) recommend the 1-SE rule: the CV
        error curve is flat and noisy near its minimum, and the rule picks a smaller tree that
        is as accurate within the noise of the estimate. Measured on 16 Weka files (3 x 10-fold
        outer CV, ``benchmarks/README.md``), with the defaults below it averages 82.75% against
        82.62% for "cv-min", with 7.8 leaves against 12.9. The sequence and its CV errors are
        kept in ``cp_table_`` (like rpart's cptable).
    ccp_cost : "misclassification" (default) or "impurity"
        The cost R(t) of node t as a leaf in weakest-link pruning, as a share of the training
        weight W (w_tk: the weight of class k at t):

            "misclassification"   R(t) = (w_t - max_k w_tk) / W     (Breiman et al.'s, rpart's)
            "impurity"            R(t) = w_t / W * I(t)             (scikit-learn's)

        with I the criterion (Gini or entropy). Under "misclassification" a split that leaves
        every predicted class unchanged has alpha 0 and goes first (rpart's cp = 0 drops it while
        growing); ``cost_complexity_pruning_path`` is then in misclassification rates, and under
        "impurity" it is scikit-learn's. The default was chosen by measurement: on the 16 files
        the misclassification cost is ahead in each of the four rule x repeats settings (82.39
        to 82.75% against 82.00 to 82.40%); the CV scores 0/1 error, and the impurity cost
        keeps splits that purify a node without changing its class.
    cp : float or None, default None
        rpart's complexity parameter, a floor alpha_0 = cp x R(root) on alpha that saves time: a
        node with R(t) <= alpha_0 is not split, and the tree is pruned at an alpha of at least
        alpha_0 (a smaller fixed ``ccp_alpha`` counts as alpha_0; cross-validation scores the
        subtrees from T(alpha_0) on, its fold trees grown with the same floor). Nothing above
        the floor changes: a node with R(t) <= alpha is a leaf of T(alpha) anyway, so the fitted
        tree is the one ``cp=0`` gives pruned at max(alpha, alpha_0), and the CV scores of the
        subtrees above alpha_0 are the same (``prune.cost_complexity``). rpart's default is
        ``cp=0.01``; on large tables the CV's choice is usually far below it (the benchmark table
        at 10^5 rows: alpha = 0.0004 = 0.0007 x R(root)). None (the default) is 0 -- the whole
        tree -- except when alpha is chosen by cross-validation on 10,000 training rows or more,
        where it is 1e-4: most of a fully grown tree of that size is nodes far below any alpha
        the CV will choose, and growing them in 11 or 31 trees is most of a default fit. Under
        the misclassification cost a floor of 1e-4 x R(root) can stop only a node with less
        than a ten-thousandth of the root's misclassified weight, so below 10^4 misclassified
        rows it changes nothing. On the benchmark table at 10^5 rows it chose the same trees as
        cp=0 (classifier: 40 leaves with one fold draw, 44 with three; regressor: 114), the
        regressor's default fit in 6.2 s of CPU instead of 19.8 s (``benchmarks/README.md``).
        ``cp=0`` always grows the whole tree.
    cv : int, cross-validation splitter or iterable of (train, test) pairs, default 10
        Folds for ``ccp_alpha="cv-min"`` / ``"cv-1se"``. An integer K gives shuffled K-fold
        (``random_state``), stratified when every class has at least K rows; with fewer than K
        rows, one fold per row. None: scikit-learn's default, 5 folds in order (``check_cv``).
    cv_repeats : int or None, default None (3 with an integer cv below 10,000 rows, else 1)
        Repeated K-fold with an integer ``cv``: R partitions drawn one after the other from
        ``random_state`` (scikit-learn's ``RepeatedStratifiedKFold``; the first is the single
        K-fold of the same seed), R x K trees grown. Row i's 0/1 losses are averaged over its R
        held-out predictions, m_i, and with weights w_i (W = sum w_i)

            cv_error = sum_i w_i m_i / W,   se = sqrt( sum_i w_i (m_i - cv_error)^2 / (W (W - 1)) ),

        the standard error of a mean over rows (rows are the independent draws; repeats remove
        the noise of one fold draw, not the sampling noise, so the SE shrinks only a little).
        None repeats 3 times with an integer ``cv`` on fewer than 10,000 training rows and once
        from 10,000 on, and takes a splitter's (or iterable's) own folds as they are; an integer
        R > 1 needs an integer ``cv``. Three repeats cost 31 trees per fit instead of 11; on the
        16 files (at most 1,500 rows) they raise the 1-SE rule from 82.39% to 82.75% (one fold
        draw moved single files by up to 3.5 points). On large tables a draw barely matters: on
        the benchmark's two-class table five single draws chose 9 leaves at 3 x 10^4 rows, as three
        repeats did, and at 10^5 rows 40-43 leaves (held-out accuracy 83.97-84.13%) against 44
        (84.05%), where three repeats took 3x the time (``benchmarks/README.md``).
    max_surrogates : int, default 5
        Surrogate splits kept per split node (see "Missing values"); 0 sends every row missing
        the primary to the majority branch.
    class_weight : dict, "balanced" or None
        Multiplies the sample weights, as in scikit-learn; the stopping rules see the product.
    loss : K x K array-like, dict of dicts or None, default None
        A loss matrix for cost-sensitive classification, as rpart's ``parms = list(loss = L)``
        (Breiman et al. 1984, §4.4; Therneau and Atkinson's rpart vignette, §4): L[i, j] >= 0
        is the cost of predicting class j for a row of class i, rows and columns in
        ``classes_`` order, zero diagonal; or ``{true label: {predicted label: cost}}``, whose
        missing off-diagonal entries cost 1. The splits are grown under the altered priors
        pi'_i ~ pi_i sum_j L[i, j] (each row of class i weighs w c_i, with sum w c = sum w);
        each node predicts the class of least expected loss argmin_j sum_i w_i(t) L[i, j];
        cost-complexity pruning, its cross-validation and ``cp_table_`` are in loss units
        (R(t) = min_j sum_i w_i(t) L[i, j] / W, with ``ccp_cost="misclassification"``).
        ``predict_proba`` stays the class frequencies; ``loss_matrix_`` holds the matrix.
        Without missing cells the tree and cp table are rpart's (``tests/test_rpart_loss.py``);
        with them, a surrogate's agreement counts the altered weights where rpart's counts the
        rows' own, so a row missing the primary can take another way. Needs ``pruning``
        "cost-complexity" or None.
    random_state : int, numpy RandomState or None, default 0
        Shuffles the cross-validation folds that choose ``ccp_alpha`` (and draws the held-out
        rows of ``pruning="pre"`` / ``"reduced-error"``): the only random draws. The fixed
        default makes the same call give the same tree in every process (another seed may
        choose another alpha, as another fold draw does in rpart's ``xval``); None draws from
        numpy's global generator, as scikit-learn does. Growing a tree is deterministic: ties
        between attributes go to the lowest column index, ties between thresholds to the
        lowest threshold.
    n_jobs : int or None, default None (all cores)
        Threads for cross-validation, histogram binning and prediction (as scikit-learn counts:
        -1 all, n > 0 that many). The fold trees grow side by side while their workspaces
        together fit in the encoded matrix's size, or in 128 MiB on a smaller table: on 10^6
        rows of 20 columns they grow one at a time, which keeps the fit's extra memory near
        twice the matrix (``benchmarks/README.md``). Results never depend on it.
    splitter : "exact" (default) or "hist"
        "exact" tries every midpoint of adjacent distinct values. "hist" first bins each
        continuous column into at most ``max_bins`` bins (numba, binning included in ``fit``) and
        searches per-node histograms of the bins (when every sample weight is 0 or 1, a large
        node's class histogram is kept: the smaller child's is counted and the larger's is the
        parent's less it): much faster on large data. A column with at most
        ``max_bins`` distinct values gets one bin per value, so when every column does, the tree
        is the exact tree (same tests, thresholds, surrogates and counts; with non-integer
        weights or targets, sums taken in another order can break a near-tie differently).
        Otherwise bins hold about equal numbers of rows (quantiles of a sample of at most
        200,000 rows) and a split between two bins sits at the midpoint of the largest training
        value of the left bin and the smallest of the next bin present: a midpoint of real values.
        Categorical columns are read by category code, of any cardinality (subset search as
        exact); missing values get their own bin and are handled by surrogates as above. Every
        pruning and growth option works in the same compiled engine (validation rows of
        ``pruning="pre"`` are binned with the training bins).
    max_bins : int, default 255
        Bins per continuous column for ``splitter="hist"``, 2 to 255 (a missing value takes one
        more code of its own).
    class_order : sequence of class labels or None, default None
        The order in which a tie between classes at a leaf is broken: the first of the tied
        classes in this order is predicted (in ``predict``, the text export and the CV losses).
        Every class of y must be listed; labels that are not classes are skipped. None: a pandas
        categorical y's categories in their declared order (as J48 and rpart break ties with
        declared values), else ``classes_``. ``classes_`` stays sorted either way.
    monotonic_cst : array-like of -1, 0, 1, dict of column name -> -1, 0, 1, or None
        scikit-learn's monotonic constraints, on the probability of the second class of
        ``classes_`` (binary problems only; more classes are refused as scikit-learn refuses
        them): 1, it may only rise as the column's value grows; -1, only fall; 0, free. A split
        on a constrained column whose children's values go the wrong way, or leave the node's
        bounds, is not a candidate; each node's value is clipped to bounds inherited from the
        constrained splits above it, split at the mid-point of their children's values.
        On numeric data without missing values the tree is scikit-learn's. Categorical columns
        cannot be constrained; missing cells are routed as usual, but a constrained column is
        never a surrogate, so predictions stay monotone for rows with missing cells too.
        Pruning keeps them monotone (a pruned node's value lies within its bounds). See
        docs/monotonic.md.

    Attributes
    ----------
    tree_, classes_, n_classes_, n_features_in_, feature_importances_
    class_order_ : ndarray
        ``classes_`` in the order ties are broken.
    cp_table_ : CPTable or None
        With ccp_alpha "cv-min" / "cv-1se": per subtree of the sequence its alpha, leaves,
        training cost R(T), CV error (averaged over the repeats) and its standard error, and the
        chosen row (``cp_table_.to_frame()``); None otherwise, and when there is a single row.

    Missing values (Breiman et al. 1984), as R's rpart (the reference CART; ``tests/test_rpart_parity.py``
    checks splits, surrogates, agreements and predictions against rpart 4.1.19):

    - a candidate split is scored on the rows whose value is known, and its gain is multiplied by
      their share of the node's weight (for Gini: rpart's ``improve`` divided by the node weight;
      ``tree_.improvement`` keeps it in rpart's units);
    - every split node keeps up to ``max_surrogates`` surrogate splits on other attributes, best
      agreement first (ties: lower column). Agreement is the share of the primary-known weight a
      surrogate sends the primary's way (rows missing the surrogate disagree); a surrogate must
      beat the majority rule (adjusted agreement > 0) and send at least two such rows each way.
      Threshold surrogates cut between distinct values of all the node's rows that have them;
    - while fitting, a row missing the primary follows the first surrogate it has a value for,
      else the side with more primary-known weight. At prediction it follows the first surrogate
      it has, else the larger child (more training weight); when both children weigh the same it
      stays at the node and gets the node's distribution. A category without a branch at a node
      (absent there in training, or unseen) is treated as missing. No row is ever dropped: rows
      with every attribute missing are kept, and every child weight adds up to its parent's.

    Deliberate differences from rpart: rpart drops rows with every predictor missing, and leaves
    a row inside a split node when the primary sent equal weight each way (rootwise sends it to
    the side that is heavier after the surrogates, else to the first child); rpart 4.1.19 keeps a
    categorical surrogate only if at least two rows agree and two disagree, which drops exact
    categorical copies of the primary (its code comment says "at least 2 each way", which rootwise
    applies); a surrogate category whose rows split evenly, among surrogate rows that split
    evenly too, goes to the side with more primary-known weight (rpart: to its "right" side, an
    artefact of its left/right convention); thresholds send ``x <= t`` to the first child where
    rpart tests ``x < t`` (they differ only for a value equal to the midpoint);
    and rpart's ``cp = 0`` still removes splits that do not lower the
    misclassification count, where ``pruning=None`` keeps every split.

    ``variable_importance(kind="rpart")`` is rpart's variable importance, which credits the
    surrogates; ``feature_importances_`` is the weighted impurity decrease of each feature's splits.

    On numeric data without missing values, an unpruned tree (``pruning=None``) is the tree of
    scikit-learn's ``DecisionTreeClassifier`` with the same settings whenever no two candidate
    splits tie (scikit-learn breaks ties at random), and ``cost_complexity_pruning_path`` gives
    the same alphas.
    """

    def __init__(self, *, criterion: str = "gini", max_depth: int | None = None,
                 min_samples_split: Count = 2, min_samples_leaf: Count = 1,
                 min_weight_fraction_leaf: float = 0.0, min_impurity_decrease: float = 0.0,
                 impurity_threshold: float = 0.0, max_leaf_nodes: int | None = None,
                 class_weight: ClassWeight = None, max_surrogates: int = 5,
                 max_exhaustive: int = 12, pruning: str | None = "cost-complexity",
                 ccp_alpha: float | str = "cv-1se", ccp_cost: str = "misclassification",
                 cp: float | None = None, cv: int | ArrayLike = 10, cv_repeats: int | None = None,
                 categorical_features: Columns = "auto", validation_fraction: float = 0.3,
                 prune_on_tie: bool = True, random_state: Seed = 0, n_jobs: int | None = None,
                 splitter: str = "exact", max_bins: int = 255,
                 class_order: ArrayLike | None = None, monotonic_cst: Monotonic = None,
                 loss: LossMatrix = None) -> None:
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.impurity_threshold = impurity_threshold
        self.max_leaf_nodes = max_leaf_nodes
        self.class_weight = class_weight
        self.max_surrogates = max_surrogates
        self.max_exhaustive = max_exhaustive
        self.pruning = pruning
        self.ccp_alpha = ccp_alpha
        self.ccp_cost = ccp_cost
        self.cp = cp
        self.cv = cv
        self.cv_repeats = cv_repeats
        self.categorical_features = categorical_features
        self.validation_fraction = validation_fraction
        self.prune_on_tie = prune_on_tie
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.splitter = splitter
        self.max_bins = max_bins
        self.class_order = class_order
        self.monotonic_cst = monotonic_cst
        self.loss = loss

    _constraints = {**_CART._constraints, "criterion": [StrOptions({"gini", "entropy", "log_loss"})],
                    "class_weight": [dict, StrOptions({"balanced"}), None],
                    "loss": ["array-like", dict, None],
                    "max_exhaustive": [Interval(numbers.Integral, 1, _MAX_EXHAUSTIVE_LIMIT,
                                                closed="both")],
                    "ccp_cost": [StrOptions(set(COSTS))], "class_order": ["array-like", None]}
    _auto_repeats = 3  # cv_repeats=None with an integer cv, below LARGE_TABLE rows
    _one_draw_from = LARGE_TABLE

    def _policy(self) -> Policy:
        if self.criterion not in ("gini", "entropy", "log_loss"):
            raise ValueError(f"CARTClassifier: criterion must be 'gini', 'entropy' or 'log_loss', "
                             f"got {self.criterion!r}.")
        # "log_loss" is scikit-learn's name for the entropy criterion: the same impurity
        criterion = "entropy" if self.criterion == "log_loss" else self.criterion
        return self._cart_policy(criterion, max_exhaustive=int(self.max_exhaustive))

    def _prior_weights(self, yt, w, classes):
        """Under ``loss``, each row of class i weighs w c_i while growing (the altered priors,
        ``rootwise.loss``); the pruning's cost is then the loss matrix's risk."""
        if self.loss is None:
            return w, None
        if self.pruning in _VALIDATION_PRUNING:
            raise ValueError(f"CARTClassifier: loss does not go with pruning={self.pruning!r}, "
                             f"which judges subtrees by validation accuracy; use "
                             f"pruning='cost-complexity' (pruned on the loss) or None.")
        if self.pruning == "cost-complexity" and self.ccp_cost != "misclassification":
            raise ValueError(f"CARTClassifier: loss prunes on the expected loss, which generalises "
                             f"ccp_cost='misclassification'; ccp_cost={self.ccp_cost!r} does not "
                             f"go with it.")
        matrix = check_loss(self.loss, classes, "CARTClassifier: loss")
        totals = np.bincount(yt, weights=w, minlength=len(classes))
        c = prior_weights(matrix, totals, classes, "CARTClassifier: loss")
        whole = bool(np.all(w == np.rint(w)))
        return w * c[yt], LossCost(matrix, c, whole)

    def _class_table(self) -> np.ndarray:
        """Per node, the index of the class it predicts (least expected loss under ``loss``)."""
        from .tree.majority import node_classes

        return node_classes(self).astype(np.int64).reshape(-1, 1)

    @property
    def loss_matrix_(self) -> np.ndarray | None:
        """The fitted loss matrix (K x K, rows the true class, columns the predicted one, both in
        ``classes_`` order), or None without ``loss``."""
        check_is_fitted(self, "tree_")
        return self.__dict__.get("_loss_matrix")


def regression_loss(y: np.ndarray, prediction: np.ndarray, criterion: str) -> np.ndarray:
    """Each row's loss under the regression criterion: (y - p)^2, |y - p|, or the half Poisson
    deviance y log(y / p) - y + p (p at least the smallest positive float: a Poisson leaf's
    mean is positive, a median may be 0)."""
    if criterion == "absolute_error":
        return np.abs(y - prediction)
    if criterion == "poisson":
        p = np.maximum(prediction, np.finfo(np.float64).tiny)
        with np.errstate(divide="ignore", invalid="ignore"):
            ylog = np.where(y > 0, y * np.log(np.where(y > 0, y, 1.0) / p), 0.0)
        return ylog - y + p
    return (y - prediction) ** 2


class CARTRegressor(Regressor, _CART):  # the kind before the shared machinery (sklearn's rule)
    """CART regression tree (Breiman et al. 1984, ch. 8): binary splits minimising the squared error

        min_{a,s} [ min_c1 sum_{D1} (y - c1)^2 + min_c2 sum_{D2} (y - c2)^2 ],

    (or another loss, ``criterion``), leaves predicting the weighted mean or median of their rows
    (Breiman et al. 1984). Splits, surrogates, stopping rules (rows, as in scikit-learn),
    pruning, ``splitter`` and ``max_bins`` as in ``CARTClassifier`` (with ``splitter="hist"``
    the node histograms hold sum w, sum w y and sum w y^2 per bin).

    Pruning has one cost, the criterion's: R(t) = w_t / W * I(t) (squared error: sum_{i in t}
    w_i (y_i - mean_t)^2 / W), which is also the loss the CV scores (so there is no
    ``ccp_cost``).

    Parameters
    ----------
    criterion : "squared_error" (default), "poisson" or "absolute_error"
        The impurity I(t) a split lowers, scikit-learn's (W the node's weight):

            squared_error   sum w (y - ybar)^2 / W
            poisson         sum w (y log(y / ybar) - y + ybar) / W  (half the Poisson deviance)
            absolute_error  sum w |y - median| / W  (least absolute deviation, Breiman et al.
                            1984, ch. 8.11)

        "poisson" needs y >= 0 with a positive sum, and makes no split that leaves a side
        without a positive sum. A categorical column's subset test is searched over every
        partition of up to 12 categories present at the node with "poisson" and
        "absolute_error" (the order of the categories by mean is exact for the squared error
        only); above that, over the prefixes of the categories ordered by mean ("poisson") or
        median ("absolute_error"). "absolute_error" does not go with ``splitter="hist"``.
    leaf_value : "mean", "median" or None (default)
        What a leaf predicts; None: the criterion's own (the median for "absolute_error", as
        scikit-learn, else the mean).
    ccp_alpha : float, "cv-min" (default) or "cv-1se"
        As in ``CARTClassifier``, but the default is the lowest CV error. The 1-SE rule prunes
        small regression tables far too hard: squared errors are heavy-tailed (on Weka's cpu
        files the 5% of rows farthest from the mean hold 70-80% of the sum of squares), so the
        standard error is 22-64% of the CV error itself, and the rule accepts subtrees of 3-10
        leaves whose CV error is 14-47% above the minimum (``cart_accuracy.py --study-one-se``).
        Measured on seven regression tables (Weka's cpu and cpu.with.vendor, rpart's
        car.test.frame, cu.summary and car90, R's airquality, scikit-learn's diabetes; 3 x 10-fold
        outer CV), "cv-min" averages an RMSE of 0.641 x that of predicting the mean, against 0.662
        for "cv-1se", rpart's 0.743 and scikit-learn's ccp_alpha by 10-fold CV 0.644.
    cp : float or None, default None
        As in ``CARTClassifier``, with R(t) the squared-error cost SS_t / W (None: 1e-4 when
        alpha is chosen by cross-validation on 10,000 rows or more, else 0). Squared errors
        are heavy-tailed, so on small tables the floor can bind: with 1e-4 on every table,
        Weka's cpu files chose other trees (outer-CV SSE 0.6% lower on cpu, 0.9% higher on
        cpu.with.vendor; the five others unchanged), which is why it waits for 10,000 rows.
    cv_repeats : int or None, default 1
        As in ``CARTClassifier`` (None: one repeat). One repeat: on the seven tables three
        repeats did not help (0.647 with "cv-min") and cost three times the trees.
    random_state : int, numpy RandomState or None, default 0
        As in ``CARTClassifier``: shuffles the cross-validation folds (and the held-out rows of
        ``pruning="pre"`` / ``"reduced-error"``); the fixed default makes every process grow
        the same tree.
    monotonic_cst : array-like of -1, 0, 1, dict of column name -> -1, 0, 1, or None
        As in ``CARTClassifier``, on the predicted value (with ``leaf_value="median"`` the splits
        and bounds follow the means and each median is clipped to its node's bounds).
    """

    _constraints = {**_CART._constraints, "leaf_value": [StrOptions({"mean", "median"}), None],
                    "criterion": [StrOptions(set(REGRESSION_CRITERIA))]}
    _regression = True
    _auto_repeats = 1  # cv_repeats=None
    _one_draw_from = 0

    def __init__(self, *, criterion: str = "squared_error", leaf_value: str | None = None,
                 max_depth: int | None = None, min_samples_split: Count = 2,
                 min_samples_leaf: Count = 1, min_weight_fraction_leaf: float = 0.0,
                 min_impurity_decrease: float = 0.0, impurity_threshold: float = 0.0,
                 max_leaf_nodes: int | None = None, max_surrogates: int = 5,
                 pruning: str | None = "cost-complexity", ccp_alpha: float | str = "cv-min",
                 cp: float | None = None, cv: int | ArrayLike = 10, cv_repeats: int | None = 1,
                 categorical_features: Columns = "auto", validation_fraction: float = 0.3,
                 prune_on_tie: bool = True, random_state: Seed = 0, n_jobs: int | None = None,
                 splitter: str = "exact", max_bins: int = 255,
                 monotonic_cst: Monotonic = None) -> None:
        self.criterion = criterion
        self.leaf_value = leaf_value
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.impurity_threshold = impurity_threshold
        self.max_leaf_nodes = max_leaf_nodes
        self.max_surrogates = max_surrogates
        self.pruning = pruning
        self.ccp_alpha = ccp_alpha
        self.cp = cp
        self.cv = cv
        self.cv_repeats = cv_repeats
        self.categorical_features = categorical_features
        self.validation_fraction = validation_fraction
        self.prune_on_tie = prune_on_tie
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.splitter = splitter
        self.max_bins = max_bins
        self.monotonic_cst = monotonic_cst

    def _policy(self) -> Policy:
        if self.leaf_value not in ("mean", "median", None):
            raise ValueError(f"CARTRegressor: leaf_value must be 'mean', 'median' or None, got "
                             f"{self.leaf_value!r}.")
        if self.criterion not in REGRESSION_CRITERIA:
            raise ValueError(f"CARTRegressor: criterion must be one of {REGRESSION_CRITERIA}, "
                             f"got {self.criterion!r}.")
        if self.criterion == "absolute_error" and self.splitter == "hist":
            raise ValueError("CARTRegressor: criterion='absolute_error' needs splitter='exact': "
                             "a bin's sums do not give the medians of the rows on either side "
                             "of a cut.")
        if self.criterion != "squared_error" and self.monotonic_cst is not None:
            raise ValueError(f"CARTRegressor: monotonic_cst goes with criterion='squared_error' "
                             f"only (the constrained search scores cuts by the squared error), "
                             f"got criterion={self.criterion!r}.")
        leaf = self.leaf_value
        if leaf is None:
            leaf = "median" if self.criterion == "absolute_error" else "mean"
        return self._cart_policy(self.criterion, leaf_value=leaf)

    def _check_targets(self, y, w) -> None:
        """Poisson regression needs counts or rates: y >= 0 with a positive sum (scikit-learn's
        checks and words)."""
        if self.criterion != "poisson":
            return
        if np.any(y < 0):
            raise ValueError("CARTRegressor: Some value(s) of y are negative which is not "
                             "allowed for Poisson regression.")
        if not np.sum(y[w > 0]) > 0:
            raise ValueError("CARTRegressor: Sum of y is not positive which is necessary for "
                             "Poisson regression.")

    @deferring
    def predict(self, X: Table) -> np.ndarray:
        """The value (mean or median of the training rows) of the node each row ends in."""
        if _dask(X):
            from .dask import lazy

            return lazy(self, X, "predict")
        check_is_fitted(self, "tree_")
        return self._route(X, self.tree_.value)[1].reshape(-1)  # value has one column here
