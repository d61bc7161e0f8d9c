"""The type parameters of Transformation and Measurement, as mypy sees them: ``>>`` and the chain
constructors keep them, ``then_x`` keeps the signature of ``make_x``, and a chain whose spaces do
not fit is a type error before it is a run-time DomainMismatch (mypy on a small program); and
every metric and measure class derives from the public bases the parameters are bound to.
Deterministic: no statistics."""
import pytest

from helpers import missing

PROGRAM = '''
from typing import Callable
import opendp_duff as dp
from opendp_duff.core import Measurement, Transformation
from opendp_duff.domains import AtomDomain, VectorDomain
from opendp_duff.measures import MaxDivergence
from opendp_duff.metrics import AbsoluteDistance, SymmetricDistance

def chain(t: Transformation[VectorDomain, AtomDomain, SymmetricDistance, AbsoluteDistance],
          m: Measurement[AtomDomain, float, AbsoluteDistance, MaxDivergence],
          wrong: Measurement[VectorDomain, float, SymmetricDistance, MaxDivergence],
          post: Callable[[float], str]) -> None:
    reveal_type(t >> m)                                  # line 13
    reveal_type(t >> m >> post)                          # line 14
    reveal_type((t >> m)([1.0]))                         # line 15
    reveal_type(dp.core.make_chain_mt(m, t))             # line 16
    t >> wrong                                           # line 17: the output space does not fit
    dp.m.then_laplace(scal=1.0)                          # line 18: then_x keeps make_x's parameters
    reveal_type(t.output_metric)                         # line 19
    space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
    reveal_type(space >> dp.t.then_count() >> dp.m.then_laplace(scale=1.0))   # line 21
'''


@pytest.mark.slow
@pytest.mark.skipif(bool(missing("mypy")), reason=missing("mypy"))
def test_chaining_keeps_the_type_parameters(tmp_path):
    from mypy import api
    program = tmp_path / "program.py"
    program.write_text(PROGRAM)
    out, err, _ = api.run([str(program), "--follow-imports=silent", "--cache-dir", str(tmp_path / "cache"),
                           "--no-error-summary", "--hide-error-context"])
    lines = {int(line.split(":")[1]): line for line in out.splitlines() if line.startswith(str(program))}
    measurement = ("opendp_duff.core.Measurement[opendp_duff.domains.VectorDomain, {}, "
                   "opendp_duff.metrics.SymmetricDistance, opendp_duff.measures.MaxDivergence]")
    assert f'Revealed type is "{measurement.format("float")}"' in lines[13], out + err
    assert f'Revealed type is "{measurement.format("str")}"' in lines[14], out
    assert 'Revealed type is "float"' in lines[15], out
    assert f'Revealed type is "{measurement.format("float")}"' in lines[16], out
    assert "error" in lines[17] and "Unsupported operand types for >>" in lines[17], out
    assert "error" in lines[18] and 'Unexpected keyword argument "scal"' in lines[18], out
    assert 'Revealed type is "opendp_duff.metrics.AbsoluteDistance"' in lines[19], out
    # constructors annotated with the bare class: the parameters are Any, and the pair chains
    assert 'Revealed type is "opendp_duff.core.Measurement[Any, Any, Any, Any]"' in lines[21], out
    assert len([line for line in lines.values() if ": error:" in line]) == 2, out


def _classes_defining(method):
    """Every class of the package that defines ``method`` itself (its module imported)."""
    import importlib
    import inspect
    import pathlib
    root = pathlib.Path(__file__).resolve().parents[1]
    found = []
    for path in sorted((root / "opendp_duff").rglob("*.py")):
        if f"def {method}(self" not in path.read_text():
            continue
        name = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        module = importlib.import_module(name)
        found += [cls for _, cls in inspect.getmembers(module, inspect.isclass)
                  if cls.__module__ == name and method in vars(cls)]
    return found


def test_every_metric_and_measure_derives_from_the_public_bases():
    """The fields input_metric / output_metric / output_measure are typed with dp.Metric and
    dp.Measure: every class that validates distances is a Metric, every class that composes
    privacy promises is a Measure."""
    import opendp_duff as dp
    metrics, measures = _classes_defining("validate_distance"), _classes_defining("compose")
    assert len(metrics) >= 4 and len(measures) >= 3
    assert [c for c in metrics if not issubclass(c, dp.Metric)] == []
    assert [c for c in measures if not issubclass(c, dp.Measure)] == []
