"""The communication runtime (ptogen/runtime/include/pto/comm/): ranks as GlobalTensors of one
process in a ParallelGroup, strided copies and atomic adds between them, signals set, added, tested
and waited on across threads, the collectives over a group, and a TWAIT that can never hold ending
in bounded time with the signal, its value, the comparison and the call site; the host side of
upstream's multi-rank tests (every rank in one process), which include cpu_stub.hpp first."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from ..compilers import COMPILERS, build_program, require

PROGRAM = r"""
#include <pto/common/cpu_stub.hpp>  // first, as upstream's communication tests include it
#include <pto/pto-inst.hpp>
#include <pto/comm/sim_comm.hpp>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

using namespace pto;
using namespace pto::comm;

// A 3 x 5 window of a 4 x 8 row-major buffer: every copy goes through the strides.
using Win = GlobalTensor<float, Shape<1, 1, 1, 3, 5>, Stride<32, 32, 32, 8, 1>>;
using Part = GlobalTensor<int32_t, Shape<1, 1, 1, 2, 4>, Stride<8, 8, 8, 4, 1>>;
using Stacked = GlobalTensor<int32_t, Shape<1, 1, 1, 6, 4>, Stride<24, 24, 24, 4, 1>>;

static void print(const float* v, int n) {
    for (int i = 0; i < n; ++i)
        std::printf("%g ", double(v[i]));
    std::printf("\n");
}
static void print(const int32_t* v, int n) {
    for (int i = 0; i < n; ++i)
        std::printf("%d ", v[i]);
    std::printf("\n");
}

static void deadlock() {
    alignas(4) static int32_t flag = 3;
    Signal s(&flag);
    sim::comm::wait(s, 4, WaitCmp::EQ);  // WAITS_FOR_EVER
}

int main(int argc, char** argv) {
    const std::string what = argc > 1 ? argv[1] : "";
    if (what == "copy") {  // put, then add the same window again from four threads
        static float src[32], dst[32];
        for (int i = 0; i < 32; ++i)
            src[i] = float(i), dst[i] = -1.0f;
        Win s(src), d(dst);
        sim::comm::copy<false>("TPUT", d, s);
        print(dst, 32);
        std::vector<std::thread> ranks;
        for (int r = 0; r < 4; ++r)
            ranks.emplace_back([&] { sim::comm::copy<true>("TPUT", d, s); });
        for (auto& t : ranks)
            t.join();
        print(dst, 32);
        return 0;
    }
    if (what == "signals") {  // notify from threads, wait for the sum, test, a 2-D wait
        alignas(4) static int32_t counter = 0;
        Signal c(&counter);
        std::vector<std::thread> ranks;
        for (int r = 0; r < 4; ++r)
            ranks.emplace_back([&] {
                for (int k = 0; k < 10; ++k)
                    sim::comm::notify(c, 1, NotifyOp::AtomicAdd);
            });
        sim::comm::wait(c, 40, WaitCmp::GE);
        for (auto& t : ranks)
            t.join();
        const bool eq = sim::comm::test(c, 40, WaitCmp::EQ), lt = sim::comm::test(c, 40, WaitCmp::LT);
        std::printf("%d %d %d\n", counter, int(eq), int(lt));
        alignas(4) static int32_t grid[4 * 16] = {};
        Signal2D<3, 5> region(grid + 16 + 2, 16);  // rows 1..3, columns 2..6 of a 4 x 16 grid
        std::thread setter([&] {
            for (int r = 1; r <= 3; ++r)
                for (int j = 2; j < 7; ++j) {
                    Signal one(grid + r * 16 + j);
                    sim::comm::notify(one, 7, NotifyOp::Set);
                }
        });
        sim::comm::wait(region, 7, WaitCmp::EQ);
        setter.join();
        std::printf("%d %d\n", int(sim::comm::test(region, 7, WaitCmp::EQ)), grid[0]);
        return 0;
    }
    if (what == "collectives") {
        static int32_t rank[3][8], stacked[24], back[3][8], out[8];
        for (int r = 0; r < 3; ++r)
            for (int i = 0; i < 8; ++i)
                rank[r][i] = (r + 1) * 10 + i - (r == 1 ? 20 : 0);
        Part parts[3] = {Part(rank[0]), Part(rank[1]), Part(rank[2])};
        ParallelGroup<Part> group(parts, 3, 1);
        Stacked all(stacked);
        sim::comm::gather(group, all);
        print(stacked, 24);
        Part backs[3] = {Part(back[0]), Part(back[1]), Part(back[2])};
        ParallelGroup<Part> to(backs, 3, 0);
        sim::comm::scatter(to, all);
        print(back[0], 8), print(back[2], 8);
        Part result(out);
        for (auto op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min}) {
            sim::comm::reduce(group, result, op);
            print(out, 8);
        }
        sim::comm::broadcast(group, parts[1]);
        print(rank[0], 8), print(rank[2], 8);
        return 0;
    }
    if (what == "host") {  // two ranks' windows in one process: rank 0 writes into rank 1's
        SKIP_IF_RANKS_LT(HCCL_MAX_RANK_NUM);
        if (!CommMpiInit(argc, argv))
            return 3;
        alignas(4) static int32_t window[2][8] = {}, mine[8];
        CommDeviceContext ctx{};
        ctx.rankNum = 2, ctx.winSize = sizeof(window[0]);
        for (uint32_t r = 0; r < ctx.rankNum; ++r)
            ctx.windowsIn[r] = reinterpret_cast<uint64_t>(window[r]);
        for (int i = 0; i < 8; ++i)
            mine[i] = 100 + i;
        using Row = GlobalTensor<int32_t, Shape<1, 1, 1, 1, 8>, Stride<8, 8, 8, 8, 1>>;
        Row from(mine), peer(reinterpret_cast<int32_t*>(ctx.windowsIn[1]));
        sim::comm::copy<false>("TPUT", peer, from);
        HcclHostBarrier(nullptr, nullptr);
        CommMpiFinalize();
        print(window[1], 8), print(window[0], 8);
        return 0;
    }
    if (what == "lenient") {  // what upstream's simulator takes beyond the devices' rules (CPU profile)
        static float from[8];
        static half to[8];
        for (int i = 0; i < 8; ++i)
            from[i] = 0.5f * float(i);
        using F = GlobalTensor<float, Shape<1, 1, 1, 1, 8>, Stride<8, 8, 8, 8, 1>>;
        using H = GlobalTensor<half, Shape<1, 1, 1, 1, 8>, Stride<8, 8, 8, 8, 1>>;
        F src(from);
        H dst(to);
        Tile<TileType::Vec, float, 1, 8> staging;
        TASSIGN(staging, 0x0);
        comm::TPUT(dst, src, staging);  // converts each element
        alignas(4) static float level = 1.5f;
        alignas(4) static uint32_t mark = 7;
        GlobalTensor<float, Shape<1, 1, 1, 1, 1>, Stride<1, 1, 1, 1, 1>> flevel(&level);
        GlobalTensor<uint32_t, Shape<1, 1, 1, 1, 1>, Stride<1, 1, 1, 1, 1>> umark(&mark);
        comm::TNOTIFY(flevel, 3, NotifyOp::AtomicAdd);
        const bool seven = comm::TTEST(umark, 7, WaitCmp::EQ);
        std::printf("%g %g %g %d\n", double(float(to[1])), double(float(to[7])), double(level), int(seven));
        return 0;
    }
    if (what == "deadlock")
        deadlock();
    return 2;
}
"""


@pytest.fixture(scope="module", params=COMPILERS)
def program(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    cxx = require(request.param)
    return build_program(cxx, PROGRAM, tmp_path_factory.mktemp("comm"), "c", ["-g", "-DPTO_SIM_CALL_SITE"])


def run(program: Path, what: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(program), what], capture_output=True, text=True, timeout=60, env={**os.environ, **(env or {})}
    )


def numbers(line: str) -> list[float]:
    return [float(x) for x in line.split()]


def test_strided_copy_and_atomic_add(program: Path) -> None:
    out = run(program, "copy")
    assert out.returncode == 0, out.stderr
    put, added = (np.array(numbers(line)).reshape(4, 8) for line in out.stdout.splitlines())
    src = np.arange(32, dtype=float).reshape(4, 8)
    want = np.full((4, 8), -1.0)
    want[:3, :5] = src[:3, :5]
    assert (put == want).all()
    want[:3, :5] += 4 * src[:3, :5]
    assert (added == want).all()


def test_notify_wait_and_test_across_threads(program: Path) -> None:
    out = run(program, "signals")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["40", "1", "0", "1", "0"]


def test_collectives_loop_over_the_group(program: Path) -> None:
    out = run(program, "collectives")
    assert out.returncode == 0, out.stderr
    rows = [np.array(numbers(line), dtype=np.int64) for line in out.stdout.splitlines()]
    ranks = np.array([[(r + 1) * 10 + i - (20 if r == 1 else 0) for i in range(8)] for r in range(3)])
    assert (rows[0] == ranks.reshape(-1)).all(), "gather stacks rank r at rows 2r, 2r+1"
    assert (rows[1] == ranks[0]).all() and (rows[2] == ranks[2]).all(), "scatter hands the rows back"
    assert (rows[3] == ranks.sum(0)).all()
    assert (rows[4] == ranks.max(0)).all()
    assert (rows[5] == ranks.min(0)).all()
    assert (rows[6] == ranks[1]).all() and (rows[7] == ranks[1]).all(), "broadcast copies the root's"


def test_host_side_of_multi_rank_tests_holds_every_rank_in_one_process(program: Path) -> None:
    out = run(program, "host")
    assert out.returncode == 0, out.stderr
    peer, own = out.stdout.splitlines()
    assert numbers(peer) == [100 + i for i in range(8)] and numbers(own) == [0] * 8


def test_cpu_profile_takes_what_upstreams_simulator_takes(program: Path) -> None:
    # Element types the devices' rules refuse: a converting TPUT, a float signal notified, a 32-bit
    # unsigned signal tested by its bits.
    out = run(program, "lenient")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0.5", "3.5", "4.5", "1"]


def test_twait_that_never_holds_stops_with_the_signal_and_call_site(program: Path) -> None:
    start = time.monotonic()
    out = run(program, "deadlock", {"PTO_CPU_SIM_TWAIT_MAX_SPINS": "2000"})
    assert time.monotonic() - start < 30
    assert out.returncode != 0
    first = out.stderr.splitlines()[0]
    assert first.startswith("PTO runtime error: TWAIT: the signal at 0x")
    assert "holds 3" in first and "`signal == 4`" in first and "2000 polls" in first
    assert "WAITS_FOR_EVER" in (Path(program).parent / "c.cpp").read_text()
    line = next(i for i, t in enumerate(PROGRAM.splitlines(), 1) if "WAITS_FOR_EVER" in t)
    assert f"c.cpp:{line}" in out.stderr
