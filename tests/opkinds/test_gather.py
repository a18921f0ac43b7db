"""The gather kinds (TGATHER, ptogen/opkinds/gather.py): the golden's index and mask patterns state
the pages' rules (bounds, kept positions), independently of the simulator. (Each op's generated
cases run in tests/test_simulator.py.)"""

from __future__ import annotations

import numpy as np
import pytest

from ptogen.opkinds.gather import gather_index, selected


def test_gather_by_index_gives_zero_outside_the_source() -> None:
    src = np.arange(12, dtype=np.float32).reshape(3, 4) + 1
    idx = np.array([[0, 11, -1, 12]])
    assert gather_index(src, idx, np.float32(0)).tolist() == [[1.0, 12.0, 0.0, 0.0]]


@pytest.mark.parametrize(
    ("pattern", "kept"),
    [
        ("P0101", [0, 2]),
        ("P1010", [1, 3]),
        ("P0001", [0]),
        ("P0100", [2]),
        ("P1000", [3]),
        ("P1111", [0, 1, 2, 3]),
    ],
)
def test_mask_patterns_keep_their_positions(pattern: str, kept: list[int]) -> None:
    assert [n for n in range(4) if selected(pattern, n)] == kept
