"""One figure style for every experiment, so that a reader learns it once.

* A private mechanism whose parameters do not look at the data: solid line, filled markers.
* A variant whose smoothing t is tuned on the data being released (the papers' choice, NOT
  differentially private): dashed line, hollow markers, "(t tuned on the data, NOT private)".
* A non-private reference (no noise at all): black dotted line, "(non-private reference)".
* A lower bound: grey dash-dot line.

Legends sit below the panels, outside every axis, so no curve is hidden.
"""
from __future__ import annotations

from typing import Any

__all__ = ["PRIVATE", "TUNED", "REFERENCE", "BOUND", "subplots", "legend_below"]

PRIVATE: dict[str, Any] = {"ls": "-", "lw": 1.6, "ms": 4}
TUNED: dict[str, Any] = {"ls": "--", "lw": 1.3, "ms": 4, "mfc": "white"}
REFERENCE: dict[str, Any] = {"color": "black", "ls": ":", "lw": 2.0}
BOUND: dict[str, Any] = {"color": "0.45", "ls": "-.", "lw": 1.4}


def subplots(plt: Any, rows: int, cols: int, width: float, height: float, **kw: Any) -> tuple[Any, Any]:
    """A figure of ``rows`` x ``cols`` panels (an array of axes, always 2-d) laid out by
    matplotlib's constrained layout, which leaves room for the title set when it is saved."""
    return plt.subplots(rows, cols, figsize=(width, height), squeeze=False, constrained_layout=True, **kw)


def legend_below(fig: Any, ax: Any, ncol: int = 3) -> None:
    """One legend for the whole figure, below the panels, from the lines of ``ax``."""
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=ncol, fontsize=8,
               frameon=False)
