"""A stand-in for matplotlib.pyplot that records what the experiments draw and save, so the
figures' conventions (resolution, file names, titles, line styles, legends) are tested without
matplotlib installed.  Every call on a figure or an axis is accepted and recorded."""
from __future__ import annotations

from typing import Any

import numpy as np


class _Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple, dict]] = []

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)

        def call(*args: Any, **kwargs: Any) -> None:
            self.calls.append((name, args, kwargs))
        return call

    def called(self, name: str) -> list[tuple[tuple, dict]]:
        """The (args, kwargs) of every call of ``name``."""
        return [(a, k) for n, a, k in self.calls if n == name]


class FakeAxes(_Recorder):
    def lines(self) -> list[dict]:
        """The keyword arguments of every labelled line, histogram or error bar drawn."""
        return [k for _, _, k in self.calls if "label" in k]

    def get_legend_handles_labels(self) -> tuple[list, list]:
        labels = [k["label"] for k in self.lines()]
        return list(labels), labels


class FakeFigure(_Recorder):
    def __init__(self, axes: np.ndarray) -> None:
        super().__init__()
        self.axes_grid = axes
        self.title: str | None = None
        self.saved: list[tuple[str, float]] = []
        self.closed = False

    def suptitle(self, text: str, **kwargs: Any) -> None:
        self.title = text

    def savefig(self, path: str, dpi: float | None = None, **kwargs: Any) -> None:
        self.saved.append((str(path), dpi))


class FakePyplot:
    """``subplots`` returns a :class:`FakeFigure` and an object array of :class:`FakeAxes`."""

    def __init__(self) -> None:
        self.figures: list[FakeFigure] = []

    def subplots(self, rows: int, cols: int, **kwargs: Any) -> tuple[FakeFigure, np.ndarray]:
        axes = np.empty((rows, cols), dtype=object)
        for index in np.ndindex(rows, cols):
            axes[index] = FakeAxes()
        fig = FakeFigure(axes)
        self.figures.append(fig)
        return fig, axes

    def close(self, fig: FakeFigure) -> None:
        fig.closed = True
