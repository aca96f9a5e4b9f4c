"""rootwise: classic decision trees (ID3, C4.5, CART), faithful to the textbook, fast and safe.

``import rootwise`` loads the estimators only: numpy and numba, not scikit-learn, pandas or the
parts of scipy rootwise uses (numba itself imports scipy's top-level package).
Datasets, saving and loading, and export are imported on first use (PEP 562 module
``__getattr__``), so ``rootwise.save`` and ``from rootwise import datasets`` work as before;
explain and pruning_report are bound at import (both light: explain imports pandas inside its
functions).
"""

from importlib import import_module as _import_module
from typing import TYPE_CHECKING

from . import (
    _compile_notice,  # noqa: F401  (a line on stderr while kernels compile)
    _jit,  # noqa: F401  (drops numba cache files older than the kernels)
    _shipped,  # noqa: F401  (kernels precompiled in the wheel, where they apply)
)
from .estimators import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier

# Functions named like their own module are bound now: importing the submodule (which anyone may
# do) sets the package attribute to the module, and only a later binding puts the function back.
# Both modules are light (pandas is imported inside explain's functions).
from .explain import explain, format_table, node_weights
from .prune.report import pruning_report

# public name -> (module, attribute; None for the module itself), imported when first asked for
_LAZY = {
    "datasets": (".datasets", None),  # reads CSV files with pandas
    "ModelFileError": (".export.model_file", "ModelFileError"),
    "load": (".export.model_file", "load"),
    "save": (".export.model_file", "save"),
    "export_graphviz": (".export", "export_graphviz"),
    "export_rules": (".export", "export_rules"),
    "export_sql": (".export", "export_sql"),
    "export_text": (".export", "export_text"),
    "read_data": (".input.files", "read_data"),  # CSV, TSV, ARFF, Parquet -> DataFrame (pandas)
    "DataFileError": (".input.files", "DataFileError"),
    "export_html": (".export.html", "export_html"),  # the report; no matplotlib needed
    "plot_tree": (".export.plot", "plot_tree"),  # imports matplotlib when called
    "compile_kernels": (".precompile", "compile_kernels"),  # fills numba's cache ahead of use
}

if TYPE_CHECKING:  # what the lazy names are, for type checkers (at run time, __getattr__ below)
    from . import datasets as datasets
    from .export import export_graphviz as export_graphviz
    from .export import export_rules as export_rules
    from .export import export_sql as export_sql
    from .export import export_text as export_text
    from .export.html import export_html as export_html
    from .export.model_file import ModelFileError as ModelFileError
    from .export.model_file import load as load
    from .export.model_file import save as save
    from .export.plot import plot_tree as plot_tree
    from .input.files import DataFileError as DataFileError
    from .input.files import read_data as read_data
    from .precompile import compile_kernels as compile_kernels

    __version__: str

__all__ = ["C45Classifier", "CARTClassifier", "CARTRegressor", "ID3Classifier", "explain",
           "format_table", "node_weights", "pruning_report", *_LAZY]


def __getattr__(name: str) -> object:
    if name == "__version__":  # read once, when first asked for (importlib.metadata is not free)
        from ._version import version

        globals()["__version__"] = number = version()
        return number
    try:
        module, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'rootwise' has no attribute {name!r}") from None
    value = _import_module(module, __name__)
    if attribute is not None:
        value = getattr(value, attribute)
    globals()[name] = value  # the next look-up is an ordinary global
    return value


def __dir__() -> list[str]:
    """The public names only (submodules and helpers stay reachable, but are not advertised)."""
    return sorted([*__all__, "__version__"])
