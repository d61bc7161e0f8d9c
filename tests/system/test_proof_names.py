"""Proofs pin every helper they name, and name only what exists.

A proof states the behaviour of code it does not print (``\\code{admit}`` refuses NaN, "by the
lemma on ``_clip_window``").  ``proofs/names.py`` finds the package definitions a proof names and
requires each to lie inside a region the proof lists (``\\codelisting``) or pins (``\\codepin``),
so that changing it fails ``python proofs/pins.py`` until the proof is re-read.  A code-like name
that means nothing (a renamed helper, a deleted test) and a path that does not exist fail too.
The allow-list of library names is ``names.ALLOWED``, each entry with its reason."""
import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "proofs" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


names = _load("names")
pins = _load("pins")
DOCS = names.documents()


def _rel(doc):
    return str(doc.relative_to(names.HERE))


@pytest.mark.slow
@pytest.mark.parametrize("doc", DOCS, ids=_rel)
def test_every_helper_a_proof_names_is_pinned_by_it(doc):
    unpinned = [f"{name} ({', '.join(f'{d.path}:{d[2]}' for d in defs)})"
                for name, defs, where in names.inventory(doc) if where is None]
    assert not unpinned, (f"{_rel(doc)} names code it does not pin; wrap each in '# [proof:NAME]' ... "
                          f"'# [end:NAME]' and add \\codepin{{PATH}}{{NAME}}{{PIN}}: {unpinned}")


@pytest.mark.slow
@pytest.mark.parametrize("doc", DOCS, ids=_rel)
def test_every_code_name_in_a_proof_means_something(doc):
    assert not names.unknown(doc), f"{_rel(doc)} names code that does not exist: {names.unknown(doc)}"


@pytest.mark.parametrize("doc", DOCS, ids=_rel)
def test_every_path_a_proof_names_exists(doc):
    assert not names.missing_paths(doc), f"{_rel(doc)} names missing paths: {names.missing_paths(doc)}"


def test_codepin_is_pinned_like_a_listing(tmp_path):
    """pins.py checks a \\codepin exactly as a \\codelisting: a changed helper drifts."""
    doc = tmp_path / "d.tex"
    doc.write_text("\\codepin{opendp_duff/membership.py}{check_atom}{000000000000}\n")
    [(path, region, recorded)] = pins.listings(doc)
    assert (path, region, recorded) == ("opendp_duff/membership.py", "check_atom", "000000000000")
    assert pins.pin(ROOT / path, region) != recorded
    pins.update(doc)
    [(_, _, fresh)] = pins.listings(doc)
    assert fresh == pins.pin(ROOT / path, region)


def test_the_check_finds_an_unpinned_helper_a_stale_name_and_a_moved_path(tmp_path):
    doc = tmp_path / "d.tex"
    doc.write_text("See \\code{opendp\\_duff/membership.py}. By the lemma on \\code{check\\_vector}, and\n"
                   "count\\_by\\_candidates and \\code{\\_clip\\_windoww} and \\code{np.sort};\n"
                   "the code was in opendp\\_duff/spark/grouped.py.\n"
                   "% \\code{commented\\_out} is not read\n")
    rows = {name: where for name, _, where in names.inventory(doc)}
    assert rows["check_vector"] is None                     # named, defined, not pinned
    assert "np.sort" not in rows and "commented_out" not in names.names(doc)
    assert "count_by_candidates" in names.names(doc)        # a prose name with underscores
    assert names.unknown(doc) == ["_clip_windoww"]
    assert names.missing_paths(doc) == ["opendp_duff/spark/grouped.py"]
    # pinning the region that holds check_vector satisfies the check
    doc.write_text(doc.read_text() + "\\codepin{opendp_duff/membership.py}{check_vector}{0}\n")
    rows = {name: where for name, _, where in names.inventory(doc)}
    assert rows["check_vector"] == ("opendp_duff/membership.py", "check_vector")
