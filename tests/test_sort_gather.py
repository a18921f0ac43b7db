"""Issue #24's kinds (ptogen/opkinds/sort.py, gather.py, histogram.py): their goldens state the
rules the pages give (order, ties, merges, bounds), independently of the simulator; the struct
operand is a fact of targets.yaml; a kind that plans its own forms may give an overload result
operands, others may not. (Each op's generated cases run in tests/test_simulator.py.)"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from ptogen.cli import main
from ptogen.opkinds.gather import gather_index, selected
from ptogen.opkinds.sort import merge, records, sort_key

from .helpers import edit

ROOT = Path(__file__).resolve().parents[1]


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


def _lists(*values: list[float]) -> list[np.ndarray]:
    return [np.array([[v, i] for i, v in enumerate(vs)], dtype=np.float32).reshape(-1, 2) for vs in values]


def test_merge_takes_the_largest_head_and_the_lower_list_on_ties() -> None:
    taken, counts = merge(_lists([5, 3, 3], [5, 4, 1]), 10, exhausted=False)
    # value and (list-local) index of each record taken
    assert [(r[0], r[1]) for r in taken] == [(5, 0), (5, 0), (4, 1), (3, 1), (3, 2), (1, 2)]
    assert counts == [3, 3]


def test_merge_stops_at_capacity_or_when_a_list_is_used_up() -> None:
    assert merge(_lists([9, 8, 7], [6, 5]), 2, exhausted=False)[1] == [2, 0]
    taken, counts = merge(_lists([9], [6, 5], [8, 1]), 10, exhausted=True)
    assert len(taken) == 1 and counts == [1, 0, 0]  # list 0 used up after one record
    assert merge(_lists([9], [6, 5], [8, 1]), 10, exhausted=False)[1] == [1, 2, 2]


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


def test_the_executed_list_is_a_struct_fact_declared_before_every_backend() -> None:
    enums = (ROOT / "generated/include/pto/common/pto_enums.hpp").read_text()
    body = re.search(r"struct MrgSortExecutedNumList \{(.*?)\};", enums, re.S)
    assert body is not None
    assert re.findall(r"uint16_t (mrgSortList\d);", body.group(1)) == [f"mrgSortList{i}" for i in range(4)]
    header = (ROOT / "generated/include/pto/common/pto_instr.hpp").read_text()
    assert "MrgSortExecutedNumList& executedNumList, TmpTileData& tmp" in " ".join(header.split())


def test_only_a_kind_that_plans_its_forms_may_add_result_operands(
    spec_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rel = "specs/ops/irregular_and_complex/tmrgsort.yaml"
    edit(spec_project, rel, "semantics: {kind: merge_sort,", "semantics: {kind: move,")
    assert main(["--root", str(spec_project), "gen"]) == 2
    err = capsys.readouterr().err
    assert f"{rel}:" in err and "an overload's own operands cannot change the result" in err
    assert "give the value tests pass for 'executed'" in err
