"""opendp_duff: composable differential privacy, with the Duff exponential mechanism
and smooth-sensitivity noise.

>>> import opendp_duff as dp
>>> space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
>>> count = space >> dp.t.then_count() >> dp.m.then_laplace(scale=1.0)
>>> count.map(1)
1.0
"""
from typing import TYPE_CHECKING

from . import c, engines, m, samplers, smooth, t
from .combinators import binary_search_param
from .combinators.sequential import Queryable
from .core import Measurement, PartialConstructor, Transformation
from .domains import AtomDomain, VectorDomain, atom_domain, vector_domain
from .errors import (BudgetExceeded, ChainError, DomainMismatch, FeatureNotEnabled, MakeError, MakeTypeError,
                     MapError, MeasureMismatch, MetricMismatch, NotAMember, NotAMemberTypeError,
                     NotAMemberValueError)
from .features import disable_features, enable_features, enabled_features
from .frames import DataFrameDomain, PartitionDomain, dataframe_domain
from .measures import (Measure, PrivacyProfile, approximate_divergence, max_divergence,
                       smoothed_max_divergence, zero_concentrated_divergence)
from .metrics import (Metric, PartitionBound, PartitionDistance, absolute_distance, change_one_distance,
                      inf_difference_distance, l1_distance, l2_distance, linf_distance,
                      partition_distance, symmetric_distance)

from .duff_utility import StepFunction, duff_utility
from .smooth.sensitivity import (smooth_sensitivity_median, smooth_sensitivity_quantile,
                                 smooth_sensitivity_rounding_slack, smooth_sensitivity_trimmed_mean)

from ._version import __version__ as __version__  # the one version source

# Loaded on first use (``dp.audit``): most programs never audit, and the audit modules are a fifth
# of the package's import time.  scipy is imported only inside the functions that need it.
_LAZY_MODULES = ("audit",)
# The analyst's layer (the context and the query plans) also loads on first use (``dp.Context``,
# ``dp.query()``): programs that build measurements by hand do not need it.
_LAZY_NAMES = {"Context": "context", "loss_of": "context", "unit_of": "context", "Query": "plans",
               "query": "plans", "count": "plans", "mean": "plans", "median": "plans", "mode": "plans",
               "quantile": "plans", "sum": "plans"}
if TYPE_CHECKING:
    from . import audit
    from .context import Context, loss_of, unit_of
    from .plans import Query, count, mean, median, mode, quantile, query, sum  # noqa: A004


def __getattr__(name: str) -> object:
    if name in _LAZY_MODULES:
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    if name in _LAZY_NAMES:
        import importlib
        return getattr(importlib.import_module(f"{__name__}.{_LAZY_NAMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY_MODULES) | set(_LAZY_NAMES))

__all__ = [
    # namespaces of constructors, and the helpers of the smooth-sensitivity mechanisms; the data engines
    "t", "m", "c", "smooth", "audit", "samplers", "engines",
    # the framework
    "Transformation", "Measurement", "PartialConstructor", "binary_search_param",
    # the analyst's layer: a dataset behind a budget
    "Context", "Query", "query", "unit_of", "loss_of",
    "count", "median", "quantile", "mean", "sum", "mode",
    "AtomDomain", "VectorDomain", "atom_domain", "vector_domain",
    "DataFrameDomain", "PartitionDomain", "dataframe_domain", "Queryable",
    "Metric", "Measure",
    "absolute_distance", "change_one_distance", "inf_difference_distance", "l1_distance",
    "l2_distance", "linf_distance", "symmetric_distance",
    "PartitionDistance", "PartitionBound", "partition_distance",
    "PrivacyProfile", "approximate_divergence", "max_divergence", "smoothed_max_divergence",
    "zero_concentrated_divergence",
    # errors
    "ChainError", "DomainMismatch", "MetricMismatch", "MeasureMismatch", "MakeError",
    "MakeTypeError", "MapError", "BudgetExceeded", "NotAMember", "NotAMemberTypeError",
    "NotAMemberValueError", "FeatureNotEnabled",
    # consent to what weakens the guarantees
    "enable_features", "disable_features", "enabled_features",
    # inspection of the Duff utility and of smooth sensitivity (not private releases)
    "StepFunction", "duff_utility", "smooth_sensitivity_median", "smooth_sensitivity_quantile",
    "smooth_sensitivity_rounding_slack", "smooth_sensitivity_trimmed_mean",
]
