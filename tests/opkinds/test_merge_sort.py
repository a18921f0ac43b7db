"""The merge_sort kind (TMRGSORT, ptogen/opkinds/sort.py): its golden states the rules the page
gives (the largest head first, ties to the lower list, stop at capacity), independently of the
simulator; the executed-list struct operand is a fact of targets.yaml; a kind that plans its own
forms may give an overload result operands, others may not. (The op's generated cases run in
tests/test_simulator.py.)"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ptogen.cli import main
from ptogen.importer.declarations import declaration_shapes
from ptogen.opkinds.sort import merge

from ..compilers import COMPILERS, build_program, require
from ..helpers import edit
from .common import HEADER


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


# The executed list is upstream's struct, in the enums header every backend includes first: four
# uint16_t counts, one per merged list, in order.
EXECUTED = r"""
#include <pto/common/pto_enums.hpp>
#include <cstdint>
#include <type_traits>
using pto::MrgSortExecutedNumList;
constexpr MrgSortExecutedNumList list{1, 2, 3, 4};
static_assert(list.mrgSortList0 == 1 && list.mrgSortList1 == 2);
static_assert(list.mrgSortList2 == 3 && list.mrgSortList3 == 4);
static_assert(std::is_same_v<decltype(MrgSortExecutedNumList::mrgSortList3), uint16_t>);
static_assert(sizeof(MrgSortExecutedNumList) == 4 * sizeof(uint16_t));
int main() { return 0; }
"""


def test_the_executed_list_is_a_struct_fact_declared_before_every_backend(tmp_path: Path) -> None:
    build_program(require(COMPILERS[0]), EXECUTED, tmp_path, "executed")
    # The multi-list forms take it after the destination, then the scratch tile, as upstream's do.
    shapes = declaration_shapes(HEADER)["TMRGSORT"]
    lists = [s.split(">(", 1)[1] for s in shapes if "MrgSortExecutedNumList" in s]
    tiles = [", ".join(f"T{i}&" for i in range(1, n)) for n in (4, 5, 6)]
    assert sorted(lists) == [f"T0&, MrgSortExecutedNumList&, {t}, P&...)" for t in tiles]


def test_only_a_kind_that_plans_its_forms_may_add_result_operands(
    spec_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rel = "specs/ops/irregular_and_complex/tmrgsort.yaml"
    edit(spec_project, rel, "semantics: {kind: merge_sort,", "semantics: {kind: move,")
    assert main(["--root", str(spec_project), "gen"]) == 2
    err = capsys.readouterr().err
    assert f"{rel}:" in err and "an overload's own operands cannot change the result" in err
    assert "give the value tests pass for 'executed'" in err
