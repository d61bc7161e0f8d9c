"""The seam for other data engines: a registered backend is asked first, its builders replace
the named mechanisms, and data no engine reads is refused, naming what is supported."""
import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.context import _backends
from opendp_duff.context._mechanisms import BUILDERS


class Wrapped(tuple):
    """1-D data of another 'engine' (a tuple, so a member of a vector domain)."""


def test_a_registered_backend_is_used_and_may_replace_a_mechanism(monkeypatch):
    used = []

    def median(space, info, bounds=None):
        used.append(info.backend.name)
        return BUILDERS["median"](space, info, bounds=bounds)

    class WrappedBackend(_backends.ArrayBackend):
        name = "wrapped"
        mechanisms = {**BUILDERS, "median": median}

        def accepts(self, data):
            return isinstance(data, Wrapped)

        def domain_of(self, data):
            return dp.vector_domain(dp.atom_domain(T=float))

    monkeypatch.setattr(_backends, "_BACKENDS", list(_backends._BACKENDS))
    dp.context.register_backend(WrappedBackend())
    ctx = dp.Context.compositor(data=Wrapped(np.arange(50.0).tolist()), privacy_unit=dp.unit_of(contributions=1),
                                privacy_loss=dp.loss_of(epsilon=1.0))
    assert "wrapped data" in repr(ctx)
    assert 0.0 <= ctx.query(epsilon=1.0).median(bounds=(0.0, 50.0)).release() <= 50.0
    assert used == ["wrapped"]
    with pytest.raises(dp.MakeTypeError, match="Backend"):
        dp.context.register_backend(object())


def test_data_no_engine_reads_is_refused():
    with pytest.raises(dp.MakeTypeError, match="not supported"):
        dp.Context.compositor(data={"income": [1.0]}, privacy_unit=dp.unit_of(contributions=1),
                              privacy_loss=dp.loss_of(epsilon=1.0))
