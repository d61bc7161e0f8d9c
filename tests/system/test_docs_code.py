"""Every Python code block of the documentation pages (docs/*.md) runs, in page order.

The blocks of one page share a namespace, as a reader running them one after the other would.
A block written as a doctest (its first line starts with ``>>>``) is run by doctest, so the
outputs the page shows are checked; any other Python block is executed as a script. Blocks
that show random releases show them through a check that holds whatever is drawn (or that
fails with a probability stated beside it). The pages speak of the project, not of the work
items that produced it, and cite papers by key.
"""
from __future__ import annotations

import doctest
import pathlib
import re

import pytest
from helpers import missing_libraries

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"
FENCE = re.compile(r"^```(?:python|pycon)[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)


def code_blocks(page: pathlib.Path) -> list[tuple[int, str]]:
    """(line number, code) of each ```python or ```pycon block of a Markdown page."""
    text = page.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start()) + 2, m.group(1)) for m in FENCE.finditer(text)]


HISTORY = re.compile(r"\b(issue|item)\s+#?\d|\bfile\s+00\d", re.IGNORECASE)
PAGES = sorted(p for p in DOCS.glob("*.md") if code_blocks(p))


def test_the_guides_have_code():
    names = {p.name for p in PAGES}
    assert {"getting-started.md", "framework-guide.md", "analyst-guide.md"} <= names, names


def run_page(page: pathlib.Path) -> None:
    missing = missing_libraries("\n".join(code for _, code in code_blocks(page)))
    if missing:
        pytest.skip(f"{page.name}: its examples {missing}")
    namespace: dict = {"__name__": f"docs_{page.stem.replace('-', '_')}"}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    parser = doctest.DocTestParser()
    report: list[str] = []          # every failing example of the page, not only the first
    for line, code in code_blocks(page):
        where = f"{page.name}, block at line {line}"
        if code.lstrip().startswith(">>>"):
            test = parser.get_doctest(code, {}, where, str(page), line - 1)
            test.globs = namespace          # DocTest copies its globals; share the page's instead
            runner.run(test, out=report.append, clear_globs=False)
        else:
            exec(compile(code, where, "exec"), namespace)
    assert runner.failures == 0, f"{page.name}: {runner.failures} failing examples\n" + "".join(report)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_code_blocks_run(page):
    run_page(page)


@pytest.mark.parametrize("page", sorted(DOCS.glob("*.md")), ids=lambda p: p.name)
def test_no_work_item_references(page):
    hits = [line.strip() for line in page.read_text(encoding="utf-8").splitlines() if HISTORY.search(line)]
    assert not hits, f"{page.name}: {hits}"
