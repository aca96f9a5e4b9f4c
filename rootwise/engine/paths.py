"""The code paths a fit takes, as arguments that are None where the fit never takes the path.

numba prunes a branch on ``x is None`` (or ``x is not None``) before it types a kernel when x is
an argument typed None (its dead-branch pruning; an argument of any other type is left to run
time). So the code of a path the fit does not take, and every kernel only that code calls, is
neither typed nor compiled when it sits under ``if path is not None:``. One engine holds every
algorithm as branches: without this, a first fit of ID3 compiled CART's subset search, the
regression scans and release 8 as well. With it, the growth loop is specialised per combination
the estimators use (CART classifier and regressor, ID3, C4.5, release 8), each compiled on its
first use and cached like any other kernel.

    reg     regression                                  clf     classification
    multi   a test per category (ID3, C4.5)             subset  a binary subset test (CART)
    frac    C4.5's fractional rows (missing values)     surr    CART's surrogate splits
    r8      C4.5 release 8 (J48)
    sortd   columns searched presorted (SORTED)          coded   columns searched by their codes
                                                                 (BINNED or WIDE: categories, bins)

Both sides of an either-or have a switch of their own, because only a None switch prunes: code
for regression sits under ``reg is not None``, code for classification under
``clf is not None``. ``params`` still says the same for kernels no switch reaches. The switches
must be direct arguments: numba prunes on an argument's type only, not on a bundle's field.
"""

from typing import NamedTuple

import numpy as np

from .bundles import MISSING_FRACTIONAL, MISSING_SURROGATE, SORTED


class Paths(NamedTuple):
    reg: object
    clf: object
    multi: object
    subset: object
    frac: object
    surr: object
    r8: object
    sortd: object
    coded: object


def _on(flag) -> object:
    return True if flag else None


def paths_of(params, search) -> Paths:
    """The switches of a fit with ``params`` (``bundles.Params``) on columns searched as
    ``search`` says (``bundles.Features.search``): True where taken, else None."""
    search = np.asarray(search)
    return Paths(_on(params.regression), _on(not params.regression), _on(params.multiway),
                 _on(not params.multiway), _on(params.missing == MISSING_FRACTIONAL),
                 _on(params.missing == MISSING_SURROGATE), _on(params.release8),
                 _on(np.any(search == SORTED)), _on(np.any(search != SORTED)))
