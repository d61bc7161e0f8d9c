"""A snapshot check folded into a pass: the driver's side (no Spark needed).

A pass that folds the check returns, on each of its rows, the row's key, that key's row count
and the check's totals over all the key's rows (the fingerprint's sum and the non-member flag);
every key with a row in the snapshot, the null key of the rows of no public key included, has at
least one row.  ``Check.verified_by_key`` sums the keys' totals and compares them with the
snapshot's record; these tests feed it rows as a pass would return them, and rows that differ
from the record in each way the check must catch."""
import pytest

from opendp_duff.engines.spark.snapshot import FOLD_ROWS, Check, Snapshot

KID, H, B = "__opendp_kid", *Check.FOLDED


class Changed(Exception):
    pass


def _check(n=10, h=1_000):
    return Check(frame=object(), snap=Snapshot(("x", "g"), (), n, h), changed=Changed)


def _row(key, tot, h, b=0, v=1.0):
    return {KID: key, "tot": tot, H: h, B: b, "v": v}


def _pass():
    """Keys 0 and 1 (4 and 5 rows) and 1 row of no public key: 10 rows, fingerprint 1,000."""
    return [_row(0, 4, 300, v=1.0), _row(0, 4, 300, v=2.0), _row(1, 5, 650), _row(None, 1, 50, b=None, v=None)]


def test_matching_totals_pass_and_the_null_key_is_dropped():
    rows = _pass()
    assert _check().verified_by_key(rows, KID, "tot") == rows[:3]


@pytest.mark.parametrize("change", ["missing key", "count", "fingerprint", "flag", "overflow", "inconsistent"])
def test_each_difference_from_the_record_is_caught(change):
    rows = _pass()
    if change == "missing key":       # the rows of no public key were not counted
        rows = rows[:3]
    elif change == "count":
        rows[2] = _row(1, 6, 650)
    elif change == "fingerprint":
        rows[2] = _row(1, 5, 651)
    elif change == "flag":            # a non-member appeared
        rows[3] = _row(None, 1, 50, b=1, v=None)
    elif change == "overflow":        # a sum overflowed to null
        rows[2] = _row(1, 5, None)
    else:                             # two rows of one key disagree on its totals
        rows[1] = _row(0, 4, 301, v=2.0)
    with pytest.raises(Changed):
        _check().verified_by_key(rows, KID, "tot")


def test_a_check_folds_only_into_a_pass_over_its_own_nonempty_snapshot_of_fewer_than_2_32_rows():
    check = _check()
    assert check.folds(check.frame)
    assert not check.folds(object())
    for n, h in ((FOLD_ROWS, 2 ** 40), (0, None)):      # too many rows; no row (admission's sum is null)
        other = Check(frame=check.frame, snap=Snapshot(("x",), (), n, h), changed=Changed)
        assert not other.folds(other.frame)
