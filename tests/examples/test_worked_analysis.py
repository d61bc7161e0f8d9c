"""examples/worked_analysis.py runs end to end (so CI runs it), prints the summary before the
release and a release whose keys are the generated table's airlines only, and draws its figure.

The checks on the random output fail with probability below 1e-9 when the library is right: a
charter code (one traveller, one flight) appears with probability at most the keys' delta per
key (4 keys, delta 3e-7); each airline has thousands of JFK flights after truncation, far above
the discovery threshold (below 100), so it is missed with probability below e^{-100}."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

from helpers import missing_libraries

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "worked_analysis.py"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}


@pytest.mark.slow
def test_the_worked_analysis_runs_and_draws_its_figure(tmp_path):
    if missing_libraries(SCRIPT.read_text()):
        pytest.skip(f"worked_analysis.py {missing_libraries(SCRIPT.read_text())}")
    figure = tmp_path / "worked_analysis.png"
    res = subprocess.run([sys.executable, str(SCRIPT), "--figure", str(figure)], capture_output=True, text=True,
                         timeout=600, env=ENV)
    assert res.returncode == 0, res.stderr[-2000:]
    out = res.stdout
    assert "Before release, what each statistic promises" in out
    assert re.search(r"keys of carrier: threshold_keys", out) and re.search(r"median: duff_median", out)
    assert "for every dataset in [-60.0, 600.0] whose order statistics" in out
    table = out[out.index("The release"):out.index("The generated table")]
    released = set(re.findall(r"^\s*([A-Z0-9]{2,3})\s", table, re.M))
    assert released == {"AA", "B6", "DL", "UA", "WN"}, table
    if missing_libraries("import matplotlib"):
        assert "no figure" in res.stderr
    else:
        assert figure.stat().st_size > 10_000 and f"figure saved to {figure}" in out
