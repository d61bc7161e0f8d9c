"""opendp_duff.samplers.race.log_widths: the float log of the width, kept for the narrowest and
the widest pieces (it is opendp_duff.laws.log_widths), never a warning.  Nothing here is
statistical; references are computed from the ends read as exact decimals."""
import math
import sys
from decimal import Decimal, localcontext

import pytest

from opendp_duff import laws
from opendp_duff.samplers import race

pytestmark = pytest.mark.filterwarnings("error")

MAX = sys.float_info.max
TINY = 5e-324


def exact(a, b):
    with localcontext() as ctx:
        ctx.prec = 1000
        return float((Decimal(b) - Decimal(a)).ln())


def test_is_the_laws_helper():
    assert race.log_widths is laws.log_widths


@pytest.mark.parametrize("a,b", [(0.0, TINY), (TINY, 2 * TINY), (-TINY, 0.0), (-MAX, MAX), (-MAX, 0.0),
                                 (1.0, 1.0 + 2 ** -52), (-1e308, 1e308), (0.0, 1.0)])
def test_positive_widths_are_kept(a, b):
    assert race.log_widths([a], [b])[0] == pytest.approx(exact(a, b), rel=1e-13)


def test_empty_and_reversed_pieces_are_minus_inf():
    assert race.log_widths([1.0, 2.0, MAX], [1.0, 1.0, -MAX]).tolist() == [-math.inf] * 3
