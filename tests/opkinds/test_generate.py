"""The `generate` kind (TCI, TTRI): tiles computed from their own indices, index letters used as
values in index notation. (Each op's generated cases run in tests/test_simulator.py.)"""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from ptogen.spec import expr as semantics
from ptogen.testing import refmath as rm

from ..compilers import COMPILERS, build_program, require
from ..helpers import ROOT
from .common import manifest


def _reference(op: str) -> ModuleType:
    path = ROOT / f"generated/tests/{op}/reference.py"
    spec = importlib.util.spec_from_file_location(f"ref_{op}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_an_index_letter_is_a_value_in_every_rendering() -> None:
    node = semantics.parse("dst[i,j] = select(j <= i + d, 1, 0)", {"dst", "d"})
    cmp = node.args[1].args[0]
    assert cmp.op == "cmp" and cmp.args[0] == semantics.Node("ivar", value="j")
    assert semantics.to_latex(node, lambda n: n) == r"\mathrm{dst}_{i,j} = (j \le i + d) ? 1 : 0"
    loops = semantics.to_cpp_loops(
        node, {"i": "R", "j": "K"}, lambda n, x: "", lambda x, v: f"out = {v};", "C"
    )
    assert "for (int j = 0; j < K; ++j)" in loops and "C(j) <= sim::add<C>(C(i), d)" in loops
    code = semantics.to_numpy(node)
    with rm.index_extents({"i": 3, "j": 4}):
        got = eval(code, {"rm": rm, "C": np.int64, "d": np.int64(0)})  # noqa: S307 - the renderer's own output
    assert np.array_equal(np.broadcast_to(got, (3, 4)), np.tril(np.ones((3, 4), dtype=np.int64)))


def test_an_index_value_needs_its_extent_and_its_binding() -> None:
    node = semantics.parse("dst[i,j] = start + j", {"dst", "start"})
    with pytest.raises(ValueError, match="extent is not known"):
        eval(semantics.to_numpy(node), {"rm": rm, "C": np.int64, "start": np.int64(1)})  # noqa: S307
    with pytest.raises(semantics.ExprError, match="'k' is neither an operand nor an index in scope"):
        semantics.parse("dst[i,j] = start + k", {"dst", "start"})


def test_ttri_and_tci_goldens_match_numpys_own_masks_and_ranges() -> None:
    ttri, tci = _reference("ttri"), _reference("tci")
    for d in (-3, 0, 2):
        with rm.index_extents({"i": 5, "j": 7}):
            lower = np.broadcast_to(ttri.reference(np.int64, np.float32, np.int64(d), np.int64(0)), (5, 7))
            upper = np.broadcast_to(ttri.reference(np.int64, np.float32, np.int64(d), np.int64(1)), (5, 7))
        assert np.array_equal(lower, np.tril(np.ones((5, 7)), d))
        assert np.array_equal(upper, np.triu(np.ones((5, 7)), d))
    with rm.index_extents({"i": 1, "j": 6}):
        up = tci.reference(np.int64, np.int32, np.int64(10), np.int64(0))
        down = tci.reference(np.int64, np.int32, np.int64(10), np.int64(1))
    assert np.array_equal(np.ravel(up), 10 + np.arange(6)) and np.array_equal(
        np.ravel(down), 10 - np.arange(6)
    )


# Unsigned tiles with negative diagonals and a descending range through zero: the index arithmetic
# is signed whatever the element type, and every template argument reaches the simulator.
GENERATED = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
using namespace pto;
using U = Tile<TileType::Vec, uint32_t, 8, 8>;
using Row = Tile<TileType::Vec, int32_t, 1, 16>;
template <typename T>
void dump(T& t) {
    for (int r = 0; r < t.GetValidRow(); ++r)
        for (int c = 0; c < t.GetValidCol(); ++c) std::printf("%lld ", (long long)t.GetElement(r, c));
    std::printf("\n");
}
int main() {
    U lower, upper;
    Row down;
    TASSIGN(lower, 0x0);
    TASSIGN(upper, 0x100);
    TASSIGN(down, 0x200);
    TTRI<U, 0>(lower, -3);
    TTRI<U, 1>(upper, -20);
    TCI<Row, int32_t, 1>(down, 5);
    dump(lower);
    dump(upper);
    dump(down);
    return 0;
}
"""


def test_generated_tiles_compute_signed_index_arithmetic_and_call_with_every_template_argument(
    tmp_path: Path,
) -> None:
    exe = build_program(require(COMPILERS[0]), GENERATED, tmp_path, "generate")
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    lower, upper, down = ([int(v) for v in line.split()] for line in run.stdout.splitlines())
    assert lower == np.tril(np.ones((8, 8), dtype=int), -3).ravel().tolist()
    assert upper == [1] * 64
    assert down == list(range(5, -11, -1))
    labels = {c["label"] for g in manifest("ttri")["runtime"] for c in g["cases"]}
    assert any("is_upper_or_lower 1, diagonal -20" in label for label in labels)
    assert any("col-major" in label for label in labels)  # A5 takes any layout
    assert all(c["tiles"]["dst"]["rows"] == 1 for g in manifest("tci")["runtime"] for c in g["cases"])
