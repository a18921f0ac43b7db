"""`ptogen upstream-st` without an upstream checkout: discovery, gtest output parsing, verdicts,
error extraction, tables, usage errors, and one end-to-end run on a small fake upstream tree laid
out like the real one (skipped where gtest is not installed)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ptogen.cli import main
from ptogen.upstream_st import (
    CaseDir,
    CaseResult,
    DirResult,
    discover,
    first_error,
    format_table,
    judge_case,
    known_tile_types,
    mixed_dirs,
    parse_test_list,
    select_ops,
    skipped_family_dirs,
    summary,
    tile_types,
)

from ..compilers import COMPILERS, cxx_argv, require

LIST_OUTPUT = """\
TADDTest.
  case_float_64x64_64x64_64x64
  case_half_16x256_16x256_16x256
Param/TCmpTest.
  Run/0  # GetParam() = 4-byte object <01-00 00-00>
  Run/1  # GetParam() = 4-byte object <02-00 00-00>
"""


def test_parse_test_list_reads_suites_cases_and_parameterised_names() -> None:
    assert parse_test_list(LIST_OUTPUT) == [
        "TADDTest.case_float_64x64_64x64_64x64",
        "TADDTest.case_half_16x256_16x256_16x256",
        "Param/TCmpTest.Run/0",
        "Param/TCmpTest.Run/1",
    ]
    assert parse_test_list("") == []


def test_judge_case_passes_only_a_clean_single_run() -> None:
    ok = "[==========] 1 test from 1 test suite ran.\n[  PASSED  ] 1 test.\n"
    assert judge_case("S.a", 0, ok).passed
    # Exit 0 without the case having run: the filter matched nothing.
    assert not judge_case("S.a", 0, "[  PASSED  ] 0 tests.\n").passed
    failed = judge_case("S.a", 1, "\033[1;31midx: 0x5, exp->1, act->2 [ERROR]\033[0m\n[  FAILED  ] S.a\n")
    assert not failed.passed
    assert failed.detail == "exit 1: idx: 0x5, exp->1, act->2 [ERROR]"
    aborted = judge_case(
        "S.a", -6, "PTO runtime error: TADD [CPU]: src0 and dst must have the same valid shape\n"
    )
    assert aborted.detail.startswith("killed by signal 6: PTO runtime error: TADD [CPU]")


def test_first_error_is_the_first_error_line_without_its_path() -> None:
    out = (
        "In file included from /x/tests/cpu/st/testcase/tcvt/main.cpp:12:\n"
        "/x/tests/cpu/st/testcase/tcvt/main.cpp:19:92: error: no type named 'SaturationMode' in 'pto'\n"
        "/x/tests/cpu/st/testcase/tcvt/main.cpp:30:1: error: second\n"
    )
    assert first_error(out) == "tcvt/main.cpp:19:92: error: no type named 'SaturationMode' in 'pto'"
    assert "undefined reference" in first_error("ld: k.o: undefined reference to `TFOO'\ncollect2: error")
    assert first_error("") == "failed without output"
    clang_assert = (
        "/w/generated/include/pto/profiles/cpu_checks.hpp:100:9: error: static_assert failed due to "
        "requirement 'sim::is_one_of_v<unsigned char, short>' \"TMULS [CPU]: DType must be: int16_t\""
    )
    assert first_error(clang_assert) == (
        "pto/profiles/cpu_checks.hpp:100:9: error: "
        'static_assert failed: "TMULS [CPU]: DType must be: int16_t"'
    )


def test_discover_finds_test_directories_and_reports_the_rest(tmp_path: Path) -> None:
    base = tmp_path / "tests/cpu/st/testcase"
    (base / "tadd").mkdir(parents=True)
    (base / "tadd/main.cpp").write_text("")
    (base / "tadd/tadd_kernel.cpp").write_text("")
    (base / "tsub").mkdir()  # no main.cpp: not a test directory
    (base / "tmul").mkdir()
    (base / "tmul/main.cpp").write_text("")
    found, missing = discover(tmp_path, ["tadd", "tsub", "tmul", "vadds"])
    assert [d.op for d in found] == ["tadd", "tmul"]
    assert missing == ["tsub", "vadds"]
    assert [p.name for p in found[0].sources] == ["main.cpp", "tadd_kernel.cpp"]
    assert [p.name for p in found[1].sources] == ["main.cpp"]


def test_the_communication_tree_is_searched_too_and_named_apart(tmp_path: Path) -> None:
    tiles, comm = tmp_path / "tests/cpu/st/testcase", tmp_path / "tests/cpu/comm/st/testcase"
    for d in (tiles / "tgather", comm / "tgather", comm / "tget_async_urma", comm / "tnotify_x"):
        d.mkdir(parents=True)
    (tiles / "tgather/main.cpp").write_text("TGATHER(d, s, i);")
    (comm / "tgather/main.cpp").write_text("comm::TGATHER(g, d, t);")
    (comm / "tget_async_urma/main.cpp").write_text("comm::TGET_ASYNC(d, s, session);")
    (comm / "tnotify_x/main.cpp").write_text("TNOTIFY(s, 1, op); TFANCY(s);")
    found, missing = discover(tmp_path, ["tgather", "tput"])
    assert [(d.name, d.path) for d in found] == [
        ("tgather", tiles / "tgather"),
        ("comm/tgather", comm / "tgather"),
    ]
    assert missing == ["tput"]
    covered = ["tgather", "tget", "tget_async", "tnotify"]
    taken = {d.name for d in found}
    # A family directory of an op's forms, by prefix, as in the tile tree.
    assert [d.name for d in mixed_dirs(tmp_path, ["tget"], covered, taken)] == ["comm/tget_async_urma"]
    skipped = skipped_family_dirs(tmp_path, ["tnotify"], covered, set(), taken)
    assert skipped == [("comm/tnotify_x", ["TFANCY"])]


def test_mixed_directories_are_found_by_the_intrinsics_they_call(tmp_path: Path) -> None:
    base = tmp_path / "tests/cpu/st/testcase"
    sources = {
        "tfamily": "TLOAD(a, g); TROWSUM(d, s, t); TCOLMAX<T>(d, s); TEST_F(X, y) {}",
        "tunknown": "TROWSUM(d, s, t); TFANCY(d, s);",  # calls an intrinsic nobody covers
        "tloadonly": "TASSIGN(t, 0); TLOAD(t, g); TSTORE(g, t);",  # only moves data
        "tcolmax": "TASSIGN(t, 0); TLOAD(t, g);",  # its op's own directory, whatever it calls
        "tplace": "TASSIGN(t, 0); TileLeft<float, 16, 16> l; TSTORE(g, t);",  # a tile type besides
        "tbackend": "TASSIGN(t, 0); TLOAD(t, g); TFANCY_IMPL(d, s);",  # a backend call needs its op
        "trowsum": "TROWSUM(d, s, t);",  # has its own op's name: found by `discover`
        "trowsum_acc": "TASSIGN(a, 0);",  # a family directory of trowsum's forms
        "trowsum_mx": "TROWSUM(d, s, t); TFANCY(d, s);",  # ... that needs an uncovered intrinsic
    }
    for name, text in sources.items():
        (base / name).mkdir(parents=True)
        (base / name / "main.cpp").write_text(text)
    covered = ["trowsum", "tcolmax", "tload", "tstore", "tassign"]
    found = mixed_dirs(tmp_path, covered, covered, {"trowsum"})
    assert [d.op for d in found] == ["tfamily", "tloadonly", "tplace", "trowsum_acc"]
    assert [d.op for d in mixed_dirs(tmp_path, ["tload"], covered, set())] == ["tloadonly"]
    assert [d.op for d in mixed_dirs(tmp_path, ["tstore"], covered, set())] == ["tloadonly", "tplace"]
    assert mixed_dirs(tmp_path, ["tassign"], covered, set()) == []  # placing tiles is incidental
    # A tile type the headers do not name keeps a directory out.
    assert [d.op for d in mixed_dirs(tmp_path, ["tstore"], covered, set(), {"TileAcc"})] == ["tloadonly"]
    assert [d.op for d in mixed_dirs(tmp_path, ["tstore"], covered, set(), {"TileLeft"})] == [
        "tloadonly",
        "tplace",
    ]
    assert skipped_family_dirs(tmp_path, ["trowsum"], covered, set(), set()) == [("trowsum_mx", ["TFANCY"])]


def test_tile_types_are_the_ones_a_directory_uses_and_does_not_define(tmp_path: Path) -> None:
    d = tmp_path / "x"
    d.mkdir()
    (d / "main.cpp").write_text(
        "template <class T> struct TileShape2D {}; TileShape2D<int> a; TileAcc<float, 16, 16> c;"
    )
    assert tile_types(CaseDir("x", d)) == {"TileAcc"}
    inc = tmp_path / "inc"
    (inc / "pto").mkdir(parents=True)
    (inc / "pto/tile.hpp").write_text("PTO_CUBE_TILE(TileLeft, Left)\nusing TileAcc = int;")
    assert known_tile_types([inc]) == {"TileLeft", "TileAcc"}


def test_select_ops_accepts_every_spelling_and_names_the_unknown() -> None:
    covered = ["tadd", "tsub"]
    assert select_ops(covered, []) == (covered, [])
    assert select_ops(covered, ["TADD", "pto.tsub", "tfoo"]) == (["tadd", "tsub"], ["tfoo"])
    # a mnemonic that differs from its intrinsic resolves through the aliases
    assert select_ops([*covered, "tsubview"], ["pto.subview"], {"subview": "tsubview"}) == (["tsubview"], [])


def test_table_and_summary_count_cases_and_name_causes() -> None:
    results = [
        DirResult("tadd", cases=[CaseResult("A.x", True), CaseResult("A.y", True)]),
        DirResult("tcmps", cases=[CaseResult("B.x", True), CaseResult("B.y", False, "exit 1: mismatch")]),
        DirResult("tcvt", error="compile: tcvt/main.cpp:1:1: error: nope"),
    ]
    text = format_table(results, markdown=False)
    assert "tadd   2/2" in text and "tcmps  1/2" in text
    assert "B.y: exit 1: mismatch" in text and "compile: tcvt/main.cpp:1:1: error: nope" in text
    md = format_table(results, markdown=True).splitlines()
    assert md[0].startswith("| op | passed/total |") and "| tcvt | compile/gen error |" in md[4]
    assert summary(results) == (
        "3 directories: 1 pass fully, 1 partly, 1 do not build or generate data; 3/4 gtest cases pass"
    )


def test_not_an_upstream_checkout_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["upstream-st", str(tmp_path)]) == 2
    assert "is not an upstream checkout" in capsys.readouterr().err


def test_unknown_op_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "tests/cpu/st/testcase").mkdir(parents=True)
    (tmp_path / "tests/common").mkdir()
    assert main(["upstream-st", str(tmp_path), "tnosuchop"]) == 2
    assert "unknown op(s): tnosuchop" in capsys.readouterr().err


# A miniature upstream tree: a shared header under tests/common, utils.py under tests/cpu/st, and one
# test directory whose gen_data.py writes per-case goldens that main.cpp reads as ../<Suite>.<Case>/.
COMMON_H = """#pragma once
#include <fstream>
#include <string>
#include <vector>
#include <pto/common/type.hpp>
inline std::vector<float> ReadFloats(const std::string& path, size_t n) {
    std::vector<float> v(n);
    std::ifstream f(path, std::ios::binary);
    f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(n * sizeof(float)));
    return f ? v : std::vector<float>{};
}
"""

UTILS_PY = "SCALE = 1.0\n"

GEN_DATA = """import os
import numpy as np
from utils import SCALE
from tests.cpu.st.utils import SCALE as SAME_SCALE  # the other spelling upstream's scripts use
assert SCALE == SAME_SCALE
for case, delta in (("TADDTest.case_ok", 0.0), ("TADDTest.case_wrong_golden", 1.0)):
    os.makedirs(case, exist_ok=True)
    a = (np.arange(64, dtype=np.float32) * SCALE)
    a.tofile(os.path.join(case, "input.bin"))
    (a + a + delta).tofile(os.path.join(case, "golden.bin"))
"""

KERNEL = """#include <pto/pto-inst.hpp>
using namespace pto;
AICORE void run_tadd(__gm__ float __out__* out, __gm__ float __in__* in) {
    using G = GlobalTensor<float, Shape<1, 1, 1, 8, 8>, Stride<1, 1, 1, 8, 1>>;
    Tile<TileType::Vec, float, 8, 8> src, dst;
    G gin(in), gout(out);
    TLOAD(src, gin);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TADD(dst, src, src);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(gout, dst);
}
"""

MAIN = """#include "fake_common.h"
#include <pto/pto-inst.hpp>
#include <gtest/gtest.h>
void run_tadd(float* out, float* in);
static std::string Dir() {
    const auto* info = testing::UnitTest::GetInstance()->current_test_info();
    return std::string("../") + info->test_suite_name() + "." + info->name();
}
static void check() {
    std::vector<float> in = ReadFloats(Dir() + "/input.bin", 64);
    std::vector<float> golden = ReadFloats(Dir() + "/golden.bin", 64);
    ASSERT_EQ(in.size(), 64u);
    float* dev = nullptr;
    aclrtMalloc(reinterpret_cast<void**>(&dev), 64 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);
    run_tadd(dev, in.data());
    for (int i = 0; i < 64; ++i)
        EXPECT_EQ(dev[i], golden[i]) << "idx " << i;
    aclrtFree(dev);
}
TEST(TADDTest, case_ok) { check(); }
TEST(TADDTest, case_wrong_golden) { check(); }
TEST(TADDTest, case_aborts) { set_flag(PIPE_V, PIPE_MTE3, 8); }
"""


def _fake_upstream(root: Path) -> Path:
    (root / "tests/common").mkdir(parents=True)
    (root / "tests/common/fake_common.h").write_text(COMMON_H)
    (root / "tests/cpu/st").mkdir(parents=True)
    (root / "tests/cpu/st/utils.py").write_text(UTILS_PY)
    case = root / "tests/cpu/st/testcase/tadd"
    case.mkdir(parents=True)
    (case / "gen_data.py").write_text(GEN_DATA)
    (case / "tadd_kernel.cpp").write_text(KERNEL)
    (case / "main.cpp").write_text(MAIN)
    return root


def _has_gtest(cxx: str, work: Path) -> bool:
    probe = work / "probe.cpp"
    probe.write_text("#include <gtest/gtest.h>\nTEST(P, Q) {}\n")
    cmd = [*cxx_argv(cxx), str(probe), "-o", str(work / "probe"), "-lgtest_main", "-lgtest", "-pthread"]
    return subprocess.run(cmd, capture_output=True).returncode == 0


@pytest.mark.full_tier  # builds and runs gtest kernels of a fake tree: CI's full tier
@pytest.mark.parametrize("cxx", COMPILERS[:1])  # the pipeline, not the compiler, is under test
def test_end_to_end_on_a_fake_upstream_tree(
    cxx: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = require(cxx)
    if not _has_gtest(path, tmp_path):
        pytest.skip("gtest is not installed (apt-get install libgtest-dev)")
    upstream = _fake_upstream(tmp_path / "upstream")
    build = tmp_path / "build"
    code = main(["upstream-st", str(upstream), "tadd", "--cxx", cxx, "--build-dir", str(build), "-j", "1"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "tadd  1/3" in out
    assert "TADDTest.case_wrong_golden: exit 1:" in out
    assert "TADDTest.case_aborts: killed by signal 6: PTO runtime error: set_flag:" in out
    assert (
        "1 directories: 0 pass fully, 1 partly, 0 do not build or generate data; 1/3 gtest cases pass" in out
    )
    # Built and generated outside the checkout, data where the binary looks for it.
    assert (build / "ptogen/tadd/TADDTest.case_ok/golden.bin").is_file()
    assert not any(p.name == "bin" for p in upstream.rglob("*"))
    shutil.rmtree(build)
