"""The README's example and every script in examples/ run without error, on this checkout's package."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _readme_blocks():
    return re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)


def test_readme_first_example_runs_and_prints_its_map(capsys):
    exec(compile(_readme_blocks()[0], "README.md", "exec"), {})
    out = capsys.readouterr().out.split("\n")
    assert out[0] == "1.0"
    assert 0.0 <= float(out[1]) <= 200.0


def test_readme_context_example_spends_its_budget_exactly(capsys):
    pytest.importorskip("pandas")
    block = next(b for b in _readme_blocks() if "Context.compositor" in b)
    exec(compile(block, "README.md", "exec"), {})
    out = capsys.readouterr().out.strip().split("\n")
    assert float(out[0]) == 0.25                     # the median's map meets its share
    assert out[-1].split() == ["0.0", "1.0"]         # remaining, spent


@pytest.mark.parametrize("index", range(2, len(_readme_blocks())))
def test_every_other_readme_example_runs(index, capsys):
    exec(compile(_readme_blocks()[index], "README.md", "exec"), {})
    assert capsys.readouterr().out.strip()


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted((ROOT / "examples").glob("*.py")), ids=lambda p: p.name)
def test_example_script_runs(script):
    # the script's folder comes first on sys.path: PYTHONPATH puts this checkout's package before
    # any installed copy
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip()
