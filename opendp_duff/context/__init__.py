"""The analyst's layer: a dataset behind a privacy budget, running data-free query plans.

* :class:`Context` -- ``dp.Context.compositor(data=..., privacy_unit=..., privacy_loss=...)``;
  it owns the budget and runs plans: ``ctx.release(plan)``, or ``ctx.query()...release()``;
* :class:`~opendp_duff.plans.Query` -- the plans themselves (:mod:`opendp_duff.plans`);
* :func:`unit_of`, :func:`loss_of` -- the privacy unit and the budget.
"""
from ..plans import Query
from ._budget import PrivacyLoss, PrivacyUnit, loss_of, unit_of
from ._context import Context

__all__ = ["Context", "Query", "unit_of", "loss_of", "PrivacyUnit", "PrivacyLoss"]
