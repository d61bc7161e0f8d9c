"""Transformations: stable functions from datasets to datasets or numbers."""
from .clamp import make_clamp, then_clamp
from .count import make_count, then_count
from .sort import make_sort, then_sort
from .sum import make_sum, then_sum

__all__ = ["make_clamp", "then_clamp", "make_sort", "then_sort", "make_count", "then_count",
           "make_sum", "then_sum"]
