"""The analyst's layer: a dataset behind a privacy budget, and queries calibrated to it.

* :class:`Context` -- ``dp.Context.compositor(data=..., privacy_unit=..., privacy_loss=...)``;
* :class:`Query` -- ``ctx.query().column("income").clamp((0.0, 5e5)).median().release()``;
* :func:`unit_of`, :func:`loss_of` -- the privacy unit and the budget;
* :func:`register_backend` -- where another data engine plugs in.
"""
from ._backends import Backend, register_backend
from ._budget import PrivacyLoss, PrivacyUnit, loss_of, unit_of
from ._context import Context
from ._query import Query

__all__ = ["Context", "Query", "unit_of", "loss_of", "PrivacyUnit", "PrivacyLoss", "Backend",
           "register_backend"]
