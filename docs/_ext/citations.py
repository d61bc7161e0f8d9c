"""Sphinx extension: citation keys such as [GM-Duff] link to their entry on the references page.

The keys are those that ``docs/references.md`` defines, one per list entry starting with a
bold ``[KEY]``.  On that page each such entry gets an anchor ``ref-<key>`` (lower case); on every
page, a ``[KEY]`` of a known key in running text (the guides, and the API reference's
docstrings) becomes a link to it.  Text in code, in literals and in existing links is left
alone, and so is a bracketed word that is not a key.
"""
from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

REFERENCES = "references"
_DEFINED = re.compile(r"^- \*\*\[([A-Za-z][\w-]*)\]\*\*", re.M)
_CITED = re.compile(r"\[([A-Za-z][\w-]*)\]")
_SKIP = (nodes.literal, nodes.literal_block, nodes.reference, nodes.raw, nodes.math, nodes.math_block,
         nodes.title)


def anchor(key: str) -> str:
    return "ref-" + key.lower()


def defined_keys(app: Sphinx) -> set[str]:
    path = app.srcdir / f"{REFERENCES}.md"
    return set(_DEFINED.findall(path.read_text(encoding="utf-8")))


def _mark_entries(doctree: nodes.document, keys: set[str]) -> None:
    """Give each entry of the references page the anchor of its key."""
    for item in doctree.findall(nodes.list_item):
        strong = next(iter(item.findall(nodes.strong)), None)
        found = _CITED.fullmatch(strong.astext()) if strong is not None else None
        if found and found.group(1) in keys:
            item["ids"].append(anchor(found.group(1)))


def _link(app: Sphinx, docname: str, text: nodes.Text, keys: set[str]) -> None:
    parts = _CITED.split(text.astext())          # [text, key, text, key, ..., text]
    if len(parts) == 1 or not any(k in keys for k in parts[1::2]):
        return
    page = "" if docname == REFERENCES else app.builder.get_relative_uri(docname, REFERENCES)
    new: list[nodes.Node] = []
    for i, part in enumerate(parts):
        if i % 2 == 0:
            if part:
                new.append(nodes.Text(part))
        elif part in keys:
            new.append(nodes.reference("", f"[{part}]", refuri=f"{page}#{anchor(part)}", internal=True,
                                       classes=["citation-key"]))
        else:
            new.append(nodes.Text(f"[{part}]"))
    text.parent.replace(text, new)


def link_keys(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if app.builder.format != "html":
        return
    keys = defined_keys(app)
    if docname == REFERENCES:
        _mark_entries(doctree, keys)
    for text in list(doctree.findall(nodes.Text)):
        if docname == REFERENCES and isinstance(text.parent, nodes.strong):
            continue                              # the entries' own keys
        ancestor, skip = text.parent, False
        while ancestor is not None:
            if isinstance(ancestor, _SKIP):
                skip = True
                break
            ancestor = ancestor.parent
        if not skip:
            _link(app, docname, text, keys)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-resolved", link_keys)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
