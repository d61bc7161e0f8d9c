"""No message holds data.

Sections:

1. THE TABLE -- one representative chain per public constructor of ``dp.t``, ``dp.m`` and
   ``dp.c`` (``then_x`` is covered by its ``make_x``), with a member to release; and the public
   names that are not constructors, each with the reason.
2. COVERAGE -- every name in the three ``__all__`` lists is in the table or declared not a
   constructor, so adding a constructor without an entry fails here.
3. NON-MEMBERS -- each chain is fed data outside its input domain (NaN, None, strings, 2-d
   arrays, scalars, the wrong size, int64 beyond 2^53, numpy longdouble, 10**400, a
   pandas-like object; for frame and partition domains, pandas frames missing a column or
   holding secrets of the wrong kind, and tuples of the wrong length).  Each must be refused
   with TypeError/ValueError before any random byte is requested, and no text of the error --
   str, repr, args, ``__cause__``, ``__context__`` -- may hold a secret value, a secret string
   or the data's length.
4. MEMBERS -- each chain releases on a member with warnings turned into errors.
"""
import math
import warnings

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff import samplers
from opendp_duff.experiments import _baselines as baselines
from opendp_duff.metrics_id import symmetric_id_distance

pd = pytest.importorskip("pandas", reason="the frame and partition entries need pandas (the pandas extra)")

# ---------------------------------------------------------------- the secrets
SECRET = 31415.9265358979                      # a float; "31415" would show in any repr of it
SECRET_INT = 2 ** 53 + 31415                   # 9007199254772407: an int64 beyond 2^53
SECRET_HUGE = 31415 * 10 ** 400                # beyond every float and int64
SECRET_TEXT = "secret-123"
SECRET_LEN = 1234                              # the length of a wrong-size dataset
LEAKS = ("31415", "4772407", "secret", str(SECRET_LEN))


class SeriesLike:
    """A pandas-Series stand-in (1-d, ``__len__``, ``__array__``): pandas is not imported."""

    ndim = 1

    def __init__(self, values):
        self._values = np.asarray(values, dtype=object)

    def __len__(self):
        return len(self._values)

    def __array__(self, dtype=None, copy=None):
        return self._values

    def __repr__(self):
        return f"SeriesLike({self._values.tolist()!r})"


class NoBytes:
    name = "no bytes"

    def random_bytes(self, n):
        pytest.fail("a random byte was requested for data that is not a member")


# ================================================================ 1. THE TABLE
RAW = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()
RAW_NAN = dp.vector_domain(dp.atom_domain(T=float, nan=True)), dp.symmetric_distance()
RAW_INT = dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance()
N = 9


def sized(metric=None):
    return dp.vector_domain(dp.atom_domain(T=float), size=N), metric or dp.symmetric_distance()


def sorted_(space=RAW):
    return space >> dp.t.then_clamp((0.0, 10.0)) >> dp.t.then_sort()


def lap_atom():
    return dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=1.0)


def gauss_vec():
    return dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=float)), dp.l2_distance(T=float), scale=1.0)


MEMBER = [1.0, 2.5, 3.0, 4.0, 5.5, 6.0, 7.0, 8.0, 9.5]        # N records, inside (0, 10)
FRAME_DOM = dp.dataframe_domain({"region": dp.atom_domain(T=str), "income": dp.atom_domain(T=float)})
FRAME = FRAME_DOM, dp.symmetric_distance()
FRAME_MEMBER = pd.DataFrame({"region": ["N", "S", "N"], "income": [1.0, 2.5, 9.5]})
KEYS = ["N", "S"]


def partitions():
    return FRAME >> dp.t.then_partition_by("region", keys=KEYS)


def part_median():
    space = partitions().output_domain.part_domain, dp.symmetric_distance()
    return (space >> dp.t.then_select_column("income") >> dp.t.then_clamp((0.0, 10.0)) >> dp.t.then_sort()
            >> dp.m.then_duff_median(scale=1.0))


def parallel():
    parts = partitions()
    return dp.c.make_parallel_composition(parts.output_domain, parts.output_metric, part_median())


# name -> (build the chain, a member of its input domain)
TABLE = {
    "make_clamp": (lambda: RAW >> dp.t.then_clamp((0.0, 10.0)), MEMBER),
    "make_impute_constant": (lambda: RAW_NAN >> dp.t.then_impute_constant(0.0), [1.0, math.nan]),
    "make_sort": (lambda: RAW >> dp.t.then_sort(), MEMBER),
    "make_identity": (lambda: dp.t.make_identity(*RAW), MEMBER),
    "make_int_to_float": (lambda: RAW_INT >> dp.t.then_clamp((0, 9)) >> dp.t.then_int_to_float(), [1, 2, 7]),
    "make_count": (lambda: RAW >> dp.t.then_count(), MEMBER),
    "make_sum": (lambda: sized() >> dp.t.then_clamp((0.0, 10.0)) >> dp.t.then_sum(), MEMBER),
    "make_count_by_candidates": (lambda: RAW >> dp.t.then_count_by_candidates([1.0, 2.5]), MEMBER),
    "make_symmetric_to_change_one": (lambda: sized() >> dp.t.then_symmetric_to_change_one(), MEMBER),
    "make_change_one_to_symmetric": (lambda: sized(dp.change_one_distance())
                                     >> dp.t.then_change_one_to_symmetric(), MEMBER),
    "make_laplace": (lap_atom, 2.5),
    "make_gaussian": (gauss_vec, MEMBER),
    "make_duff_median": (lambda: sorted_() >> dp.m.then_duff_median(scale=1.0), MEMBER),
    "make_duff_quantile": (lambda: sorted_() >> dp.m.then_duff_quantile(alpha=0.25, scale=1.0), MEMBER),
    "make_duff_mean": (lambda: sorted_() >> dp.m.then_duff_mean(scale=1.0), MEMBER),
    "make_duff_mode": (lambda: RAW_INT >> dp.t.then_clamp((0, 9)) >> dp.m.then_duff_mode([1, 2], scale=1.0),
                       [1, 2, 2, 7]),
    "make_report_noisy_max_gumbel": (lambda: (dp.vector_domain(dp.atom_domain(T=float)), dp.inf_difference_distance())
                                     >> dp.m.then_report_noisy_max_gumbel(scale=1.0), MEMBER),
    "make_smooth_median": (lambda: sorted_(sized()) >> dp.m.then_smooth_median(t=0.1, s=0.2, noise="student_t"),
                           MEMBER),
    "make_smooth_trimmed_mean": (lambda: sorted_(sized()) >> dp.m.then_smooth_trimmed_mean(
        m=2, t=0.1, s=0.2, noise="student_t"), MEMBER),
    "make_smooth_median_baseline": (lambda: sorted_(sized(dp.change_one_distance()))
                                    >> baselines.then_smooth_median_baseline("SMOOTHSENS_eps", 1.0), MEMBER),
    "make_composition": (lambda: dp.c.make_composition([lap_atom(), lap_atom()]), 2.5),
    "make_pureDP_to_zCDP": (lambda: dp.c.make_pureDP_to_zCDP(lap_atom()), 2.5),
    "make_zCDP_to_approxDP": (lambda: dp.c.make_zCDP_to_approxDP(gauss_vec()), MEMBER),
    "make_fix_delta": (lambda: dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gauss_vec()), delta=1e-6), MEMBER),
    "make_pureDP_to_approxDP": (lambda: dp.c.make_pureDP_to_approxDP(lap_atom()), 2.5),
    "make_select_column": (lambda: FRAME >> dp.t.then_select_column("income") >> dp.t.then_clamp((0.0, 10.0)),
                           FRAME_MEMBER),
    "make_select_columns": (lambda: FRAME >> dp.t.then_select_columns(["income"]), FRAME_MEMBER),
    "make_partition_by": (partitions, FRAME_MEMBER),
    "make_parallel_composition": (parallel, partitions()(FRAME_MEMBER)),
    "make_sequential_composition": (lambda: dp.c.make_sequential_composition(*FRAME, dp.max_divergence(), 1, 1.0),
                                    FRAME_MEMBER),
    "make_count_by_key": (lambda: RAW >> dp.t.then_count_by_key(), MEMBER),
    "make_truncate_per_id": (lambda: (FRAME_DOM, symmetric_id_distance("region"))
                             >> dp.t.then_truncate_per_id(contributions=1, key=bytes(16))
                             >> dp.t.then_select_column("income"), FRAME_MEMBER),
    "make_truncate_per_group": (lambda: (FRAME_DOM, symmetric_id_distance("region"))
                                >> dp.t.then_truncate_per_group("income", max_groups=1, contributions=1,
                                                                key=bytes(16)), FRAME_MEMBER),
    "make_filter": (lambda: FRAME >> dp.t.then_filter("income > 2.0") >> dp.t.then_select_column("income")
                    >> dp.t.then_clamp((0.0, 10.0)), FRAME_MEMBER),
    "make_with_column": (lambda: FRAME >> dp.t.then_with_column("half", "income / 2")
                         >> dp.t.then_select_column("half"), FRAME_MEMBER),
    "make_approximate_zCDP_to_approxDP": (lambda: dp.c.make_approximate_zCDP_to_approxDP(
        RAW >> dp.t.then_count_by_key() >> dp.m.then_threshold_keys(scale=1.0, threshold=5.0, noise="gaussian"),
        delta=1e-6), MEMBER),
    "make_threshold_keys": (lambda: RAW >> dp.t.then_count_by_key()
                            >> dp.m.then_threshold_keys(scale=1.0, threshold=5.0), MEMBER),
}

NOT_CONSTRUCTORS = {
    "binary_search_param": "searches a public parameter; reads no data",
    "draw_truncation_key": "draws a fresh secret key from the byte source; reads no data",
}
# Public constructors outside dp.t, dp.m and dp.c: the papers' baselines, kept with the experiments.
OTHER_CONSTRUCTORS = ["make_smooth_median_baseline", "then_smooth_median_baseline"]


# ================================================================ 2. COVERAGE
def public_names():
    return [n for mod in (dp.t, dp.m, dp.c) for n in mod.__all__] + OTHER_CONSTRUCTORS


def test_every_public_constructor_has_an_entry():
    missing = [n for n in public_names()
               if n not in TABLE and n.replace("then_", "make_", 1) not in TABLE and n not in NOT_CONSTRUCTORS]
    assert not missing, f"add these to TABLE (or NOT_CONSTRUCTORS, with the reason): {missing}"
    stale = sorted((set(TABLE) | set(NOT_CONSTRUCTORS)) - set(public_names()))
    assert not stale, f"entries for names that are no longer public: {stale}"


# ================================================================ 3. NON-MEMBERS
def frame_bad_inputs(domain):
    """(label, frame or object) outside a frame domain with a str "region" and a float "income"."""
    n = domain.size or 3
    return [("None", None), ("string", SECRET_TEXT), ("dict", {"region": [SECRET_TEXT] * n, "income": [SECRET] * n}),
            ("missing column", pd.DataFrame({SECRET_TEXT: [SECRET] * n, "region": ["N"] * n})),
            ("None in strings", pd.DataFrame({"region": [SECRET_TEXT] * (n - 1) + [None], "income": [SECRET] * n})),
            ("number in strings", pd.DataFrame({"region": [SECRET] * n, "income": [SECRET] * n})),
            ("NaN", pd.DataFrame({"region": [SECRET_TEXT] * n, "income": [SECRET] * (n - 1) + [math.nan]})),
            ("strings as floats", pd.DataFrame({"region": ["N"] * n, "income": [SECRET_TEXT] * n})),
            ("wrong size or long", pd.DataFrame({"region": ["N"] * SECRET_LEN, "income": [SECRET] * SECRET_LEN}))
            if domain.size is not None else ("series", pd.Series([SECRET] * n))]


def bad_inputs(domain):
    """(label, data) outside ``domain``, each holding a secret (value, string or length)."""
    if isinstance(domain, dp.DataFrameDomain):
        return frame_bad_inputs(domain)
    if isinstance(domain, dp.PartitionDomain):
        good = [pd.DataFrame({"region": ["N"], "income": [1.0]})] * len(domain.keys)
        return [("None", None), ("one frame", good[0]), ("too many", good * SECRET_LEN),
                ("bad part", (good[0],) + tuple(frame for _, frame in frame_bad_inputs(domain.part_domain)[4:5]))]
    if isinstance(domain, dp.AtomDomain):
        out = [("nan", math.nan), ("None", None), ("string", SECRET_TEXT), ("2-d", np.full((2, 2), SECRET)),
               ("0-d array", np.array(SECRET)), ("list", [SECRET]), ("longdouble", np.longdouble(SECRET)),
               ("10**400", SECRET_HUGE), ("pandas-like", SeriesLike([SECRET]))]
        return out + [("int beyond 2^53", SECRET_INT)] if domain.T is float else out + [("float", SECRET)]
    n = domain.size or 3
    elem = domain.element_domain
    secret = SECRET if elem.T is float else 31415
    out = [("None", None), ("string", SECRET_TEXT), ("scalar", secret), ("strings", [SECRET_TEXT] * n),
           ("None element", [secret] * (n - 1) + [None]), ("2-d", np.full((2, n), secret)),
           ("longdouble", np.full(n, SECRET, dtype=np.longdouble)), ("10**400", [SECRET_HUGE] * n),
           ("dict", {SECRET_TEXT: secret}), ("generator", (secret for _ in range(n))),
           ("pandas-like strings", SeriesLike([SECRET_TEXT] * n))]
    if domain.size is not None:
        out.append(("wrong size", [secret] * SECRET_LEN))
    if elem.T is float:
        out += [("int64 beyond 2^53", np.full(n, SECRET_INT, dtype=np.int64)), ("bool", [True] * n)]
        if not elem.nan:
            with_nan = [SECRET] * (n - 1) + [math.nan]
            out += [("nan", with_nan), ("pandas-like nan", SeriesLike(with_nan))]
    else:
        out += [("floats", [float(secret)] * n), ("beyond int64", [SECRET_INT * 2 ** 20] * n)]
    return out


def texts(exc, depth=0):
    """Every text an error shows: str, repr, args, and the same for its cause and context."""
    if exc is None or depth > 5:
        return []
    out = [str(exc), repr(exc), repr(exc.args)] + [str(a) for a in exc.args]
    return out + texts(exc.__cause__, depth + 1) + texts(exc.__context__, depth + 1)


CASES = [(name, label) for name, (build, _) in TABLE.items() for label, _ in bad_inputs(build().input_domain)]


@pytest.mark.parametrize("name,label", CASES, ids=[f"{n}-{lab}" for n, lab in CASES])
def test_non_member_is_refused_before_randomness_without_quoting_it(name, label):
    chain = TABLE[name][0]()
    x = dict(bad_inputs(chain.input_domain))[label]
    with samplers.byte_source_for_tests(NoBytes()):
        with pytest.raises((TypeError, ValueError)) as info:
            chain(x)
    for text in texts(info.value):
        for leak in LEAKS:
            assert leak not in text, f"{name} on {label}: the error shows {leak!r}: {text!r}"


# ================================================================ 4. MEMBERS
@pytest.mark.parametrize("name", list(TABLE))
def test_member_is_released_without_warnings(name):
    build, member = TABLE[name]
    chain = build()
    assert chain.input_domain.member(member)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with samplers.seeded_rng_for_tests(23):
            chain(member)
