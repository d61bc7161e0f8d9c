"""Transformations: stable functions from datasets to datasets or numbers (re-exported as ``dp.t``)."""
from ._common import dataset_space as dataset_space  # public: the measurements check their space with it
from .clamp import (make_clamp, then_clamp)
from .impute import (make_impute_constant, then_impute_constant)
from .metric_convert import (make_symmetric_to_change_one, then_symmetric_to_change_one,
    make_change_one_to_symmetric, then_change_one_to_symmetric)
from .count_by_candidates import (make_count_by_candidates, then_count_by_candidates)
from .count import (make_count, then_count)
from .sort import (make_sort, then_sort)
from .sum import (make_sum, then_sum)
from .select_column import (make_select_column, then_select_column, make_select_columns,
    then_select_columns)
from .partition import (make_partition_by, then_partition_by)
from .count_by_key import (make_count_by_key, then_count_by_key)
from .row_wise import (make_filter, then_filter, make_with_column, then_with_column)
from .identity import (make_identity, then_identity)
from .cast import (make_int_to_float, then_int_to_float)
from .truncate import (make_truncate_per_id, then_truncate_per_id, make_truncate_per_group,
    then_truncate_per_group, draw_truncation_key)

__all__ = [
    "make_clamp", "then_clamp", "make_symmetric_to_change_one", "then_symmetric_to_change_one",
    "make_change_one_to_symmetric", "then_change_one_to_symmetric", "make_count_by_candidates",
    "then_count_by_candidates", "make_count", "then_count", "make_sort", "then_sort",
    "make_sum", "then_sum", "make_impute_constant", "then_impute_constant",
    "make_select_column", "then_select_column", "make_select_columns", "then_select_columns",
    "make_partition_by", "then_partition_by", "make_count_by_key", "then_count_by_key",
    "make_identity", "then_identity", "make_int_to_float", "then_int_to_float",
    "make_truncate_per_id", "then_truncate_per_id", "make_truncate_per_group", "then_truncate_per_group",
    "draw_truncation_key", "make_filter", "then_filter", "make_with_column", "then_with_column",
]
