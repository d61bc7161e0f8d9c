"""The audit package's public surface: opendp_duff.audit keeps exporting the law types and
builders of opendp_duff.laws (the same objects), and the measurements take their law types
from opendp_duff.laws rather than from the audit tool.
"""
import ast
import pathlib

import opendp_duff
import opendp_duff.audit as audit
import opendp_duff.laws as laws

LAW_NAMES = ["DiscreteLaw", "PiecewiseConstantLaw", "LocationScaleLaw", "discrete_law",
             "step_function_law", "location_scale_law"]


def test_audit_reexports_the_laws():
    for name in LAW_NAMES:
        assert getattr(audit, name) is getattr(laws, name) and name in audit.__all__
    for name in ("exact_privacy_loss", "ExactAudit", "empirical_epsilon_lower_bound", "EmpiricalAudit",
                 "DEFAULT_ALPHAS"):
        assert name in audit.__all__ and hasattr(audit, name)
    assert opendp_duff.audit is audit


def test_measurements_import_laws_not_the_audit():
    root = pathlib.Path(opendp_duff.__file__).parent / "measurements"
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                assert not (node.level == 2 and (node.module or "").startswith("audit")), path.name
