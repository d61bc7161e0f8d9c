"""Transformations, measurements, partial constructors, and chaining with ``>>``.

A :class:`Transformation` or :class:`Measurement` is called on data: ``__call__`` first asks
the input domain to *admit* the data, which refuses a non-member with a
:class:`~opendp_duff.errors.NotAMember` error (quoting nothing of the data) before the
function runs and before any randomness is drawn.  So the function is only ever invoked on
a member, which is what every proof assumes.  The stored function is private (``_function``);
the public ``function`` is ``__call__`` itself, so no public path reaches it without admission.

Each object records two facts that the compositors read before they run anything:

* ``certified``: the library built it, from its own constructors only.  An object is
  certified when the code that constructs it is a module of opendp_duff (not attrs' helpers,
  not the caller's code), and a combinator's result is certified only if every part is
  (:func:`derived`).  A user-written function or map is therefore never certified, and the
  compositors run it only with the feature "honest-but-curious" (``docs/threat-model.md``).
* ``interactive`` (measurements): the release answers further queries (a
  :class:`~opendp_duff.Queryable`).  Chains and post-processing keep it; the non-interactive
  compositors refuse it.

The classes are generic for the type checker only (nothing is checked at run time by the
parameters): ``Transformation[DI, DO, MI, MO]`` (input and output domain, input and output
metric) and ``Measurement[DI, TO, MI, MO]`` (input domain, type of the release, input metric,
output measure).  ``>>`` keeps the parameters: ``Transformation[A, B, M, N] >>
Measurement[B, float, N, MaxDivergence]`` is a ``Measurement[A, float, M, MaxDivergence]``.
A constructor annotated with the bare class leaves them ``Any``.
"""
from __future__ import annotations

import inspect
import sys
from types import FrameType
from typing import Any, Callable, Concatenate, Generic, TypeVar, overload

import attrs

from .errors import MakeTypeError
from .model_types import DI, DO, DO2, MI, MM, MO, MO2, TO, TO2, Domain, P, R
from .links import _compose, check_fit
from .metrics import Metric
from .samplers import check_entropy

__all__ = ["Domain", "Transformation", "Measurement", "PartialConstructor", "make_chain_tt",
           "make_chain_mt", "make_chain_pm", "then", "certified", "derived", "check_fit"]

_LIBRARY = __name__.split(".")[0]
_ATTRS = ("attr", "attrs")          # attrs.evolve builds a copy through __init__: look past it


def _space(x: object) -> tuple[Any, Any]:
    """(domain, metric) of something a partial constructor can be applied to."""
    if isinstance(x, Transformation):
        return x.output_domain, x.output_metric
    if isinstance(x, tuple) and len(x) == 2:
        return x
    raise MakeTypeError(f"cannot apply a partial constructor to {x!r}: expected (domain, metric) or a Transformation")


# [proof:PartialConstructor]
@attrs.frozen(eq=False)
class PartialConstructor(Generic[R]):
    """A constructor waiting for its input space: what ``then_x(...)`` returns.

    ``(domain, metric) >> then_x(...)`` and ``transformation >> then_x(...)`` resolve it;
    calling it with ``(input_domain, input_metric)`` builds the same object.

    Attributes:
        build: ``(input_domain, input_metric) -> Transformation | Measurement``.
        name: shown by ``repr``, e.g. ``then_clamp(bounds=(0, 1))``.
    """

    build: Callable[[Any, Any], R]
    name: str = "partial"

    def __call__(self, input_domain: Domain, input_metric: Metric) -> R:
        return self.build(input_domain, input_metric)

    def __rrshift__(self, left: tuple[Domain, Metric]) -> R:
        # ``transformation >> partial`` is resolved by Transformation.__rshift__; this is the pair
        built = self.build(*_space(left))
        return left >> built if isinstance(left, Transformation) else built

    def __repr__(self) -> str:
        return f"PartialConstructor({self.name})"
# [end:PartialConstructor]


class _Called:
    """What Transformation and Measurement share: the public ``function`` behind admission, and
    the certificate recorded when they are constructed (see the module docstring)."""

    __slots__ = ()
    __call__: Callable[[Any], Any]      # each subclass's: admission, then the stored function

    # [proof:_Called.__attrs_post_init__]
    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_certified", _built_by_library())
    # [end:_Called.__attrs_post_init__]

    @property
    def function(self) -> Callable[[Any], Any]:
        """The function behind admission: ``x.function(data)`` admits ``data`` first, as ``x(data)``."""
        return self.__call__

    @property
    def certified(self) -> bool:
        """Whether the library built this object, and every part of it."""
        return certified(self)


# [proof:Transformation]
@attrs.frozen(eq=False)
class Transformation(_Called, Generic[DI, DO, MI, MO]):
    """A stable function: inputs within ``d_in`` give outputs within ``stability_map(d_in)``.

    Built by the ``make_x`` constructors of :mod:`opendp_duff.transformations`, which prove
    that ``function`` maps members of ``input_domain`` to members of ``output_domain`` without
    error and that ``stability_map`` bounds the output distance.

    Attributes:
        input_domain, output_domain: the domains (public).
        input_metric, output_metric: the metrics (public).
        function: the function behind admission: ``t.function(x)`` is ``t(x)``.  The stored
            callable is private (``_function``, given to the constructor as ``function``);
            the library calls it only on data already admitted.
        stability_map: ``d_in -> d_out``, called by :meth:`map` on a validated ``d_in``.
        certified: whether the library built it (see the module docstring); read-only.
    """

    input_domain: DI
    output_domain: DO
    input_metric: MI
    output_metric: MO
    _function: Callable[[Any], Any]
    stability_map: Callable[[Any], Any]
    _certified: bool = attrs.field(init=False, default=False, repr=False)

    # [proof:transformation_call]
    def __call__(self, data: object) -> Any:
        """Apply the function to ``data``, which must be a member of the input domain.

        Raises:
            NotAMemberTypeError, NotAMemberValueError: ``data`` is not a member; raised before
                the function runs, with a message that does not quote the data.
        """
        member = self.input_domain.admit(data)
        return self._function(member)
    # [end:transformation_call]

    def map(self, d_in: object) -> Any:
        """The stability map at ``d_in``, after the input metric has validated it."""
        return self.stability_map(self.input_metric.validate_distance(d_in))

    def check(self, d_in: object, d_out: object) -> bool:
        """Whether ``d_out >= map(d_in)``."""
        d_out = self.output_metric.validate_distance(d_out, "d_out")
        return bool(d_out >= self.map(d_in))

    @overload
    def __rshift__(self, other: Transformation[DO, DO2, MO, MO2] | PartialConstructor[Transformation[DO, DO2, MO, MO2]],
                   ) -> Transformation[DI, DO2, MI, MO2]: ...

    @overload
    def __rshift__(self, other: Measurement[DO, TO, MO, MM] | PartialConstructor[Measurement[DO, TO, MO, MM]],
                   ) -> Measurement[DI, TO, MI, MM]: ...

    def __rshift__(self, other: object) -> Transformation[DI, Any, MI, Any] | Measurement[DI, Any, MI, Any]:
        """``self`` followed by a transformation, a measurement or a partial constructor.

        Raises:
            DomainMismatch, MetricMismatch: the next one's input space is not this output space.
            MakeTypeError: ``other`` is none of these.
        """
        if isinstance(other, Transformation):
            return make_chain_tt(other, self)
        if isinstance(other, Measurement):
            return make_chain_mt(other, self)
        if isinstance(other, PartialConstructor):
            built: Transformation[Any, Any, Any, Any] | Measurement[Any, Any, Any, Any]
            built = other(self.output_domain, self.output_metric)
            return self >> built
        raise MakeTypeError(f"cannot chain a Transformation with {type(other).__name__}")
# [end:Transformation]


# [proof:Measurement]
@attrs.frozen(eq=False)
class Measurement(_Called, Generic[DI, TO, MI, MM]):
    """A randomised function with a privacy map: on inputs within ``d_in`` under
    ``input_metric`` it is ``privacy_map(d_in)``-private under ``output_measure``.

    Attributes:
        input_domain: the domain of the data (public).
        input_metric: the metric on the data (public).
        output_measure: the privacy measure (max divergence, zCDP, ...).
        function: the randomised function behind admission: ``m.function(x)`` is ``m(x)``.
            The stored callable is private (``_function``, given to the constructor as
            ``function``); the library calls it only on data already admitted.
        privacy_map: ``d_in -> d_out``, called by :meth:`map` on a validated ``d_in``.
        output_law: optional, data -> the exact law of the release (used by the audit).
        interactive: whether the release answers further queries (a Queryable); keyword-only,
            False by default.
        certified: whether the library built it (see the module docstring); read-only.
    """

    input_domain: DI
    input_metric: MI
    output_measure: MM
    _function: Callable[[Any], TO]
    privacy_map: Callable[[Any], Any]
    output_law: Callable[[Any], Any] | None = None
    interactive: bool = attrs.field(default=False, kw_only=True, validator=attrs.validators.instance_of(bool))
    _certified: bool = attrs.field(init=False, default=False, repr=False)

    # [proof:measurement_call]
    def __call__(self, data: object) -> TO:
        """Release ``function(data)``; ``data`` must be a member of the input domain.

        Raises:
            NotAMemberTypeError, NotAMemberValueError: ``data`` is not a member; raised before
                any randomness is drawn, with a message that does not quote the data.
            EntropyError: the random source failed (independently of the data).
        """
        member = self.input_domain.admit(data)
        check_entropy()  # a broken random source fails here, independently of the data
        return self._function(member)
    # [end:measurement_call]

    def map(self, d_in: object) -> Any:
        """The privacy map at ``d_in``, after the input metric has validated it."""
        return self.privacy_map(self.input_metric.validate_distance(d_in))

    def check(self, d_in: object, d_out: object) -> bool:
        """Whether ``d_out`` bounds ``map(d_in)`` in the output measure's order."""
        d_out = self.output_measure.validate(d_out)
        return bool(self.output_measure.ge(d_out, self.map(d_in)))

    def __rshift__(self, other: Callable[[TO], TO2]) -> Measurement[DI, TO2, MI, MM]:
        """Post-processing: ``other`` applied to the release.

        Raises:
            MakeTypeError: ``other`` is a Transformation, Measurement or partial constructor, or
                is not callable.
        """
        if isinstance(other, (Transformation, Measurement, PartialConstructor)) or not callable(other):
            raise MakeTypeError(
                f"a Measurement can only be followed by a plain function (post-processing), not {other!r}")
        return make_chain_pm(other, self)
# [end:Measurement]


# [proof:certified]
def _built_by_library() -> bool:
    """Whether the object being initialised is constructed by the library's own code: the
    first frame above its ``__init__`` that is not attrs' (``attrs.evolve``) runs in a module
    of opendp_duff.  Called only from ``__attrs_post_init__``."""
    frame: FrameType | None = sys._getframe(3)   # this <- __attrs_post_init__ <- __init__ <- constructor
    while frame is not None and str(frame.f_globals.get("__name__", "")).split(".")[0] in _ATTRS:
        frame = frame.f_back
    module = "" if frame is None else str(frame.f_globals.get("__name__", ""))
    return module == _LIBRARY or module.startswith(_LIBRARY + ".")


def certified(obj: object) -> bool:
    """Whether ``obj`` is a Transformation or Measurement (not a subclass) that the library built
    from its own constructors only."""
    return type(obj) in (Transformation, Measurement) and bool(obj._certified)  # type: ignore[attr-defined]


C = TypeVar("C", bound=_Called)


def derived(built: C, *parts: object) -> C:
    """``built`` (just constructed by a combinator) is certified only if every part is: a
    combinator is as trustworthy as what it combines.  Returns ``built``."""
    object.__setattr__(built, "_certified", certified(built) and all(certified(p) for p in parts))
    return built
# [end:certified]


# [proof:make_chain_tt]
def make_chain_tt(t1: Transformation[DO, DO2, MO, MO2],
                  t0: Transformation[DI, DO, MI, MO]) -> Transformation[DI, DO2, MI, MO2]:
    """``t1`` after ``t0`` (what ``t0 >> t1`` builds): the functions and stability maps compose.

    Contract:
        * Input domain and metric: those of ``t0``.
        * Output domain and metric: those of ``t1``.
        * ``t0``'s output domain and metric must equal ``t1``'s input domain and metric
          (DomainMismatch / MetricMismatch otherwise, showing both sides).

    Args:
        t1: the transformation applied second.
        t0: the transformation applied first.

    Stability map:
        ``map(d_in) = t1.map(t0.map(d_in))``: no arithmetic of its own, so no rounding.

    Raises:
        DomainMismatch, MetricMismatch: ``t0``'s output domain or metric is not ``t1``'s input domain or
            metric (both sides are shown).
        NotAMemberTypeError, NotAMemberValueError: calling the transformation on a non-member of
            ``input_domain``, before its function runs; the message quotes no data.
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/core/make_chain_tt.tex``.

    References: [DR14] §2.3 (composing stable functions).

    Example:
        >>> import opendp_duff as dp
        >>> space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
        >>> t = dp.t.make_clamp(*space, bounds=(0.0, 1.0)) >> dp.t.then_sort()
        >>> t.map(2)
        2
    """
    check_fit(t0.output_domain, t0.output_metric, t1.input_domain, t1.input_metric)
    f0, f1, m0, m1 = t0._function, t1._function, t0.stability_map, t1.stability_map
    return derived(Transformation(
        t0.input_domain, t1.output_domain, t0.input_metric, t1.output_metric,
        _compose(f1, f0), lambda d: m1(m0(d))), t0, t1)
# [end:make_chain_tt]


# [proof:make_chain_mt]
def make_chain_mt(m1: Measurement[DO, TO, MO, MM],
                  t0: Transformation[DI, DO, MI, MO]) -> Measurement[DI, TO, MI, MM]:
    """Measurement ``m1`` after transformation ``t0`` (``t0 >> m1``).

    Contract:
        * Input domain and metric: those of ``t0``.
        * Output measure: that of ``m1``.
        * ``t0``'s output domain and metric must equal ``m1``'s input domain and metric.

    Args:
        m1: the measurement applied to the transformed data.
        t0: the transformation applied first.

    Privacy map:
        ``map(d_in) = m1.map(t0.map(d_in))``: no arithmetic of its own, so no rounding.

    Raises:
        DomainMismatch, MetricMismatch: ``t0``'s output domain or metric is not ``m1``'s input domain or
            metric (both sides are shown).
        NotAMemberTypeError, NotAMemberValueError: calling the measurement on a non-member of
            ``input_domain``, before any randomness is drawn; the message quotes no data.
        EntropyError: the random source failed when the measurement was called (checked before the
            function runs, independently of the data).
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/core/make_chain_mt.tex``.

    References: [DR14] §2.3 (a stable transformation followed by a private mechanism).

    Example:
        >>> import opendp_duff as dp
        >>> space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
        >>> m = dp.t.make_count(*space) >> dp.m.then_laplace(scale=2.0)
        >>> m.map(1)
        0.5
    """
    check_fit(t0.output_domain, t0.output_metric, m1.input_domain, m1.input_metric)
    f0, f1, s0, p1 = t0._function, m1._function, t0.stability_map, m1.privacy_map
    law = None if m1.output_law is None else (lambda x, law1=m1.output_law: law1(f0(x)))
    return derived(Measurement(t0.input_domain, t0.input_metric, m1.output_measure,
                               _compose(f1, f0), lambda d: p1(s0(d)), law, interactive=m1.interactive), t0, m1)
# [end:make_chain_mt]


# [proof:make_chain_pm]
def make_chain_pm(post: Callable[[TO], TO2], m0: Measurement[DI, TO, MI, MM]) -> Measurement[DI, TO2, MI, MM]:
    """Post-processing (``m0 >> post``): the privacy map is unchanged.

    Contract:
        * Input domain, metric and output measure: those of ``m0``.
        * ``post`` is a plain function of the release; it must not read the data by other means.

    Args:
        post: the function applied to the release.
        m0: the measurement.

    Privacy map:
        ``map(d_in) = m0.map(d_in)`` (post-processing cannot increase the privacy loss).  The
        result is as certified and as interactive as ``m0``.  An error ``post`` raises may carry
        the release: a compositor charges the query before it runs, so that costs the budget too.

    Raises:
        Exception: whatever ``post`` raises on the release, when the result is called.  Nothing is
            raised at construction: any callable is accepted (``m0 >> post`` refuses a Transformation,
            Measurement or partial constructor with MakeTypeError).
        NotAMemberTypeError, NotAMemberValueError: calling the measurement on a non-member of
            ``input_domain``, before any randomness is drawn; the message quotes no data.
        EntropyError: the random source failed when the measurement was called (checked before the
            function runs, independently of the data).
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/core/make_chain_pm.tex``.

    References: [DR14] Proposition 2.1 (post-processing).

    Example:
        >>> import opendp_duff as dp
        >>> space = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
        >>> m = dp.t.make_count(*space) >> dp.m.then_laplace(scale=2.0) >> round
        >>> m.map(1)
        0.5
    """
    f0 = m0._function
    # post-processing cannot increase the loss: the result is as certified, and as interactive, as m0
    return derived(Measurement(m0.input_domain, m0.input_metric, m0.output_measure,
                                lambda x: post(f0(x)), m0.privacy_map, interactive=m0.interactive), m0)
# [end:make_chain_pm]


def then(make: Callable[Concatenate[Any, Any, P], R]) -> Callable[P, PartialConstructor[R]]:
    """Build ``then_x`` from ``make_x``: the same constructor, waiting for its input space.

    ``then_x`` has the signature of ``make_x`` without ``input_domain`` and ``input_metric``;
    its arguments are bound when it is called, so a misspelt or missing argument raises
    TypeError at once, and ``help(then_x)`` shows the documentation of ``make_x``.
    """
    signature = inspect.signature(make)
    rest = list(signature.parameters.values())[2:]   # drop input_domain, input_metric
    then_signature = signature.replace(parameters=rest, return_annotation="PartialConstructor")
    name = make.__name__.replace("make_", "then_", 1)

    def then_x(*args: P.args, **kwargs: P.kwargs) -> PartialConstructor[R]:
        bound = then_signature.bind(*args, **kwargs)
        shown = ", ".join(f"{k}={v!r}" for k, v in bound.arguments.items())
        return PartialConstructor(lambda d, m: make(d, m, *bound.args, **bound.kwargs), f"{name}({shown})")

    then_x.__name__ = then_x.__qualname__ = name
    then_x.__module__ = make.__module__
    then_x.__signature__ = then_signature  # type: ignore[attr-defined]
    then_x.__doc__ = (f"Partial form of :func:`{make.__name__}`: "
                      f"``(input_domain, input_metric) >> {name}(...)``.\n\n"
                      + inspect.cleandoc(make.__doc__ or ""))
    return then_x
