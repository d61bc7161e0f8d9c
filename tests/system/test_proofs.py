"""Every public constructor has a proof document (CI compiles them with proofs/build.py)."""
import pathlib
import re
import subprocess
import sys

import pytest
from helpers import missing

ROOT = pathlib.Path(__file__).resolve().parents[2]


def public_constructors():
    names = set()
    for path in (ROOT / "opendp_duff").rglob("*.py"):
        names |= set(re.findall(r"^def (make_[A-Za-z0-9_]+)", path.read_text(), re.M))
    return sorted(names)


def test_every_make_function_has_a_proof_document():
    docs = {p.stem for p in (ROOT / "proofs").rglob("*.tex")}
    missing = [name for name in public_constructors() if name not in docs]
    assert not missing, f"no proof document for: {missing}"


def test_proof_paths_mirror_modules():
    # proofs/<package path>/<module>/<make_name>.tex, where <package path>/<module>.py defines make_name
    for tex in (ROOT / "proofs").rglob("make_*.tex"):
        rel = tex.relative_to(ROOT / "proofs")
        module = ROOT / "opendp_duff" / rel.parent.with_suffix(".py")
        assert module.exists(), f"{rel}: no module {module.relative_to(ROOT)}"
        assert re.search(rf"^def {tex.stem}\b", module.read_text(), re.M), f"{rel}: {tex.stem} not in module"


@pytest.mark.slow
@pytest.mark.skipif(bool(missing("tex")), reason=missing("tex") + " (CI requires it: OPENDP_DUFF_REQUIRE_TEX)")
def test_a_proof_compiles():
    doc = ROOT / "proofs" / "measurements" / "laplace" / "make_laplace.tex"
    res = subprocess.run([sys.executable, str(ROOT / "proofs" / "build.py"), str(doc)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stdout[-2000:]
