"""The pipe op kind (ptogen/opkinds/pipe.py, ptogen/runtime/include/pto/cpu/pipe.hpp) beyond its
generated cases: a cube core and two vector cores launched as threads stream tiles both ways through
pipes, and a row of cores through a GridPipe; a wait that no core ends (a pop with no producer, a push
into a full ring nobody drains) or a push off the grid stops in bounded time naming the pipe, the core,
the op and its call site; a tile that cannot fit a slot does not compile; the multi-core program runs
clean under ThreadSanitizer."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from ..compilers import COMPILERS, SIM_FLAGS, build_program, build_shared_program, cxx_argv, require
from ..helpers import ROOT
from ..runtime.test_cores import tsan_available

PROGRAM = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace pto;

using Whole = Tile<TileType::Mat, float, 16, 16>;
using Half = Tile<TileType::Vec, float, 8, 16>;
using Down = TPipe<40, Direction::DIR_C2V, 8 * 16 * sizeof(float), 2>;  // cube to vector, rows split
using Up = TPipe<41, Direction::DIR_V2C, 16 * 16 * sizeof(float), 2>;   // vector to cube, rows split
constexpr int kRounds = 6;

static int failures = 0;
#define CHECK(c) do { if (!(c)) { ++failures; std::printf("FAIL line %d: %s\n", __LINE__, #c); } } while (0)

// One block of a cube core and its two vector cores: the cube pushes kRounds tiles down, each vector
// core doubles its half and pushes it back, the cube checks the whole tile it pops.
static void round_trip() {
    Down::reset_for_cpu_sim();
    Up::reset_for_cpu_sim();
    cpu_sim::KernelLaunchOptions options;
    options.kernel_name = "round_trip";
    options.explicit_block_count = 1;
    options.subblocks_per_block = 3;  // sub-block 2 plays the cube core
    std::atomic<int> wrong{0};
    cpu_sim::LaunchKernelMultiCore(options, nullptr, [&] {
        Down down;
        Up up;
        if (get_subblockid() == 2) {
            cpu_sim::ScopedExecutionContext cube(0, 0, 1);
            Whole out, back;
            TASSIGN(out, 0x0);
            TASSIGN(back, 0x400);
            for (int r = 0; r < kRounds; ++r) {
                for (int e = 0; e < Whole::Numel; ++e)
                    out.data()[e] = static_cast<float>(r * 1000 + e);
                TPUSH<Down, Whole, TileSplitAxis::TILE_UP_DOWN>(down, out);
                TPOP<Up, Whole, TileSplitAxis::TILE_UP_DOWN>(up, back);
                for (int e = 0; e < Whole::Numel; ++e)
                    if (back.data()[e] != 2.0f * static_cast<float>(r * 1000 + e))
                        ++wrong;
                TFREE<Up, TileSplitAxis::TILE_UP_DOWN>(up);
            }
            return;
        }
        cpu_sim::ScopedExecutionContext vector(0, get_subblockid(), 2);
        Half half;
        TASSIGN(half, 0x0);
        for (int r = 0; r < kRounds; ++r) {
            TPOP<Down, Half, TileSplitAxis::TILE_UP_DOWN>(down, half);
            TFREE<Down, TileSplitAxis::TILE_UP_DOWN>(down);
            for (int e = 0; e < Half::Numel; ++e)
                half.data()[e] *= 2.0f;
            TPUSH<Up, Half, TileSplitAxis::TILE_UP_DOWN>(up, half);
        }
    });
    CHECK(wrong.load() == 0);
}

// A row of three cores, each with its window: core 1 broadcasts along the row, then every core
// pushes kRounds tiles east and pops what its west neighbour pushed, through a ring of two slots.
using Row = GridPipe<Half, 8 * 16 * sizeof(float), 2>;
constexpr std::uint32_t kWindow = a2a3_grid::WindowBytes<Row>();

static void grid_row() {
    std::vector<std::uint8_t> windows(3 * kWindow);
    GmSramArena arena{reinterpret_cast<std::uint64_t>(windows.data()), kWindow, 3};
    std::atomic<int> wrong{0};
    std::vector<std::thread> cores;
    for (int rank = 0; rank < 3; ++rank)
        cores.emplace_back([&, rank] {
            cpu_sim::ScopedExecutionContext core(rank, 0, 1);
            const GridShape shape{1, 3};
            Row pipe;
            std::uint8_t* window = windows.data() + rank * kWindow;
            a2a3_grid::InitGridPipeFromWindow(pipe, shape, GetGridCoord(shape), window, &arena, 1);
            Half out, in;
            TASSIGN(out, 0x0);
            TASSIGN(in, 0x200);
            // A broadcast is one-shot (it waits for no free slot), so it comes before the stream.
            if (rank == 1) {
                for (int e = 0; e < Half::Numel; ++e)
                    out.data()[e] = static_cast<float>(7000 + e);
                TPUSH<GridSpan::ROW>(pipe, out);
            } else {
                if (rank == 0)
                    TPOP<GridDirection::WEST>(pipe, in);
                else
                    TPOP<GridDirection::EAST>(pipe, in);
                if (in.data()[3] != 7003.0f)
                    ++wrong;
            }
            for (int r = 0; r < kRounds; ++r) {
                for (int e = 0; e < Half::Numel; ++e)
                    out.data()[e] = static_cast<float>(rank * 1000 + r * 10 + e);
                if (rank < 2)
                    TPUSH<GridDirection::EAST>(pipe, out);
                if (rank > 0) {
                    TPOP<GridDirection::EAST>(pipe, in);
                    for (int e = 0; e < Half::Numel; ++e)
                        if (in.data()[e] != static_cast<float>((rank - 1) * 1000 + r * 10 + e))
                            ++wrong;
                }
            }
        });
    for (auto& c : cores)
        c.join();
    CHECK(wrong.load() == 0);
}

// One core of a row of two, its pipe on its window.
static void lone_grid_core(const char* what) {
    static std::vector<std::uint8_t> windows(2 * kWindow);
    static GmSramArena arena{reinterpret_cast<std::uint64_t>(windows.data()), kWindow, 2};
    cpu_sim::ScopedExecutionContext core(1, 0, 1);
    const GridShape shape{1, 2};
    Row pipe;
    a2a3_grid::InitGridPipeFromWindow(pipe, shape, GetGridCoord(shape), windows.data() + kWindow, &arena, 9);
    Half half;
    if (std::string(what) == "grid_pop_with_no_producer")
        TPOP<GridDirection::EAST>(pipe, half);  // NO GRID PRODUCER
    else
        TPUSH<GridDirection::EAST>(pipe, half);  // OFF THE GRID
}

// A row of two cores: core 0 broadcasts along the row into core 1's ring of two slots, which pops
// twice after two broadcasts (so two more reuse drained slots), then three more broadcasts reach
// slots holding tiles core 1 has not popped.
static void broadcast_overwrite() {
    static std::vector<std::uint8_t> windows(2 * kWindow);
    static GmSramArena arena{reinterpret_cast<std::uint64_t>(windows.data()), kWindow, 2};
    cpu_sim::ScopedExecutionContext core(0, 0, 1);
    const GridShape shape{1, 2};
    Row source, sink;
    a2a3_grid::InitGridPipeFromWindow(source, shape, GridCoord{0, 0}, windows.data(), &arena, 5);
    a2a3_grid::InitGridPipeFromWindow(sink, shape, GridCoord{0, 1}, windows.data() + kWindow, &arena, 5);
    Half out, in;
    TASSIGN(out, 0x0);
    TASSIGN(in, 0x200);
    for (int r = 0; r < 4; ++r) {
        out.data()[0] = static_cast<float>(r);
        TPUSH<GridSpan::ROW>(source, out);
        if (r == 1)
            for (int k = 0; k < 2; ++k) {
                TPOP<GridDirection::EAST>(sink, in);
                CHECK(in.data()[0] == static_cast<float>(k));
            }
    }
    std::puts("drained slots reused");
    std::fflush(stdout);
    for (int r = 4; r < 7; ++r) {
        out.data()[0] = static_cast<float>(r);
        TPUSH<GridSpan::ROW>(source, out);  // OVERWRITES UNPOPPED
    }
    TPOP<GridDirection::EAST>(sink, in);  // the device's result: tile 6 took tile 2's slot
    CHECK(in.data()[0] == 6.0f);
}

int main(int argc, char** argv) {
    const std::string what = argc > 1 ? argv[1] : "";
    if (what == "broadcast_overwrite") {
        broadcast_overwrite();
        std::puts("survived");
        return failures == 0 ? 0 : 1;
    }
    if (what.rfind("grid_", 0) == 0) {
        lone_grid_core(what.c_str());
        std::puts("survived");
        return 0;
    }
    if (what == "pop_with_no_producer") {
        Down::reset_for_cpu_sim();
        Down pipe;
        Half half;
        cpu_sim::ScopedExecutionContext vector(0, 1, 2);
        TPOP<Down, Half, TileSplitAxis::TILE_UP_DOWN>(pipe, half);  // NO PRODUCER
        std::puts("survived");
        return 0;
    }
    if (what == "push_into_full_ring") {
        Down::reset_for_cpu_sim();
        Down pipe;
        Whole whole;
        for (int i = 0; i < 3; ++i)
            TPUSH<Down, Whole, TileSplitAxis::TILE_UP_DOWN>(pipe, whole);  // RING FULL
        std::puts("survived");
        return 0;
    }
    round_trip();
    grid_row();
    std::printf("%d failures\n", failures);
    return failures == 0 ? 0 : 1;
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_shared_program(
        require(COMPILERS[0]), PROGRAM, tmp_path_factory, "p", ["-g", "-DPTO_SIM_CALL_SITE"]
    )


def run(program: Path, what: str = "") -> subprocess.CompletedProcess[str]:
    # A deadlock case stops after 200 ms; the streaming run keeps the default limit, which a loaded
    # machine's scheduling delays cannot reach.
    env = {**os.environ, "PTO_CPU_SIM_PIPE_MAX_WAIT_MS": "200"} if what else dict(os.environ)
    return subprocess.run([str(program), what], capture_output=True, text=True, timeout=60, env=env)


def test_cube_and_vector_cores_stream_tiles_both_ways(program: Path) -> None:
    out = run(program)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.splitlines() == ["0 failures"]


def stopped(program: Path, what: str, site: str) -> str:
    """The first line a failing run prints, after checking that it stopped in bounded time and named
    the line of the kernel that holds `site`."""
    start = time.monotonic()
    out = run(program, what)
    assert time.monotonic() - start < 30
    assert out.returncode != 0 and "survived" not in out.stdout
    if shutil.which("addr2line"):
        line = next(i for i, t in enumerate(PROGRAM.splitlines(), 1) if site in t)
        assert f"p.cpp:{line}" in out.stderr, out.stderr
    return out.stderr.splitlines()[0]


@pytest.mark.parametrize(
    ("what", "op", "site", "waiting"),
    [
        ("pop_with_no_producer", "TPOP", "NO PRODUCER", "no producer pushed a slot for the pop"),
        ("push_into_full_ring", "TPUSH", "RING FULL", "no slot became free for the push"),
    ],
)
def test_a_wait_no_core_ends_stops_naming_the_pipe_core_and_call_site(
    program: Path, what: str, op: str, site: str, waiting: str
) -> None:
    first = stopped(program, what, site)
    assert first.startswith(f"PTO runtime error: {op}: pipe TPipe<40, 1, 512, 2>"), first
    core = "block 0, sub-block 1 of 2" if op == "TPOP" else "block 0, sub-block 0 of 1"
    assert core in first and waiting in first and "within 200 ms" in first, first
    assert "PTO_CPU_SIM_PIPE_MAX_WAIT_MS" in first


@pytest.mark.parametrize(
    ("what", "op", "site", "message"),
    [
        (
            "grid_pop_with_no_producer",
            "TPOP",
            "NO GRID PRODUCER",
            "no tile came from the EAST for the pop (no core pushed one 1 hop(s) away) within 200 ms",
        ),
        ("grid_push_off_the_grid", "TPUSH", "OFF THE GRID", "no core 1 hop(s) EAST of this one: the push"),
    ],
)
def test_a_grid_pipe_stops_naming_the_pipe_core_and_call_site(
    program: Path, what: str, op: str, site: str, message: str
) -> None:
    first = stopped(program, what, site)
    pipe = "GridPipe<512-byte slots, 2 slots> (pipe id 9) on core (0, 1) of a 1 x 2 grid"
    assert first.startswith(f"PTO runtime error: {op}: {pipe}: {message}"), first


def test_a_broadcast_over_an_unpopped_tile_warns_once_naming_pipe_cores_slot_and_call_site(
    program: Path,
) -> None:
    """A broadcast waits for no free slot (one broadcast per slot, as upstream's A2A3 backend says): one
    that reaches a slot whose tile its core has not popped overwrites it, as on the device. The pages
    leave that undefined, so the CPU profile (the program's) warns once per call site and goes on."""
    out = run(program, "broadcast_overwrite")
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.splitlines() == ["drained slots reused", "survived"]
    heads = [line for line in out.stderr.splitlines() if line.startswith("PTO runtime")]
    pipe = "GridPipe<512-byte slots, 2 slots> (pipe id 5) on core (0, 0) of a 1 x 2 grid"
    assert heads == [
        f"PTO runtime warning: TPUSH: {pipe}: the broadcast overwrites slot 0 of core (0, 1), 1 hop(s) "
        "EAST, which still holds tile 2 that core has not popped (one broadcast per slot: its TPOP comes "
        "before the next broadcast reaches the slot)"
    ], out.stderr
    if shutil.which("addr2line"):
        line = next(i for i, t in enumerate(PROGRAM.splitlines(), 1) if "OVERWRITES UNPOPPED" in t)
        assert f"p.cpp:{line}" in out.stderr, out.stderr


OVERWRITE_A2A3 = r"""
#include <pto/pto-inst.hpp>
#include <cstdio>
#include <vector>
using namespace pto;
using Half = Tile<TileType::Vec, float, 8, 16>;
using Row = GridPipe<Half, 8 * 16 * sizeof(float), 1>;
int main() {
    constexpr std::uint32_t kWindow = a2a3_grid::WindowBytes<Row>();
    std::vector<std::uint8_t> windows(2 * kWindow);
    GmSramArena arena{reinterpret_cast<std::uint64_t>(windows.data()), kWindow, 2};
    Row source;
    a2a3_grid::InitGridPipeFromWindow(source, GridShape{1, 2}, GridCoord{0, 0}, windows.data(), &arena, 3);
    Half out;
    TASSIGN(out, 0x0);
    TPUSH<GridSpan::ROW>(source, out);
    TPUSH<GridSpan::ROW>(source, out);
    std::puts("survived");
}
"""


@pytest.mark.thorough  # a build of its own under A2A3 for one message: CI runs it
def test_a_broadcast_over_an_unpopped_tile_stops_under_a2a3(tmp_path: Path) -> None:
    """Under the A2A3 profile, the one whose backend has the GridPipe forms, the overwrite stops."""
    exe = build_program(
        require(COMPILERS[0]), OVERWRITE_A2A3, tmp_path, "bcast", ["-DPTO_TARGET_PROFILE=PTO_PROFILE_A2A3"]
    )
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "survived" not in out.stdout
    pipe = "GridPipe<512-byte slots, 1 slots> (pipe id 3) on core (0, 0) of a 1 x 2 grid"
    assert out.stderr.startswith(
        f"PTO runtime error: TPUSH: {pipe}: the broadcast overwrites slot 0 of core (0, 1), 1 hop(s) EAST, "
        "which still holds tile 0 that core has not popped"
    ), out.stderr


TOO_BIG = r"""
#include <pto/pto-inst.hpp>
using namespace pto;
int main() {
    using Pipe = TPipe<42, Direction::DIR_C2V, 8 * 16 * sizeof(float), 2>;
    Pipe pipe;
    Tile<TileType::Vec, float, 16, 16> whole;  // twice the slot
    TPOP<Pipe, decltype(whole), TileSplitAxis::TILE_NO_SPLIT>(pipe, whole);
}
"""


@pytest.mark.thorough  # a compile of the whole header for one message: CI runs it
def test_a_tile_that_cannot_fit_a_slot_does_not_compile(tmp_path: Path) -> None:
    src = tmp_path / "big.cpp"
    src.write_text(TOO_BIG)
    includes = [f"-I{ROOT / 'generated/include'}", f"-I{ROOT / 'ptogen/runtime/include'}"]
    built = subprocess.run(
        [*cxx_argv(require(COMPILERS[0])), *SIM_FLAGS, *includes, "-fsyntax-only", str(src)],
        capture_output=True,
        text=True,
    )
    assert built.returncode != 0
    assert "TPOP: the consumer's tile does not fit the pipe's SlotSize" in built.stderr


@pytest.mark.thorough  # a sanitised build of the program per compiler: CI runs it
@pytest.mark.parametrize("compiler", COMPILERS)
def test_pipes_race_free_under_thread_sanitizer(compiler: str, tmp_path: Path) -> None:
    cxx = require(compiler)
    if not tsan_available(cxx, tmp_path):
        reason = f"{compiler} cannot build -fsanitize=thread programs here"
        if os.environ.get("CI"):
            pytest.fail(f"{reason} (CI is set)")
        pytest.skip(reason)
    exe = build_program(cxx, PROGRAM, tmp_path, "pipes_tsan", ["-fsanitize=thread", "-O1", "-g"])
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "WARNING: ThreadSanitizer" not in out.stderr, out.stderr
