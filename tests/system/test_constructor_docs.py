"""Every public constructor (every ``make_*`` of the constructor namespaces ``dp.t``, ``dp.m``,
``dp.c`` and ``opendp_duff.core``, and every ``def make_*`` in the package) is documented and
typed the same way: a docstring with the sections of docs/contributing.md (Contract, Args, the
stability or privacy map, Raises, Proof with a path that exists, References, an example with a
doctest), full type hints, and a proof document that lists real code (at least 90 % of the
documents)."""
import builtins
import importlib
import importlib.util
import inspect
import pathlib
import re

import pytest

import opendp_duff as dp
from opendp_duff import core, errors
from opendp_duff.samplers import byte_sources

ROOT = pathlib.Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("pins", ROOT / "proofs" / "pins.py")
pins = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pins)


NAMESPACES = (dp.t, dp.m, dp.c, core)


def _constructors():
    found = {name: getattr(ns, name) for ns in NAMESPACES for name in dir(ns) if name.startswith("make_")}
    for path in sorted((ROOT / "opendp_duff").rglob("*.py")):
        for name in re.findall(r"^def (make_[A-Za-z0-9_]+)", path.read_text(), re.M):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name] = getattr(importlib.import_module(module), name)
    return found


CONSTRUCTORS = _constructors()
SECTIONS = ("Contract:", "Args:", "Raises:", "Proof:", "References:", "Example")
# what a Raises section may name: the library's errors, the entropy failure, Python's exceptions
KNOWN_ERRORS = ({n for n in dir(errors) if isinstance(getattr(errors, n), type)} | {"EntropyError"}
                | {n for n in dir(builtins) if isinstance(getattr(builtins, n), type)
                   and issubclass(getattr(builtins, n), BaseException)})
assert issubclass(byte_sources.EntropyError, Exception)


def test_the_package_has_constructors():
    assert len(CONSTRUCTORS) >= 20
    assert {"make_clamp", "make_laplace", "make_composition", "make_chain_tt"} <= set(CONSTRUCTORS)


def _raises(doc: str) -> dict[str, str]:
    """The entries of the Raises section: ``"Name, Name": text``, one per line at the entry indent."""
    block = doc[doc.index("Raises:") + len("Raises:"):doc.index("Proof:")]
    entries: dict[str, str] = {}
    for line in block.splitlines():
        match = re.match(r"^    ([A-Za-z][A-Za-z, ]*): (.*)", line)
        if match:
            entries[match.group(1)] = match.group(2)
    return entries


@pytest.mark.parametrize("name", sorted(CONSTRUCTORS))
def test_raises_section_names_real_errors_and_the_refusal(name):
    """What it raises at construction and the refusal of its function on non-members, by real class names."""
    doc = inspect.getdoc(CONSTRUCTORS[name]) or ""
    assert "Raises:" in doc, f"{name}: no Raises: section"
    entries = _raises(doc)
    assert entries, f"{name}: the Raises: section has no entry"
    named = {n.strip() for key in entries for n in key.split(",")}
    unknown = named - KNOWN_ERRORS
    assert not unknown, f"{name}: the Raises: section names {sorted(unknown)}, which are not exception classes"
    assert {"NotAMemberTypeError", "NotAMemberValueError"} <= named, \
        f"{name}: the Raises: section does not say how its function refuses a non-member"


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
