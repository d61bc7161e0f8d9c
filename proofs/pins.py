"""Pins of the code regions that the proofs list.

A proof lists real code with ``\\codelisting{PATH}{NAME}{PIN}`` (see ``lib.sty``): the lines
between ``# [proof:NAME]`` and ``# [end:NAME]`` in PATH.  A helper whose behaviour the proof
states without printing it is pinned the same way by ``\\codepin{PATH}{NAME}{PIN}``, which
prints only a reference to the region (``proofs/names.py`` finds the helpers a proof names).
PIN is the first 12 hex digits of the SHA-256 of those lines (trailing spaces removed, joined
by newlines).

    python proofs/pins.py                 # list every listing and whether its pin holds
    python proofs/pins.py --update F.tex  # rewrite the pins of F.tex (after re-reading its proof)

The check itself is ``tests/system/test_proof_listings.py``.
"""
from __future__ import annotations

import hashlib
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
LISTING = re.compile(r"\\code(listing|pin)\{([^}]*)\}\{([^}]*)\}\{([^}]*)\}")


class RegionError(ValueError):
    """A listed region is missing, duplicated or unterminated."""


def region_text(path: pathlib.Path, name: str) -> str:
    """The lines strictly between ``# [proof:NAME]`` and ``# [end:NAME]`` in ``path``."""
    lines = path.read_text().splitlines()
    begin = [i for i, line in enumerate(lines) if line.strip() == f"# [proof:{name}]"]
    end = [i for i, line in enumerate(lines) if line.strip() == f"# [end:{name}]"]
    if len(begin) != 1 or len(end) != 1 or not begin[0] < end[0]:
        raise RegionError(f"{path.relative_to(ROOT)}: region {name!r} needs exactly one "
                          f"'# [proof:{name}]' before exactly one '# [end:{name}]'")
    return "\n".join(line.rstrip() for line in lines[begin[0] + 1:end[0]])


def pin(path: pathlib.Path, name: str) -> str:
    return hashlib.sha256(region_text(path, name).encode()).hexdigest()[:12]


def documents() -> list[pathlib.Path]:
    return sorted(p for p in HERE.rglob("*") if p.suffix in (".tex", ".inc") and "_build" not in p.parts)


def listings(doc: pathlib.Path) -> list[tuple[str, str, str]]:
    """(path, region, pin) of every \\codelisting and \\codepin in a document."""
    return [(path, name, recorded) for _, path, name, recorded in LISTING.findall(doc.read_text())]


def markers() -> set[tuple[str, str]]:
    """(path, region) of every ``# [proof:NAME]`` marker in the package."""
    found = set()
    for path in (ROOT / "opendp_duff").rglob("*.py"):
        for name in re.findall(r"^\s*# \[proof:([^\]]+)\]\s*$", path.read_text(), re.M):
            found.add((str(path.relative_to(ROOT)), name))
    return found


def update(doc: pathlib.Path) -> None:
    text = doc.read_text()

    def fresh(m: re.Match) -> str:
        return f"\\code{m[1]}{{{m[2]}}}{{{m[3]}}}{{{pin(ROOT / m[2], m[3])}}}"

    doc.write_text(LISTING.sub(fresh, text))


def main(argv: list[str]) -> int:
    if argv[:1] == ["--update"]:
        for name in argv[1:]:
            update(pathlib.Path(name).resolve())
        return 0
    bad = 0
    for doc in documents():
        for path, name, recorded in listings(doc):
            try:
                actual = pin(ROOT / path, name)
            except (OSError, RegionError) as exc:
                print(f"MISSING {doc.relative_to(HERE)}: {exc}")
                bad += 1
                continue
            ok = actual == recorded
            bad += not ok
            print(f"{'ok     ' if ok else 'DRIFTED'} {doc.relative_to(HERE)}: {path} [{name}]"
                  + ("" if ok else f" pin {recorded} != {actual}"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
