"""The shared experiment runner: quick runs are marked in file names and titles, figures are
written at 150 dpi or better, a missing matplotlib is reported with the extra that installs it,
and saved runs re-render from their JSON to the same tables.  Seeded noise needs the feature
"insecure-randomness" (the command line's --seeded-noise turns it on) and every output of a
seeded run says so: the report, the JSON and each figure's title and caption."""
import struct
import sys

import numpy as np
import pytest
from fake_pyplot import FakePyplot

import opendp_duff as dp
from opendp_duff.experiments import __main__ as cli
from opendp_duff.experiments import _runner, bun_steinke_means, real_medians
from opendp_duff.experiments._common import PLOTS_MISSING, json_round_trip, pyplot, read_json
from opendp_duff.experiments._runner import DPI, QUICK_MARK, SEEDED_MARK, Options, output_stem, render, run

TINY_BUN = {"ns": (21,), "epsilons": (1.0,), "t_grid": 4, "ss_datasets": 2, "trim_datasets": 10,
            "fractions": (0.0, 0.2)}


@pytest.fixture
def quick_real_medians(tmp_path):
    """A quick real-medians run on the synthetic stand-in, tables only, seeded noise (a test)."""
    res = run(real_medians, Options(str(tmp_path), quick=True, noise_seed=4, plots=False,
                                    extra={"source": "synthetic"}))
    return tmp_path, res


@pytest.fixture
def quick_bun(tmp_path, monkeypatch):
    """A quick bun-steinke-means run at a tiny scale (one panel), tables only."""
    monkeypatch.setattr(bun_steinke_means, "QUICK", TINY_BUN)
    return run(bun_steinke_means, Options(str(tmp_path / "bun"), quick=True, plots=False))


def test_quick_run_files_are_marked_quick(quick_real_medians):
    out, res = quick_real_medians
    assert res["meta"]["quick"] and res["synthetic"]
    assert output_stem(real_medians, res) == "real_medians_synthetic_quick"
    assert sorted(p.name for p in out.iterdir()) == ["real_medians_synthetic_quick.json",
                                                      "real_medians_synthetic_quick.md"]
    md = (out / "real_medians_synthetic_quick.md").read_text()
    assert "QUICK mode" in md and "plots not requested" in md


@pytest.mark.slow
@pytest.mark.parametrize("which", ["real-medians", "bun-steinke-means"])
def test_figures_are_saved_at_150_dpi_with_quick_titles_and_names(which, quick_real_medians, quick_bun,
                                                                   tmp_path, monkeypatch):
    fake = FakePyplot()
    monkeypatch.setattr(_runner, "pyplot", lambda: fake)
    module, res = ((real_medians, quick_real_medians[1]) if which == "real-medians"
                   else (bun_steinke_means, quick_bun))
    written = render(module, res, str(tmp_path / "figs"))
    assert len(fake.figures) == (1 if module is real_medians else 3)
    for fig in fake.figures:
        [(path, dpi)] = fig.saved
        assert dpi >= 150 and DPI >= 150
        assert path.endswith("_quick.png") and path in written
        assert fig.title.endswith(QUICK_MARK) and fig.closed
    md = (tmp_path / "figs" / (output_stem(module, res) + ".md")).read_text()
    assert md.count("_quick.png)") == len(fake.figures)


def test_full_scale_titles_and_names_carry_no_quick_mark(quick_real_medians, tmp_path, monkeypatch):
    fake = FakePyplot()
    monkeypatch.setattr(_runner, "pyplot", lambda: fake)
    res = dict(quick_real_medians[1], meta=dict(quick_real_medians[1]["meta"], quick=False))
    render(real_medians, res, str(tmp_path / "full"))
    [fig] = fake.figures
    assert fig.saved[0][0].endswith("real_medians_synthetic.png") and "QUICK" not in fig.title


def _png_dpi(path):
    """The resolution recorded in a PNG's pHYs chunk, in dots per inch."""
    data = path.read_bytes()
    i = data.index(b"pHYs")
    x, y, unit = struct.unpack(">IIB", data[i + 4:i + 13])
    assert unit == 1  # pixels per metre
    return x * 0.0254, y * 0.0254


@pytest.mark.slow
def test_png_files_record_at_least_150_dpi(quick_real_medians, tmp_path):
    if pyplot() is None:
        pytest.skip("matplotlib (the optional plots extra) is not installed")
    paths = render(real_medians, quick_real_medians[1], str(tmp_path / "png"))
    [png] = [p for p in paths if p.endswith(".png")]
    from pathlib import Path
    assert min(_png_dpi(Path(png))) >= 149.9


def test_missing_matplotlib_names_the_extra(quick_real_medians, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)   # `import matplotlib` now raises ImportError
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    assert pyplot() is None
    [md_path] = render(real_medians, quick_real_medians[1], str(tmp_path / "noplot"))
    assert 'pip install "opendp_duff[plots]"' in PLOTS_MISSING
    with open(md_path, encoding="utf-8") as f:
        assert PLOTS_MISSING in f.read()
    assert PLOTS_MISSING in capsys.readouterr().err


def test_seeded_runs_say_so_in_every_output(quick_real_medians, tmp_path, monkeypatch):
    fake = FakePyplot()
    monkeypatch.setattr(_runner, "pyplot", lambda: fake)
    out, res = quick_real_medians
    meta = res["meta"]
    assert meta["noise_seed"] == 4 and "insecure-randomness" in meta["features"]
    assert meta["randomness"].startswith("SEEDED") and "insecure-randomness" in meta["randomness"]
    assert "SEEDED for reproducibility" in (out / "real_medians_synthetic_quick.md").read_text()
    render(real_medians, res, str(tmp_path / "seeded"))
    [fig] = fake.figures
    assert SEEDED_MARK in fig.title and fig.title.endswith(QUICK_MARK)
    assert SEEDED_MARK in (tmp_path / "seeded" / "real_medians_synthetic_quick.md").read_text()
    secure = dict(res, meta=dict(meta, noise_seed=None, randomness="secure (os.urandom), not reproducible"))
    render(real_medians, secure, str(tmp_path / "secure"))
    assert SEEDED_MARK not in fake.figures[-1].title
    assert SEEDED_MARK not in (tmp_path / "secure" / "real_medians_synthetic_quick.md").read_text()


@pytest.mark.usefixtures("insecure_randomness_off")
def test_seeded_noise_is_refused_without_the_switch(tmp_path):
    with pytest.raises(dp.FeatureNotEnabled, match="insecure-randomness"):
        run(real_medians, Options(str(tmp_path), quick=True, noise_seed=4, plots=False,
                                  extra={"source": "synthetic"}))
    assert not list(tmp_path.iterdir())          # refused before anything was computed or written


@pytest.mark.usefixtures("insecure_randomness_off")   # --seeded-noise is the consent: it turns the feature on
def test_from_json_rerenders_the_same_report(tmp_path, capsys):
    first, second = tmp_path / "run", tmp_path / "again"
    assert cli.main(["real-medians", "--quick", "--source", "synthetic", "--seeded-noise", "8", "--no-plots",
                     "--out", str(first)]) == 0
    assert "insecure-randomness" in dp.enabled_features()
    saved = first / "real_medians_synthetic_quick.json"
    assert cli.main(["--from-json", str(saved), "--out", str(second), "--no-plots"]) == 0
    original = (first / "real_medians_synthetic_quick.md").read_text().splitlines()
    again = (second / "real_medians_synthetic_quick.md").read_text().splitlines()
    added = [line for line in again if line not in original]
    assert len(added) == 1 and added[0].startswith("- tables and figures re-rendered from the saved JSON")
    assert [line for line in again if line in original] == original
    assert "SEEDED for reproducibility" in "\n".join(again)
    assert read_json(str(saved))["meta"]["command"].startswith("python -m opendp_duff.experiments real-medians")
    with pytest.raises(SystemExit):
        cli.main(["real-medians", "--from-json", str(saved)])
    with pytest.raises(SystemExit):
        cli.main([])
    capsys.readouterr()


def test_json_round_trip_restores_numeric_keys():
    res = {"errors": {"N(0,1)": {0.5: np.array([1.0, 2.5])}}, "pair": (0.1, 1e-3), "201|1.0": np.float64(3)}
    assert json_round_trip(res) == {"errors": {"N(0,1)": {0.5: [1.0, 2.5]}}, "pair": [0.1, 1e-3], "201|1.0": 3.0}
