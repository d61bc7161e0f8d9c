"""The README's examples and every script in examples/ run without error, on this checkout's
package; the figures the README states about its first example are those of the release's exact
law.

The accuracy figures are checked twice, without sampling: through the measurement's
``output_law`` (float arithmetic) and through the Duff utility's step function with exact
rational widths and 60-digit exponentials (an independent reference).  The random outputs the
examples print are checked against bounds that fail with the probability stated beside them.
"""
import contextlib
import io
import os
import pathlib
import re
import subprocess
import sys
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from helpers import missing_libraries

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
# PYTHONPATH puts this checkout's package before any installed copy
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def _readme_blocks():
    return re.findall(r"```python\n(.*?)```", README, re.S)


def _context_block_index():
    return next(i for i, b in enumerate(_readme_blocks()) if "Context.compositor" in b)


def _run_first_example():
    """The first example's namespace and printed lines."""
    namespace: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(_readme_blocks()[0], "README.md", "exec"), namespace)
    return namespace, out.getvalue().split("\n")


def _stated(pattern):
    found = re.search(pattern, " ".join(README.split()))
    assert found, f"the README no longer says {pattern!r}"
    return found.group(1)


def test_readme_first_example_runs_and_prints_what_it_says():
    ns, out = _run_first_example()
    wages = ns["wages"]
    assert out[0] == "1.0"
    release, true_median = map(float, out[1].split())
    assert true_median == float(np.median(wages)) and f"true one: {true_median:.2f}" in _readme_blocks()[0]
    # within the 45th and 55th percentiles: fails with probability below 1e-65 (the stated figure)
    assert np.quantile(wages, 0.45, method="inverted_cdf") <= release <= np.quantile(wages, 0.55,
                                                                                       method="inverted_cdf")
    assert 0.0 <= float(out[2]) <= 200.0
    count_map, count = map(float, out[3].split())
    assert count_map == 0.5
    assert abs(count - 3000) < 40          # Laplace(scale 2) beyond 40: probability e^-20 < 3e-9


def _exact_probability(u, scale, lo, hi):
    """P(lo <= release <= hi) for density ∝ exp(u / scale), with exact widths, in Decimal."""
    with localcontext() as ctx:
        ctx.prec = 60
        top = max(int(level) for a, b, level in zip(u.left, u.right, u.levels, strict=True) if b > a)
        total = inside = Decimal(0)
        for a, b, level in zip(u.left, u.right, u.levels, strict=True):
            if not b > a:
                continue
            weight = (Decimal(int(level) - top) / Decimal(scale)).exp()
            width = Fraction(b) - Fraction(a)
            overlap = max(Fraction(0), min(Fraction(b), Fraction(hi)) - max(Fraction(a), Fraction(lo)))
            total += weight * Decimal(width.numerator) / Decimal(width.denominator)
            inside += weight * Decimal(overlap.numerator) / Decimal(overlap.denominator)
        return inside / total


def test_readme_first_example_accuracy_is_the_exact_one():
    ns, _ = _run_first_example()
    median, wages = ns["median"], ns["wages"]
    law = median.output_law(wages)
    u = dp.duff_utility(wages, "median", bounds=(0.0, 200.0))
    true_median = float(np.median(wages))

    near = float(law.cdf(true_median + 0.1) - law.cdf(true_median - 0.1))
    exact_near = _exact_probability(u, 2.0, true_median - 0.1, true_median + 0.1)
    assert abs(Decimal(near) - exact_near) < Decimal("1e-12")
    assert _stated(r"within 0\.1 of the true one with probability (0\.\d+)") == f"{exact_near:.5f}"

    q45, q55 = np.quantile(wages, [0.45, 0.55], method="inverted_cdf")
    outside = 1 - _exact_probability(u, 2.0, q45, q55)
    exponent = int(_stated(r"percentiles with probability above 1 − 10(\S+?)\.").translate(SUPERSCRIPT))
    assert outside < Decimal(10) ** exponent and exponent == -65
    # the same from the law's log masses (a float 1 - P would round to 0)
    log_masses = law.log_masses()
    off = (law.right <= q45) | (law.left >= q55)
    assert np.log10(np.exp(log_masses[off] - log_masses.max()).sum()) + log_masses.max() / np.log(10) < exponent


def test_readme_small_example_width_is_explained_by_its_utility():
    ns, _ = _run_first_example()
    median, five = ns["median"], [12.5, 30.0, 18.25, 22.0, 95.0]
    u = dp.duff_utility(five, "median", bounds=(0.0, 200.0))
    assert u(150.0) == -6 and u(20.0) == -1 and u.levels[u.right > u.left].max() == -1   # six edits, one
    assert round((200 - 95) / (22 - 18.25)) == int(_stated(r"but that interval is (\d+) times wider"))
    above_95 = 1 - float(median.output_law(five).cdf(95.0))
    assert abs(Decimal(above_95) - (1 - _exact_probability(u, 2.0, 0.0, 95.0))) < Decimal("1e-12")
    assert round(100 * above_95) == int(_stated(r"so (\d+) % of releases land above 95"))
    wages = ns["wages"]
    big = dp.duff_utility(wages, "median", bounds=(0.0, 200.0))
    edits = -big(np.nextafter(np.quantile(wages, 0.45, method="inverted_cdf"), np.inf))   # the gap above it
    assert edits == int(_stated(r"the 45th percentile is (\d+) edits away"))
    best = big.levels[big.right > big.left].max()                       # the best gap: one edit
    ratio = int(_stated(r"its density is about e(\S+) times the median's").translate(SUPERSCRIPT))
    assert round((-edits - best) / 2.0) == ratio                           # exp(u / scale), scale 2


def test_readme_context_example_spends_its_budget_exactly(capsys):
    block = _readme_blocks()[_context_block_index()]
    if missing_libraries(block):
        pytest.skip(f"the README's analyst example {missing_libraries(block)}")
    exec(compile(block, "README.md", "exec"), {})
    out = capsys.readouterr().out.strip().split("\n")
    assert float(out[0]) == 0.25                     # the median's map meets its share
    assert out[-1].split() == ["0.0", "1.0"]         # remaining, spent


@pytest.mark.parametrize("index", [i for i in range(len(_readme_blocks())) if i not in (0, _context_block_index())])
def test_every_other_readme_example_runs(index, capsys):
    if missing_libraries(_readme_blocks()[index]):
        pytest.skip(f"README block {index + 1} {missing_libraries(_readme_blocks()[index])}")
    exec(compile(_readme_blocks()[index], "README.md", "exec"), {})
    assert capsys.readouterr().out.strip()


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted((ROOT / "examples").glob("*.py")), ids=lambda p: p.name)
def test_example_script_runs(script):
    if missing_libraries(script.read_text()):
        pytest.skip(f"{script.name} {missing_libraries(script.read_text())}")
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=ENV)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip()


def test_walkthrough_without_pandas_says_what_to_install():
    block = ("import runpy, sys\n"
             "class Block:\n"
             "    def find_spec(self, name, path=None, target=None):\n"
             "        if name.split('.')[0] in ('pandas', 'polars'):\n"
             "            raise ImportError('blocked: ' + name)\n"
             "sys.meta_path.insert(0, Block())\n"
             f"runpy.run_path({str(ROOT / 'examples' / 'groupby_walkthrough.py')!r}, run_name='__main__')\n")
    res = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True, timeout=120, env=ENV)
    assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr[-2000:]
    assert 'pip install -e ".[pandas]"' in res.stderr and not res.stdout
