"""Proofs list the real code, pinned: every ``\\codelisting`` names a region that exists and
whose SHA-256 matches the pin the proof records, and every region marker in the package is
listed by some proof.  A change to listed code fails here until its proof is re-read and
re-pinned (``python proofs/pins.py --update FILE.tex``)."""
import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("pins", ROOT / "proofs" / "pins.py")
pins = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pins)


def _all_listings():
    return [(doc, *listing) for doc in pins.documents() for listing in pins.listings(doc)]


def test_every_listing_names_an_existing_region_with_its_current_pin():
    problems = []
    for doc, path, name, recorded in _all_listings():
        rel = doc.relative_to(pins.HERE)
        try:
            actual = pins.pin(ROOT / path, name)
        except (OSError, pins.RegionError) as exc:
            problems.append(f"{rel}: {exc}")
            continue
        if actual != recorded:
            problems.append(f"{rel}: {path} [{name}] changed (pin {recorded}, code {actual}): "
                            "re-read the proof, then python proofs/pins.py --update " + str(rel))
    assert not problems, "\n".join(problems)


def test_every_region_marker_is_listed_by_a_proof():
    listed = {(path, name) for _, path, name, _ in _all_listings()}
    orphans = sorted(pins.markers() - listed)
    assert not orphans, f"region markers no proof lists: {orphans}"


def test_the_pin_notices_a_change(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("x = 1\n# [proof:r]\ny = 2\n# [end:r]\n")
    before = pins.pin(src, "r")
    src.write_text("x = 1\n# [proof:r]\ny = 3\n# [end:r]\n")
    changed = pins.pin(src, "r")
    assert changed != before
    src.write_text("x = 2\n# [proof:r]\ny = 3   \n# [end:r]\n")   # outside the region; trailing space
    assert pins.pin(src, "r") == changed


def test_every_character_a_listing_can_show_is_typeset():
    """pdflatex stops on a non-ASCII character that listings has no ``literate`` entry for."""
    sty = (pins.HERE / "lib.sty").read_text(encoding="utf-8")
    known = set()
    for line in sty.splitlines():
        if "literate=" in line:
            known |= {c for c in line if ord(c) > 127}
    missing = {}
    for path in {path for _, path, _, _ in _all_listings()}:
        for c in (ROOT / path).read_text(encoding="utf-8"):
            if ord(c) > 127 and c not in known:
                missing.setdefault(c, set()).add(path)
    assert not missing, f"add literate entries to proofs/lib.sty for {missing}"
