"""The layers of the analyst's code: plans know no context (no module of ``opendp_duff.plans``
imports ``opendp_duff.context``, so the two cannot import each other in a cycle), and neither
package reaches into another package's private modules or another object's private members
(only ``self``'s own, and the shared modules one floor down: ``_validate``, ``_constants``)."""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2] / "opendp_duff"
SHARED = {"_validate", "_constants"}
MODULES = sorted((ROOT / "plans").glob("*.py")) + sorted((ROOT / "context").glob("*.py"))


def imports(path):
    """(module the import names, relative level) for each import of ``path``."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            yield (node.module or ""), node.level, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, 0, []


def absolute(path, module, level):
    """The dotted name under opendp_duff that a (possibly relative) import refers to ("" for an
    import from outside the package)."""
    if level == 0:
        return module.removeprefix("opendp_duff").lstrip(".") if module.startswith("opendp_duff") else ""
    package = path.relative_to(ROOT).parent.parts
    base = package[:len(package) - (level - 1)]
    return ".".join([*base, *([module] if module else [])])


@pytest.mark.parametrize("path", sorted((ROOT / "plans").glob("*.py")), ids=lambda p: p.name)
def test_plans_never_import_the_context(path):
    for module, level, _ in imports(path):
        target = absolute(path, module, level)
        assert not target.startswith("context"), f"{path.name} imports {target}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_private_module_of_another_package(path):
    own = path.relative_to(ROOT).parts[0]
    for module, level, names in imports(path):
        target = absolute(path, module, level)
        parts = [p for p in target.split(".") if p]
        if not parts or parts[0] == own or (len(parts) == 1 and parts[0] in SHARED):
            continue
        private = [p for p in parts if p.startswith("_")]
        assert not private, f"{path.name} imports the private module {target}"
        if len(parts) == 1 and parts[0] in ("plans", "context"):
            assert not [n for n in names if n.startswith("_")], f"{path.name} imports private names of {target}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_private_member_of_another_object(path):
    tree = ast.parse(path.read_text())
    reached = [f"line {node.lineno}: .{node.attr}" for node in ast.walk(tree)
               if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
               and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))]
    assert not reached, f"{path.name} reaches private members: {reached}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_data_engines_are_reached_only_through_the_engine_layer(path):
    """No module of plans or context imports a data library or an engine's own module: data is
    read through ``opendp_duff.engines`` (engine_for, the Engine protocol) alone."""
    for module, level, _ in imports(path):
        top = module.split(".")[0] if level == 0 else ""
        assert top not in ("pandas", "polars", "pyspark"), f"{path.name} imports {module}"
        target = absolute(path, module, level)
        if target.startswith("engines"):
            assert target == "engines", f"{path.name} imports {target}, not opendp_duff.engines"
