"""Sphinx extension: the list of proof documents, with their PDFs copied into the site.

``proofs/build.py`` compiles every proof document (``proofs/**/*.tex``) into a PDF beside its
source.  This extension

* refuses to build the HTML site when a PDF is missing or older than its source, with a message
  that says to run ``python3 proofs/build.py`` (``docs/build.sh`` runs it first);
* provides the ``proof-index`` directive: one list per folder of ``proofs/``, each document
  linked to its PDF, with what it proves and the source file it lists;
* copies the PDFs into the built site as ``proofs/<path>.pdf``, mirroring the repository.

The documents are those that ``proofs/build.py`` builds (its ``documents()``), so the page, the
build and the site cannot disagree about the list.
"""
from __future__ import annotations

import importlib.util
import pathlib
import posixpath
import re
import shutil
import sys
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROOFS = ROOT / "proofs"
SITE_DIR = "proofs"            # where the PDFs land in the built site

# Folder of proofs/ -> heading on the proofs page; folders not listed get their own name.
GROUPS = {
    "": "Foundations: arithmetic and platform",
    "core": "Core: admission and chaining",
    "transformations": "Transformations (dp.t)",
    "measurements": "Measurements (dp.m)",
    "combinators": "Combinators (dp.c)",
    "engines": "Data engines (numpy, pandas, Polars, Spark)",
    "context": "The analyst's layer (dp.Context)",
    "smooth": "Smooth sensitivity (dp.smooth)",
    "samplers": "Exact samplers",
    "exact_sum": "Exact sums",
    "experiments": "Baselines of the reproduced experiments",
}


def proof_documents() -> list[pathlib.Path]:
    """The proof documents, as ``proofs/build.py`` finds them."""
    spec = importlib.util.spec_from_file_location("_proofs_build", PROOFS / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.documents())


def _tex_text(s: str) -> str:
    """A TeX title as plain text: ``\\code{make\\_x}`` -> ``make_x``."""
    s = re.sub(r"\\(?:code|texttt|emph|textbf)\{([^{}]*)\}", r"\1", s)
    return s.replace("\\_", "_").replace("~", " ").strip()


def describe(tex: pathlib.Path) -> tuple[str, str | None]:
    """(what the document proves, the source file(s) it lists) from its banner or title."""
    text = tex.read_text(encoding="utf-8")
    banner = re.search(r"\\proofbanner\{(.*?)\}\{(.*?)\}\s*$", text, re.M)
    if banner:
        return _tex_text(banner.group(1)), _tex_text(banner.group(2))
    title = re.search(r"\\title\{(.*?)\}\\author", text, re.S)
    return (_tex_text(title.group(1)) if title else tex.stem), None


def missing_pdfs() -> list[str]:
    """Proof documents whose PDF is absent or older than the source."""
    bad = []
    for tex in proof_documents():
        pdf = tex.with_suffix(".pdf")
        if not pdf.exists() or pdf.stat().st_mtime < tex.stat().st_mtime:
            bad.append(str(tex.relative_to(ROOT)))
    return bad


def check_proofs_built(app: Sphinx) -> None:
    if app.builder.format != "html":
        return
    bad = missing_pdfs()
    if bad:
        # A plain exit: Sphinx would present an extension's exception as a crash to report.
        sys.exit(
            f"docs: the site links every proof's PDF, and {len(bad)} of them are missing or older than "
            f"their source (first: {bad[0]}). Build the proofs first: python3 proofs/build.py "
            "(docs/build.sh builds the proofs, then the site).")


class ProofIndex(SphinxDirective):
    """``proof-index``: every proof document, grouped by folder, linked to its PDF."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        here = posixpath.dirname(self.env.docname)
        groups: dict[str, list[pathlib.Path]] = {}
        for tex in proof_documents():
            rel = tex.relative_to(PROOFS)
            groups.setdefault(rel.parts[0] if len(rel.parts) > 1 else "", []).append(tex)
            self.env.note_dependency(str(tex))
        order = [g for g in GROUPS if g in groups] + sorted(g for g in groups if g not in GROUPS)
        out: list[nodes.Node] = []
        for group in order:
            out.append(nodes.rubric(text=GROUPS.get(group, group)))
            items = nodes.bullet_list()
            for tex in groups[group]:
                pdf = tex.relative_to(PROOFS).with_suffix(".pdf").as_posix()
                uri = posixpath.relpath(posixpath.join(SITE_DIR, pdf), here or ".")
                what, source = describe(tex)
                para = nodes.paragraph()
                para += nodes.reference("", "", nodes.literal(text=what), refuri=uri, internal=True)
                para += nodes.Text(" — ")
                para += nodes.literal(text=f"proofs/{tex.relative_to(PROOFS).as_posix()}")
                if source:
                    para += nodes.Text(", listing ")
                    para += nodes.literal(text=source)
                items += nodes.list_item("", para)
            out.append(items)
        return out


def outdated_index_pages(app: Sphinx, env: Any, added: set, changed: set, removed: set) -> list[str]:
    """Rebuild the pages holding a ``proof-index`` on every run: a new document must appear."""
    return [d for d in env.found_docs if "proof-index" in pathlib.Path(env.doc2path(d)).read_text("utf-8")]


def copy_pdfs(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = pathlib.Path(app.outdir) / SITE_DIR
    for tex in proof_documents():
        target = out / tex.relative_to(PROOFS).with_suffix(".pdf")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(tex.with_suffix(".pdf"), target)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("proof-index", ProofIndex)
    app.connect("builder-inited", check_proofs_built)
    app.connect("env-get-outdated", outdated_index_pages)
    app.connect("build-finished", copy_pdfs)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
