"""The indexed op kind (MGATHER, MSCATTER, ptogen/opkinds/indexed.py): the golden's out-of-range
policies, the modes each form passes to the simulator, and MGATHER's GM -> L1 forms into a `Mat`
tile (upstream's `mgather_gm2l1` tests): a GlobalTensor index, row and element gathers under every
out-of-range policy, written where the tile's NZ boxes put each element. The program dumps the
tile's storage; the expectations are computed here from the table and the indices, and placed
through the box layout (kindlib.layout.tile_offsets). (Every op's generated cases run in
tests/test_simulator.py.)"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from ptogen.kindlib.layout import tile_offsets
from ptogen.opkinds.indexed import remap_index
from ptogen.testing.manifest import TileShape

from ..compilers import COMPILERS, build_program, require
from .common import manifest

ROWS, COLS = 16, 16  # the Mat tile: NZ boxes of 16 rows x 8 floats
TABLE_ROWS = 8  # row gathers: an 8 x 16 table
TABLE_SIZE = 64  # element gathers: a 64-element table
POLICIES = ["Undefined", "Clamp", "Wrap", "Zero"]

PROGRAM = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
#include <vector>
using namespace pto;
using DstTile = Tile<TileType::Mat, float, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor, 512>;

void dump(const char* what, DstTile& d) {
    std::printf("%s", what);
    for (int i = 0; i < 256; ++i) std::printf(" %g", static_cast<double>(d.data()[i]));
    std::printf("\n");
}

template <GatherOOB Oob>
void row(const char* what, std::vector<int32_t> idx) {
    std::vector<float> table(8 * 16);
    for (int i = 0; i < 8 * 16; ++i) table[i] = static_cast<float>(i + 1);
    GlobalTensor<float, Shape<1, 1, 1, 8, 16>, Stride<1, 1, 1, 16, 1>, Layout::ND> t(table.data());
    GlobalTensor<int32_t, Shape<1, 1, 1, 1, 16>, Stride<1, 1, 1, 16, 1>, Layout::ND> i(idx.data());
    DstTile d;
    TASSIGN(d, 0x0);
    for (int k = 0; k < 256; ++k) d.data()[k] = -1.0f;
    MGATHER<Coalesce::Row, Oob>(d, t, i);
    dump(what, d);
}

template <GatherOOB Oob>
void elem(const char* what, std::vector<int32_t> idx) {
    std::vector<float> table(64), scratch(256);
    for (int i = 0; i < 64; ++i) table[i] = static_cast<float>(1000 + i);
    GlobalTensor<float, Shape<1, 1, 1, 1, 64>, Stride<1, 1, 1, 64, 1>, Layout::ND> t(table.data());
    GlobalTensor<int32_t, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>, Layout::ND> i(idx.data());
    GlobalTensor<float, Shape<1, 1, 1, 1, 256>, Stride<1, 1, 1, 256, 1>, Layout::ND> s(scratch.data());
    DstTile d;
    TASSIGN(d, 0x0);
    for (int k = 0; k < 256; ++k) d.data()[k] = -1.0f;
    MGATHER<Coalesce::Elem, Oob>(d, t, i, s);
    dump(what, d);
}

int main() {
@CALLS@
}
"""


def row_indices(policy: str) -> list[int]:
    return [(3 * r + 1) % TABLE_ROWS if policy == "Undefined" else 3 * r - 5 for r in range(ROWS)]


def elem_indices(policy: str) -> list[int]:
    n = ROWS * COLS
    return [(7 * k + 3) % TABLE_SIZE if policy == "Undefined" else (7 * k) % 90 - 12 for k in range(n)]


def resolve(index: int, capacity: int, policy: str) -> int | None:
    """The table position an index reads (None: the element is zero). Indices are unsigned."""
    u = index % (1 << 32)
    if policy == "Clamp":
        return min(u, capacity - 1)
    if policy == "Wrap":
        return u % capacity
    if policy == "Zero":
        return u if u < capacity else None
    return u


def expected_row(policy: str) -> np.ndarray:
    want = np.zeros((ROWS, COLS), dtype=np.float32)
    for r, index in enumerate(row_indices(policy)):
        at = resolve(index, TABLE_ROWS, policy)
        want[r] = 0 if at is None else np.arange(COLS) + at * COLS + 1
    return want


def expected_elem(policy: str) -> np.ndarray:
    flat = [resolve(i, TABLE_SIZE, policy) for i in elem_indices(policy)]
    return np.array([0 if at is None else 1000 + at for at in flat], dtype=np.float32).reshape(ROWS, COLS)


@pytest.mark.parametrize("compiler", COMPILERS)
def test_gathers_into_a_mat_tile_land_in_its_boxes(compiler: str, tmp_path: Path) -> None:
    cxx = require(compiler)
    calls = []
    for p in POLICIES:
        calls.append(f'    row<GatherOOB::{p}>("row_{p}", {{{", ".join(map(str, row_indices(p)))}}});')
        calls.append(f'    elem<GatherOOB::{p}>("elem_{p}", {{{", ".join(map(str, elem_indices(p)))}}});')
    exe = build_program(cxx, PROGRAM.replace("@CALLS@", "\n".join(calls)), tmp_path, "mgather_l1")
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
    got = {line.split()[0]: np.array(line.split()[1:], dtype=np.float32) for line in run.stdout.splitlines()}
    offsets = tile_offsets(TileShape(ROWS, COLS, ROWS, COLS, "ColMajor", "RowMajor"), 4)
    # The layout really is boxed: element (0, 8) opens the second box column, 16 x 8 elements in.
    assert offsets[0, 8] == 128 and offsets[1, 0] == 8
    for p in POLICIES:
        for kind, want in (("row", expected_row(p)), ("elem", expected_elem(p))):
            storage = np.empty(ROWS * COLS, dtype=np.float32)
            storage[offsets] = want
            np.testing.assert_array_equal(
                got[f"{kind}_{p}"], storage, err_msg=f"{kind} gather, GatherOOB::{p}"
            )


def _modes(op: str) -> set[tuple[str, str, str, str]]:
    """(coalesce, out-of-range policy, atomic mode, out-of-range indices?) of each case the op's
    test plan runs; the generated cases (tests/test_simulator.py) hold each to its golden."""
    return {(a["coalesce"], a["oob"], a["atomic"], a["oob_indices"]) for _, a in _cases(op)}


def _cases(op: str) -> list[tuple[str, dict[str, str]]]:
    return [(c["label"], c["attrs"]) for g in manifest(op)["runtime"] for c in g["cases"]]


def test_the_test_plan_runs_every_mode_of_each_form() -> None:
    gather, scatter = _modes("mgather"), _modes("mscatter")
    for coalesce in ("Row", "Elem"):
        assert (coalesce, "Undefined", "None", "no") in gather
        for oob in ("Clamp", "Wrap", "Zero"):
            assert (coalesce, oob, "None", "yes") in gather
        for oob in ("Clamp", "Wrap", "Skip"):
            assert (coalesce, oob, "None", "yes") in scatter
        assert (coalesce, "Undefined", "Add", "no") in scatter
    assert {("Elem", "Undefined", atomic, "no") for atomic in ("Max", "Min")} <= scatter
    # The plain form (no modes) runs as Row with GatherOOB::Undefined, the pages' default.
    main = [attrs for label, attrs in _cases("mgather") if label.startswith("main form")]
    assert main and all((a["coalesce"], a["oob"]) == ("Row", "Undefined") for a in main)


@pytest.mark.parametrize(
    ("idx", "policy", "want"),
    [
        (3, "Undefined", (3, True)),
        (9, "Clamp", (7, True)),
        (0xFFFFFFFF, "Clamp", (7, True)),  # -1 read as uint32_t
        (0xFFFFFFFF, "Wrap", (0xFFFFFFFF % 8, True)),
        (8, "Zero", (0, False)),
        (8, "Skip", (0, False)),
        (7, "Zero", (7, True)),
    ],
)
def test_out_of_range_policies(idx: int, policy: str, want: tuple[int, bool]) -> None:
    assert remap_index(idx, 8, policy) == want
