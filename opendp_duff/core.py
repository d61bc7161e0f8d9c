"""Transformations, measurements, partial constructors, and chaining with ``>>``."""
import inspect

import attrs

from .samplers import check_entropy
from .errors import DomainMismatch, MetricMismatch, MakeTypeError

__all__ = ["Transformation", "Measurement", "PartialConstructor", "make_chain_tt",
           "make_chain_mt", "make_chain_pm"]


def _space(x):
    """(domain, metric) of something a partial constructor can be applied to."""
    if isinstance(x, Transformation):
        return x.output_domain, x.output_metric
    if isinstance(x, tuple) and len(x) == 2:
        return x
    raise MakeTypeError(f"cannot apply a partial constructor to {x!r}: expected (domain, metric) or a Transformation")


@attrs.frozen(eq=False)
class PartialConstructor:
    """A constructor waiting for its input space: ``then_x(...)``.

    ``(domain, metric) >> then_x(...)`` and ``transformation >> then_x(...)``
    resolve it.
    """

    build: object  # callable(input_domain, input_metric) -> Transformation | Measurement
    name: str = "partial"

    def __call__(self, input_domain, input_metric):
        return self.build(input_domain, input_metric)

    def __rrshift__(self, left):
        built = self.build(*_space(left))
        return left >> built if isinstance(left, Transformation) else built

    def __repr__(self):
        return f"PartialConstructor({self.name})"


@attrs.frozen(eq=False)
class Transformation:
    """A stable function: ``d_out = stability_map(d_in)`` bounds how far outputs move."""

    input_domain: object
    output_domain: object
    input_metric: object
    output_metric: object
    function: object
    stability_map: object

    def __call__(self, data):
        return self.function(data)

    def map(self, d_in):
        return self.stability_map(self.input_metric.validate_distance(d_in))

    def check(self, d_in, d_out):
        d_out = self.output_metric.validate_distance(d_out, "d_out")
        return d_out >= self.map(d_in)

    def __rshift__(self, other):
        if isinstance(other, Transformation):
            return make_chain_tt(other, self)
        if isinstance(other, Measurement):
            return make_chain_mt(other, self)
        if isinstance(other, PartialConstructor):
            return self >> other(self.output_domain, self.output_metric)
        raise MakeTypeError(f"cannot chain a Transformation with {type(other).__name__}")


@attrs.frozen(eq=False)
class Measurement:
    """A randomised function with a privacy map: it is ``privacy_map(d_in)``-private
    under ``output_measure`` for inputs within ``d_in`` under ``input_metric``."""

    input_domain: object
    input_metric: object
    output_measure: object
    function: object
    privacy_map: object
    # Optional: data -> the exact law of the release (see opendp_duff.audit); None when unknown.
    output_law: object = None

    def __call__(self, data):
        check_entropy()  # a broken random source fails here, independently of the data
        return self.function(data)

    def map(self, d_in):
        return self.privacy_map(self.input_metric.validate_distance(d_in))

    def check(self, d_in, d_out):
        d_out = self.output_measure.validate(d_out)
        return self.output_measure.ge(d_out, self.map(d_in))

    def __rshift__(self, other):
        if isinstance(other, (Transformation, Measurement, PartialConstructor)) or not callable(other):
            raise MakeTypeError(
                f"a Measurement can only be followed by a plain function (post-processing), not {other!r}")
        return make_chain_pm(other, self)


def _fit(out_domain, out_metric, in_domain, in_metric):
    if out_domain != in_domain:
        raise DomainMismatch(out_domain, in_domain)
    if out_metric != in_metric:
        raise MetricMismatch(out_metric, in_metric)


def make_chain_tt(t1, t0):
    """t1 after t0: the stability maps compose."""
    _fit(t0.output_domain, t0.output_metric, t1.input_domain, t1.input_metric)
    f0, f1, m0, m1 = t0.function, t1.function, t0.stability_map, t1.stability_map
    return Transformation(
        t0.input_domain, t1.output_domain, t0.input_metric, t1.output_metric,
        lambda x: f1(f0(x)), lambda d: m1(m0(d)))


def make_chain_mt(m1, t0):
    """Measurement m1 after transformation t0: privacy_map(stability_map(d_in))."""
    _fit(t0.output_domain, t0.output_metric, m1.input_domain, m1.input_metric)
    f0, f1, s0, p1 = t0.function, m1.function, t0.stability_map, m1.privacy_map
    law = None if m1.output_law is None else (lambda x, law1=m1.output_law: law1(f0(x)))
    return Measurement(t0.input_domain, t0.input_metric, m1.output_measure,
                       lambda x: f1(f0(x)), lambda d: p1(s0(d)), law)


def make_chain_pm(post, m0):
    """Post-processing: the privacy map is unchanged."""
    f0 = m0.function
    return Measurement(m0.input_domain, m0.input_metric, m0.output_measure,
                       lambda x: post(f0(x)), m0.privacy_map)


def then(make):
    """Build ``then_x`` from ``make_x``: the same constructor, waiting for its input space.

    ``then_x`` has the signature of ``make_x`` without ``input_domain`` and ``input_metric``;
    its arguments are bound when it is called, so a misspelt or missing argument raises
    TypeError at once, and ``help(then_x)`` shows the documentation of ``make_x``.
    """
    signature = inspect.signature(make)
    rest = list(signature.parameters.values())[2:]   # drop input_domain, input_metric
    then_signature = signature.replace(parameters=rest, return_annotation="PartialConstructor")
    name = make.__name__.replace("make_", "then_", 1)

    def then_x(*args, **kwargs):
        bound = then_signature.bind(*args, **kwargs)
        shown = ", ".join(f"{k}={v!r}" for k, v in bound.arguments.items())
        return PartialConstructor(lambda d, m: make(d, m, *bound.args, **bound.kwargs), f"{name}({shown})")

    then_x.__name__ = then_x.__qualname__ = name
    then_x.__module__ = make.__module__
    then_x.__signature__ = then_signature
    then_x.__doc__ = (f"Partial form of :func:`{make.__name__}`: "
                      f"``(input_domain, input_metric) >> {name}(...)``.\n\n"
                      + inspect.cleandoc(make.__doc__ or ""))
    return then_x
