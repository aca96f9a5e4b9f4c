"""The column labels of the table fit saw, and the check that a prediction table has the same.

scikit-learn compares column names only when they are all strings (``feature_names_in_``): a
DataFrame labelled ``[0, 1, 2]``, ``[10, 20, 30]`` or ``['a', 1, 2.5]`` counts as having no
names, so its columns reordered or renamed would be taken by position, silently. A tree reads
its columns by position, and each categorical column's categories belong to one column, so a
reordered table would be read with the wrong tests and categories. rootwise therefore keeps the
labels of any DataFrame it was fitted on, and refuses a DataFrame whose labels differ (other
labels, or the same in another order). Tables whose names are all strings on both sides get
scikit-learn's own check and messages (``tables.check_feature_names``), as do its warnings for
a table with string names given to a model fitted without, and the reverse.
"""

from __future__ import annotations

from .frames import foreign_names
from .tables import check_feature_names, input_feature_names, is_pandas
from .values import plain

# the fitted labels of a model that does not record them (a model file, an older pickle)
UNKNOWN = "unknown"


def labels_of(X) -> tuple | None:
    """The column labels of a DataFrame (pandas, polars, pyarrow), as plain Python values; None
    for any other table."""
    if not is_pandas(X, "DataFrame"):
        return foreign_names(X)
    return tuple(plain(c) for c in X.columns)


def same_label(a, b) -> bool:
    """Two labels are the same when equal and of one kind: 1 and 1.0 are, 1 and "1" or True
    and 1 are not."""
    return a == b and (type(a) is type(b) or (_number(a) and _number(b)))


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_columns(fitted, names_in, X, estimator_name: str, what: str = "X") -> None:
    """Refuse a table ``X`` whose columns are not the ones fit saw, in the same order.

    ``fitted``: the labels of the DataFrame fit saw (``labels_of``), None when fit saw another
    table, ``UNKNOWN`` when not recorded; ``names_in``: the model's ``feature_names_in_`` or None.

    - DataFrames on both sides: the same labels in the same order (scikit-learn's check when
      both are all strings);
    - one side not a DataFrame: taken by position, with scikit-learn's warnings -- except a
      DataFrame labelled 0..n-1 in another order for a model fitted on an array: that is the
      array's columns reordered, and refused."""
    given = labels_of(X)
    if given is not None and isinstance(fitted, tuple):
        if names_in is not None and input_feature_names(X) is not None:
            check_feature_names(names_in, X, estimator_name)  # both all strings
        elif not (len(fitted) == len(given) and all(map(same_label, fitted, given))):
            _refuse_other_columns(fitted, given, what)
        return
    if given is not None and fitted is None:
        _refuse_reordered_positions(given, estimator_name, what)
    check_feature_names(names_in, X, estimator_name)


def _refuse_other_columns(fitted: tuple, given: tuple, what: str):
    unseen = [c for c in given if not any(same_label(c, f) for f in fitted)]
    missing = [c for c in fitted if not any(same_label(c, g) for g in given)]
    message = (f"The columns of {what} should be those passed during fit, in the same order: "
               f"the model reads columns by position and keeps categories per column.\n")
    if unseen:
        message += "Columns unseen at fit time:\n" + _listing(unseen)
    if missing:
        message += "Columns seen at fit time, yet now missing:\n" + _listing(missing)
    if not unseen and not missing:
        message += f"They are in another order: at fit {_short(fitted)}, now {_short(given)}.\n"
    raise ValueError(message)


def _refuse_reordered_positions(given: tuple, estimator_name: str, what: str) -> None:
    """A model fitted on an array knows its columns as positions 0..n-1: a DataFrame labelled
    with those positions in another order (``pd.DataFrame(X)[[2, 0, 1]]``) is refused."""
    if not all(_number(c) and float(c).is_integer() for c in given):
        return
    positions = [int(c) for c in given]
    n = len(positions)
    if sorted(positions) == list(range(n)) and positions != list(range(n)):
        raise ValueError(f"{what}'s columns are labelled {_short(given)}, but {estimator_name} "
                         f"was fitted on a table without column labels, whose columns are the "
                         f"positions 0..{n - 1} in order: put the columns back in that order.")


def _short(labels) -> str:
    shown = ", ".join(repr(c) for c in labels[:8])
    return f"[{shown}{', ...' if len(labels) > 8 else ''}]"


def _listing(labels) -> str:
    shown = "".join(f"- {c!r}\n" for c in labels[:5])
    return shown + ("- ...\n" if len(labels) > 5 else "")
