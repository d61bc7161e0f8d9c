"""Measurements: randomised functions with privacy maps."""
from .gaussian import make_gaussian, then_gaussian
from .laplace import make_laplace, then_laplace

__all__ = ["make_laplace", "then_laplace", "make_gaussian", "then_gaussian"]
