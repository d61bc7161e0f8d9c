"""Sphinx extension: how the API reference reads the package's docstrings.

* ``then_x`` carries the whole docstring of ``make_x`` (so ``help(then_x)`` is complete); in the
  reference, where ``make_x`` is documented right beside it, ``then_x`` keeps only its first
  paragraph, which links to ``make_x``.
* A module constant without a docstring of its own (a tuple, a dict) would show the docstring of
  its type; it shows none, and the page says what it is.
* ``Proof: ``proofs/<path>.tex``.`` links to the proof's PDF in the site (``proofs/<path>.pdf``,
  which ``proofs_site`` copies there); the API pages are one folder down, under ``api/``.
* In a docstring, ``|x - x'|`` is an absolute value or a size, as in the proofs, and ``str_``
  is numpy's string type; the package defines no reStructuredText substitutions or link
  targets, so the reference shows such text literally instead of reading it as a substitution
  or a link.  Doctest lines and inline literals are left as they are.
"""
from __future__ import annotations

import inspect
import pathlib
import re
from typing import Any

from sphinx.application import Sphinx

ROOT = pathlib.Path(__file__).resolve().parents[2]
_PROOF = re.compile(r"``(proofs/[\w/]+)\.tex``")
_LITERAL = re.compile(r"(``.+?``)")
# |text| where reStructuredText would see a substitution reference: no space after the opening
# bar or before the closing one, no bar, backquote or underscore reference right after.
_BARS = re.compile(r"(?<![\w|`])\|(?=[^\s|])([^|`]*?[^\s|`])\|(?![\w|`])")
# word_ where reStructuredText reads a named link reference (numpy's str_, np.str_): followed by
# a space, the end, or a closing punctuation mark, as its inline-markup rules require.
_LINK = re.compile(r"(?<![\w`.])([A-Za-z][\w.]*[A-Za-z0-9]_)(?=$|[\s\-.,:;!?\\/'\")\]}>])")


def literal_bars(line: str) -> str:
    """``line`` with each ``|text|`` and ``word_`` outside inline literals shown as a literal."""
    if line.lstrip().startswith((">>>", "...")):
        return line
    parts = _LITERAL.split(line)
    return "".join(p if i % 2 else _LINK.sub(r"``\1``", _BARS.sub(r"``|\1|``", p))
                   for i, p in enumerate(parts))


def link_proofs(line: str) -> str:
    """``line`` with each existing proof document's path linked to its PDF in the site."""
    def link(m: re.Match) -> str:
        tex = ROOT / f"{m.group(1)}.tex"
        return f"`{m.group(1)}.tex <../{m.group(1)}.pdf>`__" if tex.exists() else m.group(0)
    return _PROOF.sub(link, line)


def process(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    if what == "data" and type(obj).__doc__ and lines and \
            "\n".join(lines).strip() == inspect.cleandoc(type(obj).__doc__):
        lines.clear()
    if what == "function" and name.rsplit(".", 1)[-1].startswith("then_") and lines \
            and lines[0].startswith("Partial form of"):
        del lines[lines.index("") if "" in lines else len(lines):]
    lines[:] = [link_proofs(literal_bars(line)) for line in lines]


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("autodoc-process-docstring", process, priority=400)   # before napoleon
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
