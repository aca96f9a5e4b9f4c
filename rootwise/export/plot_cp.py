"""``plot_cp``: CART's cost-complexity path as rpart's ``plotcp`` draws it (matplotlib).

One point per subtree T_k of the pruning sequence, simplest on the left: its cross-validated error
with a bar of one standard error either way, the dashed one-standard-error line (the lowest CV
error plus its standard error: Breiman's rule picks the simplest subtree under it), and the
subtree ``fit`` chose ringed. The bottom axis names each subtree's alpha, the top its leaves.
"""

from __future__ import annotations

import numpy as np

from .._base import check_is_fitted
from .fonts import family_for
from .plot import require_matplotlib

MAX_TICKS = 14


def cp_table_of(model):
    """The model's CP table, or a ValueError saying how to get one."""
    check_is_fitted(model, "tree_")
    table = getattr(model, "cp_table_", None)
    if table is None:
        raise ValueError(
            f"{type(model).__name__} has no cp_table_ (it was fitted with pruning={model.pruning!r}, "
            f"ccp_alpha={getattr(model, 'ccp_alpha', None)!r}): the CP table is made when alpha is "
            "chosen by cross-validation, pruning='cost-complexity' with ccp_alpha='cv-1se' or "
            "'cv-min'.")
    return table


def one_se_line(table) -> float:
    """The lowest cross-validated error plus its standard error."""
    best = int(np.argmin(table.cv_error))
    return float(table.cv_error[best] + table.cv_std_error[best])


def plot_cp(model, ax=None):
    """Cross-validated error of each subtree of the pruning sequence with one-standard-error bars,
    the one-standard-error line and the chosen subtree; returns the matplotlib Axes."""
    table = cp_table_of(model)
    plt = require_matplotlib()
    from matplotlib.text import Text

    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 4.5), layout="constrained")
    order = np.argsort(table.n_leaves, kind="stable")  # simplest first, as rpart
    error, se = table.cv_error[order], table.cv_std_error[order]
    x = np.arange(len(order))
    ax.errorbar(x, error, yerr=se, fmt="o-", color="#2f5f98", ecolor="#6f8fb8", capsize=3,
                markersize=4, linewidth=1, gid="cv error", label="CV error ± 1 SE")
    line = one_se_line(table)
    ax.axhline(line, color="#aa3300", linestyle="--", linewidth=1, gid="1-SE line",
               label=f"min + 1 SE = {line:.4g}")
    at = int(np.flatnonzero(order == table.chosen)[0])
    ax.plot([at], [table.cv_error[table.chosen]], "o", markersize=12, markerfacecolor="none",
            markeredgecolor="#aa3300", markeredgewidth=1.6, gid="chosen",
            label=f"chosen ({table.rule}): {int(table.n_leaves[table.chosen])} leaves")
    step = max(1, -(-len(x) // MAX_TICKS))
    ticks = x[::step]
    ax.set_xticks(ticks, [f"{table.alpha[order[i]]:.3g}" for i in ticks], rotation=45,
                  fontsize=8)
    ax.set_xlabel("alpha (the subtree's complexity parameter)")
    regression = not hasattr(model, "classes_")
    ax.set_ylabel("cross-validated " + ("mean squared error" if regression else "error rate"))
    top = ax.secondary_xaxis("top")
    top.set_xticks(ticks, [str(int(table.n_leaves[order[i]])) for i in ticks], fontsize=8)
    top.set_xlabel("leaves")
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(axis="y", color="#dddddd", linewidth=0.6)
    texts = [t for t in ax.findobj(Text) if t.get_text()]  # the secondary axis too
    family = family_for([t.get_text() for t in texts], stacklevel=3)
    for t in texts if family else ():
        t.set_fontfamily(family)
    return ax
