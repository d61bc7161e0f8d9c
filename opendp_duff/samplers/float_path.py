"""Float-path samplers: textbook transforms of 52-bit uniforms.  Not for releases.

Their output set is a sparse, porous set of floats whose shape depends on the location and
scale applied afterwards [Mir12], and their laws are only close to the ideal ones; the
releases of opendp_duff use the exact samplers (:mod:`.gumbel_race`, :mod:`.uniform`,
:mod:`.exact_noise`) instead.  What remains here is what the package still uses:

* :func:`uniform_open`, :func:`standard_laplace`, :func:`standard_normal`: the ``sample()``
  methods of :mod:`opendp_duff.distributions` (through :mod:`.noise`), for simulation and
  plots; ``make_laplace`` / ``make_gaussian`` read only the *sign* of one draw at infinite
  scale (exactly fair: the uniform grid is symmetric about 1/2 and never touches it);
* :func:`standard_gumbel`, :func:`gumbel_argmax`: the float baselines of the benchmarks.
"""
from __future__ import annotations

from typing import overload

import numpy as np
import numpy.typing as npt

from .byte_sources import current_rng

__all__ = ["uniform_open", "standard_laplace", "standard_normal", "standard_gumbel", "gumbel_argmax"]

Size = int | tuple[int, ...]
FloatArray = npt.NDArray[np.float64]
_TWO_M53 = 2.0 ** -53


# [proof:uniform_open.def]
@overload
def uniform_open(size: None = None) -> float: ...
# [end:uniform_open.def]
@overload
def uniform_open(size: Size) -> FloatArray: ...
# [proof:uniform_open]
def uniform_open(size: Size | None = None) -> float | FloatArray:
    """Uniforms on the grid {(2k+1) 2^-53 : 0 <= k < 2^52}, inside (0, 1).

    The grid is symmetric (u and 1 - u are both on it, exactly), never touches 0, 1/2 or 1,
    and every value is an exact double.  8 bytes per draw; ``size=None`` gives a float.
    """
    n = 1 if size is None else int(np.prod(size))
    raw = np.frombuffer(current_rng().random_bytes(8 * n), dtype=np.uint64)
    k = (raw >> np.uint64(12)).astype(np.float64)  # 52 random bits, exact in a double
    u = (2.0 * k + 1.0) * _TWO_M53
    return float(u[0]) if size is None else u.reshape(size)
# [end:uniform_open]


@overload
def standard_laplace(size: None = None) -> float: ...
@overload
def standard_laplace(size: Size) -> FloatArray: ...
def standard_laplace(size: Size | None = None) -> float | FloatArray:
    """Laplace(0, 1) by inversion, using the exact symmetry of the uniform grid (float path)."""
    u = np.asarray(uniform_open(size))
    z = np.where(u < 0.5, np.log(2.0 * u), -np.log(2.0 * (1.0 - u)))
    return float(z) if size is None else z


@overload
def standard_normal(size: None = None) -> float: ...
@overload
def standard_normal(size: Size) -> FloatArray: ...
def standard_normal(size: Size | None = None) -> float | FloatArray:
    """N(0, 1) by inversion with scipy's ``ndtri`` (float path)."""
    from scipy import special  # imported when used: scipy is slow to load
    z = special.ndtri(uniform_open(size))
    return float(z) if size is None else z


@overload
def standard_gumbel(size: None = None) -> float: ...
@overload
def standard_gumbel(size: Size) -> FloatArray: ...
def standard_gumbel(size: Size | None = None) -> float | FloatArray:
    """Gumbel(0, 1) by inversion, -log(-log u) (float path)."""
    z = -np.log(-np.log(uniform_open(size)))
    return float(z) if size is None else z


# [proof:gumbel_argmax]
def gumbel_argmax(log_weights: npt.ArrayLike) -> int:
    """Index i with probability close to softmax(log_weights)_i: the float Gumbel-max trick.

    Entries equal to -inf never win; +inf entries win uniformly among themselves.  Ties in
    the noisy float scores take the first.  Float path: the exact sampler is
    :func:`opendp_duff.samplers.gumbel_race.exact_gumbel_race` (same bytes, exact law).
    """
    w = np.asarray(log_weights, dtype=np.float64)
    pos_inf = np.isposinf(w)
    if pos_inf.any():
        w = np.where(pos_inf, 0.0, -np.inf)
    g = standard_gumbel(w.shape)
    return int(np.argmax(w + g))
# [end:gumbel_argmax]
