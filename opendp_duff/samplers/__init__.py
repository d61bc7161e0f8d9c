"""Every source of randomness in opendp_duff, and every sampler.

Nothing else in the package draws random bits.  The default byte source is the operating
system's CSPRNG (:mod:`.byte_sources`); a seeded source exists for tests only, says so in its
name (:func:`seeded_rng_for_tests`), and is refused unless the feature "insecure-randomness"
is on (:func:`opendp_duff.enable_features`).

The releases use the *exact* samplers, built on one partially sampled random number type
(:mod:`.psrn`) and one directed-rounding interval arithmetic (:mod:`.interval`):

* :mod:`.gumbel_race`: index i with probability exactly softmax(w)_i; :mod:`.lazy_race`, the
  same race with blocks built only if they could win;
* :mod:`.uniform`: a uniform point of [a, b] rounded to the nearest float;
* :mod:`.exact_noise`: ``R(c + sigma Z)`` for exact draws Z of the noise laws;
* :mod:`.race`: the Duff step-density sampler on top of the first two.

:mod:`.float_path` and :mod:`.noise` are float-path samplers (textbook transforms of 52-bit
uniforms): for simulation, plots and benchmark baselines, not for releases.
"""
from .byte_sources import (ENTROPY_CHECK_BYTES, ByteSource, EntropyError, SecureRandom, SeededRandomForTests,
                           byte_source_for_tests, check_entropy, current_rng, seeded_rng_for_tests)
from .float_path import gumbel_argmax, standard_gumbel, standard_laplace, standard_normal, uniform_open

__all__ = [
    "ByteSource", "EntropyError", "SecureRandom", "SeededRandomForTests", "byte_source_for_tests",
    "check_entropy", "current_rng", "seeded_rng_for_tests", "ENTROPY_CHECK_BYTES",
    "gumbel_argmax", "standard_gumbel", "standard_laplace", "standard_normal", "uniform_open",
]
