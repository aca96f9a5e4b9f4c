"""The fields of a model document (``model_file``), each read and checked before anything uses it.

Every reader raises ``FieldError`` whose message starts with the field (``schema.categories[3]``,
``tree.branch_fraction``, ...) and says what was expected. What is checked, beyond the types:

- params: the estimator's own parameter checks;
- schema: feature names are distinct strings, kinds known, each categorical feature's categories
  distinct scalars (not NaN), and the tree's category counts are the schema's;
- classes: a non-empty array of distinct labels (not NaN), one per column of the tree's values;
- reports: records of the known types, their fields of their declared types, arrays of one record
  as long as each other;
- tree: ``Tree.validate`` (every index, count, weight and branch fraction) and
  ``integrity.check_fitted`` (fractions summing to 1 at each split); no infinite number in any
  of its arrays (save could not write it back); threshold tests only on continuous features; a
  classifier's class counts non-negative with a positive, finite sum at
  every node (``predict_proba`` divides by it);
- the estimator: the tree is one its algorithm grows (``check_grown_by``), so that a file whose
  ``estimator`` field was changed cannot load a C4.5 tree as CART, whose walk and exports would
  then disagree with each other.

Nothing is allocated from a count or a width read from the file before it is compared with the
size of the file (``max_bytes``): a list of 10^4 class labels declared as ``<U999999`` would take
40 GB.
"""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np

from .._config import (
    CATEGORICAL,
    CONTINUOUS,
    LEAF,
    MISSING_FRACTIONAL,
    MISSING_STOP,
    MULTIWAY,
    SUBSET,
    THRESHOLD,
)
from ..input.schema import Schema
from ..tree import NODE_FIELDS, SURROGATE_FIELDS, Tree
from ..tree.integrity import check_fitted
from ..tree.plain import describe

SCHEMA_KEYS = ("feature_names", "kinds", "categories", "names_from_input")
TREE_KEYS = (*NODE_FIELDS, "value", "pool", "n_categories", "surrogates")
# numpy dtypes an array in a file may have (dtype.str): bool, integers, floats, unicode, object
_DTYPE = re.compile(r"[<>|=]?(b1|[iu][1248]|f[248]|U[0-9]{1,6}|O)")
# the Python types each dtype kind is written from (bool is an int in Python, not here)
_DTYPE_VALUES = {"b": (bool,), "i": (int,), "u": (int,), "f": (float, int), "U": (str,),
                 "O": (str, bool, int, float)}


class FieldError(Exception):
    """A field of a model document is wrong (the message says which and how)."""


# --------------------------------------------------------------------------- plain values


def check_keys(d, keys, what: str) -> None:
    """``d`` is a JSON object with exactly the fields ``keys``."""
    if not isinstance(d, dict):
        raise FieldError(f"{what} is not a JSON object")
    missing = [k for k in keys if k not in d]
    if missing:
        raise FieldError(f"{what} has no field {missing[0]!r}")
    extra = [k for k in d if k not in keys]
    if extra:
        raise FieldError(f"{what} has an unknown field {describe(extra[0])}")


def scalar(v, what: str):
    """A label, category or parameter: a string, number or boolean; ``{"float": "nan"}`` (or
    "inf", "-inf") for the floats JSON cannot write."""
    if isinstance(v, (str, bool, int, float)):
        return v
    if isinstance(v, dict) and list(v) == ["float"] and v["float"] in ("nan", "inf", "-inf"):
        return float(v["float"])
    raise FieldError(f"{what} holds {describe(v)}, which is not a string, number or boolean")


def _list(v, what: str) -> list:
    if not isinstance(v, list):
        raise FieldError(f"{what} is not a list")
    return v


def _is_nan(v) -> bool:
    return isinstance(v, float) and math.isnan(v)


def _distinct(values: list, what: str, noun: str) -> None:
    """No NaN (it never equals itself: not a label) and no value twice. Equality is Python's, as
    when a table is encoded: 1, 1.0 and True are one category."""
    for v in values:
        if _is_nan(v):
            raise FieldError(f"{what} holds NaN, which is not a {noun}")
    if len(set(values)) != len(values):
        seen = set()
        for v in values:
            if v in seen:
                raise FieldError(f"{what} holds the {noun} {describe(v)} twice (labels that compare "
                                 "equal, such as 1, 1.0 and True, are one)")
            seen.add(v)


def array(d, what: str, kinds: str, max_bytes: int) -> np.ndarray:
    """A 1-D array written as {"dtype": ..., "values": [...]}; ``kinds``: the dtype kinds accepted
    here; ``max_bytes``: the most the array may take."""
    check_keys(d, ("dtype", "values"), what)
    dtype = d["dtype"]
    if not isinstance(dtype, str) or not _DTYPE.fullmatch(dtype) or np.dtype(dtype).kind not in kinds:
        raise FieldError(f"{what}.dtype: {describe(dtype)} is not a dtype rootwise reads here "
                         f"(kinds {', '.join(kinds)})")
    dt = np.dtype(dtype)
    raw = _list(d["values"], f"{what}.values")
    if len(raw) * dt.itemsize > max_bytes:
        raise FieldError(f"{what}: {len(raw)} values of dtype {dtype!r} would take "
                         f"{len(raw) * dt.itemsize} bytes, more than {max_bytes} (8 bytes per "
                         "byte of the file)")
    values = [scalar(v, f"{what}.values") for v in raw]
    allowed = _DTYPE_VALUES[dt.kind]
    for v in values:
        if type(v) not in allowed or (dt.kind == "U" and len(v) > dt.itemsize // 4):
            raise FieldError(f"{what}.values holds {describe(v)}, which does not fit dtype {dtype!r}")
    out = np.empty(len(values), dtype=dt)
    try:
        out[:] = values
    except (OverflowError, ValueError):
        raise FieldError(f"{what}.values: values do not fit dtype {dtype!r}") from None
    return out


# --------------------------------------------------------------------------- the fields


def read_params(cls, params):
    """An unfitted ``cls`` with the file's parameters, checked as ``fit`` checks them."""
    if not isinstance(params, dict):
        raise FieldError("params is not a JSON object")
    accepted = cls().get_params(deep=False)
    values = {}
    for key, v in params.items():
        if key not in accepted:
            raise FieldError(f"params: {cls.__name__} has no parameter {describe(key)}")
        if v is None:
            values[key] = None
        elif isinstance(v, list):
            values[key] = [scalar(x, f"params.{key}") for x in v]
        elif isinstance(v, dict) and "mapping" in v:
            values[key] = _mapping(v, f"params.{key}")
        else:
            values[key] = scalar(v, f"params.{key}")
    model = cls(**values)
    check = getattr(model, "_check_params", None)
    if check is not None:
        try:
            check()
        except (ValueError, TypeError, OverflowError) as e:
            text = str(e)  # it quotes the value, which a corrupt file can make megabytes long
            raise FieldError(f"params: {text if len(text) <= 300 else text[:297] + '...'}") from None
    return model


def _mapping(v, what: str) -> dict:
    """A dict parameter (class_weight), written {"mapping": [[key, value], ...]}."""
    check_keys(v, ("mapping",), what)
    pairs = _list(v["mapping"], f"{what}.mapping")
    out = {}
    for pair in pairs:
        if not isinstance(pair, list) or len(pair) != 2:
            raise FieldError(f"{what}.mapping holds {describe(pair)}, not a [key, value] pair")
        key = scalar(pair[0], f"{what}.mapping")
        if key in out:
            raise FieldError(f"{what}.mapping lists the key {describe(key)} twice")
        out[key] = scalar(pair[1], f"{what}.mapping")
    return out


def read_schema(d) -> Schema:
    # "missing" (which columns had missing cells in training) is optional: older files lack it
    check_keys(d, SCHEMA_KEYS + (("missing",) if isinstance(d, dict) and "missing" in d else ()),
               "schema")
    names = _list(d["feature_names"], "schema.feature_names")
    kinds = _list(d["kinds"], "schema.kinds")
    cats = _list(d["categories"], "schema.categories")
    if not names:
        raise FieldError("schema.feature_names: the schema has no features")
    if not set(map(type, names)) <= {str}:
        raise FieldError("schema.feature_names holds a value that is not a string")
    _distinct(names, "schema.feature_names", "feature name")
    if len(kinds) != len(names) or len(cats) != len(names):
        raise FieldError(f"schema has {len(names)} feature names, {len(kinds)} kinds and "
                         f"{len(cats)} category lists")
    categories = []
    for j, (kind, c) in enumerate(zip(kinds, cats, strict=True)):
        if type(kind) is not int or kind not in (CONTINUOUS, CATEGORICAL):
            raise FieldError(f"schema.kinds[{j}] is {describe(kind)}, not {CONTINUOUS} "
                             f"(continuous) or {CATEGORICAL} (categorical)")
        what = f"schema.categories[{j}]"
        if kind == CONTINUOUS:
            if c is not None:
                raise FieldError(f"{what} should be null for a continuous feature")
            categories.append(None)
            continue
        values = [scalar(v, what) for v in _list(c, what)]
        _distinct(values, what, "category")
        categories.append(tuple(values))
    if not isinstance(d["names_from_input"], bool):
        raise FieldError("schema.names_from_input is not true or false")
    missing = d.get("missing")
    if missing is not None:
        missing = _list(missing, "schema.missing")
        if len(missing) != len(names) or not set(map(type, missing)) <= {bool}:
            raise FieldError(f"schema.missing should be {len(names)} true / false values, one per "
                             f"feature")
        missing = tuple(missing)
    return Schema(tuple(names), tuple(kinds), tuple(categories), d["names_from_input"], missing)


def read_classes(d, max_bytes: int) -> np.ndarray:
    classes = array(d, "classes", "biufUO", max_bytes)
    if len(classes) == 0:
        raise FieldError("classes is empty")
    _distinct(classes.tolist(), "classes", "class label")
    return classes


def read_reports(d, attributes: tuple, records: dict, max_bytes: int) -> dict:
    """attribute -> None, a record or a list of records; ``records``: name -> dataclass of the
    record types a file may name."""
    if not isinstance(d, dict) or any(k not in attributes for k in d):
        raise FieldError(f"reports must be an object with fields among {', '.join(attributes)}")
    out = {}
    for key, v in d.items():
        what = f"reports.{key}"
        if v is None:
            out[key] = None
        elif isinstance(v, list):
            out[key] = [_record(x, f"{what}[{i}]", records, max_bytes) for i, x in enumerate(v)]
        else:
            out[key] = _record(v, what, records, max_bytes)
    return out


def _record(v, what: str, records: dict, max_bytes: int):
    check_keys(v, ("type", "fields"), what)
    cls = records.get(v["type"]) if isinstance(v["type"], str) else None
    if cls is None:
        raise FieldError(f"{what}: unknown report type {describe(v['type'])}")
    fields = dataclasses.fields(cls)
    check_keys(v["fields"], tuple(f.name for f in fields), f"{what}.fields")
    values = {f.name: _record_field(v["fields"][f.name], f.type, f"{what}.{f.name}", max_bytes)
              for f in fields}
    arrays = {name: len(x) for name, x in values.items() if isinstance(x, np.ndarray)}
    if len(set(arrays.values())) > 1:
        raise FieldError(f"{what}: its arrays have different lengths ({arrays})")
    chosen = values.get("chosen")  # a row of the arrays (CPTable)
    if arrays and chosen is not None and not 0 <= chosen < next(iter(arrays.values())):
        raise FieldError(f"{what}.chosen is {chosen}, not a row of its {next(iter(arrays.values()))}")
    return cls(**values)


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
# a report field's annotation -> (what it must be, test)
_RECORD_TYPES = {
    "int": ("an integer", lambda x: type(x) is int),
    "float": ("a number", lambda x: type(x) in (int, float)),
    "bool": ("true or false", lambda x: type(x) is bool),
    "str": ("a string", lambda x: type(x) is str),
}


def _record_field(x, annotation, what: str, max_bytes: int):
    if not isinstance(annotation, str):  # a module without postponed annotations
        annotation = annotation.__name__
    if annotation in ("np.ndarray", "ndarray"):
        return array(x, what, "biuf", max_bytes)
    expected, test = _RECORD_TYPES[annotation]
    value = scalar(x, what)
    if not test(value):
        raise FieldError(f"{what} holds {describe(value)}, expected {expected}")
    if annotation == "int" and not _INT64_MIN <= value <= _INT64_MAX:
        raise FieldError(f"{what} holds {describe(value)}, beyond a 64-bit integer")
    if annotation == "float":
        try:
            return float(value)
        except OverflowError:  # an integer past float64's range
            raise FieldError(f"{what} holds {describe(value)}, beyond a float64") from None
    return value


def read_tree(d, schema: Schema, classes) -> Tree:
    """The tree, checked alone (``Tree.validate``, ``check_fitted``) and against the schema and
    the classes (``classes`` None: a regressor)."""
    check_keys(d, TREE_KEYS, "tree")
    check_keys(d["surrogates"], tuple(SURROGATE_FIELDS), "tree.surrogates")
    try:
        tree = Tree.from_dict(d)
        check_fitted(tree)
    except (ValueError, TypeError, OverflowError) as e:
        raise FieldError(f"corrupt tree: {e}") from None
    _check_finite(tree)
    _check_tree_fits(tree, schema, classes)
    return tree


def _check_finite(tree: Tree) -> None:
    """No float of the tree is infinite. JSON has no infinity, so a model holding one could not
    be saved again; yet Python's json reads an overflowing literal such as 1e999 as one, and a
    field that no walk reads (the threshold of a subset test) would carry it unchecked."""
    arrays = [(f"tree.{name}", "node", getattr(tree, name)) for name in NODE_FIELDS]
    arrays.append(("tree.value", "node", tree.value))
    arrays += [(f"tree.surrogates.{name}", "surrogate row", tree.surrogates[name])
               for name in SURROGATE_FIELDS]
    for what, row, arr in arrays:
        if arr.dtype.kind != "f":
            continue
        bad = np.isinf(arr)
        if bad.any():
            i = int(np.flatnonzero(bad.reshape(len(arr), -1).any(axis=1))[0])
            raise FieldError(f"{what}: {row} {i} holds an infinite number, which a model file "
                             "cannot hold")


def _check_tree_fits(tree: Tree, schema: Schema, classes) -> None:
    if not np.array_equal(tree.n_categories, schema.n_categories):
        raise FieldError(f"corrupt tree: tree.n_categories: its category counts "
                         f"{describe(tree.n_categories.tolist())} disagree with the schema's "
                         f"{describe(schema.n_categories.tolist())}")
    continuous = schema.kinds_array == CONTINUOUS
    nodes = np.flatnonzero(tree.kind == THRESHOLD)
    bad = ~continuous[tree.feature[nodes]]
    if bad.any():
        node = int(nodes[np.flatnonzero(bad)[0]])
        raise FieldError(f"corrupt tree: tree.feature: a threshold test on a categorical feature "
                         f"(node {node}, {describe(schema.feature_names[tree.feature[node]])})")
    sur = tree.surrogates
    rows = np.flatnonzero(sur["kind"] == THRESHOLD)
    bad = ~continuous[sur["feature"][rows]]
    if bad.any():
        raise FieldError(f"corrupt tree: tree.surrogates.feature: a threshold test on a "
                         f"categorical feature (surrogate row {int(rows[np.flatnonzero(bad)[0]])})")
    value = tree.value
    if classes is None:
        if value.shape[1] != 1:
            raise FieldError(f"corrupt tree: tree.value: a regression tree's value has "
                             f"{value.shape[1]} columns, expected 1")
        return
    if value.shape[1] != len(classes):
        raise FieldError(f"corrupt tree: tree.value: value has {value.shape[1]} columns for "
                         f"{len(classes)} classes")
    negative = (value < 0).any(axis=1)
    if negative.any():
        raise FieldError(f"corrupt tree: tree.value: a node's class counts are negative (node "
                         f"{int(np.flatnonzero(negative)[0])})")
    with np.errstate(over="ignore"):  # a sum past float64's range is refused just below
        total = value.sum(axis=1)
    bad = ~(total > 0) | ~np.isfinite(total)
    if bad.any():
        node = int(np.flatnonzero(bad)[0])
        raise FieldError(f"corrupt tree: tree.value: a node's class counts are all zero or sum "
                         f"to infinity (node {node}: sum {total[node]}); predict_proba divides by "
                         "their sum")


# --------------------------------------------------------------------------- the estimator

_TEST_NAMES = {LEAF: "leaf", THRESHOLD: "threshold test", MULTIWAY: "multiway test",
               SUBSET: "category subset test"}
# a policy's missing-value strategy -> (what its split nodes do with a missing value, test)
_MISSING_ROUTES = {
    "error": ("stop there (ID3 has no missing values)", lambda mb: mb == MISSING_STOP),
    "fractional": ("go down every branch with weight r_v (C4.5)",
                   lambda mb: mb == MISSING_FRACTIONAL),
    "surrogate": ("go to a child after the surrogates, or stop on a tie (CART)",
                  lambda mb: mb != MISSING_FRACTIONAL),
}


def check_grown_by(model, tree: Tree, schema: Schema) -> None:
    """``tree`` and ``schema`` are what ``model``'s algorithm grows, read from its ``Policy``:
    the split shapes (multiway or subset tests on categories; threshold tests unless every
    feature is made categorical, as ID3 does), where a missing value goes at a split, and
    surrogate splits only for CART. Another estimator's tree would load and predict by rules it
    was not grown for (a C4.5 tree read as CART stops its missing values instead of weighing
    the branches), and its SQL and rules would disagree with its predict."""
    name = type(model).__name__
    name = f"{'an' if name[0] in 'AEIOU' else 'a'} {name}"
    try:
        policy = model._policy()
    except (ValueError, TypeError) as e:
        raise FieldError(f"params: {e}") from None
    if policy.numeric_as_category:
        continuous = np.flatnonzero(schema.kinds_array == CONTINUOUS)
        if continuous.size:
            j = int(continuous[0])
            raise FieldError(f"schema.kinds[{j}]: feature {describe(schema.feature_names[j])} is "
                             f"continuous, but {name} makes every feature categorical; the "
                             "estimator field does not match the model")
    allowed = {LEAF, MULTIWAY if policy.categorical_split == "multiway" else SUBSET}
    if not policy.numeric_as_category:
        allowed.add(THRESHOLD)
    bad = ~np.isin(tree.kind, sorted(allowed))
    if bad.any():
        node = int(np.flatnonzero(bad)[0])
        shown = ", ".join(_TEST_NAMES[k] for k in sorted(allowed - {LEAF}))
        raise FieldError(f"tree.kind: node {node} is a {_TEST_NAMES.get(int(tree.kind[node]), 'node')}, "
                         f"which {name} never grows (it grows {shown}); the estimator field "
                         "does not match the tree")
    expected, test = _MISSING_ROUTES[policy.missing]
    splits = np.flatnonzero(tree.kind != LEAF)
    routes = tree.missing_branch[splits]
    bad = ~test(routes)
    if bad.any():
        node = int(splits[np.flatnonzero(bad)[0]])
        raise FieldError(f"tree.missing_branch: node {node} has {int(tree.missing_branch[node])}, "
                         f"but at a split of {name} a missing value should {expected}; the "
                         "estimator field does not match the tree")
    if policy.missing != "surrogate" and (tree.n_surrogates.any() or len(tree.surrogates["feature"])):
        nodes = np.flatnonzero(tree.n_surrogates)
        where = f"node {int(nodes[0])} has" if nodes.size else "the tree has"
        raise FieldError(f"tree.surrogates: {where} surrogate splits, which {name} never "
                         "grows (CART's); the estimator field does not match the tree")
