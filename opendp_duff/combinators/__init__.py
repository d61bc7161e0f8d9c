"""Combinators: composition (sequential, parallel, interactive), measure conversions and parameter search."""
from .composition import make_composition
from .measure_cast import (make_approximate_zCDP_to_approxDP, make_fix_delta, make_pureDP_to_approxDP,
                           make_pureDP_to_zCDP, make_zCDP_to_approxDP)
from .parallel import make_parallel_composition, then_parallel_composition
from .search import binary_search_param
from .sequential import make_sequential_composition, then_sequential_composition

__all__ = ["make_composition", "make_pureDP_to_zCDP", "make_pureDP_to_approxDP", "make_zCDP_to_approxDP",
           "make_fix_delta", "make_approximate_zCDP_to_approxDP", "binary_search_param",
           "make_parallel_composition", "then_parallel_composition",
           "make_sequential_composition", "then_sequential_composition"]
