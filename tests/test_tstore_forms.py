"""TSTORE's upstream declarations beyond the plain store (unit-flag phase, atomic mode, ReLU,
quantisation scalar): declarations, CPU backend adapters, test plan, spec checks and, through the
public API, what each form stores (the generated kernels check every element type in
test_simulator.py; this program checks the semantics by hand-computed values)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from ptogen.cli import main
from ptogen.lower.views import ProjectView
from ptogen.spec.load import load_specs

from .compilers import COMPILERS, cxx_argv, require
from .helpers import ROOT, edit

PROJECT = ProjectView(load_specs(ROOT / "specs", ROOT))
TSTORE = next(o for o in PROJECT.ops if o.name == "TSTORE")
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
