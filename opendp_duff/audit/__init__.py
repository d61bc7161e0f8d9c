"""Privacy audits: the exact privacy loss of a measurement between two given datasets
(:mod:`opendp_duff.audit.exact`), and a black-box, sample-based lower bound on epsilon
(:mod:`opendp_duff.audit.empirical`).

The exact audit reads ``meas.output_law``, the exact law of the release
(:mod:`opendp_duff.laws`, whose names are re-exported here); the empirical audit only runs
the measurement.  Nothing here is differentially private: an audit reads the data.
"""
from ..laws import (DiscreteLaw, LocationScaleLaw, PiecewiseConstantLaw, discrete_law,
                    location_scale_law, step_function_law)
from .empirical import EmpiricalAudit, empirical_epsilon_lower_bound
from .exact import DEFAULT_ALPHAS, ExactAudit, exact_privacy_loss

__all__ = ["DiscreteLaw", "PiecewiseConstantLaw", "LocationScaleLaw", "discrete_law",
           "step_function_law", "location_scale_law", "exact_privacy_loss", "ExactAudit",
           "empirical_epsilon_lower_bound", "EmpiricalAudit", "DEFAULT_ALPHAS"]
