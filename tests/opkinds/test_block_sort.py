"""The block_sort kind (TSORT32, ptogen/opkinds/sort.py): its golden states the order the page
gives (descending, ties by the smaller index; value then index), independently of the simulator.
(The op's generated cases run in tests/test_simulator.py.)"""

from __future__ import annotations

import numpy as np

from ptogen.opkinds.sort import records, sort_key


def test_block_sort_order_is_descending_with_ties_by_smaller_index() -> None:
    values = np.array([2.0, -1.0, 2.0, 7.0, -0.0, 0.0], dtype=np.float32)
    indices = [9, 1, 4, 3, 8, 2]
    order = sorted(range(6), key=[sort_key(values[n], indices[n]) for n in range(6)].__getitem__)
    assert [indices[n] for n in order] == [3, 4, 9, 2, 8, 1]  # 7, 2 (index 4), 2 (9), +-0 by index, -1
    ints = np.array([np.iinfo(np.int32).min, 5], dtype=np.int32)  # no overflow in the key
    assert sorted(range(2), key=[sort_key(ints[n], n) for n in range(2)].__getitem__) == [1, 0]


def test_records_hold_value_then_index() -> None:
    half = records(np.array([1.5], dtype=np.float16), np.array([0x01020304]), np.dtype(np.float16))
    assert half.tolist() == [0x00, 0x3E, 0, 0, 0x04, 0x03, 0x02, 0x01]  # value, zero pad, index LE
    single = records(np.array([1.0], dtype=np.float32), np.array([7]), np.dtype(np.float32))
    assert single.view(np.uint32).tolist() == [0x3F800000, 7]
