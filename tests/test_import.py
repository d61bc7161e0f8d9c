"""What ``import opendp_duff`` loads: no scipy, pandas, Polars, pyspark or matplotlib (each is
imported inside the functions that use it), and not the audit package until ``dp.audit`` is read.
A structural check of ``sys.modules`` in a fresh interpreter; the import time itself is measured
by ``benchmarks/bench_import.py``, never here.
"""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
HEAVY = ("scipy", "pandas", "polars", "pyspark", "matplotlib")

PROBE = f"""
import sys
import opendp_duff as dp
print(sorted({{name.split('.')[0] for name in sys.modules}} & set({HEAVY!r})))
print('opendp_duff.audit' in sys.modules)
print(dp.audit.exact_privacy_loss.__module__, 'audit' in dir(dp), 'opendp_duff.audit' in sys.modules)
print(sorted({{name for name in sys.modules if name.startswith('scipy.')}} & {{'scipy.stats', 'scipy.optimize'}}))
"""


def test_import_loads_no_optional_or_heavy_library():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    res = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, cwd=ROOT,
                         timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    heavy, audit_before, audit_after, scipy_after = res.stdout.strip().split("\n")
    assert heavy == "[]", f"import opendp_duff loads {heavy}: import them inside the functions that use them"
    assert audit_before == "False", "import opendp_duff loads the audit package eagerly"
    assert audit_after == "opendp_duff.audit.exact True True"      # dp.audit still works as an attribute
    assert scipy_after == "[]", f"importing the audit package loads {scipy_after}"
