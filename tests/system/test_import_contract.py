"""The layer contract of the package's imports, read from the source with ``ast`` (nothing is
imported, so an import that runs only inside a function counts as much as one at the top).

Definitions:

* A *module* is a ``.py`` file under ``opendp_duff/`` (a package's ``__init__.py`` is the
  package's module, ``opendp_duff.engines``).
* The *package* of a module is the first-level subpackage it lies in (``opendp_duff.engines``
  for ``opendp_duff.engines.spark.engine``), or the root ``opendp_duff`` for the root's own
  modules (``opendp_duff.core``, ``opendp_duff._validate``) and for ``opendp_duff`` itself.
* A module *imports* another when it names it in ``import`` or ``from ... import`` anywhere,
  inside functions too, except in an ``if TYPE_CHECKING:`` block (annotations only: never run).
  ``from package import name`` imports the submodule ``package.name`` when there is one, and
  ``package`` otherwise.
* A module is *private* when a part of its dotted path below ``opendp_duff`` starts with ``_``
  (``__init__`` aside); a name is private when it starts with ``_`` and is not a dunder.

The contract:

1. No import cycle between modules: the import graph is acyclic, so every module sits on a
   floor above everything it imports.
2. No module imports a private module, or a private name, of another package.  Packages share
   code through public names, or through a public module one floor down.

The only exceptions are :data:`ALLOWED_PRIVATE`, each with its reason.
"""
from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = "opendp_duff"

ALLOWED_PRIVATE = {
    # The argument checks of every constructor (``v.number``, ``v.bounds`` ...): the floor of the
    # whole library, imported by nearly every module of every package.  Private because they
    # are not part of the API (their messages and signatures change with the constructors).
    "opendp_duff._validate": "the library-wide argument checks",
    # The numeric constants of the float format and of exact integers (INF, MAX, 2^53, int64
    # range): facts, not code, shared by every package.
    "opendp_duff._constants": "the library-wide numeric constants",
}


def _modules() -> dict[str, pathlib.Path]:
    found = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def package_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) > 2 or (len(parts) == 2 and (ROOT / PACKAGE / parts[1]).is_dir()):
        return ".".join(parts[:2])
    return PACKAGE


def is_private_module(module: str) -> bool:
    return any(part.startswith("_") and part != "__init__" for part in module.split(".")[1:])


def is_private_name(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(inner) for stmt in node.body for inner in ast.walk(stmt))
    return skipped


def _known(module: str) -> str:
    """The module ``module`` names, or the package it lies in (``opendp_duff.x.y`` of a name y)."""
    while module not in MODULES:
        module = module.rsplit(".", 1)[0]
    return module


def imports_of(module: str) -> list[tuple[str, str | None, int]]:
    """(imported module, imported name or None, line) for each opendp_duff import of ``module``."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(), str(path))
    skipped = _type_checking_nodes(tree)
    here = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found += [(_known(a.name), None, node.lineno) for a in node.names if a.name.split(".")[0] == PACKAGE]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(here[:len(here) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base.split(".")[0] != PACKAGE:
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.append((sub, None, node.lineno) if sub in MODULES else (_known(base), alias.name, node.lineno))
    return found


GRAPH = {module: imports_of(module) for module in MODULES}


def test_the_contract_reads_the_whole_package():
    assert len(MODULES) > 100
    assert "opendp_duff.core" in MODULES and "opendp_duff.engines.spark.engine" in MODULES
    assert package_of("opendp_duff.engines.spark.engine") == "opendp_duff.engines"
    assert package_of("opendp_duff.core") == package_of("opendp_duff._validate") == package_of("opendp_duff") == PACKAGE
    assert ("opendp_duff.core", "Measurement") in {(m, n) for m, n, _ in GRAPH["opendp_duff.combinators.composition"]}
    assert ("opendp_duff.core", None) in {(m, n) for m, n, _ in GRAPH["opendp_duff.t"]} or any(
        m == "opendp_duff.transformations" for m, _, _ in GRAPH["opendp_duff.t"])


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module, or with a self-import."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]   # iterative Tarjan: no recursion limit
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph[node]:
                    components.append(sorted(component))
    return components


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    graph = {module: {target for target, _, _ in found if target != module} for module, found in GRAPH.items()}
    cycles = _cycles(graph)
    assert not cycles, f"import cycles (each list is a set of modules that import one another): {cycles}"


def test_no_private_imports_across_packages():
    bad = []
    for module, found in GRAPH.items():
        for target, name, line in found:
            if package_of(target) == package_of(module) or target in ALLOWED_PRIVATE:
                continue
            if is_private_module(target) or (name is not None and is_private_name(name)):
                shown = target if name is None else f"{target}.{name}"
                bad.append(f"{MODULES[module].relative_to(ROOT)}:{line} imports {shown}")
    assert not bad, "private imports across packages:\n" + "\n".join(bad)


def test_the_allowed_private_modules_exist_and_are_used_across_packages():
    for module in ALLOWED_PRIVATE:
        assert module in MODULES and is_private_module(module)
        users = {package_of(m) for m, found in GRAPH.items() for target, _, _ in found if target == module}
        assert users - {package_of(module)}, f"{module} needs no exception: no other package imports it"
