"""Combinators: composition, measure conversions and parameter search."""
from .composition import make_composition
from .measure_cast import make_fix_delta, make_pureDP_to_zCDP, make_zCDP_to_approxDP
from .search import binary_search_param

__all__ = ["make_composition", "make_pureDP_to_zCDP", "make_zCDP_to_approxDP",
           "make_fix_delta", "binary_search_param"]
