"""The test suite's own conventions, checked on every test file under tests/:

* it starts with a docstring saying what it covers, and a file with statistical tests
  (``rerun_once``) states their false-failure rate there;
* it imports shared code from ``helpers`` only, never from conftest or another test module
  (with ``--import-mode=importlib`` test modules are not importable by their basename);
* it does not set the global decimal context at import (``getcontext().prec = ...`` leaks into
  every module collected after it): a test that needs more digits uses ``localcontext``;
* it speaks of the project, not of the work items that produced it: no "issue N", "item N" or
  "file 00N" (papers are cited by key from docs/references.md; other projects' bugs as
  "<project> GitHub #N").
"""
import ast
import pathlib
import re

import pytest

TESTS = pathlib.Path(__file__).resolve().parents[1]
FILES = sorted(p for p in TESTS.rglob("test_*.py"))
IDS = [str(p.relative_to(TESTS)) for p in FILES]
HISTORY = re.compile(r"\b(issue|item)\s+\d|\bfile\s+00\d", re.IGNORECASE)


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_file_starts_with_a_docstring(path):
    doc = ast.get_docstring(ast.parse(path.read_text()))
    assert doc and doc.strip(), f"{path.name}: no module docstring"
    if "rerun_once" in path.read_text():
        assert re.search(r"false[- ]failure", doc), f"{path.name}: statistical tests but no false-failure rate"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_imports_shared_code_from_helpers_only(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            assert top != "conftest" and not top.startswith("test_"), f"{path.name} imports {name}"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_no_work_item_references(path):
    hits = [line.strip() for line in path.read_text().splitlines() if HISTORY.search(line)]
    assert not hits, f"{path.name}: {hits}"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_does_not_set_the_global_decimal_context(path):
    assert not re.search(r"^getcontext\(\)", path.read_text(), re.M), f"{path.name}: use decimal.localcontext"
