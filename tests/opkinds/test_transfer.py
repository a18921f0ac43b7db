"""The transfer op kind (TLOAD, TSTORE, TSTORE_FP, TPREFETCH; the kernels of every op run in
tests/test_simulator.py).

- The kind: its spec checks, page math and global address mapping; TPREFETCH waits on nothing.
- TSTORE's upstream declarations beyond the plain store (unit-flag phase, atomic mode, ReLU,
  quantisation scalar): declarations, CPU backend adapters, test plan, spec checks and, through
  the public API, what each form stores on hand-computed values.
- The conv forms of TLOAD and TSTORE beyond the generated cases (groups `<dtype>_conv`): the
  simulator's requirements, which are no profile rule, fail to compile with their messages, and a
  ConvTile whose BufferSize is too small stops the run."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from ptogen.cli import main
from ptogen.opkinds import KINDS
from ptogen.spec import expr as semantics
from ptogen.spec.model import OpSpec

from ..compilers import COMPILERS, build_program, cxx_argv, require
from ..helpers import ROOT, edit
from .common import OPS, SPECS
from .test_img2col import conv_hand_program


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

    from ..compilers import COMPILERS, cxx_argv, require

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


# TPREFETCH as upstream declares it: no events pack, an event returned, nothing waited on or
# barriered, and the tile holding the region when the call returns.
PREFETCH = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
#include <type_traits>

using namespace pto;
using TileT = Tile<TileType::Vec, float, 16, 16>;
using GTensor = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<256, 256, 256, 16, 1>, Layout::ND>;

template <typename T, typename G>
constexpr bool takes_events = requires(T& t, G& g, RecordEvent e) { TPREFETCH(t, g, e); };
static_assert(!takes_events<TileT, GTensor>);

int main() {
    static float in[256];
    for (int i = 0; i < 256; ++i) in[i] = 0.5f * float(i);
    GTensor gin(in);
    TileT t;
    TASSIGN(t, 0x0);
    std::uint64_t before = 0, after = 0;
    for (int pipe = 0; pipe < 16; ++pipe) before += sim::barrier_count(pipe);
    const auto waits = sim::wait_count();
    RecordEvent e = TPREFETCH(t, gin);
    static_assert(std::is_same_v<decltype(TPREFETCH(t, gin)), RecordEvent>);
    static_cast<void>(e);
    for (int pipe = 0; pipe < 16; ++pipe) after += sim::barrier_count(pipe);
    int wrong = 0;
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) wrong += t.GetElement(r, c) != in[r * 16 + c];
    std::printf("%d %d %d\n", int(sim::wait_count() - waits), int(after - before), wrong);
    return 0;
}
"""


def test_tprefetch_takes_no_events_waits_on_nothing_and_returns_with_the_data(tmp_path: Path) -> None:
    exe = build_program(require(COMPILERS[0]), PREFETCH, tmp_path, "prefetch")
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["0", "0", "0"]  # no wait, no barrier, no element differs

TSTORE = OPS["TSTORE"]
SPEC = "specs/ops/memory_and_data_movement/tstore.yaml"


def test_no_tstore_declaration_gap_left() -> None:
    gaps = (ROOT / "tests/fixtures/upstream_declaration_gaps.txt").read_text()
    assert not [line for line in gaps.splitlines() if line.startswith("TSTORE ")]
    header = (ROOT / "generated/include/pto/common/pto_instr.hpp").read_text()
    assert len(re.findall(r"PTO_INST RecordEvent TSTORE\(", header)) == 8
    assert (
        "enum class STPhase : uint8_t { Unspecified = 0, Partial = 2, Final = 3 };"
        in (ROOT / "generated/include/pto/common/pto_enums.hpp").read_text()
    )


def test_forms_share_the_cpu_impl_where_upstream_does() -> None:
    """The main form fixes AtomicType::AtomicNone where the atomic form passes `atomicType`: one
    `_IMPL<TileData, GlobalData, AtomicType>` serves both (two would be ambiguous in C++)."""
    keys = [a.key for a in TSTORE.adapters]
    assert len(keys) == len(set(keys)) == 7  # the six of TSTORE's forms and TSTORE_FP's
    fp = [a for a in TSTORE.adapters if "fp" in a.target_args]
    assert [(a.target_args, len(a.template)) for a in fp] == [
        (["dst", "src", "fp", "reluPreMode", "atomicType"], 5)
    ]
    main_form, atomic = TSTORE.forms[0].adapter, TSTORE.forms[2].adapter
    assert main_form is not None and atomic is not None
    assert main_form.key == atomic.key and main_form.runs == atomic.runs
    assert main_form.target_args == ["dst", "src", "Fixed2"]
    relu = TSTORE.forms[4].adapter
    assert relu is not None and relu.target_args == ["dst", "src", "reluPreMode", "atomicType"]


def test_forms_with_modes_get_their_own_golden() -> None:
    manifest = json.loads((ROOT / "generated/tests/tstore/manifest.json").read_text())["manifest"]
    modes = {f["index"]: f["modes"] for f in manifest["mode_forms"]}
    assert 1 not in modes  # the phase is a hint: the form must store the main form's bytes
    assert modes[2] == [["AtomicType", "AtomicAdd"]]
    assert modes[5] == [["ReluPreMode", "NormalRelu"], ["AtomicType", "AtomicAdd"]]
    cases = (ROOT / "generated/tests/tstore/cases.cpp").read_text()
    assert "profiled::TSTORE<profile_cpu, STPhase::Final>(dst, src);" in cases
    assert "profiled::TSTORE<profile_cpu, Tile_src, Global_dst, AtomicType::AtomicAdd>(dst, src);" in cases


def test_test_template_args_must_name_an_own_value_parameter(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = edit(
        project,
        SPEC,
        "test_template_args: {Phase: STPhase::Final}",
        "test_template_args: {Stage: STPhase::Final}",
    )
    assert main(["--root", str(project), "gen"]) == 2
    err = capsys.readouterr().err
    assert f"tstore.yaml:{line}: intrinsic.overloads[0].test_template_args" in err
    assert "'Stage' is not a value template parameter only this form has" in err


PROGRAM = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
using namespace pto;
static int failures = 0;
static void expect(const char* what, const float* got, const float* want, int n) {
    for (int i = 0; i < n; ++i)
        if (got[i] != want[i]) {
            std::printf("FAIL %s [%d]: %g != %g\n", what, i, got[i], want[i]);
            ++failures;
            return;
        }
}
int main() {
    using TileT = Tile<TileType::Vec, float, 1, 8>;
    using G = GlobalTensor<float, Shape<1, 1, 1, 1, 8>, Stride<8, 8, 8, 8, 1>, Layout::ND>;
    const float in[8] = {1.5f, -2.0f, 0.0f, -0.0f, 3.0f, -1.0f, 0.25f, 7.0f};
    TileT t;
    TASSIGN(t, 0x0);
    for (int i = 0; i < 8; ++i) t.data()[i] = in[i];
    float out[8];
    G g(out);
    auto reset = [&] { for (int i = 0; i < 8; ++i) out[i] = 10.0f; };

    reset(); TSTORE<STPhase::Final>(g, t);
    expect("phase", out, in, 8);
    reset(); TSTORE<TileT, G, AtomicType::AtomicAdd>(g, t);
    TSTORE<STPhase::Partial, TileT, G, AtomicType::AtomicAdd>(g, t);
    const float twice[8] = {13.0f, 6.0f, 10.0f, 10.0f, 16.0f, 8.0f, 10.5f, 24.0f};
    expect("atomic add, twice", out, twice, 8);
    reset(); TSTORE<TileT, G, AtomicType::AtomicNone, ReluPreMode::NormalRelu>(g, t);
    const float relu[8] = {1.5f, 0.0f, 0.0f, 0.0f, 3.0f, 0.0f, 0.25f, 7.0f};
    expect("relu", out, relu, 8);
    if (std::signbit(out[3])) { std::printf("FAIL relu keeps -0\n"); ++failures; }
    reset(); TSTORE<STPhase::Final, TileT, G, AtomicType::AtomicAdd, ReluPreMode::NormalRelu>(g, t);
    const float relu_add[8] = {11.5f, 10.0f, 10.0f, 10.0f, 13.0f, 10.0f, 10.25f, 17.0f};
    expect("relu then atomic add", out, relu_add, 8);
    reset(); TSTORE<TileT, G>(g, t, uint64_t{0x40000000});  // a 2.0 scale: unread for float -> float
    expect("quant scalar, same element type", out, in, 8);
    reset();
    TSTORE<STPhase::Unspecified, TileT, G, AtomicType::AtomicAdd, ReluPreMode::NormalRelu>(
        g, t, uint64_t{0x40000000});
    expect("quant scalar, relu, atomic add", out, relu_add, 8);
    std::printf("failures %d\n", failures);
    return failures != 0;
}
"""


@pytest.mark.parametrize("compiler", COMPILERS)
def test_forms_store_what_upstreams_cpu_simulator_stores(compiler: str, tmp_path: Path) -> None:
    cxx = require(compiler)
    src = tmp_path / "forms.cpp"
    src.write_text(PROGRAM.replace("#include <cstdio>", "#include <cmath>\n#include <cstdio>"))
    flags = ["-I", str(ROOT / "generated/include"), "-I", str(ROOT / "ptogen/runtime/include")]
    exe = tmp_path / "forms"
    build = subprocess.run(
        [*cxx_argv(cxx), "-std=c++20", "-D__CPU_SIM", *flags, str(src), "-o", str(exe)],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "failures 0" in run.stdout


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return conv_hand_program(tmp_path_factory)  # its TOO_SMALL


def test_a_conv_tile_too_small_for_its_extents_stops(program: Path) -> None:
    run = subprocess.run([str(program), "too_small"], capture_output=True, text=True, check=False)
    assert run.returncode != 0
    assert "TLOAD" in run.stderr, run.stderr
    assert "the ConvTile's extents must fit its BufferSize" in run.stderr, run.stderr


BAD = {
    "layout": (
        "GlobalTensor<half, Shape<1, 1, 2, 2, 16>, Stride<64, 64, 32, 16, 1>, Layout::NDC1HWC0>",
        "ConvTile<TileType::Mat, half, 128, Layout::NC1HWC0, ConvTileShape<1, 1, 2, 2>>",
        "a ConvTile moves to and from a GlobalTensor of its own layout",
    ),
    "location": (
        "GlobalTensor<half, Shape<1, 1, 2, 2, 16>, Stride<64, 64, 32, 16, 1>, Layout::NC1HWC0>",
        "ConvTile<TileType::Vec, half, 128, Layout::NC1HWC0, ConvTileShape<1, 1, 2, 2>>",
        "a ConvTile that TLOAD or TSTORE moves lives in TileType::Mat",
    ),
    "dtype": (
        "GlobalTensor<int64_t, Shape<1, 1, 2, 2, 4>, Stride<16, 16, 8, 4, 1>, Layout::NC1HWC0>",
        "ConvTile<TileType::Mat, int64_t, 128, Layout::NC1HWC0, ConvTileShape<1, 1, 2, 2>>",
        "a ConvTile that TLOAD or TSTORE moves holds int8_t",
    ),
}


BAD["a5_store"] = (
    "GlobalTensor<half, Shape<1, 1, 2, 2, 16>, Stride<64, 64, 32, 16, 1>, Layout::NC1HWC0>",
    "ConvTile<TileType::Mat, half, 128, Layout::NC1HWC0, ConvTileShape<1, 1, 2, 2>>",
    "TSTORE [A5]: tile location must be one of TileType::Vec, TileType::Acc",  # the page's rule, ConvTile too
)


@pytest.mark.full_tier  # compile-only failure checks: CI's full tier
def test_conv_transfer_requirements_fail_to_compile(tmp_path: Path) -> None:
    """One translation unit with a function per broken requirement: each message appears, raised
    from its own function (clang names it in the instantiation notes)."""
    lines = ["#include <pto/pto-inst.hpp>", "using namespace pto;"]
    for what, (glob, tile, _) in BAD.items():
        call = "profiled::TSTORE<profile_a5>(g, t)" if what == "a5_store" else "TLOAD(t, g)"
        lines.append(f"void move_{what}({glob}::DType* p) {{ {glob} g(p); {tile} t; {call}; }}")
    source = tmp_path / "bad.cpp"
    source.write_text("\n".join(lines) + "\n")
    includes = [f"-I{ROOT / 'generated/include'}", f"-I{ROOT / 'ptogen/runtime/include'}"]
    cxx = require(COMPILERS[0])
    proc = subprocess.run(
        [*cxx_argv(cxx), "-std=c++20", "-fsyntax-only", "-ferror-limit=0", *includes, str(source)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode != 0
    for what, (_, _, message) in BAD.items():
        assert message in proc.stderr, (what, proc.stderr[:3000])
