"""The figures' conventions, checked on what they draw (a recording stand-in for pyplot): a
variant whose t is tuned on the data is dashed with hollow markers and says NOT private, private
variants are solid, non-private references are labelled as such, legends sit below the panels
(never on an axis, so no curve is hidden) and the axes say what they measure."""
import numpy as np
import pytest
from fake_pyplot import FakePyplot

from opendp_duff.experiments import bun_steinke_means, duff_medians, real_medians

TINY_BUN = {"ns": (21, 41), "epsilons": (1.0,), "t_grid": 4, "ss_datasets": 2, "trim_datasets": 10,
            "fractions": (0.0, 0.2)}


def _duff_results():
    """Results of the duff-medians shape with made-up errors: the figure only draws them."""
    rng = np.random.default_rng(0)
    errors = {d: {e: {k: list(rng.uniform(0.01, 1.0, 3)) for k in duff_medians.MECHANISMS}
                  for e in duff_medians.EPSILONS} for d in duff_medians.DISTRIBUTIONS}
    return {"epsilons": list(duff_medians.EPSILONS), "n": 1000, "datasets": 3, "releases": 20,
            "errors": errors}


def _check_styles(ax, tuned_expected):
    lines = [k for k in ax.lines() if "ls" in k]
    assert lines
    for k in lines:
        if "NOT private" in k["label"]:
            assert k["ls"] == "--" and k["mfc"] == "white", k["label"]
        elif "non-private reference" in k["label"] or "lower bound" in k["label"]:
            assert k["ls"] in (":", "-."), k["label"]
        else:
            assert k["ls"] == "-", k["label"]
    assert any("NOT private" in k["label"] for k in lines) == tuned_expected


def _check_legend_below(fig):
    assert not any(ax.called("legend") for ax in fig.axes_grid.flat)
    [(_, kwargs)] = fig.called("legend")
    assert kwargs["loc"] == "upper center" and kwargs["bbox_to_anchor"][1] <= 0


def test_duff_medians_figure():
    fake = FakePyplot()
    [(fig, title)] = duff_medians.figures(_duff_results(), fake).values()
    assert "[GM-Duff] Figure 1" in title
    labels = set()
    for ax in fig.axes_grid.flat:
        _check_styles(ax, tuned_expected=True)
        labels |= {k["label"] for k in ax.lines()}
        [((xlabel,), _)] = ax.called("set_xlabel")
        assert "ε" in xlabel
        duff = [k for k in ax.lines() if k["label"].startswith("Duff")]
        assert len(duff) == 1 and duff[0]["lw"] > max(k["lw"] for k in ax.lines() if k is not duff[0])
    assert labels == {label for label, *_ in duff_medians.FIGURE_LINES.values()}
    [((ylabel,), _)] = fig.axes_grid[0][0].called("set_ylabel")
    assert "(data units)" in ylabel
    _check_legend_below(fig)


@pytest.fixture(scope="module")
def bun_results():
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bun_steinke_means, "QUICK", TINY_BUN)
        from opendp_duff.experiments._common import json_round_trip
        return json_round_trip(bun_steinke_means.compute(quick=True))


@pytest.mark.slow
def test_bun_steinke_means_figures(bun_results):
    figs = bun_steinke_means.figures(bun_results, FakePyplot())
    assert sorted(figs) == ["_library_t", "_paper_t", "_reference_t"]
    for suffix, (fig, title) in figs.items():
        tuned = suffix == "_paper_t"
        assert ("NOT private" in title) == tuned
        for ax in fig.axes_grid.flat:
            labels = [k["label"] for k in ax.lines()]
            assert any("non-private reference" in label for label in labels)
            assert any("[BS19] Prop. 36" in label for label in labels)
            noise_lines = [k for k in ax.lines() if k.get("marker") in ("o", "v", "s", "D", "^")]
            assert len(noise_lines) == len(bun_steinke_means.NOISES)
            assert all(k["ls"] == ("--" if tuned else "-") for k in noise_lines)
            [((xlabel,), _)] = ax.called("set_xlabel")
            assert "trimming level m" in xlabel
        assert "unitless" in fig.axes_grid[0][0].called("set_ylabel")[0][0][0]
        _check_legend_below(fig)


def test_real_medians_figure_labels_the_non_private_medians():
    res = {"bounds": (0.0, 1.0), "epsilon": 0.5, "releases": 10, "synthetic": True,
           "value_label": real_medians.SYNTHETIC_LABEL,
           "classes": {name: {"n": 5, "median": 0.5, "data": [0.1, 0.5, 0.9],
                              "releases": {"Duff": [0.5], real_medians.TUNED: [0.4], real_medians.DEFAULT: [0.6]}}
                       for name in ("A", "B")}}
    [(fig, title)] = real_medians.figures(res, FakePyplot()).values()
    assert "NOT real data" in title
    for ax in fig.axes_grid.flat:
        medians = [k for _, _, k in ax.calls if "median of the data" in k.get("label", "")]
        assert len(medians) == 2 and all("non-private reference" in k["label"] for k in medians)
        assert ax.called("set_xlabel")[0][0][0] == real_medians.SYNTHETIC_LABEL
    _check_legend_below(fig)
