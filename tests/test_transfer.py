"""The transfer op kind: its spec checks and page math (the kernels run in test_simulator.py)."""

from __future__ import annotations

from pathlib import Path

from ptogen.opkinds import KINDS
from ptogen.spec import expr as semantics
from ptogen.spec.load import load_specs
from ptogen.spec.model import OpSpec

ROOT = Path(__file__).resolve().parents[1]
SPECS = load_specs(ROOT / "specs", ROOT)


def _spec(short: str) -> OpSpec:
    return next(o.spec for o in SPECS.ops if o.spec.short == short)


def test_expression_is_only_the_source_name() -> None:
    kind = KINDS["transfer"]
    assert kind.check_expr(semantics.parse("src", {"src"})) == []
    assert kind.check_expr(semantics.parse("src * 2", {"src"}))
    assert kind.check_expr(semantics.parse("abs(src)", {"src"}))


def test_operands_are_one_tile_and_one_global() -> None:
    kind = KINDS["transfer"]
    assert kind.check_operands(_spec("tload")) == []
    assert kind.check_operands(_spec("tstore")) == []
    assert kind.check_operands(_spec("tadd"))  # tiles only: not a transfer


def test_other_kinds_refuse_global_operands() -> None:
    spec = _spec("tload").model_copy(update={"semantics": _spec("tabs").semantics})
    assert KINDS["elementwise"].check_operands(spec)


def test_page_math_and_address_mapping() -> None:
    for short, lhs in (("tload", r"\mathrm{dst}_{i,j}"), ("tstore", r"\mathrm{dst}_{i,j}")):
        page = next((ROOT / "generated/docs/isa").glob(f"*/ops/*/{short}.md")).read_text()
        assert rf"{lhs} = \mathrm{{src}}_{{i,j}}" in page
        assert "GetStride(3)" in page and "Layout::DN" in page


NZ_PROGRAM = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
using namespace pto;
int main() {
    // A 32 x 16 float matrix in NZ order: two column blocks of 8, each 32 rows (two 16-row fractals).
    float buf[512];
    for (int k = 0; k < 512; ++k)
        buf[k] = static_cast<float>(k);
    using G = GlobalTensor<float, Shape<1, 2, 2, 16, 8>, Stride<512, 256, 128, 8, 1>, Layout::NZ>;
    G g(buf);
    std::printf("%d %d\n", static_cast<int>(g.matrix_rows()), static_cast<int>(g.matrix_cols()));
    const int probe[][2] = {{0, 0}, {0, 7}, {0, 8}, {1, 0}, {17, 3}, {31, 15}};
    for (const auto& p : probe)
        std::printf("%d\n", static_cast<int>(g.at(p[0], p[1])));
}
"""


def test_nz_global_tensor_maps_the_matrix_as_fractal_blocks(tmp_path: Path) -> None:
    """Element (i, j) of an NZ GlobalTensor: column block j / 8, then row i (16-row fractals), then
    j % 8; the C++ view and the golden's mapping agree with the hand-computed offsets."""
    import subprocess

    import numpy as np

    from ptogen.kindlib.layout import global_addresses
    from ptogen.testing.manifest import GlobalShape

    from .compilers import COMPILERS, cxx_argv, require

    cxx = require(COMPILERS[0])
    (tmp_path / "nz.cpp").write_text(NZ_PROGRAM)
    include = [f"-I{ROOT / 'generated/include'}", f"-I{ROOT / 'ptogen/runtime/include'}"]
    built = subprocess.run(
        [*cxx_argv(cxx), "-std=c++20", *include, str(tmp_path / "nz.cpp"), "-o", str(tmp_path / "nz")],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    out = subprocess.run([str(tmp_path / "nz")], capture_output=True, text=True).stdout.split()
    # (i, j) -> block j // 8 (256 apart), row i (8 apart), column j % 8
    want = [0 * 256 + 0 * 8 + 0, 7, 256, 8, 17 * 8 + 3, 256 + 31 * 8 + 7]
    assert out == ["32", "16", *map(str, want)]
    g = GlobalShape(32, 16, 0, "NZ", [1, 2, 2, 16, 8], [512, 256, 128, 8, 1], 512)
    addr = global_addresses(g, 32, 16)
    assert [int(addr[i, j]) for i, j in [(0, 0), (0, 7), (0, 8), (1, 0), (17, 3), (31, 15)]] == want
    assert sorted(addr.ravel().tolist()) == list(range(512))  # a permutation of the buffer
    nd = GlobalShape(8, 3, 5, "ND", [2, 1, 1, 4, 3], [20, 20, 20, 5, 1], 40)
    assert global_addresses(nd, 8, 3)[5, 2] == 1 * 20 + 1 * 5 + 2  # row 5 = outer index 1, row 1
    assert np.array_equal(global_addresses(nd, 4, 3), np.arange(4)[:, None] * 5 + np.arange(3))
