"""Every public constructor (every ``def make_*`` in the package) is documented and typed the
same way: a docstring with the sections of docs/contributing.md (Contract, Args, the stability
or privacy map, Proof with a path that exists, References, an example with a doctest), full
type hints, and a proof document that lists real code (at least 90 % of the documents)."""
import importlib
import importlib.util
import inspect
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("pins", ROOT / "proofs" / "pins.py")
pins = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pins)


def _constructors():
    found = {}
    for path in sorted((ROOT / "opendp_duff").rglob("*.py")):
        for name in re.findall(r"^def (make_[A-Za-z0-9_]+)", path.read_text(), re.M):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name] = getattr(importlib.import_module(module), name)
    return found


CONSTRUCTORS = _constructors()
SECTIONS = ("Contract:", "Args:", "Proof:", "References:", "Example")


def test_the_package_has_constructors():
    assert len(CONSTRUCTORS) >= 20


@pytest.mark.parametrize("name", sorted(CONSTRUCTORS))
def test_docstring_has_every_section_in_order(name):
    doc = inspect.getdoc(CONSTRUCTORS[name]) or ""
    positions = [doc.find(section) for section in SECTIONS]
    assert -1 not in positions, f"{name}: missing {[s for s, p in zip(SECTIONS, positions, strict=True) if p < 0]}"
    assert positions == sorted(positions), f"{name}: sections out of order"
    assert "Stability map:" in doc or "Privacy map:" in doc, f"{name}: no map section"
    assert ">>>" in doc[positions[-1]:], f"{name}: the example has no doctest"
    proof = re.search(r"Proof: ``([^`]+)``", doc)
    assert proof and (ROOT / proof.group(1)).exists(), f"{name}: the proof path does not exist"
    assert not re.search(r"\bfiles? 00\d", doc), f"{name}: cite by key, not by file number"


@pytest.mark.parametrize("name", sorted(CONSTRUCTORS))
def test_fully_annotated(name):
    signature = inspect.signature(CONSTRUCTORS[name])
    bare = [p for p, q in signature.parameters.items() if q.annotation is inspect.Parameter.empty]
    assert not bare, f"{name}: parameters without a type hint: {bare}"
    assert signature.return_annotation is not inspect.Signature.empty, f"{name}: no return type"


def test_proofs_list_real_code():
    documents = [p for p in (ROOT / "proofs").rglob("make_*.tex")]
    listing = []
    for doc in documents:
        text = doc.read_text()
        included = [doc.parent / (m + ("" if m.endswith(".inc") else ".tex"))
                    for m in re.findall(r"\\input\{([^}]+)\}", text)]
        text += "".join(p.read_text() for p in included if p.exists())
        if pins.LISTING.search(text):
            listing.append(doc)
    assert len(documents) >= len(CONSTRUCTORS)
    share = len(listing) / len(documents)
    missing = sorted(str(d.relative_to(ROOT)) for d in documents if d not in listing)
    assert share >= 0.9, f"only {share:.0%} of the make_* proofs list code; not: {missing}"
