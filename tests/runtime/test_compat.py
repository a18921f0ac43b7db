"""The compatibility layer for code written against the upstream PTO CPU simulator: the ACL host API,
qualifiers, pipes and flags, the type spellings, constants.hpp and the ten-parameter Tile
(ptogen/runtime/include/pto/common/{cpu_stub,type,constants,tile}.hpp), compiled against the real
generated headers the way such code is built (`-D__CPU_SIM`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ..compilers import COMPILERS, build_program, require

PROGRAM = r"""
#include <pto/common/type.hpp> // first, as upstream's test helpers include it
#include <pto/pto-inst.hpp>
#include <pto/common/constants.hpp>
#include <pto/cpu/tile_offsets.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

using namespace pto;

static int failures = 0;
#define CHECK(cond)                                                                                        \
    do {                                                                                                   \
        if (!(cond)) {                                                                                     \
            ++failures;                                                                                    \
            std::printf("FAIL line %d: %s\n", __LINE__, #cond);                                            \
        }                                                                                                  \
    } while (0)

// The ten-parameter Tile: defaults complete the seven-parameter form, the new facts are readable.
using Seven = Tile<TileType::Vec, float, 8, 16, BLayout::RowMajor, 8, 16>;
using Ten = Tile<TileType::Vec, float, 8, 16, BLayout::RowMajor, 8, 16, SLayout::NoneBox,
                 TileConfig::fractalABSize, PadValue::Null, CompactMode::Null>;
static_assert(std::is_same_v<Seven, Ten>);
using Padded =
    Tile<TileType::Vec, half, 16, 32, BLayout::ColMajor, 4, DYNAMIC, SLayout::NoneBox, 512, PadValue::Max>;
static_assert(Padded::PadVal == PadValue::Max && Padded::SFractal == SLayout::NoneBox);
static_assert(Padded::SFractalSize == 512 && Padded::Compact == CompactMode::Null);
static_assert(Padded::BFractal == BLayout::ColMajor && !Padded::isRowMajor);
static_assert(is_tile_v<Padded> && is_tile_v<Ten>);

// Element offsets: plain layouts, and boxed ones (NZ: boxes down the columns, rows inside a box;
// Zn: boxes along the rows, columns inside a box) with the box edges from the fractal size.
using Nz = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
static_assert(Nz::InnerRows == 16 && Nz::InnerCols == 16 && Nz::isBoxedLayout);
static_assert(GetTileElementOffset<Nz>(17, 3) == 1 * 256 + 1 * 16 + 3);
static_assert(GetTileElementOffset<Nz>(2, 20) == 1 * 32 * 16 + 2 * 16 + 4);
using Zn = Tile<TileType::Mat, float, 16, 16, BLayout::RowMajor, 16, 16, SLayout::ColMajor>;
static_assert(Zn::InnerRows == 8 && Zn::InnerCols == 16);
static_assert(GetTileElementOffset<Zn>(9, 2) == 1 * 16 * 8 + 2 * 8 + 1);
using Acc = Tile<TileType::Acc, float, 16, 32, BLayout::ColMajor, 16, 32, SLayout::RowMajor, 1024>;
static_assert(Acc::InnerRows == 16 && Acc::InnerCols == 16);
static_assert(GetTileElementOffset<Seven>(1, 2) == 18 && GetTileElementOffset<Padded>(1, 2) == 33);
static_assert(std::is_same_v<TypeSum<Padded>, float> && std::is_same_v<TypeSum<Seven>, float>);

// GlobalTensor: static extents and strides by dimension.
using G5 = GlobalTensor<float, Shape<1, 2, 1, 4, 8>, Stride<64, 32, 32, 8, 1>>;
static_assert(G5::GetShape<1>() == 2 && G5::GetShape<4>() == 8 && G5::GetStride<0>() == 64);

// Host-side spellings are the simulator's types.
static_assert(std::is_same_v<aclFloat16, pto::half> && std::is_same_v<half, pto::half>);

// Custom pad values: CustomBase with the value's bits in the low 32 bits.
static_assert(PadValueCustom(-1.0f) == static_cast<PadValue>(0x1BF800000ULL));
static_assert(PadValueCustom(std::int16_t(-1)) == static_cast<PadValue>(0x10000FFFFULL));
static_assert(PadValueCustom(std::int8_t(-128)) == static_cast<PadValue>(0x100000080ULL));
static_assert(PadCustom<42> == static_cast<PadValue>(0x10000002AULL));
static_assert(PadCustom<-1> == static_cast<PadValue>(0x1FFFFFFFFULL));
static_assert(isCustomPadValue(PadCustom<1>) && !isCustomPadValue(PadValue::Max));
static_assert(getCustomPadBits(PadValueCustom(-1.0f)) == 0xBF800000u);
static_assert(BLOCK_BYTE_SIZE == 32 && REPEAT_BYTE == 256 && BLOCK_MAX_PER_REPEAT == 8);

// A kernel in the upstream spelling: qualifiers, Shape/Stride/GlobalTensor, flags between pipes.
template <typename T>
AICORE void scale_kernel(__gm__ T __out__* out, __gm__ T __in__* in) {
    using G = GlobalTensor<T, Shape<1, 1, 1, 4, 8>, Stride<1, 1, 1, 8, 1>>;
    using TileT = Tile<TileType::Vec, T, 4, 16, BLayout::RowMajor, -1, -1>; // whole 32-byte rows of half
    TileT src(4, 8), dst(4, 8);
    TASSIGN(src, 0x0);
    TASSIGN(dst, 0x1000);
    G gin(in), gout(out);
    TLOAD(src, gin);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TADD(dst, src, src);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
    pipe_barrier(PIPE_ALL);
    TSTORE(gout, dst);
}

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "wait_without_set") {
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);
        std::puts("survived");
        return 0;
    }
    if (mode == "bad_event") {
        set_flag(PIPE_V, PIPE_MTE3, 8);
        std::puts("survived");
        return 0;
    }
    if (mode == "one_dynamic") {
        Tile<TileType::Vec, float, 4, 8, BLayout::RowMajor, DYNAMIC, 8> rows(9); // 9 > Rows
        std::puts("survived");
        return 0;
    }

    CHECK(aclInit(nullptr) == ACL_SUCCESS);
    CHECK(aclrtSetDevice(0) == ACL_SUCCESS);
    aclrtStream stream = nullptr;
    CHECK(aclrtCreateStream(&stream) == ACL_SUCCESS && stream != nullptr);
    aclrtStream other = nullptr;
    CHECK(aclrtCreateStream(&other) == ACL_SUCCESS && other != stream);

    const size_t bytes = 32 * sizeof(aclFloat16);
    aclFloat16 *host = nullptr, *in = nullptr, *out = nullptr;
    CHECK(aclrtMallocHost(reinterpret_cast<void**>(&host), bytes) == ACL_SUCCESS);
    CHECK(aclrtMalloc(reinterpret_cast<void**>(&in), bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(aclrtMalloc(reinterpret_cast<void**>(&out), bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(static_cast<float>(out[31]) == 0.0f); // device memory starts zeroed
    void* none = nullptr;
    CHECK(aclrtMalloc(&none, 0, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_ERROR_INVALID_PARAM);

    for (int i = 0; i < 32; ++i)
        host[i] = aclFloatToFloat16(0.5f * static_cast<float>(i));
    CHECK(aclrtMemcpy(in, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
    CHECK(aclrtMemcpy(in, bytes - 1, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_ERROR_INVALID_PARAM);
    CHECK(aclrtMemset(out, bytes, 0x3c, bytes) == ACL_SUCCESS); // 0x3c3c: binary16 1.05859375
    CHECK(aclFloat16ToFloat(out[5]) == 1.05859375f);
    CHECK(aclrtMemset(out, bytes, 0, bytes + 1) == ACL_ERROR_INVALID_PARAM);

    scale_kernel<half>(out, in);
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    CHECK(aclrtMemcpy(host, bytes, out, bytes, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    for (int i = 0; i < 32; ++i)
        CHECK(aclFloat16ToFloat(host[i]) == static_cast<float>(i));

    float gm[128] = {};
    G5 g(gm);
    g.SetElement(0, 1, 0, 2, 5, 7.0f); // 32 + 16 + 5
    g.SetElement(3, -1.0f);
    CHECK(gm[53] == 7.0f && g.GetElement(53) == 7.0f && g.GetElement(0, 1, 0, 2, 5) == 7.0f);
    CHECK(gm[3] == -1.0f && g.GetElement(0, 0, 0, 0, 3) == -1.0f);

    Tile<TileType::Vec, float, 4, 8, BLayout::RowMajor, DYNAMIC, 8> rows(3);
    CHECK(rows.GetValidRow() == 3 && rows.GetValidCol() == 8);
    Tile<TileType::Vec, float, 4, 8, BLayout::RowMajor, 4, DYNAMIC> cols(5);
    CHECK(cols.GetValidRow() == 4 && cols.GetValidCol() == 5);

    CHECK(aclrtFree(in) == ACL_SUCCESS && aclrtFree(out) == ACL_SUCCESS);
    CHECK(aclrtFreeHost(host) == ACL_SUCCESS);
    CHECK(aclrtDestroyStream(stream) == ACL_SUCCESS && aclrtDestroyStream(other) == ACL_SUCCESS);
    CHECK(aclrtResetDevice(0) == ACL_SUCCESS && aclFinalize() == ACL_SUCCESS);
    std::printf("%d failures\n", failures);
    return failures == 0 ? 0 : 1;
}
"""


@pytest.fixture(scope="module", params=COMPILERS)
def program(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    cxx = require(request.param)
    work = tmp_path_factory.mktemp("compat")
    return build_program(cxx, PROGRAM, work, "compat")


def _run(exe: Path, mode: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(exe), *([mode] if mode else [])], capture_output=True, text=True, timeout=60)


def test_host_api_kernel_and_tiles(program: Path) -> None:
    result = _run(program)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 failures" in result.stdout


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("wait_without_set", "PTO runtime error: wait_flag: no set_flag with the same pipes and event id"),
        ("bad_event", "PTO runtime error: set_flag: the event id must be one of EVENT_ID0 .. EVENT_ID7"),
        ("one_dynamic", "PTO runtime error: Tile: run-time valid shape must lie within"),
    ],
)
def test_rule_violations_stop_the_simulation(program: Path, mode: str, message: str) -> None:
    result = _run(program, mode)
    assert result.returncode != 0
    assert "survived" not in result.stdout
    assert result.stderr.startswith(message), result.stderr
